"""Promotion: a short-term memory that proved its worth becomes a note in the Obsidian vault.

For each memory: render the note (frontmatter, content, Related links to the notes of related
memories promoted before), write it atomically under a free name in the LTM folder, then mark
the memory promoted in one atomic store update that checks it is still active; if another
process promoted it meanwhile, our note is removed again. Finally the related notes get a
backlink and every note touched is re-indexed, so unified search sees it at once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Literal, cast

from engram.core.models import Memory, Relation, Schedule, Status
from engram.core.scoring import memory_score, promotion_reason
from engram.core.wording import counted
from engram.errors import ConfigError, EngramError, NotFoundError, ValidationError
from engram.services import validation as check
from engram.services.context import Context
from engram.services.ltm import LtmService, VaultAccess, require_ltm
from engram.services.maintenance import MaintenanceService, news_of
from engram.services.results import Result
from engram.vault.index import split_frontmatter
from engram.vault.render import (
    CONFLICT_TAG,
    NoteSpec,
    add_related_item,
    add_related_link,
    can_link,
    render_note,
    rewrite_note,
    slugify,
    title_of,
    wikilink,
)
from engram.vault.writer import MAX_SUFFIX, VaultFiles

log = logging.getLogger(__name__)

# The fields of a memory its note shows: a change to any of them rewrites the note.
MIRRORED = ("content", "tags", "entities", "source", "context", "strength")
# How often a promotion writes the note again when the memory was edited meanwhile.
CLAIM_ATTEMPTS = 3

Action = Literal["promoted", "would_promote", "already_promoted"]
Reason = Literal["usage", "score", "manual"]


class PromotionItem(Result):
    memory_id: str
    action: Action
    reason: Reason | None
    score: float
    path: str | None  # the note, relative to the vault (for a dry run: where it would go)
    title: str


class PromotionResult(Result):
    """What a promotion run did (or, for a dry run, would do); `message` says it in a line."""

    dry_run: bool
    count: int  # memories promoted now (or that would be)
    items: list[PromotionItem]
    message: str


class PromotionService:
    def __init__(
        self, ctx: Context, maintenance: MaintenanceService, ltm: LtmService, vault: VaultAccess
    ) -> None:
        self.ctx = ctx
        self.maintenance = maintenance
        self.ltm = ltm
        self.vault = vault

    def promote(
        self, memory_id: str | None = None, auto_detect: bool = False, dry_run: bool = False
    ) -> PromotionResult:
        """Promote one memory by id, or (auto_detect) every current promotion candidate."""
        auto_detect = check.flag(auto_detect, "auto_detect")
        dry_run = check.flag(dry_run, "dry_run")
        if memory_id is not None and auto_detect:
            raise ValidationError("memory_id", "give a memory id or auto_detect, not both")
        if memory_id is None and not auto_detect:
            raise ValidationError(
                "memory_id", "give the id of the memory to promote, or auto_detect=true"
            )
        require_ltm(self.ctx)
        files = self.vault.files()
        if memory_id is not None:
            targets = [(self._memory(memory_id), "manual")]
        else:
            found = self.maintenance.every_promotion_candidate()
            targets = [(c.memory, c.reason) for c in found]
        _check_folder(files, self.vault.folder)
        items: list[PromotionItem] = []
        planned: set[str] = set()  # the names a dry run has handed out already
        for memory, reason in targets:
            try:
                items.append(self._one(files, memory, reason, dry_run, planned))
            except (NotFoundError, ValidationError) as exc:
                if memory_id is not None:
                    raise
                log.info("not promoted: %s", exc)  # deleted or archived by another client
        return PromotionResult(
            dry_run=dry_run,
            count=sum(i.action != "already_promoted" for i in items),
            items=items,
            message=_message(items, dry_run, auto_detect),
        )

    def promote_due(self, dry_run: bool = False) -> list[str]:
        """Auto-promotion during gc: the ids promoted now (or, in a dry run, that would be)."""
        result = self.promote(auto_detect=True, dry_run=dry_run)
        done = "would_promote" if dry_run else "promoted"
        return [i.memory_id for i in result.items if i.action == done]

    def _memory(self, memory_id: str) -> Memory:
        ident = check.memory_id(memory_id)
        found = self.ctx.store.get_many([ident])
        if not found:
            raise NotFoundError("memory", ident)
        if found[0].status == Status.ARCHIVED:
            raise ValidationError(
                "memory_id", f"{ident} is archived: archived memories cannot be promoted"
            )
        # A permanent note of an outdated fact never fades: promoted by hand, "My manager is
        # Sarah Lin" (news: "I report to Tom Becker") still answered unrelated questions three
        # months on (an MCP probe). Automatic promotion skips such facts as well.
        news = news_of(self.ctx.store, [ident]).get(ident)
        if news:
            raise ValidationError(
                "memory_id",
                f"{ident} is superseded by {', '.join(news)}: promote the news instead, or "
                "delete the supersedes relation if the fact still holds",
            )
        return found[0]

    def _one(
        self,
        files: VaultFiles,
        memory: Memory,
        reason: str,
        dry_run: bool,
        planned: set[str],
        attempt: int = 1,
    ) -> PromotionItem:
        now = self.ctx.now()
        score = memory_score(self.ctx.policy, memory, self.ctx.now_epoch())
        title = title_of(memory.content)
        if reason == "manual":  # say why it deserved it, if it did
            reason = promotion_reason(self.ctx.policy, memory, self.ctx.now_epoch()) or reason
        why = cast(Reason, reason)

        def item(action: Action, path: str | None, m: Memory = memory) -> PromotionItem:
            return PromotionItem(
                memory_id=m.id, action=action, reason=why, score=score, path=path, title=title
            )

        # A promoted memory whose note was deleted (`vault status`: orphaned) gets a new note.
        note = (
            self.ltm.note_path(memory, follow=not dry_run)
            if memory.status == Status.PROMOTED
            else None
        )
        orphaned = memory.status == Status.PROMOTED and note is None
        if memory.status == Status.PROMOTED and not orphaned:
            return item("already_promoted", note).model_copy(update={"reason": None})
        folder = self.vault.folder
        stem = slugify(title, fallback=f"memory-{memory.id[:8]}")
        if dry_run:
            path = _free_name(files, folder, stem, planned)
            planned.add(path)
            return item("would_promote", path)
        related = self._related_notes(files, memory)

        def render(note_id: str) -> str:
            spec = NoteSpec(
                memory=memory,
                note_id=note_id,
                promoted_at=now,
                score=score,
                reason=why,
                related=[wikilink(path, other) for path, other in related],
            )
            return render_note(spec)

        # A promotion killed after writing its note, before marking the memory, left that note:
        # it is taken over, not written again beside it ("…-2.md", both naming the memory).
        path = _leftover_note(files, folder, stem, memory) or files.create(folder, stem, render)
        claim = self._claim(memory, now, path, memory.promoted_to if orphaned else None)
        if claim == "changed":
            # Edited by another client while its note was written: the note says what the
            # memory said before. Write it again from what the memory says now.
            files.delete(path)
            fresh = self.ctx.store.get_many([memory.id])
            if not fresh:
                raise NotFoundError("memory", memory.id)
            if attempt >= CLAIM_ATTEMPTS:
                raise ValidationError(
                    "memory_id", f"{memory.id} kept changing while it was being promoted"
                )
            return self._one(files, fresh[0], reason, dry_run, planned, attempt + 1)
        if claim == "taken":
            # Another process promoted it first: its note stays, ours goes. The note taken
            # over as a leftover may be that note, just written (audit: two clients promoting
            # one memory at once deleted its only note).
            current = self.ctx.store.get_many([memory.id])
            if not current or current[0].promoted_to != path:
                files.delete(path)
            if not current:
                raise NotFoundError("memory", memory.id)  # deleted meanwhile
            if current[0].status != Status.PROMOTED:
                raise ValidationError(
                    "memory_id", f"{memory.id} was archived while it was being promoted"
                )
            return item("already_promoted", current[0].promoted_to)
        # The memory is promoted and its note written: what follows only links and indexes.
        with _after_commit(f"{memory.id} is promoted to {path}, but linking or indexing failed"):
            touched = [path, *self._add_backlinks(files, related, path, title)]
            self.ltm.reindex(touched)
        log.info("promoted %s to %s", memory.id, path)
        return item("promoted", path)

    def sync_note(self, before: Memory, after: Memory) -> None:
        """After an update: a promoted memory's note follows what the memory says (its
        frontmatter fields and its text), keeping what the user added (`rewrite_note`). If the
        note's text was edited in the vault too, both versions stay in the note, tagged
        #engram-conflict for the user to settle (`vault status` counts them). An archived memory
        keeps its note, so the note follows it too: skipped, an edit made while it was
        archived stayed out of the note, and the next edit after `unarchive` saw the stale text
        as the user's and marked a conflict nobody made."""
        if after.promoted_to is None:
            return
        unchanged = all(getattr(before, f) == getattr(after, f) for f in MIRRORED)
        if unchanged or not self.vault.configured:
            return
        with _after_commit(f"memory {after.id} changed, but its note was not rewritten"):
            path = self.ltm.note_path(after)
            if path is None:  # gone, or another's now: never written into (`note_of`)
                log.warning(
                    "memory %s changed but its note %s is gone (`vault status`: orphaned): "
                    "not rewritten",
                    after.id,
                    after.promoted_to,
                )
                return
            self._sync(before, after, path)

    def _sync(self, before: Memory, after: Memory, path: str) -> None:
        files = self.vault.files()
        try:
            note = files.read_note(path)
        except FileNotFoundError:
            log.warning("memory %s changed but its note %s is gone: not rewritten", after.id, path)
            return
        except (OSError, ValidationError) as exc:
            log.warning("memory %s changed but its note was not rewritten: %s", after.id, exc)
            return
        rewrite = rewrite_note(note.text, before, after)
        if not files.rewrite(path, note, rewrite.text):
            log.warning(
                "memory %s changed but its note %s was saved meanwhile: not rewritten",
                after.id,
                path,
            )
            return
        self.ltm.reindex([path])
        if rewrite.conflict:
            log.warning(
                "%s was edited in the vault and memory %s changed too: both versions are in the "
                "note, tagged #%s",
                path,
                after.id,
                CONFLICT_TAG,
            )

    def link_notes(self, relation: Relation) -> None:
        """A relation between two promoted memories: each note links to the other under its
        Related heading, as if they had been promoted in that order."""
        if not self.vault.configured:
            return
        with _after_commit("the relation is stored, but its notes were not linked"):
            self._link(relation)

    def _link(self, relation: Relation) -> None:
        ends = self.ctx.store.get_many([relation.from_id, relation.to_id])
        notes = [
            (self.ltm.note_path(m), title_of(m.content))
            for m in ends
            if m.status == Status.PROMOTED
        ]
        if len(notes) != 2 or not all(path for path, _ in notes):
            return
        files = self.vault.files()
        (a, a_title), (b, b_title) = cast(list[tuple[str, str]], notes)
        touched = self._add_backlinks(files, [(a, a_title)], b, b_title)
        touched += self._add_backlinks(files, [(b, b_title)], a, a_title)
        if touched:
            self.ltm.reindex(touched)

    def mark_replaced(self, news: Memory, replaced: list[str]) -> None:
        """A promoted fact that news replaced says so in its note, under its Related heading,
        with the news's first line and day: read in Obsidian the note had stayed the fact, as
        if it still held (a vault probe), while search marked it superseded."""
        if not self.vault.configured:
            return
        with _after_commit(f"memory {news.id} replaced a promoted fact; its note does not say"):
            files = self.vault.files()
            day = news.created_at.astimezone(self.ctx.local_now().tzinfo).date().isoformat()
            said = f"Replaced by: {title_of(news.content)} ({day})"
            olds = self.ctx.store.get_many(replaced)
            paths = [self.ltm.note_path(m) for m in olds if m.status == Status.PROMOTED]
            touched = self._rewrite_related(
                files,
                [path for path in paths if path is not None],
                lambda text: None if said in text else add_related_item(text, said),
            )
            if touched:
                self.ltm.reindex(touched)

    def _claim(
        self, memory: Memory, now: datetime, path: str, replacing: str | None
    ) -> Literal["claimed", "taken", "changed"]:
        """Mark the memory promoted to `path`: an active one, or (`replacing`) a promoted one
        whose note at that path is gone, if it still says what its note was written from.
        "taken": another process got there first (or it was deleted or archived); "changed":
        it was edited since it was read."""
        changed = False

        def change(m: Memory) -> tuple[Memory, Schedule] | None:
            nonlocal changed
            orphan = replacing is not None and m.status == Status.PROMOTED
            if m.status != Status.ACTIVE and not (orphan and m.promoted_to == replacing):
                return None
            if any(getattr(m, f) != getattr(memory, f) for f in MIRRORED):
                changed = True
                return None
            update = {"status": Status.PROMOTED, "promoted_at": now, "promoted_to": path}
            return self.ctx.scheduled(m.model_copy(update=update))

        try:
            done = self.ctx.store.modify([memory.id], change)
        except NotFoundError:
            return "taken"  # deleted meanwhile
        return "claimed" if done else "changed" if changed else "taken"

    def _related_notes(self, files: VaultFiles, memory: Memory) -> list[tuple[str, str]]:
        """(path, title) of the notes of promoted memories related to this one."""
        others = {
            r.to_id if r.from_id == memory.id else r.from_id
            for r in self.ctx.store.relations([memory.id])
        }
        notes = []
        for other in self.ctx.store.get_many(sorted(others)):
            path = self.ltm.note_path(other) if other.status == Status.PROMOTED else None
            if path is None:
                continue
            if can_link(path):
                notes.append((path, title_of(other.content)))
            else:
                log.info("note %s is not linked to: no wikilink can hold its name", path)
        return notes

    def _add_backlinks(
        self, files: VaultFiles, related: list[tuple[str, str]], path: str, title: str
    ) -> list[str]:
        changed: list[str] = []
        if not can_link(path):
            log.info("note %s is not linked to: no wikilink can hold its name", path)
            return changed
        link = wikilink(path, title)
        return self._rewrite_related(
            files, [other for other, _ in related], lambda text: add_related_link(text, link, path)
        )

    @staticmethod
    def _rewrite_related(
        files: VaultFiles, paths: list[str], added: Callable[[str], str | None]
    ) -> list[str]:
        """The notes at `paths` rewritten with what `added` puts under their Related heading
        (None: nothing to add); the paths rewritten. A note that cannot be read is passed over,
        said in the log: the others are still written."""
        changed: list[str] = []
        for path in paths:
            try:
                note = files.read_note(path)
            except (OSError, ValidationError) as exc:
                log.warning("cannot add under Related in %s: %s", path, exc)
                continue
            updated = added(note.text)
            if updated is not None and files.rewrite(path, note, updated):
                changed.append(path)
        return changed


@contextmanager
def _after_commit(what: str) -> Iterator[None]:
    """Vault work that follows a change the store has already committed (a memory updated,
    related or promoted): a failure (the vault away, a full disk) is logged, not raised. Raised,
    it told the caller that a change it had made failed, and a retry found it done."""
    try:
        yield
    except (OSError, EngramError) as exc:
        log.warning("%s: %s", what, exc)


def _leftover_note(files: VaultFiles, folder: str, stem: str, memory: Memory) -> str | None:
    """A note at one of the names a promotion of `memory` would take that names it and still
    starts with its text: what a promotion that was killed before it marked the memory wrote.
    One the user edited since is left alone (a new note is written)."""
    for n in range(1, MAX_SUFFIX + 1):
        name = stem if n == 1 else f"{stem}-{n}"
        rel = f"{folder}/{name}.md" if folder else f"{name}.md"  # as `VaultFiles.create` names
        if not files.exists(rel):
            return None
        try:
            meta, body, problem = split_frontmatter(files.read_note(rel).text)
        except (OSError, ValidationError):
            continue
        said = body.lstrip().startswith(memory.content.strip())
        if problem is None and meta.get("engram_id") == memory.id and said:
            return rel
    return None


def _free_name(files: VaultFiles, folder: str, stem: str, planned: set[str]) -> str:
    """The name a real run would give the note (as `VaultFiles.create` chooses it), after the
    names this dry run has already given (two candidates with one title get two names)."""
    n = 1
    while True:
        name = f"{stem}.md" if n == 1 else f"{stem}-{n}.md"
        path = f"{folder}/{name}"
        if path not in planned and not files.exists(path):
            return path
        n += 1


def _check_folder(files: VaultFiles, folder: str) -> None:
    """The notes folder must be a folder (or not exist yet): a file of that name made the
    real run fail with a bare "File exists" after its dry run had listed what it would do."""
    target = files.resolve(folder, "ENGRAM_LTM_FOLDER")
    # Each folder on the way too: `Memory/Engram` with a file named `Memory` passed the dry
    # run and failed the real one with a bare "Not a directory".
    parts = target.relative_to(files.root).parts
    for depth in range(1, len(parts) + 1):
        path = files.root.joinpath(*parts[:depth])
        if path.exists() and not path.is_dir():
            raise ConfigError(
                f"ENGRAM_LTM_FOLDER: {path.relative_to(files.root).as_posix()!r} in the vault "
                "is a file, not a folder; rename it or choose another folder"
            )


def _message(items: list[PromotionItem], dry_run: bool, auto: bool) -> str:
    if not items:
        return "No memory is due for promotion." if auto else "Nothing to promote."
    done = [i for i in items if i.action != "already_promoted"]
    if len(items) == 1 and not done:
        i = items[0]
        return f"Memory {i.memory_id} is already promoted ({i.path}); nothing to do."
    memories = counted(len(done), "memory")
    if dry_run:
        return f"Dry run: {memories} would be promoted; nothing was changed."
    where = f": {done[0].path}" if len(done) == 1 else ""
    return f"Promoted {memories} to the vault{where}."
