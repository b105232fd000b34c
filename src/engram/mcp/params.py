"""Tool parameter types: the service limits, published in every tool's JSON input schema.

The numbers come from `engram.services.validation` (and the services' own maxima) so the schema a
model reads, the SDK's argument validation and the service checks can never disagree. The schema
lets a client refuse bad input before it is sent; the services still check everything, because
the Python API and the CLI do not go through this schema.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from engram.core.models import (
    ID_PATTERN,
    ID_RULE,
    MAX_STRENGTH,
    MIN_STRENGTH,
    RELATION_TYPES,
    Direction,
    RelationType,
)
from engram.services.graph import MAX_DEPTH, MAX_GRAPH_PAGE, MAX_RELATED
from engram.services.maintenance import GC_BATCH_MAX
from engram.services.validation import (
    MAX_CONTENT,
    MAX_ENTITIES,
    MAX_ENTITY_LEN,
    MAX_IDS,
    MAX_LIMIT,
    MAX_META_BYTES,
    MAX_QUERY,
    MAX_TAG_LEN,
    MAX_TAGS,
    MAX_TEXT_FIELD,
)

__all__ = [
    "TAG_LIMITS",
    "Content",
    "ContextText",
    "Count",
    "Depth",
    "Flag",
    "GcLimit",
    "GraphCursor",
    "GraphLimit",
    "Limit",
    "MemoryId",
    "MemoryIds",
    "NewContent",
    "Number",
    "OptionalContent",
    "OptionalEntities",
    "OptionalMemoryId",
    "OptionalMeta",
    "OptionalStrength",
    "OptionalTags",
    "Query",
    "RelatedLimit",
    "RelationStrength",
    "RelationType",
    "RelationTypes",
    "Source",
    "StatusName",
    "Strength",
    "TraversalDirection",
]


# Element types: constraints only, so each description sits once, on the parameter itself.
IdText = Annotated[str, Field(pattern=ID_PATTERN.pattern, min_length=1, max_length=128)]
Tag = Annotated[str, Field(min_length=1, max_length=MAX_TAG_LEN)]
Entity = Annotated[str, Field(min_length=1, max_length=MAX_ENTITY_LEN)]

# Parameter types. Optional ones wrap the union in the Field, so the description and the
# limits stay at the top of the property where clients show them (a tool may still override
# the description with an outer `Annotated[..., Field(description=...)]`).
#
# Optional free text is `str` with "" for "not given", never `str | None`: the SDK parses a
# string argument as JSON whenever the parameter's type is not exactly `str` (a workaround for
# clients that send lists as strings), so `str | None` would turn the query "null" into None
# and content such as '["a", "b"]' into a list.

MemoryId = Annotated[
    IdText,
    Field(description=f"A memory id as returned by save_memory or search_memory ({ID_RULE})."),
]
MergedId = Annotated[
    IdText,
    Field(
        description="The merged memory's id, as consolidate_memories returned it "
        f"(merged[].merged.id; {ID_RULE})."
    ),
]
RelationId = Annotated[
    IdText,
    Field(description=f"A relation id as returned by create_relation or read_graph ({ID_RULE})."),
]


def _null_is_omitted(value: object) -> object:
    """Clients and models often send null for a parameter they leave out: the same as ""."""
    return "" if value is None else value


def _only(kind: str, *types: type) -> BeforeValidator:
    """What pydantic would convert and the Python API and the CLI refuse
    (`engram.services.validation`), this refuses: `true` read as 1 and `false` as 0.0
    (`"strength": false` on update_memory zeroed a memory, and the next gc forgot it), and text
    read as a flag (`"dry_run": "no"` on gc deleted what the caller wanted listed: audit). A
    number sent as text ("5") is still taken, as the SDK means it to be for clients that send
    them so: it means what it says. None passes, for parameters that may be left out."""

    def refuse(value: object) -> object:
        if value is None or (isinstance(value, str) and bool not in types):
            return value
        if isinstance(value, bool) != (bool in types) or not isinstance(value, types):
            raise ValueError(f"must be {kind}, not {_shown(value)}")
        return value

    return BeforeValidator(refuse)


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, str):
        return f"the text {value[:20]!r}"
    return type(value).__name__


Count = _only("a whole number", int, float)  # 5.0 is 5: a fraction pydantic refuses
Number = _only("a number", int, float)
Flag = Annotated[bool, _only("true or false", bool)]
# Whether a memory is kept for good (`engram.core.models.KEEP`); null or left out: as it is.
Keep = Annotated[bool | None, _only("true or false", bool)]

OptionalMemoryId = Annotated[
    str,
    Field(pattern=f"^$|{ID_PATTERN.pattern}", max_length=128, description=ID_RULE),
    BeforeValidator(_null_is_omitted),
]
# A read_graph cursor: a memory id, then "@" and its place in saving order (services/graph.py).
GraphCursor = Annotated[
    str,
    Field(pattern=f"^$|{ID_PATTERN.pattern.rstrip('$')}(@[0-9]{{1,19}})?$", max_length=148),
    BeforeValidator(_null_is_omitted),
]
MemoryIds = Annotated[
    list[IdText],
    Field(
        min_length=1,
        max_length=MAX_IDS,
        description=f"1 to {MAX_IDS} memory ids ({ID_RULE}); duplicates are ignored.",
    ),
]
# The memories of one merge: its schema said "1 to 100" where one id is refused.
MergeIds = Annotated[
    MemoryIds,
    Field(min_length=2, description=f"2 to {MAX_IDS} different memory ids ({ID_RULE})."),
]

_CONTENT_DOC = (
    f"The memory text: non-blank, at most {MAX_CONTENT:,} characters. "
    "One self-contained fact, preference or decision reads best later."
)
Content = Annotated[str, Field(min_length=1, max_length=MAX_CONTENT, description=_CONTENT_DOC)]
OptionalContent = Annotated[
    str,
    Field(max_length=MAX_CONTENT, description=f"At most {MAX_CONTENT:,} characters."),
    BeforeValidator(_null_is_omitted),
]
NewContent = Annotated[
    str,
    Field(
        max_length=MAX_CONTENT,
        description=f"New text, at most {MAX_CONTENT:,} characters; omit (or empty) to keep it.",
    ),
    BeforeValidator(_null_is_omitted),
]

TAG_LIMITS = f"up to {MAX_TAGS} tags of at most {MAX_TAG_LEN} characters each"
_TAGS_DOC = f"Short labels to find the memory by: {TAG_LIMITS}; duplicates (ignoring case) merge."
OptionalTags = Annotated[list[Tag] | None, Field(max_length=MAX_TAGS, description=_TAGS_DOC)]

OptionalEntities = Annotated[
    list[Entity] | None,
    Field(
        max_length=MAX_ENTITIES,
        description=f"Up to {MAX_ENTITIES} named things the memory is about (people, projects, "
        f"tools), at most {MAX_ENTITY_LEN} characters each; searched like tags.",
    ),
]

Source = Annotated[
    str,
    Field(
        max_length=MAX_TEXT_FIELD,
        description=f"Where it came from (a URL, file, person), at most {MAX_TEXT_FIELD:,} "
        "characters; empty for none (update_memory: to keep it).",
    ),
    BeforeValidator(_null_is_omitted),
]
ContextText = Annotated[
    str,
    Field(
        max_length=MAX_TEXT_FIELD,
        description=f"The situation it was learned in, at most {MAX_TEXT_FIELD:,} characters; "
        "empty for none (update_memory: to keep it).",
    ),
    BeforeValidator(_null_is_omitted),
]

OptionalMeta = Annotated[
    dict[str, Any] | None,
    Field(
        description=f"Free-form JSON object kept with the record, at most {MAX_META_BYTES:,} "
        "bytes once serialised; not searched."
    ),
]

_STRENGTH_DOC = (
    f"Importance multiplier of the decay score, {MIN_STRENGTH:g} to {MAX_STRENGTH:g} "
    "(1 is normal, 2 for something that must last)."
)
Strength = Annotated[
    float,
    Field(ge=MIN_STRENGTH, le=MAX_STRENGTH, allow_inf_nan=False, description=_STRENGTH_DOC),
    Number,
]
OptionalStrength = Annotated[
    float | None,
    Field(ge=MIN_STRENGTH, le=MAX_STRENGTH, allow_inf_nan=False, description=_STRENGTH_DOC),
    Number,
]

RelationStrength = Annotated[
    float,
    Field(ge=0.0, le=1.0, allow_inf_nan=False, description="How strong the link is, 0 to 1."),
    Number,
]


def _one_to(most: int, description: str) -> Any:
    """The range of a count (1 to `most`), which its description names."""
    return Field(ge=1, le=most, description=description)


Limit = Annotated[int, _one_to(MAX_LIMIT, f"How many results at most, 1 to {MAX_LIMIT}."), Count]
GraphLimit = Annotated[
    int, _one_to(MAX_GRAPH_PAGE, f"Memories per page, 1 to {MAX_GRAPH_PAGE:,}."), Count
]
_DEPTH_DOC = f"How many edges away to look, 1 (direct neighbours) to {MAX_DEPTH}."
Depth = Annotated[int, _one_to(MAX_DEPTH, _DEPTH_DOC), Count]
RelatedLimit = Annotated[
    int, _one_to(MAX_RELATED, f"Memories returned at most, 1 to {MAX_RELATED:,}."), Count
]
_GC_DOC = (
    f"How many memories one run handles at most, 1 to {GC_BATCH_MAX:,}; "
    "the result says has_more when some were left for the next run."
)
GcLimit = Annotated[int, _one_to(GC_BATCH_MAX, _GC_DOC), Count]

RelationTypes = Annotated[
    list[RelationType] | None,
    Field(
        min_length=1,
        max_length=len(RELATION_TYPES),
        description="Follow only edges of these types; omit to follow every type.",
    ),
]

TraversalDirection = Annotated[
    Direction,
    Field(
        description="'out' follows edges from -> to (what this causes, supports...), 'in' "
        "the other way (what causes or supports this), 'both' either way."
    ),
]

Query = Annotated[
    str,
    Field(
        max_length=MAX_QUERY,
        description="What to look for, in words or as a question: memories are matched by "
        "meaning as well as by their words (one need not share a word with the query), at most "
        f"{MAX_QUERY:,} characters. Omit (or empty) to browse by recency and score.",
    ),
    BeforeValidator(_null_is_omitted),
]

StatusName = Literal["active", "promoted", "archived"]
