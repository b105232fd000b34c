"""The line format of `memories.jsonl` and `relations.jsonl`.

One JSON object per line, keys always in the same order, times as ISO 8601 UTC, so a diff of
two versions shows exactly the fields that changed. A memory line carries its schedule (the
moments its score crosses the policy thresholds) under `_schedule`, last, with `"of"`: a digest
of what it was computed from (counters, strength, times, status). A hand edit of any of those
makes the digest disagree, and the schedule is then recomputed instead of trusted (it kept a
memory edited down to strength 0.01 from ever being forgotten). A deletion is the tombstone
`{"id": ..., "_deleted": true}`. The last line for an id wins.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import ValidationError as PydanticError
from pydantic_core import from_json

from engram.core.models import ID_PATTERN, Memory, Relation, Schedule
from engram.core.timeutil import DATE_RANGE, round_trips
from engram.errors import from_pydantic

T = TypeVar("T")

log = logging.getLogger(__name__)

SCHEDULE_FIELDS = tuple(Schedule.model_fields)
_TIME_FIELDS = ("created_at", "last_used", "promoted_at", "last_review_at")


class BadLine(ValueError):
    """A line that is not a valid record; the message says why (naming the field)."""


@dataclass(frozen=True)
class Tombstone:
    id: str


@dataclass(frozen=True)
class StoredMemory:
    memory: Memory
    schedule: Schedule | None  # None: written without one (by hand): must be recomputed


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(UTC).isoformat()


def _num(value: float | None) -> float | None:
    return None if value is None or value != value else value


def encode_memory(memory: Memory, schedule: Schedule | None) -> bytes:
    m = memory
    line: dict[str, Any] = {
        "id": m.id,
        "content": m.content,
        "tags": list(m.tags),
        "entities": list(m.entities),
        "source": m.source,
        "context": m.context,
        "meta": m.meta,
        "created_at": _iso(m.created_at),
        "last_used": _iso(m.last_used),
        "use_count": m.use_count,
        "strength": m.strength,
        "status": m.status.value,
        "promoted_at": _iso(m.promoted_at),
        "promoted_to": m.promoted_to,
        "review_priority": m.review_priority,
        "last_review_at": _iso(m.last_review_at),
        "review_count": m.review_count,
        "cross_domain_count": m.cross_domain_count,
        "episode": m.episode,
        "episode_seq": m.episode_seq,
    }
    if m.cues:  # most memories have none: their lines stay as they were
        line["cues"] = list(m.cues)
    if schedule is not None:
        line["_schedule"] = {f: _num(getattr(schedule, f)) for f in SCHEDULE_FIELDS}
        line["_schedule"]["of"] = schedule_digest(m)
    return json.dumps(line, ensure_ascii=False, allow_nan=False).encode()


def encode_relation(r: Relation) -> bytes:
    line = {
        "id": r.id,
        "from_id": r.from_id,
        "to_id": r.to_id,
        "type": r.type,
        "strength": r.strength,
        "metadata": r.metadata,
        "created_at": _iso(r.created_at),
    }
    return json.dumps(line, ensure_ascii=False, allow_nan=False).encode()


def encode_tombstone(ident: str) -> bytes:
    return json.dumps({"id": ident, "_deleted": True}, ensure_ascii=False).encode()


def parse_object(raw: bytes) -> dict[str, Any]:
    """One line's object. A UTF-8 byte order mark before it (what Windows Notepad writes at
    the start of a file it saves) is not part of the JSON: the line was quarantined."""
    try:
        # NaN and Infinity are no JSON: read, they made every later write of the line fail.
        obj = from_json(raw.removeprefix(b"\xef\xbb\xbf"), allow_inf_nan=False)
    except ValueError as exc:
        raise BadLine(f"not valid JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise BadLine("line: must be a JSON object")
    # Nor is a number too large for a float (1e999, read as infinity): a line's own numbers
    # and those of its free-form parts (meta, metadata, _schedule); tags and text hold none.
    if not _finite(obj.values()):
        raise BadLine("line: holds a number too large for JSON (such as 1e999)")
    return obj


def _finite(values: Iterable[object]) -> bool:
    """No infinite float among `values`, nested ones included (a plain loop: it runs for every
    line a store loads)."""
    for value in values:
        if isinstance(value, float):
            if not math.isfinite(value):
                return False
        elif isinstance(value, dict):
            if not _finite(value.values()):
                return False
        elif isinstance(value, list) and not _finite(value):
            return False
    return True


def tombstone_of(obj: dict[str, Any]) -> Tombstone | None:
    if obj.get("_deleted") is not True:
        return None
    ident = obj.get("id")
    if not isinstance(ident, str) or not ident:
        raise BadLine("id: a tombstone needs the id of what it deletes")
    return Tombstone(ident)


def _reason(exc: PydanticError) -> str:
    return str(from_pydantic(exc))


_MEMORY_KEYS = frozenset(Memory.model_fields)
_RELATION_KEYS = frozenset(Relation.model_fields)


def _doubtful(obj: dict[str, Any], known: frozenset[str], *ids: str) -> None:
    """What a hand edit may have got wrong without making the record unreadable: a key that
    is no field ("stregth", ignored, and dropped by the next compaction) and an id no command
    can name (blank, spaces, a path). Both are logged, naming the record; the record still
    loads (an earlier Engram loaded it, and quarantining it would lose it from git)."""
    if known.issuperset(obj) and all(
        not isinstance(obj.get(name), str) or ID_PATTERN.fullmatch(obj[name]) for name in ids
    ):
        return  # every line but a hand-edited one
    what = f"record {obj.get('id')!r}"
    for key in sorted(set(obj) - known):
        log.warning("%s: %r is not a field and is ignored (misspelled?)", what, key)
    for name in ids:
        value = obj.get(name)
        if isinstance(value, str) and not ID_PATTERN.fullmatch(value):
            log.warning(
                "%s: %s %r is not an id a command can name (letters, digits, . _ : -; at most "
                "128): edit the file to use it",
                what,
                name,
                value,
            )


def _decode(raw: bytes, record: Callable[[dict[str, Any]], T]) -> T | Tombstone:
    """One line of a JSONL file: a tombstone, or the record `record` makes of it; raises
    BadLine naming what is wrong."""
    obj = parse_object(raw)
    gone = tombstone_of(obj)
    return record(obj) if gone is None else gone


def decode_memory(raw: bytes) -> StoredMemory | Tombstone:
    """Parse one line of memories.jsonl; raises BadLine naming what is wrong."""
    return _decode(raw, memory_from_object)


def memory_from_object(obj: dict[str, Any]) -> StoredMemory:
    """A memory record (a line of memories.jsonl, or of an export); raises BadLine naming
    what is wrong."""
    stored = obj.pop("_schedule", None)
    _doubtful(obj, _MEMORY_KEYS, "id")
    try:
        memory = Memory.model_validate(obj)
    except PydanticError as exc:
        raise BadLine(_reason(exc)) from None
    _without_nul(memory)
    times: dict[str, datetime] = {}
    for name in _TIME_FIELDS:
        moment = getattr(memory, name)
        if moment is not None:
            if moment.utcoffset() is None:
                raise BadLine(f"{name}: must be timezone-aware (e.g. 2026-01-31T12:00:00+00:00)")
            if not round_trips(moment):
                raise BadLine(f"{name}: {DATE_RANGE}")
            if moment.utcoffset():
                times[name] = moment.astimezone(UTC)
    if times:
        memory = memory.model_copy(update=times)
    return StoredMemory(memory, _schedule(stored, memory))


def _without_nul(memory: Memory) -> None:
    """A NUL typed into a line by hand was read, and an export of the store then could not be
    restored (every other way in refuses it; a helper's probe): the line is refused as they
    refuse it."""
    fields: dict[str, Sequence[str]] = {
        "content": [memory.content],
        "source": [memory.source or ""],
        "context": [memory.context or ""],
        "tags": memory.tags,
        "entities": memory.entities,
        "cues": memory.cues,
    }
    for name, values in fields.items():
        if any("\x00" in value for value in values):
            raise BadLine(f"{name}: must not contain NUL characters")


def schedule_digest(m: Memory) -> str:
    """What a memory's schedule depends on, in a few characters (read for every line at
    open: built from the numbers, not from formatted times)."""
    inputs = (
        f"{m.use_count}|{m.strength!r}|{m.last_used.timestamp()!r}|"
        f"{m.created_at.timestamp()!r}|{m.status.value}"
    )
    return hashlib.blake2b(inputs.encode(), digest_size=6).hexdigest()


def _schedule(stored: object, memory: Memory) -> Schedule | None:
    """The stored schedule, or None (then recomputed) if it is missing or malformed, or was
    computed from other values than the line holds (edited by hand). A line written before
    the digest existed is trusted as it is."""
    if not isinstance(stored, dict):
        return None
    digest = stored.pop("of", None)
    if digest is not None and digest != schedule_digest(memory):
        return None
    try:
        schedule = Schedule.model_validate(stored)
    except PydanticError:
        return None
    return schedule if _windows_hold(schedule) else None


def _windows_hold(schedule: Schedule) -> bool:
    """Whether each window has both ends or neither, in order, and no time is NaN: a window
    edited by hand to end before it starts, its digest left as it was, made the index refuse
    the line, and the store could not be opened (audit)."""
    times = schedule.model_dump().values()
    if any(t is not None and math.isnan(t) for t in times):
        return False
    for start, end in (
        (schedule.danger_from, schedule.danger_until),
        (schedule.promote_from, schedule.promote_until),
    ):
        if (start is None) != (end is None) or (
            start is not None and end is not None and start > end
        ):
            return False
    return True


def decode_relation(raw: bytes) -> Relation | Tombstone:
    return _decode(raw, relation_from_object)


def relation_from_object(obj: dict[str, Any]) -> Relation:
    _doubtful(obj, _RELATION_KEYS, "id", "from_id", "to_id")
    try:
        rel = Relation.model_validate(obj)
    except PydanticError as exc:
        raise BadLine(_reason(exc)) from None
    if rel.created_at.utcoffset() is None:
        raise BadLine("created_at: must be timezone-aware (e.g. 2026-01-31T12:00:00+00:00)")
    if not round_trips(rel.created_at):
        raise BadLine(f"created_at: {DATE_RANGE}")
    return rel.model_copy(update={"created_at": rel.created_at.astimezone(UTC)})
