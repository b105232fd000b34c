"""Import a CortexGraph (mnemex) JSONL directory."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from pydantic import ValidationError as PydanticError

from engram.core.models import ID_PATTERN, Memory, Relation, Status
from engram.errors import ValidationError, from_pydantic
from engram.services import validation as check
from engram.services.transfer.common import (
    MAX_LINE_BYTES,
    Records,
    Skipped,
    TransferResult,
    Writer,
    bounded_lines,
    json_line,
    not_ahead,
    refuse_wide_text,
    write_records,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

# -- import from CortexGraph ------------------------------------------------------------------

_CORTEXGRAPH_IDS = uuid.UUID("5d0f7c1e-8a2b-4c3d-9e4f-1a2b3c4d5e6f")
CORTEXGRAPH_STATUSES = {
    "active": Status.ACTIVE,
    "promoted": Status.PROMOTED,
    "archived": Status.ARCHIVED,
}


class ImportReport(TransferResult):
    source: str
    target: str
    memory_lines: int  # lines read from memories.jsonl
    memories: int  # distinct ids whose last line is a memory (not a tombstone)
    imported: int
    already_present: int  # ids the target already had: left as they were (safe re-runs)
    deleted: int  # ids whose last line is a tombstone
    superseded: int  # older lines of memories updated later
    renamed: int  # ids Engram cannot use: given new ids (the old one is in meta.cortexgraph_id)
    relations: int  # distinct relations read
    relations_imported: int
    relations_present: int  # the store already had the edge (same ends and type): kept
    relations_dropped: int  # to or from a memory that was deleted or skipped
    skipped: int
    skipped_records: list[Skipped]  # the first ones, with file, line and reason
    message: str


@dataclass
class CortexGraphData(Records):
    distinct: int = 0
    memory_lines: int = 0
    deleted: int = 0
    superseded: int = 0
    renamed: int = 0
    relation_count: int = 0
    dropped: int = 0


def _seconds(value: Any, name: str) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(name, "must be unix seconds (a number)")
    try:
        return datetime.fromtimestamp(value, tz=UTC)
    except (OverflowError, OSError, ValueError):
        raise ValidationError(name, f"{value!r} is not a valid unix time") from None


def _field(obj: dict[str, Any], name: str, kinds: type | tuple[type, ...], default: Any) -> Any:
    value = obj.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) and kinds is not bool:
        raise ValidationError(name, f"must be {_kind_name(kinds)}")
    if not isinstance(value, kinds):
        raise ValidationError(name, f"must be {_kind_name(kinds)}")
    return value


def _kind_name(kinds: type | tuple[type, ...]) -> str:
    names = {
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }
    if isinstance(kinds, tuple):
        return " or ".join(names.get(k, k.__name__) for k in kinds)
    return names.get(kinds, kinds.__name__)


def _memory_from_cortexgraph(obj: dict[str, Any], now: datetime) -> tuple[Memory, bool]:
    """(memory, renamed). Raises ValidationError naming the field."""
    raw_id = obj.get("id")
    if not isinstance(raw_id, str) or not raw_id:
        raise ValidationError("id", "must be a non-empty string")
    check.storable(raw_id, "id")
    meta_in = _field(obj, "meta", dict, {})
    extra = meta_in.get("extra") or {}
    if not isinstance(extra, dict):
        raise ValidationError("meta.extra", "must be an object")
    meta: dict[str, Any] = {
        k: v for k, v in meta_in.items() if k not in ("tags", "source", "context", "extra")
    }
    meta.update(extra)
    renamed = not ID_PATTERN.fullmatch(raw_id)
    if renamed:
        meta["cortexgraph_id"] = raw_id
    ident = _renamed_id(raw_id) if renamed else raw_id
    created = _seconds(obj.get("created_at"), "created_at")
    if created is None:
        raise ValidationError("created_at", "is missing")
    last_used = _seconds(obj.get("last_used"), "last_used") or created
    # History as the source wrote it: a last use less than a second before the creation is the
    # creation (one written as a whole second, the other not), and a time less than a day
    # ahead of this clock is another machine's clock ahead. Both dropped the memory; a time
    # further ahead is still refused (stored, it would count as fresh for years).
    if created - timedelta(seconds=1) < last_used < created:
        last_used = created
    promoted_at = _seconds(obj.get("promoted_at"), "promoted_at")
    last_review_at = _seconds(obj.get("last_review_at"), "last_review_at")
    moments = [("created_at", created), ("last_used", last_used)]
    for name, moment in [
        *moments,
        ("promoted_at", promoted_at),
        ("last_review_at", last_review_at),
    ]:
        not_ahead(name, moment, now)
    if last_used < created:
        raise ValidationError("last_used", "must not be before created_at")
    tags = _within_limit(_field(meta_in, "tags", list, []), "meta.tags", check.TAG_LIMITS, meta)
    entities = _within_limit(
        _field(obj, "entities", list, []), "entities", check.ENTITY_LIMITS, meta
    )
    status_name = _field(obj, "status", str, "active")
    if status_name not in CORTEXGRAPH_STATUSES:
        raise ValidationError("status", f"{status_name!r} is not one of active, promoted, archived")
    try:
        memory = Memory(
            id=ident,
            content=check.content(_field(obj, "content", str, "")),
            tags=tags,
            entities=entities,
            source=check.short_text(_field(meta_in, "source", str, None), "meta.source"),
            context=check.short_text(_field(meta_in, "context", str, None), "meta.context"),
            meta=check.meta(meta, "meta.extra"),
            created_at=created,
            last_used=last_used,
            use_count=_field(obj, "use_count", int, 0),
            strength=check.strength(_field(obj, "strength", (int, float), 1.0)),
            status=CORTEXGRAPH_STATUSES[status_name],
            promoted_at=promoted_at,
            promoted_to=check.short_text(_field(obj, "promoted_to", str, None), "promoted_to"),
            review_priority=_field(obj, "review_priority", (int, float), 0.0),
            last_review_at=last_review_at,
            review_count=_field(obj, "review_count", int, 0),
            cross_domain_count=_field(obj, "cross_domain_count", int, 0),
        )
    except PydanticError as exc:
        raise from_pydantic(exc) from None
    return memory, renamed


def _within_limit(
    values: list[Any], field: str, limits: tuple[int, int], meta: dict[str, Any]
) -> tuple[str, ...]:
    """CortexGraph has no limit on a memory's tags or entities, nor on their length; Engram
    keeps the first it allows as such and the rest in meta (`cortexgraph_tags` /
    `cortexgraph_entities`), longer ones too, and drops blank ones, which name nothing: a
    memory with 60 entities was skipped, all of it lost for its sixty names, and one with a
    tag of "" or of 101 characters for that tag (a probe)."""
    most, longest = limits
    named = [v for v in values if not (isinstance(v, str) and check.blank(v))]
    too_long = [v for v in named if isinstance(v, str) and not check.fits_as_label(v, longest)]
    fits = [v for v in named if v not in too_long]
    every = check.labels(fits, field, len(fits), longest)
    aside = [*every[most:], *too_long]
    if aside:
        meta[f"cortexgraph_{field.removeprefix('meta.')}"] = aside
    return every[:most]


def _renamed_id(raw_id: str) -> str:
    """A stable new id for an id Engram cannot use: the same on every run (safe re-imports)."""
    return str(uuid.uuid5(_CORTEXGRAPH_IDS, raw_id))


def _relation_from_cortexgraph(
    obj: dict[str, Any], ids: dict[str, str], born: dict[str, datetime], now: datetime
) -> Relation | str:
    """The relation, or the reason it is dropped (an endpoint was not imported)."""
    ends = []
    for name in ("from_memory_id", "to_memory_id"):
        value = obj.get(name)
        if not isinstance(value, str) or not value:
            raise ValidationError(name, "must be a non-empty string")
        if value not in ids:
            return f"{name} {value!r} is not an imported memory (deleted or skipped)"
        ends.append(ids[value])
    if ends[0] == ends[1]:
        raise ValidationError("to_memory_id", "a memory cannot relate to itself")
    rid = obj.get("id")
    if not isinstance(rid, str) or not rid:
        raise ValidationError("id", "must be a non-empty string")
    check.storable(rid, "id")
    if not ID_PATTERN.fullmatch(rid):
        rid = _renamed_id(rid)
    # Without its own time, it was made once both its ends existed (it was dated 1970).
    created = _seconds(obj.get("created_at"), "created_at") or max(born[e] for e in ends)
    not_ahead("created_at", created, now)
    try:
        return Relation(
            id=rid,
            from_id=ends[0],
            to_id=ends[1],
            type=check.relation_type(_field(obj, "relation_type", str, "related")),
            strength=check.unit(_field(obj, "strength", (int, float), 1.0), "strength"),
            metadata=check.meta(_field(obj, "metadata", dict, {}), "metadata"),
            created_at=created,
        )
    except PydanticError as exc:
        raise from_pydantic(exc) from None


class LineCounts(NamedTuple):
    lines: int  # non-blank lines read
    deleted: int  # ids a tombstone deleted
    superseded: int  # lines a later line of the same id replaced
    distinct: int  # ids with a last line, whether it read or not


def _last_lines(
    path: Path, report: list[Skipped], read: Callable[[dict[str, Any]], T]
) -> tuple[dict[str, tuple[int, T]], LineCounts]:
    """id -> (line number, record `read` made of it) of the last line per id that reads,
    tombstones applied; and what was counted of the lines (`LineCounts`). A line
    that does not read is skipped and leaves the one before it: a later line of a memory with
    a bad field dropped the memory, and its relations with it, where `import jsonl` kept the
    line before (a probe)."""
    if not path.exists():
        return {}, LineCounts(0, 0, 0, 0)
    latest: dict[str, tuple[int, T]] = {}
    deleted: set[str] = set()
    unread: set[str] = set()  # ids with a line that did not read
    lines = superseded = 0
    with path.open("rb") as f:
        for number, raw in enumerate(bounded_lines(f, MAX_LINE_BYTES), 1):
            if raw is None:  # what a crash can leave (a run of NULs): never held whole
                reason = f"longer than {MAX_LINE_BYTES:,} bytes"
                report.append(Skipped(file=path.name, line=number, id=None, reason=reason))
                lines += 1
                continue
            if not raw.strip():
                continue
            lines += 1
            try:
                obj = json_line(raw)
            except (ValueError, RecursionError) as exc:  # nested beyond Python's stack
                report.append(
                    Skipped(file=path.name, line=number, id=None, reason=f"not valid JSON ({exc})")
                )
                continue
            ident = obj.get("id") if isinstance(obj, dict) else None
            if not isinstance(ident, str) or not ident:
                why = _id_problem(obj)
                report.append(Skipped(file=path.name, line=number, id=None, reason=why))
                continue
            tombstone = obj.get("_deleted") is True
            if not tombstone:
                try:
                    record = read(obj)
                except ValidationError as exc:
                    report.append(Skipped(file=path.name, line=number, id=ident, reason=str(exc)))
                    unread.add(ident)
                    continue
            if ident in latest:
                superseded += 1
                del latest[ident]  # a later line wins, and takes its place in the order
            if tombstone:
                deleted.add(ident)
                continue
            deleted.discard(ident)
            latest[ident] = (number, record)
    distinct = len(latest) + len(unread - latest.keys() - deleted)
    return latest, LineCounts(lines, len(deleted), superseded, distinct)


def check_cortexgraph_dir(directory: Path) -> Path:
    """`directory` if it is a CortexGraph data directory (checked before a store is opened,
    so that a mistyped path creates nothing)."""
    if not directory.is_dir():
        raise ValidationError("directory", f"{directory} is not a directory")
    if not (directory / "memories.jsonl").exists():
        raise ValidationError(
            "directory", f"{directory} has no memories.jsonl: not a CortexGraph directory"
        )
    # A folder of that name failed the import with a bare "[Errno 21] Is a directory", after
    # the store had been made.
    for name in ("memories.jsonl", "relations.jsonl"):
        if (directory / name).exists() and not (directory / name).is_file():
            raise ValidationError("directory", f"{directory / name} is not a file")
        if (directory / name).exists():
            refuse_wide_text(directory / name, "a CortexGraph file")
    return directory


def _id_problem(obj: object) -> str:
    """Why a line has no id Engram can read: "id: missing" was said of a number too."""
    if not isinstance(obj, dict):
        return "not a record (a JSON object)"
    if "id" not in obj or obj["id"] in (None, ""):
        return "id: missing"
    return f"id: must be text, not {type(obj['id']).__name__}"


def read_cortexgraph(directory: Path, now: datetime) -> CortexGraphData:
    """Parse a CortexGraph data directory; bad records are skipped and reported, never fatal."""
    memories_file = check_cortexgraph_dir(directory) / "memories.jsonl"
    data = CortexGraphData()
    latest, counts = _last_lines(
        memories_file, data.skipped, lambda obj: _memory_from_cortexgraph(obj, now)
    )
    data.memory_lines, data.deleted, data.superseded, data.distinct = counts
    ids: dict[str, str] = {}  # their id -> ours
    for ident, (_, (memory, was_renamed)) in latest.items():
        data.renamed += was_renamed
        ids[ident] = memory.id
        data.memories.append(memory)
    relations_file = directory / "relations.jsonl"
    born = {m.id: m.created_at for m in data.memories}
    rel_latest, rel_counts = _last_lines(
        relations_file,
        data.skipped,
        lambda obj: _relation_from_cortexgraph(obj, ids, born, now),
    )
    data.relation_count = rel_counts.distinct
    for number, outcome in rel_latest.values():
        if isinstance(outcome, str):
            data.dropped += 1
            log.info("relations.jsonl line %d dropped: %s", number, outcome)
            continue
        data.relations.append(outcome)
        data.relation_lines[outcome.id] = (relations_file.name, number)
    return data


def import_cortexgraph(directory: Path, writer: Writer, *, now: datetime) -> ImportReport:
    """Import into the writer's target; ids it already has are left as they are (so re-running
    is safe)."""
    data = read_cortexgraph(directory, now)
    written = write_records(writer, data)
    return ImportReport(
        target=writer.target.location,
        memory_lines=data.memory_lines,
        memories=data.distinct,
        deleted=data.deleted,
        superseded=data.superseded,
        renamed=data.renamed,
        relations=data.relation_count,
        relations_dropped=data.dropped,
        **written.report(str(directory)),
    )
