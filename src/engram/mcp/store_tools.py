"""Tools over the whole store: garbage collection, candidates, statistics and the graph."""

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from engram.core.models import Relation
from engram.mcp import hints
from engram.mcp.declare import tool
from engram.mcp.params import (
    Depth,
    Flag,
    GcLimit,
    GraphCursor,
    GraphLimit,
    Limit,
    MemoryId,
    OptionalMeta,
    RelatedLimit,
    RelationId,
    RelationStrength,
    RelationType,
    RelationTypes,
    TraversalDirection,
)
from engram.mcp.runtime import EngramRuntime
from engram.services.results import (
    GcResult,
    GraphPage,
    PromotionCandidates,
    RelatedResult,
    ReviewCandidates,
    Stats,
)


def register_maintenance_tools(server: MCPServer[Any], runtime: EngramRuntime) -> None:
    """Whole-store maintenance; everything but `gc` with dry_run=false only reads."""

    @tool(server, "Forget faded memories", hints.FORGET)
    async def gc(
        dry_run: Annotated[
            Flag, Field(description="Only report what would be forgotten (default).")
        ] = True,
        archive_instead: Annotated[
            Flag, Field(description="Archive instead of deleting when dry_run is false.")
        ] = False,
        limit: GcLimit = 1_000,
    ) -> GcResult:
        """Garbage-collect memories whose score fell below the forget threshold. By default a dry
        run that only lists them; with dry_run=false they are deleted, or archived with
        archive_instead=true. Longest-faded first, at most `limit` per run. A memory kept for
        good (save_memory's or update_memory's keep) is never forgotten: keep one listed here
        that must not be lost."""
        return await runtime.call(
            lambda app: app.maintenance.gc(
                dry_run=dry_run, archive_instead=archive_instead, limit=limit
            )
        )

    @tool(server, "Promotion candidates", hints.READ)
    async def promotion_candidates(limit: Limit = 10) -> PromotionCandidates:
        """Memories that have earned long-term status: used often soon after being saved (reason
        'usage') or still strong days after being reinforced (reason 'score'). Worth writing down
        somewhere permanent. Read-only."""
        found = await runtime.call(lambda app: app.maintenance.promotion_candidates(limit))
        return PromotionCandidates(candidates=found)

    @tool(server, "Review candidates", hints.READ)
    async def review_candidates(limit: Limit = 10) -> ReviewCandidates:
        """Memories about to be forgotten (score in the danger zone), most urgent first: good ones
        to bring up or confirm, then reinforce with observe_memory_usage or touch_memory if they
        still matter. Read-only."""
        found = await runtime.call(lambda app: app.maintenance.review_candidates(limit))
        return ReviewCandidates(candidates=found)

    @tool(server, "Memory statistics", hints.READ)
    async def memory_stats() -> Stats:
        """Where the store lives and what is in it: memories by status, relations, and how many are
        due for garbage collection, in the review danger zone, or promotable."""
        return await runtime.call(lambda app: app.maintenance.stats())


def register_graph_tools(server: MCPServer[Any], runtime: EngramRuntime) -> None:
    """Relations between memories, and paged reading of the whole store with its edges."""

    @tool(server, "Relate memories", hints.ADD_IDEMPOTENT)
    async def create_relation(
        from_memory_id: Annotated[MemoryId, Field(description="The memory the edge starts at.")],
        to_memory_id: Annotated[MemoryId, Field(description="The memory the edge points to.")],
        relation_type: Annotated[
            RelationType, Field(description="What the link means.")
        ] = "related",
        strength: RelationStrength = 1.0,
        metadata: OptionalMeta = None,
    ) -> Relation:
        """Link two existing memories with a directed, typed edge (from -> to). Idempotent: the same
        from, to and type returns the edge that already exists, unchanged (delete_relation it
        first to give it another strength or metadata)."""
        return await runtime.call(
            lambda app: app.graph.create_relation(
                from_memory_id, to_memory_id, relation_type, strength, metadata
            ),
            names={"from_id": "from_memory_id", "to_id": "to_memory_id"},
        )

    @tool(server, "Remove a relation", hints.FORGET)
    async def delete_relation(relation_id: RelationId) -> Relation:
        """Remove one edge between memories by its id (create_relation returns it; read_graph and
        traverse_graph list edges with theirs). Both memories stay. Returns the edge removed."""
        return await runtime.call(lambda app: app.graph.delete_relation(relation_id))

    @tool(server, "Read the memory graph", hints.READ)
    async def read_graph(
        cursor: Annotated[
            GraphCursor,
            Field(description="next_cursor of the previous page; omit for the first page."),
        ] = "",
        limit: GraphLimit = 100,
    ) -> GraphPage:
        """Read the knowledge graph one page at a time: memories in save order, with every relation
        touching them. Pass next_cursor from a page as `cursor` to get the next; next_cursor is null
        on the last page."""
        return await runtime.call(lambda app: app.graph.read_graph(cursor or None, limit))

    @tool(server, "Related memories (multi-hop)", hints.READ)
    async def traverse_graph(
        memory_id: Annotated[MemoryId, Field(description="The memory to start from.")],
        depth: Depth = 2,
        types: RelationTypes = None,
        direction: TraversalDirection = "both",
        limit: RelatedLimit = 100,
    ) -> RelatedResult:
        """Follow relations from one memory up to `depth` edges away: everything reachable, closest
        first, each memory once at its shortest distance with the edge it was reached by
        (`reached_from` + `relation`; follow reached_from back to the start for the whole chain).
        Restrict to some relation types (e.g. causes for reasoning chains) and a direction. Cycles
        are safe. Read-only: does not reinforce."""
        found = await runtime.call(
            lambda app: app.graph.related(memory_id, depth, types, direction, limit)
        )
        return RelatedResult(memory_id=memory_id, count=len(found), related=found)
