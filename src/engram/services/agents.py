"""The five maintenance agents (the seed's names): each looks at the store and proposes steps;
none changes anything (the pipeline applies the steps of a plan, engram.services.pipeline).

- DecayAnalyzer: memories in the danger zone, about to fade (reported for review).
- ClusterDetector: clusters of memories saying the same thing that need a person (review band).
- SemanticMerge: clusters cohesive enough to merge (merge band) → merge.
- LTMPromoter: promotion candidates → promote to the vault (only with a vault configured).
- RelationshipDiscovery: memories that name the same entity from different domains (tags that
  barely overlap) and are not linked yet → a `related` relation, strength = the entities'
  Jaccard overlap.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations
from typing import Any, Literal

from engram.core.merge import version
from engram.core.models import Memory, Status
from engram.services.consolidation import ConsolidationService
from engram.services.context import Context
from engram.services.ltm import LtmService
from engram.services.maintenance import MaintenanceService
from engram.services.results import ClusterView, Result
from engram.services.users_name import users_names

AgentName = Literal[
    "DecayAnalyzer", "ClusterDetector", "SemanticMerge", "LTMPromoter", "RelationshipDiscovery"
]
AGENTS: tuple[AgentName, ...] = (
    "DecayAnalyzer",
    "ClusterDetector",
    "SemanticMerge",
    "LTMPromoter",
    "RelationshipDiscovery",
)
Action = Literal["at_risk", "review_cluster", "merge", "promote", "relate"]
CHANGING: frozenset[str] = frozenset({"merge", "promote", "relate"})

AT_RISK_LIMIT = 50  # memories reported per run
PROMOTE_LIMIT = 50
RELATE_LIMIT = 100  # new relations proposed per run
ENTITY_GROUP_MAX = 20  # an entity named by more memories than this is too common to link by
# ... or by more than this share of the active memories: in a young store the user's own name
# is on most memories, and every pair of them was proposed as "related" (95 of 21 memories).
ENTITY_GROUP_SHARE = 0.25
PAGE = 2_000


class Step(Result):
    """One proposal: `versions` records what each memory said when it was proposed, so a plan
    applied later refuses a step whose memories changed meanwhile."""

    agent: AgentName
    action: Action
    memory_ids: tuple[str, ...]
    versions: dict[str, str]
    detail: dict[str, Any]
    why: str

    @property
    def changes(self) -> bool:
        return self.action in CHANGING


def stamp(memory: Memory) -> str:
    """What a plan remembers of a memory: what it says, and its status."""
    return f"{version(memory)}:{memory.status.value}"


@dataclass
class Survey:
    """What the agents of one run share, computed once."""

    ctx: Context
    maintenance: MaintenanceService
    consolidation: ConsolidationService
    ltm: LtmService
    notes: list[str] = field(default_factory=list)  # what an agent could not do, and why

    @cached_property
    def clusters(self) -> list[ClusterView]:
        if self.ctx.semantic is None:
            self.notes.append("clustering needs embeddings (ENGRAM_EMBEDDING_MODEL=minilm)")
            return []
        found = self.consolidation.clusters().clusters
        # Memories saved while embeddings were off (or imported) have no vector until a
        # backfill: the agents found nothing to merge and did not say why (audit).
        model = self.ctx.semantic.model_id
        store = self.ctx.store
        without = sum(store.count().values()) - store.vector_counts().get(model, 0)
        if without > 0:
            self.notes.append(
                f"clustering compared only memories with a vector: {without} have none yet "
                "(`engram embed --backfill` computes those the model can read; a server "
                "catches up by itself)"
            )
        return found

    def memories(self, ids: Sequence[str]) -> dict[str, Memory]:
        return {m.id: m for m in self.ctx.store.get_many(list(ids))}


def decay_analyzer(s: Survey) -> list[Step]:
    return [
        _one_memory(
            "DecayAnalyzer",
            "at_risk",
            c.memory,
            {"score": round(c.score, 4), "review_priority": round(c.review_priority, 4)},
            f"score {c.score:.2f} is in the danger zone: use it (observe) or let it fade",
        )
        for c in s.maintenance.review_candidates(AT_RISK_LIMIT)
    ]


def _one_memory(
    agent: AgentName, action: Action, memory: Memory, detail: dict[str, Any], why: str
) -> Step:
    return Step(
        agent=agent,
        action=action,
        memory_ids=(memory.id,),
        versions={memory.id: stamp(memory)},
        detail=detail,
        why=why,
    )


def _cluster_steps(s: Survey, band: str, agent: AgentName, action: Action, why: str) -> list[Step]:
    views = [v for v in s.clusters if v.action == band]
    members = s.memories([i for v in views for i in v.member_ids])  # one read for all
    steps = []
    for view in views:
        said = why.format(n=len(view.member_ids), cohesion=view.cohesion)
        detail: dict[str, Any] = {"cluster_id": view.id, "cohesion": view.cohesion}
        if view.note is not None:  # why near-copies wait for a person: "they hold different
            # numbers" (a flight there and one back) was said by clustering, not by the plan
            said, detail["note"] = f"{said}; {view.note}", view.note
        steps.append(
            Step(
                agent=agent,
                action=action,
                memory_ids=tuple(view.member_ids),
                versions={i: stamp(members[i]) for i in view.member_ids if i in members},
                detail=detail,
                why=said,
            )
        )
    return steps


def cluster_detector(s: Survey) -> list[Step]:
    return _cluster_steps(
        s,
        "review",
        "ClusterDetector",
        "review_cluster",
        "{n} memories are related (cohesion {cohesion:.2f}) but not near-copies: a person "
        "decides whether to merge them or keep them apart",
    )


def semantic_merge(s: Survey) -> list[Step]:
    return _cluster_steps(
        s,
        "merge",
        "SemanticMerge",
        "merge",
        "{n} memories say the same thing (cohesion {cohesion:.2f}): merge into one",
    )


def ltm_promoter(s: Survey) -> list[Step]:
    if not s.ltm.vault.configured:
        s.notes.append("LTMPromoter: no vault configured (ENGRAM_VAULT_PATH)")
        return []
    return [
        _one_memory(
            "LTMPromoter",
            "promote",
            c.memory,
            {"reason": c.reason, "score": round(c.score, 4)},
            f"earned permanent status ({c.reason}): write its note to the vault",
        )
        for c in s.maintenance.promotion_candidates(PROMOTE_LIMIT)
    ]


def relationship_discovery(s: Survey) -> list[Step]:
    """Pairs of active memories naming a shared entity, from different domains, not linked."""
    by_entity: dict[str, list[Memory]] = defaultdict(list)
    after: str | None = None
    active = 0
    while True:
        page = s.ctx.store.page(after, PAGE)
        if not page:
            break
        for m in page:
            if m.status == Status.ACTIVE:
                active += 1
                for name in {e.casefold() for e in m.entities}:
                    by_entity[name].append(m)
        after = page[-1].id
    threshold = s.ctx.settings.cross_domain_threshold
    most = min(ENTITY_GROUP_MAX, max(2, int(ENTITY_GROUP_SHARE * active)))
    named = [name for name, group in by_entity.items() if 2 <= len(group) <= most]
    # Two memories naming the user say nothing of each other: a probe's pipeline linked the
    # notes about Dana that named her (the store says "My name is Dana Whitfield").
    own = {name.casefold() for name in users_names(s.ctx.store, named)}
    pairs: dict[tuple[str, str], tuple[Memory, Memory]] = {}
    for name in named:
        group = by_entity[name]
        if name not in own:
            for a, b in combinations(sorted(group, key=lambda m: m.id), 2):
                # Topics are known by tags: two untagged memories (Jaccard 0 of nothing) were
                # linked as "from different topics" that no one had said.
                if a.tags and b.tags and _jaccard(a.tags, b.tags) < threshold:
                    pairs[(a.id, b.id)] = (a, b)
    if not pairs:
        return []
    ids = sorted({i for pair in pairs for i in pair})
    linked = {
        frozenset((r.from_id, r.to_id)) for r in s.ctx.store.relations(ids) if r.from_id != r.to_id
    }
    steps = []
    for (a_id, b_id), (a, b) in sorted(pairs.items()):
        if frozenset((a_id, b_id)) in linked:
            continue
        shared = sorted({e.casefold() for e in a.entities} & {e.casefold() for e in b.entities})
        steps.append(
            Step(
                agent="RelationshipDiscovery",
                action="relate",
                memory_ids=(a_id, b_id),
                versions={a_id: stamp(a), b_id: stamp(b)},
                detail={
                    "entities": shared,
                    "strength": round(max(0.1, _jaccard(a.entities, b.entities)), 3),
                },
                why=f"both name {', '.join(shared)} from different topics: link them",
            )
        )
        if len(steps) >= RELATE_LIMIT:
            break
    return steps


def _jaccard(a: Sequence[str], b: Sequence[str]) -> float:
    x, y = {t.casefold() for t in a}, {t.casefold() for t in b}
    return len(x & y) / len(x | y) if x | y else 0.0


RUNS: dict[AgentName, Callable[[Survey], list[Step]]] = {
    "DecayAnalyzer": decay_analyzer,
    "ClusterDetector": cluster_detector,
    "SemanticMerge": semantic_merge,
    "LTMPromoter": ltm_promoter,
    "RelationshipDiscovery": relationship_discovery,
}
