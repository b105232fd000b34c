"""Typed results returned by the services (and serialised as-is by MCP and `--json`)."""

from __future__ import annotations

from datetime import tzinfo
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from engram.core.models import Memory, Relation, Status
from engram.core.ranking import SearchHit, Why, why_summary
from engram.core.scoring import PromotionReason
from engram.core.timeutil import day_in

__all__ = [
    "DeleteResult",
    "Enrichment",
    "GcResult",
    "GraphPage",
    "GraphSnapshot",
    "MessageAnalysis",
    "ObserveResult",
    "ObserveUsageResult",
    "OpenResult",
    "PromotionCandidate",
    "PromotionCandidates",
    "RecallAnalysis",
    "RecallResult",
    "Recalled",
    "RelatedMemory",
    "RelatedResult",
    "ReviewCandidate",
    "ReviewCandidates",
    "SaveResult",
    "SearchHit",
    "SearchResult",
    "SimilarMemory",
    "Stats",
    "TouchResult",
]


class Result(BaseModel):
    """The base of every result a service returns: frozen, so an adapter can hand it on (or
    cache it) without a copy, and serialised the same way by the MCP server, the CLI's --json
    and the Python API."""

    model_config = ConfigDict(frozen=True)


class Enrichment(Result):
    """What a save added by itself (ENGRAM_ENRICH_ON_SAVE): `entities` found in the text (the
    caller's are kept as well), and the `strength` with the importance markers it came from in
    `why` (empty when the caller gave the strength); `kept_for`: why it is kept for good, when
    its words name a fact wanted for good (ENGRAM_KEEP_VITAL), else None."""

    entities: list[str]
    strength: float
    why: list[str]
    kept_for: str | None = None
    all_entities: list[str] = Field(default_factory=list, exclude=True)


class SimilarMemory(Result):
    """A stored memory that says nearly what a new save says (by meaning)."""

    id: str
    content: str
    similarity: float


class SaveResult(Result):
    """What a save did. A repeat of a memory already stored (the same words in the same order,
    any case or punctuation between them) is handled by ENGRAM_SAVE_DUPLICATES: merged into it
    (the default), counted as a use of it, or kept as a copy; `duplicate_of` names it.
    `enrichment` says what the save added by itself (None when enrichment is off). `similar`
    lists stored memories that say nearly the same in other words
    (ENGRAM_SAVE_SIMILAR_THRESHOLD), most similar first: update one of them rather than keep
    both. `supersedes` names the stored memories a save saying something changed replaces (the
    most similar first, then copies of that fact; ENGRAM_SAVE_SUPERSEDES), each linked to it by
    a `supersedes` relation."""

    memory: Memory
    action: Literal["saved", "merged", "reinforced"]
    duplicate_of: str | None = None
    enrichment: Enrichment | None = None
    similar: list[SimilarMemory] = []
    supersedes: list[str] = []


class SavedMemory(Memory):
    """A save as one flat record (the CLI's JSON): the memory's fields, which scripts read
    (`id`), and what the save did beside them — a merge into a repeat was not visible there."""

    action: Literal["saved", "merged", "reinforced"]
    duplicate_of: str | None = None
    enrichment: Enrichment | None = None
    similar: list[SimilarMemory] = Field(default_factory=list)
    supersedes: list[str] = Field(default_factory=list)

    @classmethod
    def of(cls, result: SaveResult) -> SavedMemory:
        return cls.model_construct(
            **dict(result.memory),
            action=result.action,
            duplicate_of=result.duplicate_of,
            enrichment=result.enrichment,
            similar=result.similar,
            supersedes=result.supersedes,
        )


class TouchResult(Result):
    memory: Memory
    old_score: float
    new_score: float
    # The seed's touch result has these at the top level; callers written for it read them.
    # Fields, not computed ones: an MCP tool's output schema lists only fields, and a client
    # that checks results against it was told they do not exist.
    memory_id: str
    use_count: int
    strength: float
    # It was archived, and a use brought it back (`core.reinforce`): said, as the CLI's
    # "Touched …" alone hid it (a probe).
    unarchived: bool
    # The archived original named, when a merge holds it: its merged memory took the use. The
    # original brought back stood beside its merge in search, four copies of one fact (a
    # helper's probe: an assistant used the ids of a search made before the merge).
    instead_of: str | None


class ObserveResult(Result):
    memory: Memory
    cross_domain: bool
    new_score: float
    # As TouchResult's: the archived originals named whose merged memory this is.
    instead_of: list[str]


class GcResult(Result):
    dry_run: bool
    archived: bool
    count: int
    memory_ids: list[str]
    has_more: bool
    promoted: list[str] = []  # promoted to the vault first (ENGRAM_AUTO_PROMOTE); dry run: would be
    promote_error: str | None = None  # why that promotion failed (gc went on without it)


class PromotionCandidate(Result):
    memory: Memory
    reason: PromotionReason
    score: float


class ReviewCandidate(Result):
    memory: Memory
    score: float
    review_priority: float


class GraphPage(Result):
    memories: list[Memory]
    relations: list[Relation]
    next_cursor: str | None


class GraphSnapshot(Result):
    """Memories and the relations among them; `total` memories exist in the store."""

    memories: list[Memory]
    relations: list[Relation]
    total: int


class RelatedMemory(Result):
    """A memory reached from another through the graph, `depth` edges away (its shortest
    distance). `reached_from` is the memory one edge closer (the start itself at depth 1) and
    `relation` the edge between them: following `reached_from` leads back to the start."""

    memory: Memory
    depth: int
    reached_from: str
    relation: Relation


class RelatedResult(Result):
    """Everything reachable from `memory_id` within the depth asked, closest first."""

    memory_id: str
    count: int
    related: list[RelatedMemory]


class Stats(Result):
    location: str
    total: int
    by_status: dict[Status, int]
    relations: int
    decay_model: str
    due_for_gc: int
    in_danger_zone: int
    promotion_candidates: int


# Envelopes shared by the adapters, so MCP results and `engram --json` output read the same.


class SearchResult(Result):
    """Best first. Searching does not reinforce: observe or touch what you actually use."""

    count: int
    hits: list[SearchHit]


# Characters of a hit's content in a search result: a 50,000-character memory brought along
# by context credit made one compact answer 50 KB of the assistant's context window; the whole
# is in `memory` (verbose) or `open_memories`.
HIT_CONTENT = 2_000


def cut_for_answer(text: str) -> str:
    """`text` as an answer to an assistant shows it: past HIT_CONTENT characters, cut and
    ended with " …"."""
    return text[:HIT_CONTENT].rstrip() + " …" if len(text) > HIT_CONTENT else text


class Recalled(Result):
    """A search hit as the MCP tool returns it: what an assistant needs, compact (every hit
    lands in its context window); with `verbose`, also the full record and the rank's parts."""

    id: str
    content: str  # cut past HIT_CONTENT characters (`content_length` then says how long it is)
    tags: tuple[str, ...] = ()  # left out when there are none
    # Who or what it came from, when it says (a team's probe: "what did Bob say about Acme?"
    # had no answer in the hits, though the store held each memory's source)
    source: str | None = None
    # The day it was saved, on the asker's calendar: which of two facts is the newer ("I live
    # in Berlin", "I moved to Lisbon"), and when something happened, were not in a compact hit.
    saved: str
    rank: float
    # Left out when "match" (most hits; the schema gives the default): room for `saved`.
    reason: Literal["match", "review"] = "match"
    why: str  # see why_summary
    content_length: int | None = None
    memory: Memory | None = None
    details: Why | None = None

    @model_serializer(mode="wrap")
    def _compact(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Leave out the verbose parts when absent, no tags and the usual reason: ten hits
        are ten times the bytes."""
        data: dict[str, Any] = handler(self)
        if data.get("reason") == "match":
            del data["reason"]
        if not data.get("tags", True):  # () in Python, [] in JSON mode
            del data["tags"]
        optional = ("source", "content_length", "memory", "details")
        return {k: v for k, v in data.items() if v is not None or k not in optional}

    @classmethod
    def of(cls, hit: SearchHit, verbose: bool, zone: tzinfo) -> Recalled:
        """`zone`: the asker's time zone, whose calendar `saved` is a day of."""
        m = hit.memory
        long = len(m.content) > HIT_CONTENT
        return cls(
            id=m.id,
            content=cut_for_answer(m.content),
            content_length=len(m.content) if long else None,
            tags=m.tags,
            source=m.source,
            saved=day_in(m.created_at, zone),
            rank=round(hit.rank, 3),
            reason=hit.reason,
            why=why_summary(hit, with_reason=False),  # `reason` is the field before it
            memory=m if verbose else None,
            details=hit.why if verbose else None,
        )


class RecallResult(Result):
    """Best first. Searching does not reinforce: observe or touch what you actually use."""

    count: int
    hits: list[Recalled]


class OpenResult(Result):
    """The memories found, in the order asked, and the ids that matched nothing."""

    memories: list[Memory]
    missing: list[str]


class DeleteResult(Result):
    """The memories deleted (ids that did not exist are skipped), archived, or brought back
    from the archive."""

    action: Literal["deleted", "archived", "unarchived"]
    count: int
    memory_ids: list[str]
    # What a deletion leaves behind that the user may want gone too, or back: a promoted
    # memory's vault note, the archived originals of a merged memory.
    left_behind: list[str] = []


class ObserveUsageResult(Result):
    """One entry per distinct id observed, in the order given."""

    results: list[ObserveResult]


class PromotionCandidates(Result):
    candidates: list[PromotionCandidate]


class ReviewCandidates(Result):
    candidates: list[ReviewCandidate]


class MessageAnalysis(Result):
    """`intent` save: `content`, `tags`, `entities` and `strength` are what to save (and `why`
    the strength); where a stored memory says it already (as consolidation would merge the
    two), `touch` lists it and `should_save` is false (touch it instead of keeping a copy).
    reinforce: `touch` lists the recent memories the message confirms (`missing`: the recent
    ids given that name none), or with none given the stored memory it names. recall: call
    analyze_for_recall (or search_memory) for the queries. forget: `forget` lists the stored
    memories that match what it names, best first, to delete once the user confirms."""

    intent: Literal["save", "recall", "reinforce", "forget", "none"]
    should_save: bool
    confidence: float
    phrase: str | None
    content: str | None = None
    tags: list[str] = []
    entities: list[str] = []
    strength: float | None = None
    why: list[str] = []
    touch: list[str] = []
    forget: list[str] = []
    missing: list[str] = []  # recent memory ids that name no memory


class RecallAnalysis(Result):
    """`should_search`: the message asks for something remembered; `query` is the main search,
    `queries` adds one per name it mentions; `window_days` when it says when ("last week")."""

    should_search: bool
    confidence: float
    phrase: str | None
    query: str | None = None
    queries: list[str] = []
    entities: list[str] = []
    window_days: int | None = None


# -- consolidation (services.consolidation) -------------------------------------------------------


class ClusterView(Result):
    """A cluster as the tools show it: members, how alike they are, what to do, and (for the
    merge and review bands) the memory a merge would produce."""

    id: str
    member_ids: list[str]
    cohesion: float
    action: Literal["merge", "review", "keep"]
    merged_preview: Memory | None = None
    # Why a cluster as alike as near-copies is left for review: its memories disagree (one
    # says "not", other numbers, the same words in another order, or a contradicts relation);
    # or why one below the merge band is merged (one of its memories says the others whole).
    note: str | None = None


class ClusterResult(Result):
    count: int
    clusters: list[ClusterView]
    memories_considered: int


class MergeDone(Result):
    """`path` says who decided: "merge band" (found by auto_detect, near-copies merged by the
    rules), "lossless" (found by auto_detect, one member saying every other whole, or all of
    them the same words: merged by the rules), "approved" (the caller named the cluster or the
    memories; the rules wrote the text) or "approved with the caller's text" (the caller also
    wrote the merged text: an assistant merging a review-band cluster in its own words)."""

    cluster_id: str
    merged: Memory
    archived_ids: list[str]
    relations_carried: int
    path: Literal["merge band", "lossless", "approved", "approved with the caller's text"] = (
        "approved"
    )


class ConsolidateResult(Result):
    mode: Literal["preview", "apply"]
    cohesion_threshold: float
    clusters: list[ClusterView]  # the clusters selected (preview) or applied (apply)
    merged: list[MergeDone]
    skipped: dict[str, str]  # cluster id -> why it was not applied
    # Found by auto_detect below the threshold, in the review band: for a person or the
    # assistant to look at (`clusters` lists them). A preview of none said nothing of the
    # four such clusters a probe's store held.
    left_for_review: int = 0


class KeepApartResult(Result):
    """`marked`: the pairs newly marked `distinct_from`; `already`: pairs marked before."""

    memory_ids: list[str]
    marked: int
    already: int


class UndoResult(Result):
    merged_id: str
    restored_ids: list[str]
