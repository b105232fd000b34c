"""Tools that keep the store tidy: find clusters of memories saying the same thing, merge them,
undo a merge (docs/consolidation.md)."""

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from engram.mcp import hints
from engram.mcp.declare import tool
from engram.mcp.params import (
    Count,
    Flag,
    MemoryIds,
    MergedId,
    MergeIds,
    Number,
    OptionalContent,
)
from engram.mcp.runtime import EngramRuntime
from engram.services.agents import AgentName
from engram.services.pipeline import AUDIT_MAX, AuditTrail, PipelineResult
from engram.services.results import (
    ClusterResult,
    ConsolidateResult,
    KeepApartResult,
    UndoResult,
)

Threshold = Annotated[float | None, Field(ge=0, le=1, allow_inf_nan=False), Number]
ClusterIds = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=100)]] | None,
    Field(min_length=1, max_length=100),
]
LinkThreshold = Annotated[
    Threshold,
    Field(
        description="Cosine similarity that links two memories, 0-1, as in "
        "cluster_memories (give the one a cluster id was found at)."
    ),
]


def register_consolidation_tools(server: MCPServer[Any], runtime: EngramRuntime) -> None:
    @tool(server, "Find similar memories", hints.READ)
    async def cluster_memories(
        memory_ids: Annotated[
            MemoryIds | None,
            Field(description="Only cluster these memories (default: every active memory)."),
        ] = None,
        similarity_threshold: Annotated[
            Threshold, Field(description="Cosine similarity that links two memories, 0-1.")
        ] = None,
    ) -> ClusterResult:
        """Find clusters of active memories that say the same thing (by meaning: linked when at
        least `similarity_threshold` similar, default 0.83). Each cluster has its cohesion (mean
        similarity) and an action: 'merge' (near-copies, cohesion >= 0.9), 'review' (related,
        0.75-0.9, or alike but disagreeing: its note says why; decide, and to merge in your own
        words pass merged_content to consolidate_memories), 'keep' (different enough). Merge and
        review clusters show the memory a merge would produce. Changes nothing; pass a cluster's id
        to consolidate_memories to merge it, or to keep_memories_apart if it is not one fact."""
        return await runtime.call(
            lambda app: app.consolidation.clusters(memory_ids, similarity_threshold)
        )

    @tool(server, "Merge similar memories", hints.OVERWRITE)
    async def consolidate_memories(
        mode: Annotated[
            Literal["preview", "apply"], Field(description="preview (default) or apply.")
        ] = "preview",
        auto_detect: Annotated[
            Flag, Field(description="Find the clusters to merge (when no ids are given).")
        ] = True,
        cohesion_threshold: Annotated[
            Threshold, Field(description="With auto_detect: merge clusters at least this cohesive.")
        ] = None,
        cluster_ids: Annotated[
            ClusterIds, Field(description="Clusters from cluster_memories to merge.")
        ] = None,
        memory_ids: Annotated[
            MergeIds | None, Field(description="Merge exactly these memories into one.")
        ] = None,
        merged_content: Annotated[
            OptionalContent,
            Field(
                description="Your text for the merged memory (one merge only); omit for the rules'."
            ),
        ] = "",
        similarity_threshold: LinkThreshold = None,
    ) -> ConsolidateResult:
        """Merge clusters of memories into one each: the merged memory keeps every distinct
        statement (repeats once), the union of tags and entities, the earliest creation and latest
        use, summed use counts; it links to each original (consolidated_from) and takes over their
        relations; the originals are archived, never deleted (undo_consolidation restores them).
        mode 'preview' (default) changes nothing: merged stays empty, and each cluster's
        merged_preview shows the memory a merge would write. Choose what to merge: auto_detect
        (every cluster with cohesion >= cohesion_threshold, default 0.9, and any cluster one of
        whose memories says the others whole; review-band clusters found this way are listed in
        skipped, or counted in left_for_review below the threshold, left for you or the user to
        approve), cluster_ids from cluster_memories
        (approves them), or memory_ids (merged as one, whatever their similarity). The rules only
        drop repeated statements; to merge related memories into one statement (a review-band
        cluster), write it yourself in merged_content, keeping every fact, with memory_ids or one
        cluster id."""
        return await runtime.call(
            lambda app: app.consolidation.consolidate(
                mode,
                auto_detect,
                memory_ids,
                cohesion_threshold,
                cluster_ids,
                merged_content or None,
                similarity_threshold,
            )
        )

    @tool(server, "Keep similar memories apart", hints.ADD_IDEMPOTENT)
    async def keep_memories_apart(
        cluster_ids: Annotated[
            ClusterIds, Field(description="Clusters from cluster_memories that are not one fact.")
        ] = None,
        memory_ids: Annotated[
            MergeIds | None, Field(description="Memories that are different facts.")
        ] = None,
        similarity_threshold: LinkThreshold = None,
    ) -> KeepApartResult:
        """Say that alike memories are different facts (a review-band cluster the user or you
        decided not to merge): they are never clustered together again, so the cluster stops
        coming back in cluster_memories, consolidate_memories and run_pipeline. Give cluster_ids
        or memory_ids. Each pair gets a distinct_from relation; delete it to undo."""
        return await runtime.call(
            lambda app: app.consolidation.keep_apart(memory_ids, cluster_ids, similarity_threshold)
        )

    @tool(server, "Undo a merge", hints.FORGET)
    async def undo_consolidation(
        merged_id: MergedId,
        force: Annotated[
            Flag, Field(description="Undo even if the merged memory was edited or related since.")
        ] = False,
    ) -> UndoResult:
        """Restore the originals of a merged memory (active again, exactly as they were) and remove
        the merged memory with its relations. Refused if the merged memory was edited or related to
        other memories since (that would be lost: force=true to undo anyway), merged again (undo
        that merge first) or promoted."""
        return await runtime.call(lambda app: app.consolidation.undo(merged_id, force))


def register_pipeline_tools(server: MCPServer[Any], runtime: EngramRuntime) -> None:
    @tool(server, "Run the maintenance agents", hints.FORGET)
    async def run_pipeline(
        agents: Annotated[
            list[AgentName] | None,
            Field(min_length=1, description="Only these agents (default: all five)."),
        ] = None,
        dry_run: Annotated[Flag, Field(description="Only plan (the default).")] = True,
    ) -> PipelineResult:
        """Run the maintenance agents — DecayAnalyzer (memories about to fade), ClusterDetector
        (related memories for a person to review), SemanticMerge (near-copies to merge), LTMPromoter
        (memories to write to the vault), RelationshipDiscovery (memories naming the same entity
        from different topics, to link) — all, or those named. dry_run (the default) only records
        their plan in the audit trail and returns its plan_id (null when there is nothing to do):
        apply it with apply_plan after checking it. Every decision is kept in the audit trail
        (audit_trail)."""
        names = list(agents or [])
        return await runtime.call(lambda app: app.pipeline.run(names or None, dry_run))

    @tool(server, "Apply a maintenance plan", hints.OVERWRITE)
    async def apply_plan(
        plan_id: Annotated[
            str, Field(min_length=1, max_length=100, description="From run_pipeline.")
        ],
    ) -> PipelineResult:
        """Apply exactly the steps of a plan run_pipeline recorded in a dry run. A step whose
        memories changed since is skipped (and says so); each step is carried out at most
        once (applying a plan again finishes a run that stopped part-way)."""
        return await runtime.call(lambda app: app.pipeline.apply(plan_id))

    @tool(server, "Maintenance audit trail", hints.READ)
    async def audit_trail(
        plan_id: Annotated[str, Field(max_length=100, description="Only this plan.")] = "",
        limit: Annotated[
            int, Field(ge=1, le=AUDIT_MAX, description="At most this many."), Count
        ] = 50,
    ) -> AuditTrail:
        """The maintenance pipeline's decisions, newest first: agent, action, memories, why, whether
        applied and the result. Give plan_id for one plan."""
        return await runtime.call(lambda app: app.pipeline.audit(plan_id or None, limit))
