"""The knowledge graph: typed relations between memories, read page by page or walked several
steps from one memory."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from engram.core.models import (
    RELATION_TYPES,
    Direction,
    Memory,
    Relation,
    RelationType,
    Status,
    new_id,
)
from engram.errors import NotFoundError, ValidationError
from engram.services import validation as check
from engram.services.context import Context
from engram.services.results import GraphPage, GraphSnapshot, RelatedMemory
from engram.storage.protocol import CURSOR_MARK, Capability, Filter

MAX_GRAPH_PAGE = 1_000
MAX_SNAPSHOT = 20_000  # memories in one picture of the graph (the HTML view lays out each)
SNAPSHOT_POOL = 4  # a picture's memories are the best by score of this many times as many
MAX_DEPTH = 5
MAX_RELATED = 1_000
DIRECTIONS: tuple[Direction, ...] = ("out", "in", "both")


class GraphService:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        # Called with each relation made: the notes of two promoted memories link to each
        # other (`PromotionService.link_notes`, wired by the App).
        self.on_relate: Callable[[Relation], None] | None = None

    def create_relation(
        self,
        from_id: str,
        to_id: str,
        relation_type: str = "related",
        strength: float = 1.0,
        metadata: dict[str, Any] | None = None,
    ) -> Relation:
        """Idempotent: the same (from, to, type) returns the existing edge."""
        made = self._add(from_id, to_id, relation_type, strength, metadata)
        if self.on_relate is not None:
            self.on_relate(made)
        return made

    def relate_linked_notes(self, from_id: str, to_id: str) -> Relation:
        """`create_relation` of a `related` edge that came from a link between the notes of
        two promoted memories: the notes are not linked again (they are already)."""
        return self._add(from_id, to_id, "related", 1.0, None)

    def _add(
        self,
        from_id: str,
        to_id: str,
        relation_type: str,
        strength: float,
        metadata: dict[str, Any] | None,
    ) -> Relation:
        source = check.memory_id(from_id, "from_id")
        target = check.memory_id(to_id, "to_id")
        if source == target:
            raise ValidationError("to_id", "a memory cannot relate to itself")
        relation = Relation(
            id=new_id(),
            from_id=source,
            to_id=target,
            type=cast(RelationType, check.relation_type(relation_type)),
            strength=check.unit(strength, "strength"),
            metadata=check.meta(metadata, "metadata"),
            created_at=self.ctx.now(),
        )
        return self.ctx.store.add_relation(relation)

    def delete_relation(self, relation_id: str) -> Relation:
        """Remove one edge (a link made by mistake, or no longer true); its two memories stay.
        The notes of two promoted memories keep the link they were given: a note is its
        owner's to edit, and `vault import` relates only the notes it imports anew."""
        ident = check.memory_id(relation_id, "relation_id")
        removed = self.ctx.store.delete_relation(ident)
        if removed is None:
            raise NotFoundError("relation", ident)
        return removed

    def relations(self, memory_id: str) -> list[Relation]:
        """Its edges, the links of news saved a moment ago included (`Context.links_ready`: a
        probe's `relations` right after a save listed none, and the link a second later)."""
        ident = check.memory_id(memory_id)
        self.ctx.links_ready()
        return self.ctx.store.relations([ident])

    def read_graph(self, cursor: str | None = None, limit: int = 100) -> GraphPage:
        """One page of memories (in save order) and every relation touching them."""
        limit = check.limit(limit, most=MAX_GRAPH_PAGE)
        self.ctx.links_ready()
        memories = self.ctx.store.page(_cursor(cursor), limit + 1)
        more = len(memories) > limit
        memories = memories[:limit]
        relations = self.ctx.store.relations([m.id for m in memories]) if memories else []
        return GraphPage(
            memories=memories,
            relations=relations,
            next_cursor=self._cursor_after(memories[-1].id) if more else None,
        )

    def _cursor_after(self, memory_id: str) -> str:
        """The memory's id and its place in saving order: the next page starts there even if
        the memory is deleted in between (by gc, or another client). Without lasting places
        (JSONL), the id alone: a cursor whose memory another process deleted is then refused,
        not continued from a place that is not the same."""
        if Capability.LASTING_POSITIONS not in self.ctx.store.capabilities:
            return memory_id
        position = self.ctx.store.position(memory_id)
        return memory_id if position is None else f"{memory_id}{CURSOR_MARK}{position}"

    def snapshot(self, limit: int = 2_000, field: str = "limit") -> GraphSnapshot:
        """The memories a picture of the graph shows, with the relations among them and how
        many memories there are in all. Every memory when they fit in `limit`; beyond that the
        most alive ones (highest decay score now: used often, used lately), active and
        promoted before archived, so a large store is drawn as the part its owner still uses
        rather than whatever happened to be saved first."""
        limit = check.limit(limit, field, most=MAX_SNAPSHOT)
        self.ctx.links_ready()
        total = sum(self.ctx.store.count().values())
        memories = self._every_memory(limit) if total <= limit else self._most_alive(limit)
        shown = {m.id for m in memories}
        relations = [
            r
            for r in self.ctx.store.relations(sorted(shown))
            if r.from_id in shown and r.to_id in shown
        ]
        return GraphSnapshot(memories=memories, relations=relations, total=total)

    def _every_memory(self, limit: int) -> list[Memory]:
        memories: list[Memory] = []
        cursor: str | None = None
        while len(memories) < limit:
            page = self.ctx.store.page(cursor, min(MAX_GRAPH_PAGE, limit - len(memories)))
            if not page:
                break
            memories += page
            cursor = page[-1].id
        return memories

    def _most_alive(self, limit: int) -> list[Memory]:
        chosen: list[str] = []
        for statuses in ((Status.ACTIVE, Status.PROMOTED), (Status.ARCHIVED,)):
            # The store orders by forget time, which ranks a much-used old memory above a
            # fresh one it now scores below: the best by score now are chosen from a wider
            # pool, as search does (only the `limit` most durable were scored before).
            stubs = self.ctx.store.browse(Filter(statuses=statuses), limit * SNAPSHOT_POOL)
            if not stubs:
                continue
            scores = self.ctx.scores(stubs, self.ctx.now_epoch())
            order = sorted(range(len(stubs)), key=lambda i: -scores[i])
            chosen += [stubs[i].id for i in order[: limit - len(chosen)]]
            if len(chosen) >= limit:
                break
        found = {m.id: m for m in self.ctx.store.get_many(chosen)}
        return [found[i] for i in chosen if i in found]

    def related(
        self,
        memory_id: str,
        depth: int = 2,
        types: Sequence[str] | None = None,
        direction: str = "both",
        limit: int = 100,
    ) -> list[RelatedMemory]:
        """Memories reachable from `memory_id` in 1..`depth` edges, closest first.

        `types` restricts the edges followed (default: every type); `direction` follows edges
        from -> to ("out": effects, evidence a claim rests on...), to -> from ("in") or either
        way ("both", the default). Each memory appears once, at its shortest distance, with the
        edge it was reached by; cycles are harmless.
        """
        start = check.memory_id(memory_id)
        if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
            raise ValidationError("depth", f"must be an integer from 1 to {MAX_DEPTH}")
        wanted = _relation_types(types)
        if direction not in DIRECTIONS:
            raise ValidationError("direction", f"must be one of {', '.join(DIRECTIONS)}")
        limit = check.limit(limit, most=MAX_RELATED)
        if not self.ctx.store.get_many([start]):
            raise NotFoundError("memory", start)
        self.ctx.links_ready()
        hops = self.ctx.store.traverse(start, depth, wanted, direction, limit)
        found = {m.id: m for m in self.ctx.store.get_many([h.memory_id for h in hops])}
        return [
            RelatedMemory(
                memory=found[h.memory_id],
                depth=h.depth,
                reached_from=h.parent_id,
                relation=h.via,
            )
            for h in hops
            if h.memory_id in found  # deleted by another client meanwhile
        ]


def _relation_types(types: Sequence[str] | None) -> tuple[str, ...]:
    if types is None:
        return ()
    if isinstance(types, str):
        raise ValidationError("types", "must be a list of relation types, not one string")
    # A list once: a generator was used up by the check below and then meant every type.
    types = check.sequence(types, "types", "a list of relation types")
    if not types:  # as over MCP: [] meant every type here, none there (audit)
        raise ValidationError("types", "must name at least one relation type (omit it for all)")
    for t in types:
        if t not in RELATION_TYPES:
            raise ValidationError("types", f"entries must be among {', '.join(RELATION_TYPES)}")
    return tuple(dict.fromkeys(types))


def _cursor(cursor: str | None) -> str | None:
    """A cursor `read_graph` handed out: a memory id, with its position after CURSOR_MARK."""
    if cursor is None:
        return None
    ident, mark, position = check.storable(cursor, "cursor").partition(CURSOR_MARK)
    check.memory_id(ident, "cursor")
    # A place is a 64-bit integer: a larger one overflowed SQLite's parameter (a traceback).
    digits = position.isascii() and position.isdigit() and len(position) <= 19
    if mark and not (digits and int(position) < 2**63):
        raise ValidationError("cursor", "must be the next_cursor of a page read_graph returned")
    return cursor
