"""Note → memory: notes the user marks in the vault become memories (`engram vault import`).

A note opts in with `engram: memory` in its frontmatter. Its body becomes the memory's text,
its tags the memory's tags; the memory is promoted at once, with the note as its note (so it
never fades and later edits of the memory rewrite the note, `PromotionService.sync_note`), and
the note gets the memory's id as `engram_id`, which is also what keeps a second import from
copying it. The note's wikilinks to other notes that are memories become `related` relations.
A dry run (the default) lists what would be imported and changes nothing.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Literal

from pydantic import Field

from engram.core.models import Memory, Schedule, Status
from engram.core.notes import Note
from engram.errors import NotFoundError, ValidationError
from engram.services import validation as check
from engram.services.context import Context
from engram.services.graph import GraphService
from engram.services.ltm import LtmService, VaultAccess, require_ltm
from engram.services.memories import Draft, MemoryService
from engram.services.results import Result
from engram.vault.index import TOO_LARGE, parse_note, readable, scan, split_frontmatter
from engram.vault.render import with_engram_id
from engram.vault.writer import NoteText, VaultFiles

log = logging.getLogger(__name__)

HEAD_BYTES = 65_536  # where the frontmatter of a note too large to parse whole is looked for
MARKER_KEY, MARKER_VALUE = "engram", "memory"


class ImportedNote(Result):
    path: str
    title: str
    memory_id: str | None  # None in a dry run


class VaultImportResult(Result):
    mode: Literal["dry run", "applied"]
    count: int
    notes: list[ImportedNote]
    relations: int  # wikilinks between memory notes made into relations (0 in a dry run)
    # path -> why that marked note was not imported (or, in a dry run, will not be)
    skipped: dict[str, str] = Field(default_factory=dict)


class VaultImportService:
    def __init__(
        self,
        ctx: Context,
        memories: MemoryService,
        graph: GraphService,
        ltm: LtmService,
        vault: VaultAccess,
    ) -> None:
        self.ctx = ctx
        self.memories = memories
        self.graph = graph
        self.ltm = ltm
        self.vault = vault

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
        # A note too large to index is read by its name only, so its mark was not seen: it
        # was left out without a word. Its head says whether it is marked.
        for note in notes:
            too_large = (note.problem or "").startswith(TOO_LARGE)
            if too_large and _marked_head(files.root, note.path):
                skipped[note.path] = f"the note is {TOO_LARGE}"
        if not apply:
            items = [ImportedNote(path=n.path, title=n.title, memory_id=None) for n, _, _ in ready]
            return VaultImportResult(
                mode="dry run", count=len(items), notes=items, relations=0, skipped=skipped
            )
        saved = self.memories.save_many([draft for _, draft, _ in ready]) if ready else []
        now = self.ctx.now()
        by_id = {m.id: n.path for m, (n, _, _) in zip(saved, ready, strict=True)}
        read_as = {n.path: stored for n, _, stored in ready}

        def promote(m: Memory) -> tuple[Memory, Schedule]:
            update = {"status": Status.PROMOTED, "promoted_at": now, "promoted_to": by_id[m.id]}
            return self.ctx.scheduled(m.model_copy(update=update))

        self.ctx.store.modify(list(by_id), promote)
        for memory_id, path in list(by_id.items()):
            problem = _write_id(files, path, memory_id, read_as[path])
            if problem is not None:
                # Without its id the note would be imported again by the next run: the memory
                # goes, and the note waits for that run.
                self.ctx.store.delete([memory_id])
                del by_id[memory_id]
                skipped[path] = problem
        self.ltm.reindex(list(by_id.values()))
        # A note's engram_id may name a memory deleted since (or be made up): linking to it
        # failed the import after its memories were saved, and the next run had nothing left
        # to import, so the relations were never made.
        claimed = {n.path: n.engram_id for n in notes if n.engram_id}
        alive = {m.id for m in self.ctx.store.get_many(list(set(claimed.values())))}
        promoted = {path: ident for path, ident in claimed.items() if ident in alive}
        relations = self._relate(by_id, promoted | {path: ident for ident, path in by_id.items()})
        items = [
            ImportedNote(path=n.path, title=n.title, memory_id=m.id)
            for m, (n, _, _) in zip(saved, ready, strict=True)
            if m.id in by_id
        ]
        log.info("imported %d notes as memories, %d relations", len(items), relations)
        return VaultImportResult(
            mode="applied", count=len(items), notes=items, relations=relations, skipped=skipped
        )

    def _importable(
        self, files: VaultFiles, marked: list[Note]
    ) -> tuple[list[tuple[Note, Draft, NoteText]], dict[str, str]]:
        """The marked notes that can become memories — each with its draft and the text it was
        made from, which is what takes the id back (a note edited in between is then not
        given the id of a memory of its old text) — and why each of the others cannot (one
        note over a limit used to fail the whole import)."""
        ready: list[tuple[Note, Draft, NoteText]] = []
        skipped: dict[str, str] = {}
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
            ready.append((note, draft, stored))
        return ready, skipped

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
                self.graph.create_relation(source, target, "related")
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
    """Whether a note too large to parse whole is marked for import, from its frontmatter."""
    try:
        with (root / path).open("rb") as f:
            head = f.read(HEAD_BYTES).decode("utf-8", errors="replace").lstrip("\ufeff")
    except OSError:
        return False
    end = head.find("\n---", 3)
    if not head.startswith("---") or end < 0:
        return False
    return _is_marker(split_frontmatter(head[: end + 4] + "\n")[0].get(MARKER_KEY))


def _marked(note: Note) -> bool:
    return _is_marker(note.frontmatter.get(MARKER_KEY))


def _is_marker(value: object) -> bool:
    return isinstance(value, str) and value.strip().casefold() == MARKER_VALUE
