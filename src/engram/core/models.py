"""The memory model: frozen records that every layer passes around.

Times are timezone-aware UTC datetimes at the edges of the system; the decay maths works on
float epoch seconds (see `engram.core.timeutil`) so it can be vectorised with numpy.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from enum import StrEnum
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

MIN_STRENGTH = 0.0
MAX_STRENGTH = 2.0
# The largest counter every backend stores (PostgreSQL's `integer`); a larger one, typed into
# a JSONL line or an imported file, is refused like any other invalid record instead of
# failing deep inside a store.
MAX_COUNT = 2**31 - 1
# The largest place in an episode (PostgreSQL's and SQLite's 64-bit integers).
MAX_SEQ = 2**63 - 1
# The most cue words a memory holds (`core.cues`).
MAX_CUES = 16


class Status(StrEnum):
    ACTIVE = "active"
    PROMOTED = "promoted"
    ARCHIVED = "archived"


# A memory marked to be kept for good carries `meta.keep = true` (JSON true only): gc never
# forgets it and it is never offered for review, however faded, while it still fades in rank
# and stays a promotion candidate. A blind probe's year of monthly gc deleted 32 of 36 vital
# facts told once and never needed since (a blood type, an allergy, a pacemaker); the seed
# promises critical things can be marked "never forget". In `meta`, not a column of its own:
# every backend already stores and exports it.
KEEP = "keep"


def is_kept(meta: dict[str, Any]) -> bool:
    return meta.get(KEEP) is True


# `supersedes` goes from the news to the fact it replaces ("Lisa is no longer vegetarian" ->
# "Lisa is vegetarian"): search lists the news first wherever the fact matches (docs/search.md).
# `distinct_from` says two alike memories are not the same fact (a person looked at them):
# consolidation never clusters them together again (docs/consolidation.md).
RelationType = Literal[
    "related",
    "causes",
    "supports",
    "contradicts",
    "has_decision",
    "consolidated_from",
    "supersedes",
    "distinct_from",
]
RELATION_TYPES: tuple[str, ...] = get_args(RelationType)
# Which way graph traversal follows a directed edge: from -> to ("out"), to -> from ("in"), or
# either ("both").
Direction = Literal["out", "in", "both"]


# What an id may be: it appears in URLs, file names of the vault's notes and shell commands.
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")
ID_RULE = "1-128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit"


def new_id() -> str:
    return str(uuid.uuid4())


class Memory(BaseModel):
    """One short-term memory, with the counters that drive its decay and review."""

    model_config = ConfigDict(frozen=True)

    id: str
    content: str
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    source: str | None = None
    context: str | None = None
    meta: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime
    last_used: datetime
    use_count: int = Field(default=0, ge=0, le=MAX_COUNT)
    # finite: an export line's NaN was told "should be less than or equal to 2" (a probe)
    strength: float = Field(default=1.0, ge=MIN_STRENGTH, le=MAX_STRENGTH, allow_inf_nan=False)
    status: Status = Status.ACTIVE
    promoted_at: datetime | None = None
    promoted_to: str | None = None
    review_priority: float = Field(default=0.0, ge=0.0, le=1.0, allow_inf_nan=False)
    last_review_at: datetime | None = None
    review_count: int = Field(default=0, ge=0, le=MAX_COUNT)
    cross_domain_count: int = Field(default=0, ge=0, le=MAX_COUNT)
    # The conversation (or session) a memory was saved in, and its place in that episode's
    # saving order. Search lets relevance spread to a memory's neighbours in its episode:
    # many turns share one timestamp, so order, not time, defines who is next to whom.
    episode: str | None = None
    episode_seq: int | None = Field(default=None, ge=0, le=MAX_SEQ)
    # Words of the turn before that this one answers without saying them ("He passed! Second
    # try" after "How did Owen's driving test go?"), set when it is saved (`core.cues`) and
    # searched as its entities are.
    cues: tuple[str, ...] = Field(default=(), max_length=MAX_CUES)


class Relation(BaseModel):
    """A directed, typed edge of the knowledge graph."""

    model_config = ConfigDict(frozen=True)

    id: str
    from_id: str
    to_id: str
    type: RelationType
    strength: float = Field(default=1.0, ge=0.0, le=1.0, allow_inf_nan=False)
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime


class AuditEntry(BaseModel):
    """One decision of the maintenance pipeline, as the audit trail keeps it: which agent, what
    it proposed for which memories and why, and whether it was applied with what result. A dry
    run records its plan (`applied` false, result "planned"); applying the plan records each
    step again with its outcome."""

    model_config = ConfigDict(frozen=True)

    id: str
    plan_id: str
    step: int
    agent: str
    action: str
    memory_ids: tuple[str, ...] = ()
    detail: dict[str, Any] = Field(default_factory=dict)
    why: str = ""
    applied: bool = False
    result: str = "planned"
    at: datetime


class Schedule(BaseModel):
    """When a memory's score crosses each policy threshold (epoch seconds).

    Stored next to the memory and indexed, so that "which memories are due for gc / in the
    danger zone / promotable now?" is an index range query instead of scoring every row.
    `None` means the memory never enters that set (e.g. it is not active).
    Intervals are closed: the memory is in the set while `start <= now <= end`.
    """

    model_config = ConfigDict(frozen=True)

    forget_at: float | None = None
    review_at: float | None = None  # when the score passes mid-zone: peak review urgency
    danger_from: float | None = None
    danger_until: float | None = None
    promote_from: float | None = None
    promote_until: float | None = None
