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
from typing import Literal

from engram.core.models import Memory, Schedule, Status
from engram.core.notes import Note
from engram.services.context import Context
from engram.services.graph import GraphService
from engram.services.ltm import LtmService, VaultAccess, require_ltm
from engram.services.memories import Draft, MemoryService
from engram.services.results import Result
from engram.vault.index import parse_note, readable, scan, split_frontmatter
from engram.vault.render import dump_yaml

log = logging.getLogger(__name__)

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
        require_ltm(self.ctx)
        files = self.vault.files()
        notes = self._notes()
        marked = [n for n in notes if _marked(n) and not n.engram_id]
        if not apply:
            items = [ImportedNote(path=n.path, title=n.title, memory_id=None) for n in marked]
            return VaultImportResult(mode="dry run", count=len(items), notes=items, relations=0)
        drafts = [
            Draft(
                content=n.body.strip() or n.title,
                tags=list(n.tags),
                source=f"vault:{n.path}",
            )
            for n in marked
        ]
        saved = self.memories.save_many(drafts)
        now = self.ctx.now()
        by_id = {m.id: n.path for m, n in zip(saved, marked, strict=True)}

        def promote(m: Memory) -> tuple[Memory, Schedule]:
            update = {"status": Status.PROMOTED, "promoted_at": now, "promoted_to": by_id[m.id]}
            return self.ctx.scheduled(m.model_copy(update=update))

        self.ctx.store.modify(list(by_id), promote)
        for memory_id, path in by_id.items():
            meta, body, _ = split_frontmatter(files.read_text(path))
            meta["engram_id"] = memory_id
            files.write(path, "---\n" + dump_yaml(meta) + "---\n" + body)
        self.ltm.reindex(list(by_id.values()))
        promoted = {n.path: n.engram_id for n in notes if n.engram_id}
        relations = self._relate(by_id, promoted | {path: ident for ident, path in by_id.items()})
        items = [
            ImportedNote(path=n.path, title=n.title, memory_id=m.id)
            for m, n in zip(saved, marked, strict=True)
        ]
        log.info("imported %d notes as memories, %d relations", len(items), relations)
        return VaultImportResult(mode="applied", count=len(items), notes=items, relations=relations)

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
        for source, target in pairs.values():
            self.graph.create_relation(source, target, "related")
        return len(pairs)


def _marked(note: Note) -> bool:
    value = note.frontmatter.get(MARKER_KEY)
    return isinstance(value, str) and value.strip().casefold() == MARKER_VALUE
