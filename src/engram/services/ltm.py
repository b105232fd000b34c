"""Long-term memory: the vault (ENGRAM_VAULT_PATH), its index in the store, and reading notes.

`index` brings the store's LTM index up to date with every Markdown note in the vault: files
whose mtime and size are unchanged are not read; files that changed are read and hashed, and
parsed only if their content changed; notes gone from the disk are removed. With an embedder,
every note without a vector of the current model (new, edited — a new title or body retires the
old vector in the store —, or embedded by another model) is embedded from its title and the
start of its body. The same index serves unified search (`unified.py`) and the wikilink graph
between notes.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import Field

from engram.config import Settings, config_dir
from engram.core.models import Memory, Schedule, Status
from engram.core.notes import Note, NoteState, NoteText
from engram.errors import ConfigError, NotFoundError, ValidationError
from engram.services import note_links
from engram.services import validation as check
from engram.services.context import Context
from engram.services.results import Result
from engram.services.vault_watch import VaultWatcher
from engram.storage.protocol import Capability, Filter
from engram.vault.index import (
    FileEntry,
    UnreadableNote,
    a_note,
    an_attachment,
    indexed_note,
    parse_note,
    read_file,
    readable,
    scan,
)
from engram.vault.index import digest as content_digest
from engram.vault.owner import note_exists, note_of
from engram.vault.render import CONFLICT_TAG
from engram.vault.writer import VaultFiles, check_relative

log = logging.getLogger(__name__)

INDEX_BATCH = 500
MAX_PROMOTED = 100_000  # promoted memories checked for a missing note by `status`
EMBED_BATCH = 256  # notes embedded and stored at once
# A note's vector is computed from its title and the start of its body, about the 128 tokens
# MiniLM was trained on; the cost of embedding grows with the length, the meaning little.
EMBED_CHARS = 600

Progress = Callable[[int, int], None]  # (files done, files in the vault)

NO_VAULT = "no vault configured"


def no_vault() -> str:
    """How to configure one, naming this machine's settings file (it said ~/.config/engram/.env
    wherever XDG_CONFIG_HOME or the platform put it)."""
    return (
        f"{NO_VAULT}: set ENGRAM_VAULT_PATH to your Obsidian vault folder (for example "
        "`export ENGRAM_VAULT_PATH=~/Documents/Obsidian/MyVault`, or that line without "
        f"`export` in {config_dir() / '.env'}; in Python, Engram.open(..., vault_path=...))"
    )


class NoteProblem(Result):
    path: str
    problem: str


class IndexReport(Result):
    """What one `index-ltm` run did. Notes with problems are indexed anyway (as plain text)."""

    vault: str
    notes: int
    added: int
    updated: int
    unchanged: int
    removed: int
    embedded: int = 0  # notes whose vector was computed in this run
    moved: int = 0  # promoted memories whose note was renamed or moved: promoted_to follows
    problems: list[NoteProblem]


class VaultStatus(Result):
    """Whether the vault and its index agree. `changed`: notes new or edited since they were
    indexed; `removed`: indexed notes gone from the disk; `orphaned`: promoted memories whose
    note is gone (they stay promoted; promote again to write a new note); `unclaimed`: notes
    naming a memory that was deleted since; `strays`: notes naming a memory whose note is
    another; `conflicts`: notes
    whose text was edited in the vault while their memory changed too. `watching`: a
    running server keeps the index in step by itself; otherwise unified search catches up
    before it searches, and `engram index-ltm` (MCP `index_vault`) does it on demand."""

    vault: str
    watching: bool
    notes_on_disk: int
    notes_indexed: int
    changed: int
    removed: int
    orphaned: list[str]
    conflicts: list[str]  # notes tagged #engram-conflict: edited in the vault and in Engram
    # Notes naming (`engram_id`) a memory that no longer exists: deleted after its promotion
    # (the note is the user's file: Engram never deletes it).
    unclaimed: list[str] = Field(default_factory=list)
    # Notes naming a memory whose note is another, or that is not promoted: a copy, or what a
    # promotion killed before it marked the memory left behind (a probe's stale second note,
    # found by `search --all` as the memory's, was reported by nothing).
    strays: list[str] = Field(default_factory=list)


class NoteSummary(Result):
    path: str
    title: str
    tags: list[str]
    engram_id: str | None


class NoteList(Result):
    folder: str
    count: int
    notes: list[NoteSummary]


class NoteView(Result):
    """One note as read from the vault, with its place in the wikilink graph (from the index)."""

    path: str
    absolute_path: str
    title: str
    tags: list[str]
    engram_id: str | None
    frontmatter: dict[str, Any]
    body: str
    links: list[str]
    backlinks: list[str]
    unresolved_links: list[str]
    problem: str | None


class VaultAccess:
    """The vault named by the settings, opened on first use so that commands which do not
    need it work without one."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._files: VaultFiles | None = None

    @property
    def configured(self) -> bool:
        return self.settings.vault_path is not None

    @property
    def folder(self) -> str:
        return check_relative(self.settings.ltm_folder, "ENGRAM_LTM_FOLDER")

    def files(self) -> VaultFiles:
        """The vault's files; ConfigError if the vault is not configured or not there now.

        Checked on every use, not once: a vault on a drive unmounted while the server runs
        looked empty, so the next index run dropped every note from the index, and a promotion
        created a stand-in vault folder where the drive would mount again."""
        if self._files is None:
            if self.settings.vault_path is None:
                raise ConfigError(no_vault())
            self._files = VaultFiles(self.settings.vault_path)
        elif not self._files.root.is_dir():
            raise ConfigError(
                f"ENGRAM_VAULT_PATH: the vault {self._files.root} is not there now (an unmounted "
                "drive, a sync client moving it?); nothing is read or written there until it is"
            )
        return self._files


def require_ltm(ctx: Context) -> None:
    if Capability.LTM not in ctx.store.capabilities:
        raise ConfigError(
            f"the store at {ctx.store.location} has no long-term-memory index "
            "(this backend does not support it); use a SQLite store for the vault features"
        )


class LtmService:
    def __init__(self, ctx: Context, vault: VaultAccess) -> None:
        self.ctx = ctx
        self.vault = vault
        self._index_lock = threading.Lock()  # one index run at a time (watcher, tools)
        self._watcher: VaultWatcher | None = None
        self._refreshed_at: float | None = None

    # -- keeping the index live -----------------------------------------------------------------

    @property
    def live(self) -> bool:
        """Whether this store indexes a vault at all."""
        return self.vault.configured and Capability.LTM in self.ctx.store.capabilities

    @property
    def watching(self) -> bool:
        return self._watcher is not None and self._watcher.running

    def watch(self) -> bool:
        """Keep the index in step with the vault from now on (a server does this): catch up
        now, then after every change (`engram.services.vault_watch`)."""
        if not self.live or self.watching:
            return self.watching
        self._watcher = VaultWatcher(self.vault.files().root, self.index)
        self._watcher.start()
        return True

    def stop_watching(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None

    def refresh(self) -> None:
        """Catch up with the vault before a unified search when nothing watches it: an
        incremental index run (it reads only files whose size or mtime changed), at most once
        every `vault_refresh_seconds`. ConfigError if the vault is away, watched or not."""
        if not self.live:
            return
        self.vault.files()
        if self._watcher is not None and self._watcher.stale:
            log.warning("the vault folder was replaced (mounted again?): watching the new one")
            self.stop_watching()
            self.watch()  # it catches up first
        if self.watching and not (self._watcher is not None and self._watcher.behind):
            return  # a watcher whose last run failed leaves this search to try again
        now = time.monotonic()
        wait = self.ctx.settings.vault_refresh_seconds
        if self._refreshed_at is not None and now - self._refreshed_at < wait:
            return
        self.index()
        self._refreshed_at = time.monotonic()

    def status(self) -> VaultStatus:
        require_ltm(self.ctx)
        files = self.vault.files()
        known = self.ctx.store.ltm_states()
        on_disk = {e.path: e for e in scan(files.root)}
        changed_paths = _changed_since_indexed(known, on_disk)
        claims = self.ctx.store.ltm_claims()
        # A note renamed since the last index run is the memory's still (the next run records
        # the move): it was reported gone, "promote it again" (probe).
        orphaned = [
            m.id
            for m in self.promoted_memories()
            if m.promoted_to
            and (m.promoted_to not in on_disk or not note_of(files, m.promoted_to, m.id))
            and _moved_note(files, m.id, claims.get(m.id, []), changed_paths) is None
        ]
        claimed = {m.id: m for m in self.ctx.store.get_many(list(claims))}
        there = set(claimed)
        strays = [
            path
            for ident, paths in claims.items()
            if ident in claimed
            for path in paths
            if path != claimed[ident].promoted_to and path not in changed_paths
        ]
        return VaultStatus(
            vault=str(files.root),
            watching=self.watching,
            notes_on_disk=len(on_disk),
            notes_indexed=len(known),
            changed=len(changed_paths),
            removed=sum(1 for path in known if path not in on_disk),
            orphaned=sorted(orphaned),
            conflicts=sorted(n.path for n in self.ctx.store.ltm_search([], [CONFLICT_TAG], 1000)),
            # the notes whose `engram_id` names no memory now
            unclaimed=sorted(p for i, paths in claims.items() if i not in there for p in paths),
            strays=sorted(strays),
        )

    # -- indexing -------------------------------------------------------------------------------

    def index(self, progress: Progress | None = None) -> IndexReport:
        """Bring the LTM index up to date with the vault (incrementally)."""
        require_ltm(self.ctx)
        with self._index_lock:
            return self._index(progress)

    def _index(self, progress: Progress | None) -> IndexReport:
        files = self.vault.files()
        store = self.ctx.store
        known = store.ltm_states()
        # Who each indexed note named: a note that names a memory where the indexed one did not
        # arrived there, though its path was known (renamed onto a stub the user deleted, or
        # two notes swapping names) and was not followed (audit). Read at the first changed
        # note naming a memory (most runs have none); each path is decided once, so the notes
        # already written anew by then do not matter.
        named_before: dict[str, str] | None = None
        entries = scan(files.root)
        total = len(entries)
        seen: set[str] = set()
        counts = {"added": 0, "updated": 0, "unchanged": 0, "embedded": 0}
        arrived: dict[str, str] = {}  # engram_id -> path of new notes that name a memory
        problems: list[NoteProblem] = []  # found in this run
        unreadable: list[NoteProblem] = []
        upsert: list[Note] = []
        restate: list[NoteState] = []
        for done, entry in enumerate(entries, 1):
            seen.add(entry.path)
            old = known.get(entry.path)
            if old and (old.mtime_ns, old.size) == (entry.mtime_ns, entry.size):
                counts["unchanged"] += 1
            else:
                try:
                    read = read_file(files.root, entry.path)
                except UnreadableNote as exc:  # kept as indexed before; said why
                    unreadable.append(NoteProblem(path=entry.path, problem=str(exc)))
                    problems.append(unreadable[-1])
                    counts["unchanged"] += 1
                    read = None
                else:
                    if read is None:
                        seen.discard(entry.path)  # deleted while we scanned
                if read is not None:
                    data, mtime_ns, size = read
                    digest = content_digest(data)
                    if old and old.digest == digest:
                        restate.append(NoteState(entry.path, mtime_ns, size, digest))
                        counts["unchanged"] += 1
                    else:
                        note = indexed_note(entry.path, data, mtime_ns, size, digest)
                        upsert.append(note)
                        counts["updated" if old else "added"] += 1
                        if note.engram_id and old is not None and named_before is None:
                            indexed = store.ltm_claims()
                            named_before = {p: i for i, paths in indexed.items() for p in paths}
                        if note.engram_id and (named_before or {}).get(note.path) != note.engram_id:
                            arrived[note.engram_id] = note.path
                        if note.problem:
                            problems.append(NoteProblem(path=note.path, problem=note.problem))
            if len(upsert) + len(restate) >= INDEX_BATCH:
                store.ltm_write(upsert=upsert, restate=restate)
                counts["embedded"] += self._embed_missing() if upsert else 0
                upsert, restate = [], []
            if progress is not None:
                progress(done, total)
        removed = [path for path in known if path not in seen]
        # A note copied in an earlier pass and its original deleted in this one (a sync
        # client's "conflicted copy", a duplicate then delete): the copy did not arrive now,
        # yet it is where the memory's note is, if it is the one note left naming the memory.
        # Only the memories a removed note named are looked at.
        claims = store.ltm_claims() if removed else {}
        store.ltm_write(upsert=upsert, restate=restate, delete=removed)
        counts["embedded"] += self._embed_missing()
        gone = set(removed)
        for engram_id, paths in claims.items():
            left = [p for p in paths if p not in gone]
            if len(left) == 1 and len(left) < len(paths) and engram_id not in arrived:
                arrived[engram_id] = left[0]
        counts["moved"] = self._follow_moves(arrived, seen)
        for problem in problems:  # the ones found now: a watching server indexes often
            log.info("%s: %s", problem.path, problem.problem)
        # Every note indexed with a problem, not only those read in this run: one that a
        # watching server or a unified search had indexed first was never reported (probe).
        # A note that could not be read at all is not in the index as it is now: said apart.
        listed = {p.path: p for p in unreadable}
        for path, why in store.ltm_problems().items():
            listed.setdefault(path, NoteProblem(path=path, problem=why))
        return IndexReport(
            vault=str(files.root),
            notes=len(seen),
            removed=len(removed),
            problems=[listed[path] for path in sorted(listed)],
            **counts,
        )

    def _follow_moves(self, arrived: dict[str, str], present: set[str]) -> int:
        """A memory's note renamed or moved in the vault: the memory's `promoted_to` follows it
        (the new file names the memory in `engram_id`; the old one is gone). An archived memory
        keeps its note and follows it as a promoted one does: `unarchive` would otherwise bring
        it back pointing at a path that is gone, and a promotion wrote it a second note."""
        if not arrived:
            return 0

        # The note at a memory's old path may be another's now (the user's, under the name
        # they renamed this one from): only a note naming the memory keeps it there.
        claims = self.ctx.store.ltm_claims()

        def follow(m: Memory) -> tuple[Memory, Schedule] | None:
            path = arrived[m.id]
            still = m.promoted_to in present and m.promoted_to in claims.get(m.id, ())
            if m.promoted_to is None or m.promoted_to == path or still:
                return None  # not ours to move, already right, or its note is still there
            log.info("memory %s: its note moved from %s to %s", m.id, m.promoted_to, path)
            return self.ctx.scheduled(m.model_copy(update={"promoted_to": path}))

        known = [m.id for m in self.ctx.store.get_many(list(arrived))]
        moved = self.ctx.store.modify(known, follow) if known else []
        self._retarget([(old.promoted_to, new.promoted_to) for old, new in moved])
        return len(moved)

    def _retarget(self, moves: list[tuple[str | None, str | None]]) -> None:
        pairs = [(a, b) for a, b in moves if a and b]
        touched = note_links.retarget(self.ctx, self.vault.files(), pairs) if pairs else []
        if touched:
            log.info("wikilinks to moved notes rewritten in %d notes", len(touched))
            self.reindex(touched)

    def _embed_missing(self) -> int:
        """Embed every note lacking a vector of the current model, batch by batch."""
        embedder = self.ctx.semantic
        if embedder is None:
            return 0
        done = 0
        while missing := self.ctx.store.ltm_missing_vectors(embedder.model_id, EMBED_BATCH):
            stored = self._embed(missing)
            if stored == 0:  # all changed by another process meanwhile: its index run embeds
                break
            done += stored
        return done

    def _embed(self, notes: list[NoteText]) -> int:
        """Embed these notes and store the vectors (skipped for a note changed meanwhile)."""
        embedder = self.ctx.semantic
        if embedder is None or not notes:
            return 0
        vectors = embedder.embed_batch([embedding_text(n.title, n.body) for n in notes])
        items = [(n.path, n.digest, vectors[i]) for i, n in enumerate(notes)]
        return self.ctx.store.ltm_put_vectors(items, embedder.model_id)

    def reindex(self, paths: list[str]) -> None:
        """Re-read a few notes just written (a promotion and its backlinks)."""
        if Capability.LTM not in self.ctx.store.capabilities:
            return
        root = self.vault.files().root
        notes = []
        for path in paths:
            read = readable(root, path)
            if read is not None:
                data, mtime_ns, size = read
                notes.append(indexed_note(path, data, mtime_ns, size))
        self.ctx.store.ltm_write(upsert=notes)
        self._embed([NoteText(n.path, n.digest, n.title, n.body) for n in notes])

    # -- read-only helpers --------------------------------------------------------------------

    def list_notes(self, everything: bool = False) -> NoteList:
        """Notes in the LTM folder (or, with `everything`, the whole vault), by path."""
        files = self.vault.files()
        folder = "" if everything else self.vault.folder
        base = files.resolve(folder) if folder else files.root
        prefix = f"{folder}/" if folder else ""
        notes = []
        for entry in scan(base) if base.is_dir() else []:
            path = prefix + entry.path
            read = readable(files.root, path)
            if read is None:
                continue
            note = parse_note(path, read[0])
            notes.append(
                NoteSummary(
                    path=path, title=note.title, tags=list(note.tags), engram_id=note.engram_id
                )
            )
        return NoteList(folder=folder or ".", count=len(notes), notes=notes)

    def show(self, path: str) -> NoteView:
        """A note by its path relative to the vault."""
        files = self.vault.files()
        clean = check_relative(path.strip(), "path", existing=True)
        if not a_note(clean) and files.root.joinpath(clean + ".md").is_file():  # "People/Lena"
            clean += ".md"
        if not a_note(clean):  # `.obsidian/app.json` and a PNG were shown as notes (a probe)
            raise ValidationError("path", f"{clean} is not a note (a .md file, not hidden)")
        target = files.resolve(clean, "path", existing=True)
        if not target.is_file():
            raise NotFoundError("note", clean)
        try:
            read = read_file(files.root, clean)
        except UnreadableNote as exc:
            raise ValidationError("path", f"{clean} {exc}") from None
        if read is None:
            raise NotFoundError("note", clean)
        note = parse_note(clean, read[0])
        links = (
            self.ctx.store.ltm_links(clean)
            if Capability.LTM in self.ctx.store.capabilities
            else None
        )
        return NoteView(
            path=clean,
            absolute_path=str(target),
            title=note.title,
            tags=list(note.tags),
            engram_id=note.engram_id,
            frontmatter=note.frontmatter,
            body=note.body,
            links=list(links.outgoing) if links else [],
            backlinks=list(links.incoming) if links else [],
            unresolved_links=[t for t in links.unresolved if not an_attachment(files.root, t)]
            if links
            else [],
            problem=note.problem,
        )

    def open_memory(self, memory_id: str) -> NoteView:
        """The note a promoted memory was written to."""
        ident = check.memory_id(memory_id)
        found = self.ctx.store.get_many([ident])
        if not found:
            raise NotFoundError("memory", ident)
        memory = found[0]
        if not memory.promoted_to:  # an archived memory that was promoted still has its note
            raise ValidationError(
                "memory_id",
                f"{ident} is {memory.status.value} and was never promoted: it has no note "
                "(promote it first)",
            )
        path = self.note_path(memory)
        if path is not None:
            with contextlib.suppress(NotFoundError):  # deleted this moment: said below
                return self.show(path)
        # "note not found" alone left the user to guess the fix (a probe). A file at the
        # recorded path that names another memory, or none, is not this one's note: shown, it
        # served another memory's note, or the user's own (a vault probe).
        recorded, again = memory.promoted_to, f"promote memory {ident} again to write its note"
        if note_exists(self.vault.files(), recorded):
            why = "is no longer this memory's note (it names another memory, or none)"
            raise NotFoundError("note", recorded, f"{why}: {again}")
        raise NotFoundError("note", recorded, f"was deleted from the vault: {again}")

    def promoted_memories(self) -> list[Memory]:
        """The promoted memories (up to MAX_PROMOTED), whole: what `status` and `vault import`
        hold the vault's notes against."""
        promoted = self.ctx.store.browse(Filter(statuses=(Status.PROMOTED,)), MAX_PROMOTED)
        return self.ctx.store.get_many([s.id for s in promoted])

    def note_path(self, memory: Memory, *, follow: bool = True) -> str | None:
        """Where a promoted memory's note is now, or None if it is gone. A note renamed or
        moved since the last index run is found by one (it follows moves by `engram_id`):
        the recorded path was used as it was, and a promote wrote a second note, an update
        left the renamed one as it was, a relation linked to a file that was no longer there.
        `follow=False` (a dry run) changes nothing (an index run records the move and rewrites
        links to the renamed note): the notes indexed as naming the memory, and those new or
        changed since the index was run, are read instead."""
        files = self.vault.files()
        if note_of(files, memory.promoted_to, memory.id):
            return memory.promoted_to
        if memory.promoted_to is None or not self.live:
            return None
        if not follow:
            on_disk = {e.path: e for e in scan(files.root)}
            changed = _changed_since_indexed(self.ctx.store.ltm_states(), on_disk)
            claimed = self.ctx.store.ltm_claims().get(memory.id, [])
            return _moved_note(files, memory.id, claimed, changed)
        self.index()
        found = self.ctx.store.get_many([memory.id])
        now = found[0].promoted_to if found else None
        return now if note_of(files, now, memory.id) else None


def _changed_since_indexed(
    known: Mapping[str, NoteState], on_disk: Mapping[str, FileEntry]
) -> list[str]:
    return [
        path
        for path, e in on_disk.items()
        if path not in known or (known[path].mtime_ns, known[path].size) != (e.mtime_ns, e.size)
    ]


def _moved_note(
    files: VaultFiles, memory_id: str, claimed: Sequence[str], changed: Sequence[str]
) -> str | None:
    """The memory's note found without indexing (which records moves, so changes the store):
    among the notes indexed as naming it (`claimed`) and those new or changed since."""
    return next((p for p in [*claimed, *changed] if note_of(files, p, memory_id)), None)


def embedding_text(title: str, body: str) -> str:
    """What a note's vector is computed from: its title, then its body (without a first line
    that only repeats the title, as a `# heading` or not), whitespace collapsed, cut at a word
    boundary after about `EMBED_CHARS` characters."""
    lines = body.strip().splitlines()
    if lines and lines[0].lstrip("#").strip() == title.strip():
        lines = lines[1:]
    text = " ".join(" ".join(lines).split())
    head = " ".join(title.split())
    if head and text:
        stop = "" if head[-1] in ".!?:;" else "."
        text = f"{head}{stop} {text}"
    text = text or head
    if len(text) > EMBED_CHARS:
        cut = text.rfind(" ", 0, EMBED_CHARS + 1)
        text = text[: cut if cut > EMBED_CHARS // 2 else EMBED_CHARS]
    return text


__all__ = ["NO_VAULT", "IndexReport", "LtmService", "NoteList", "NoteView", "VaultAccess"]
