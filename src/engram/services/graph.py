"""The knowledge graph: typed relations between memories, read page by page."""

from __future__ import annotations

from typing import Any, cast

from engram.core.models import Relation, RelationType, new_id
from engram.errors import ValidationError
from engram.services import validation as check
from engram.services.context import Context
from engram.services.results import GraphPage

MAX_GRAPH_PAGE = 1_000


class GraphService:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def create_relation(
        self,
        from_id: str,
        to_id: str,
        relation_type: str = "related",
        strength: float = 1.0,
        metadata: dict[str, Any] | None = None,
    ) -> Relation:
        """Idempotent: the same (from, to, type) returns the existing edge."""
        source = check.memory_id(from_id, "from_memory_id")
        target = check.memory_id(to_id, "to_memory_id")
        if source == target:
            raise ValidationError("to_memory_id", "a memory cannot relate to itself")
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

    def relations(self, memory_id: str) -> list[Relation]:
        return self.ctx.store.relations([check.memory_id(memory_id)])

    def read_graph(self, cursor: str | None = None, limit: int = 100) -> GraphPage:
        """One page of memories (in save order) and every relation touching them."""
        limit = check.limit(limit, most=MAX_GRAPH_PAGE)
        after = None if cursor is None else check.memory_id(cursor, "cursor")
        memories = self.ctx.store.page(after, limit + 1)
        more = len(memories) > limit
        memories = memories[:limit]
        relations = self.ctx.store.relations([m.id for m in memories]) if memories else []
        return GraphPage(
            memories=memories,
            relations=relations,
            next_cursor=memories[-1].id if more else None,
        )
