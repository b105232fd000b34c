"""Note → memory: notes the user marks in the vault become memories (`engram vault import`).

A note opts in with `engram: memory` in its frontmatter. Its body becomes the memory's text,
its tags the memory's tags; the memory is promoted at once, with the note as its note (so it
never fades and later edits of the memory rewrite the note, `PromotionService.sync_note`), and
the note gets the memory's id as `engram_id`, which is also what keeps a second import from
copying it. A note whose text a memory already holds (a repeat, as a save sees one) is not
copied either: that memory is promoted to the note. The note's wikilinks to other notes that
are memories become `related` relations. A dry run (the default) lists what would be imported
and changes nothing.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NamedTuple

from pydantic import Field

from engram.core.merge import statement_key
from engram.core.models import Memory, Schedule, Status
from engram.core.notes import Note
from engram.errors import NotFoundError, ValidationError
from engram.services import validation as check
from engram.services.context import Context
from engram.services.drafts import Draft
from engram.services.enrichment import merged_names
from engram.services.graph import GraphService
from engram.services.ltm import LtmService, VaultAccess, require_ltm
from engram.services.memories import MemoryService
from engram.services.results import Result
from engram.vault.index import TOO_LARGE, parse_note, readable, scan, split_frontmatter
from engram.vault.render import with_engram_id
from engram.vault.writer import NoteText, VaultFiles

log = logging.getLogger(__name__)

# What adopting a memory changes (and restoring it puts back): another client's change to
# any of them since the import read the memory stops the adoption.
_ADOPTED = ("status", "promoted_at", "promoted_to", "content", "tags")
HEAD_BYTES = 65_536  # where the frontmatter of a note too large to parse whole is looked for
MARKER_KEY, MARKER_VALUE = "engram", "memory"


class ImportedNote(Result):
    path: str
    title: str
    memory_id: str | None  # None in a dry run, unless the memory exists already
    # A memory already held the note's text: it was (or, in a dry run, will be) promoted to
    # the note instead of copied.
    existing: bool = False


class _Changed(Exception):
    """The memory changed since the import read it."""


class _Ready(NamedTuple):
    note: Note
    draft: Draft
    stored: NoteText  # the text the note was read as, which takes the id back
    holder: Memory | None  # the memory that already holds the note's text, if one does


class VaultImportResult(Result):
    mode: Literal["dry run", "applied"]
    count: int
    notes: list[ImportedNote]
    relations: int  # wikilinks between memory notes made into relations (0 in a dry run)
    # path -> why that marked note was not imported (or, in a dry run, will not be)
    skipped: dict[str, str] = Field(default_factory=dict)


@dataclass(eq=False)  # a service is one object: compared and hashed by identity
class VaultImportService:
    ctx: Context
    memories: MemoryService
    graph: GraphService
    ltm: LtmService
    vault: VaultAccess

    def run(self, apply: bool = False) -> VaultImportResult:
        """Import every marked note that can be imported; each one that cannot is skipped with
        the reason (in the dry run too), and the others go ahead."""
        apply = check.flag(apply, "apply")
        require_ltm(self.ctx)
        files = self.vault.files()
        notes = self._notes()
        ready, skipped = self._importable(
            files, [n for n in notes if _marked(n) and not n.engram_id]
        )
        # A note too large to index is read by its name only, and one whose frontmatter is
        # not YAML has none: their mark was not seen, and they were left out without a word.
        # Their head says whether they are marked.
        for note in notes:
            if note.problem and _marked_head(files.root, note.path):
                too_large = note.problem.startswith(TOO_LARGE)
                skipped[note.path] = f"the note is {TOO_LARGE}" if too_large else note.problem
        if not apply:
            items = [
                ImportedNote(
                    path=r.note.path,
                    title=r.note.title,
                    memory_id=r.holder.id if r.holder else None,
                    existing=r.holder is not None,
                )
                for r in ready
            ]
            return VaultImportResult(
                mode="dry run", count=len(items), notes=items, relations=0, skipped=skipped
            )
        fresh = [r for r in ready if r.holder is None]
        saved = self.memories.save_many([r.draft for r in fresh], by_time=False) if fresh else []
        by_id = {m.id: r for m, r in zip(saved, fresh, strict=True)}
        self._promote(by_id)
        adopted: dict[str, tuple[Memory, Memory]] = {}
        for r in ready:
            if r.holder is not None:
                outcome = self._adopt(r)
                if isinstance(outcome, str):
                    skipped[r.note.path] = outcome
                else:
                    adopted[r.holder.id], by_id[r.holder.id] = outcome, r
        for memory_id, r in list(by_id.items()):
            problem = _write_id(files, r.note.path, memory_id, r.stored)
            if problem is not None:
                # Without its id the note would be imported again by the next run: the memory
                # goes (or, if it was there before, is as it was), and the note waits for it.
                if memory_id in adopted:
                    self._restore(*adopted[memory_id])
                else:
                    self.ctx.store.delete([memory_id])
                del by_id[memory_id]
                skipped[r.note.path] = problem
        paths = {memory_id: r.note.path for memory_id, r in by_id.items()}
        self.ltm.reindex(list(paths.values()))
        # A note's engram_id may name a memory deleted since (or be made up): linking to it
        # failed the import after its memories were saved, and the next run had nothing left
        # to import, so the relations were never made.
        claimed = {n.path: n.engram_id for n in notes if n.engram_id}
        alive = {m.id for m in self.ctx.store.get_many(list(set(claimed.values())))}
        promoted = {path: ident for path, ident in claimed.items() if ident in alive}
        relations = self._relate(paths, promoted | {path: ident for ident, path in paths.items()})
        items = [
            ImportedNote(
                path=r.note.path, title=r.note.title, memory_id=i, existing=r.holder is not None
            )
            for i, r in by_id.items()
        ]
        log.info("imported %d notes as memories, %d relations", len(items), relations)
        return VaultImportResult(
            mode="applied", count=len(items), notes=items, relations=relations, skipped=skipped
        )

    def _promote(self, new: dict[str, _Ready]) -> None:
        """The memories just saved from notes, promoted with their notes as their notes."""
        now = self.ctx.now()

        def promote(m: Memory) -> tuple[Memory, Schedule]:
            update = {
                "status": Status.PROMOTED,
                "promoted_at": now,
                "promoted_to": new[m.id].note.path,
            }
            return self.ctx.scheduled(m.model_copy(update=update))

        if new:
            self.ctx.store.modify(list(new), promote)

    def _adopt(self, ready: _Ready) -> tuple[Memory, Memory] | str:
        """Promote the memory that already holds a note's text (or is promoted to this note,
        which lost its engram_id line) to that note, with the note's tags and its wording (the
        note's words, case and punctuation, so that the next change of the memory does not read
        the difference as an edit made in the vault):
        the memory before and after, or why it cannot be. A memory another client changed
        since the import read it is left as it is (its change would be lost)."""
        holder, note, draft = ready.holder, ready.note, ready.draft
        assert holder is not None
        now = self.ctx.now()

        def adopt(m: Memory) -> tuple[Memory, Schedule]:
            if any(getattr(m, f) != getattr(holder, f) for f in _ADOPTED):
                raise _Changed
            update = {
                "status": Status.PROMOTED,
                "promoted_at": m.promoted_at or now,
                "promoted_to": note.path,
                "content": draft.content,
                "tags": check.tags(merged_names(m.tags, draft.tags)),
            }
            return self.ctx.scheduled(m.model_copy(update=update))

        try:
            ((before, after),) = self.ctx.store.modify([holder.id], adopt)
        except NotFoundError:
            return f"memory {holder.id}, which holds its text, was deleted: run the import again"
        except _Changed:
            return f"memory {holder.id}, which holds its text, changed: run the import again"
        except ValidationError as exc:  # tags added by another client since they were counted
            return f"memory {holder.id} holds its text already: {exc}"
        if after.content != before.content:
            self.ctx.embed_later([(after.id, after.content)])
        return before, after

    def _restore(self, before: Memory, after: Memory) -> None:
        """A memory adopted by a note that could not take its id, as it was before — unless
        another client changed it since (then its change stays, and so does the promotion)."""

        def restore(m: Memory) -> tuple[Memory, Schedule]:
            if any(getattr(m, f) != getattr(after, f) for f in _ADOPTED):
                raise _Changed
            return self.ctx.scheduled(
                m.model_copy(update={f: getattr(before, f) for f in _ADOPTED})
            )

        try:
            self.ctx.store.modify([before.id], restore)
        except (NotFoundError, _Changed):
            return
        if before.content != after.content:
            self.ctx.embed_later([(before.id, before.content)])

    def _importable(
        self, files: VaultFiles, marked: list[Note]
    ) -> tuple[list[_Ready], dict[str, str]]:
        """The marked notes that can become memories — each with its draft, the text it was
        made from (a note edited in between is then not given the id of a memory of its old
        text) and the memory already holding its text — and why each of the others cannot
        (one note over a limit used to fail the whole import)."""
        ready: list[_Ready] = []
        skipped: dict[str, str] = {}
        first_with: dict[str, str] = {}  # statement key -> the note imported with that text
        copies = self.ctx.settings.save_duplicates == "keep"
        owners: dict[str, Memory] | None = None  # note path -> the memory promoted to it
        for listed in marked:
            try:
                stored = files.read_note(listed.path)  # whole and UTF-8, to be written back
                note = parse_note(listed.path, stored.text.encode("utf-8"))
                if not _marked(note) or note.engram_id:
                    continue  # changed since it was listed
                with_engram_id(stored.text, "x")  # its frontmatter can take an id
                draft = Draft(
                    content=check.content(note.body.strip() or note.title),
                    tags=list(check.tags(note.tags)),
                    source=f"vault:{note.path}",
                )
            except (OSError, ValueError, ValidationError) as exc:
                skipped[listed.path] = _reason(exc)
                continue
            # A note that lost its engram_id line is still its memory's, edited or not: only
            # a repeat of the text was looked for, so an edited one became a second memory and
            # left the first promoted to it, an orphan never forgotten (probe).
            if owners is None:
                owners = {m.promoted_to: m for m in self.ltm.promoted_memories() if m.promoted_to}
            holder = owners.get(listed.path)
            if holder is None and not copies:
                holder = self.memories.repeat_of(draft.content)
            first = first_with.get(statement_key(draft.content))
            problem = self._repeat_problem(holder, note.path, draft, first)
            if problem is not None:
                skipped[listed.path] = problem
                continue
            if not copies:
                first_with.setdefault(statement_key(draft.content), listed.path)
            ready.append(_Ready(note, draft, stored, holder))
        return ready, skipped

    def _repeat_problem(
        self, holder: Memory | None, path: str, draft: Draft, first: str | None
    ) -> str | None:
        """Why a note whose text is already remembered cannot be imported, if it cannot:
        another note of this import has the same text, the memory has a note of its own (one
        whose note was deleted, or that is this note, which lost its id, takes this one), or
        the merged tags would pass the limit."""
        if first is not None:
            return f"{first}, imported in the same run, has the same text"
        if holder is None:
            return None
        if holder.status == Status.PROMOTED and holder.promoted_to != path:
            elsewhere = self.ltm.note_path(holder)
            if elsewhere is not None and elsewhere != path:
                return f"memory {holder.id} holds its text already, with the note {elsewhere}"
        tags = merged_names(holder.tags, draft.tags)
        if len(tags) > check.MAX_TAGS:
            return (
                f"memory {holder.id} holds its text already; with the note's tags it would have "
                f"{len(tags)}, and the limit is {check.MAX_TAGS}"
            )
        return None

    def _notes(self) -> list[Note]:
        """Every note of the vault, parsed (an import reads them all: it is run by hand)."""
        root = self.vault.files().root
        out = []
        for entry in scan(root):
            read = readable(root, entry.path)  # one it cannot read stays in the vault only
            if read is not None:
                out.append(parse_note(entry.path, read[0]))
        return out

    def _relate(self, imported: dict[str, str], memory_of: dict[str, str]) -> int:
        """`related` relations along the wikilinks of the imported notes, to any note that is
        a memory's (`memory_of`, path → id: imported now, or promoted before)."""
        # All pairs first: a relation made below links the two notes back (`link_notes`), and
        # that new link must not be read as a second relation.
        pairs: dict[frozenset[str], tuple[str, str]] = {}
        for memory_id, path in imported.items():
            links = self.ctx.store.ltm_links(path)
            for target in links.outgoing if links else ():
                other = memory_of.get(target)
                if other and other != memory_id:
                    pairs.setdefault(frozenset((memory_id, other)), (memory_id, other))
        made = 0
        for source, target in pairs.values():
            try:
                # From a wikilink between the two notes: the notes stay as written (a backlink
                # was appended to the note linked to, which Obsidian shows by itself).
                self.graph.relate_linked_notes(source, target)
                made += 1
            except NotFoundError:  # deleted meanwhile by another client
                log.info("not related: %s or %s is gone", source, target)
        return made


def _write_id(files: VaultFiles, path: str, memory_id: str, stored: NoteText) -> str | None:
    """Write the memory's id into the note as it was read; why not, if it could not be."""
    try:
        if files.rewrite(path, stored, with_engram_id(stored.text, memory_id)):
            return None
        return "the note changed while it was imported: run the import again"
    except (OSError, ValueError, ValidationError) as exc:
        return _reason(exc)


def _reason(exc: OSError | ValueError | ValidationError) -> str:
    return exc.strerror or str(exc) if isinstance(exc, OSError) else str(exc)


def _marked_head(root: Path, path: str) -> bool:
    """Whether a note the index could not read (too large to parse whole, or frontmatter that
    is not YAML) is marked for import: by its frontmatter, or by a line of it that says so."""
    try:
        with (root / path).open("rb") as f:
            head = f.read(HEAD_BYTES).decode("utf-8", errors="replace").lstrip("\ufeff")
    except OSError:
        return False
    end = head.find("\n---", 3)
    if not head.startswith("---") or end < 0:
        return False
    meta, _, problem = split_frontmatter(head[: end + 4] + "\n")
    if problem is None:
        return _is_marker(meta.get(MARKER_KEY))
    return _MARKER_LINE.search(head[:end]) is not None


_MARKER_LINE = re.compile(
    rf"""^{MARKER_KEY}:[ \t]*['"]?{MARKER_VALUE}['"]?[ \t]*(#.*)?$""", re.IGNORECASE | re.MULTILINE
)


def _marked(note: Note) -> bool:
    return _is_marker(note.frontmatter.get(MARKER_KEY))


def _is_marker(value: object) -> bool:
    return isinstance(value, str) and value.strip().casefold() == MARKER_VALUE
