"""Input limits shared by every adapter, so MCP, CLI and Python refuse the same things."""

from __future__ import annotations

import errno
import json
import math
import os
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from engram.core.merge import MARK as MERGE_RECORD
from engram.core.models import (
    ID_PATTERN,
    ID_RULE,
    KEEP,
    MAX_STRENGTH,
    MIN_STRENGTH,
    RELATION_TYPES,
    Memory,
    Relation,
    Status,
    is_kept,
)
from engram.core.text import tag_key
from engram.core.timeutil import DATE_RANGE, ensure_aware, round_trips
from engram.errors import ValidationError

MAX_CONTENT = 50_000
MAX_TAGS = 50
MAX_TAG_LEN = 100
MAX_ENTITIES = 50
MAX_ENTITY_LEN = 200
MAX_TEXT_FIELD = 1_000  # source, context
MAX_LIMIT = 100
MAX_IDS = 100
MAX_QUERY = 1_000
MAX_META_BYTES = 20_000
MAX_EPISODE = 200
MAX_META_DEPTH = 32


def storable(value: str, field: str, what: str = "must") -> str:
    """Text every backend can store and every format can carry: no NUL character, and no lone
    surrogate (what undecodable bytes become in Python: a Latin-1 file piped in, a terminal
    in another encoding), which UTF-8 cannot encode."""
    if not isinstance(value, str):  # a number or a list from Python: a traceback deep inside
        raise ValidationError(field, f"{what} be text, not {type(value).__name__}")
    if "\x00" in value:
        raise ValidationError(field, f"{what} not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValidationError(
            field,
            f"{what} be valid Unicode text: character {exc.start + 1} could not be read as "
            "UTF-8 (the text was written in another encoding? save it as UTF-8)",
        ) from None
    return value


def blank(value: str) -> bool:
    """Nothing to see: white space, and format characters (zero-width spaces and joiners,
    U+2060), which `strip` keeps: "\u200b\u200b" was saved as a memory."""
    return all(c.isspace() or unicodedata.category(c) == "Cf" for c in value)


def content(value: str, field: str = "content") -> str:
    """Text to keep, in its composed form (NFC), as tags are: "Jürgen" typed as "u" and a
    combining mark (macOS, some keyboards) was another text, saved as a second copy, and
    its words read as "ju" and "rgen" (a probe)."""
    if not isinstance(value, str):  # save(123) was told it "must be non-blank text"
        raise ValidationError(field, f"must be text, not {type(value).__name__}")
    if blank(value):
        raise ValidationError(field, "must be non-blank text")
    composed = unicodedata.normalize("NFC", storable(value, field))
    return at_most(composed, MAX_CONTENT, field)


def at_most(value: str, limit: int, field: str) -> str:
    """`value`, if it is at most `limit` characters long; the error says both numbers (a query
    over the limit said only the limit: a probe)."""
    if len(value) > limit:
        raise ValidationError(field, f"is {len(value):,} characters; the limit is {limit:,}")
    return value


def labels(values: Iterable[str] | None, field: str, most: int, longest: int) -> tuple[str, ...]:
    """Tags/entities: stripped, Unicode-normalised (NFC: "café" typed with a combining accent
    is the same tag, in a save and in a search's tag filter), non-blank, de-duplicated
    case-insensitively, order kept."""
    if values is None:
        return ()
    if isinstance(values, str):
        raise ValidationError(field, "must be a list of strings, not one string")
    out: dict[str, str] = {}
    for raw in sequence(values, field, "a list of strings"):
        if not isinstance(raw, str) or blank(raw):
            raise ValidationError(field, "entries must be non-blank strings")
        label = unicodedata.normalize("NFC", raw.strip())
        if len(label) > longest:
            raise ValidationError(field, f"entry {label[:20]!r}… exceeds {longest} characters")
        storable(label, field, "entries must")
        if any(unicodedata.category(c) == "Cc" for c in label):
            # a tag "a\nb" broke the CLI's tables, the vault's front matter and export lines
            # read by eye (a probe)
            raise ValidationError(
                field, f"entry {label[:20]!r} holds a line break or control character"
            )
        out.setdefault(tag_key(label), label)  # the key a tag filter compares
    if len(out) > most:
        raise ValidationError(field, f"has {len(out)} entries; the limit is {most}")
    return tuple(out.values())


def fits_as_label(raw: str, longest: int) -> bool:
    """Whether `labels` takes this tag or entity as to its length and its line: not over
    `longest` once stripped and composed, no line break or control character."""
    label = unicodedata.normalize("NFC", raw.strip())
    return len(label) <= longest and not any(unicodedata.category(c) == "Cc" for c in label)


TAG_LIMITS = (MAX_TAGS, MAX_TAG_LEN)  # how many, how long each
ENTITY_LIMITS = (MAX_ENTITIES, MAX_ENTITY_LEN)


def tags(values: Iterable[str] | None, field: str = "tags") -> tuple[str, ...]:
    return labels(values, field, *TAG_LIMITS)


def entities(values: Iterable[str] | None, field: str = "entities") -> tuple[str, ...]:
    return labels(values, field, *ENTITY_LIMITS)


def short_text(value: str | None, field: str) -> str | None:
    """A source or context: a blank one is none, as an empty one is (it was kept as typed)."""
    if value is None:
        return None
    at_most(storable(value, field), MAX_TEXT_FIELD, field)
    return value if value.strip() else None


def episode(value: str | None, field: str = "episode") -> str | None:
    """An episode names a conversation (a session id, a file name): at most MAX_EPISODE
    characters, as PostgreSQL indexes it whole (a b-tree key stops at 2,704 bytes, and 1,000
    Chinese characters were refused there)."""
    if value is not None:
        at_most(storable(value, field), MAX_EPISODE, field)
    return value if value is None or value.strip() else None  # a blank one is none


def moment(value: datetime | str, field: str) -> datetime:
    """A time given as a datetime or as ISO 8601 text, as JSON carries times (a benchmark's
    "2023-05-08T13:56:00+00:00" was refused: "must be a datetime"); either way with its
    offset: a time without one is ambiguous by hours."""
    if isinstance(value, str):
        text = value
        try:
            value = datetime.fromisoformat(text)
        except ValueError:
            raise ValidationError(field, f"{text[:40]!r} is not an ISO 8601 time") from None
    if not isinstance(value, datetime):
        raise ValidationError(field, "must be a datetime or an ISO 8601 time")
    try:
        aware = ensure_aware(value, field)
    except ValueError:
        raise ValidationError(
            field, "must be timezone-aware (e.g. 2026-01-31T12:00:00+00:00)"
        ) from None
    except OverflowError:  # 0001-01-01T00:30+01:00 is in the year 0 in UTC
        raise ValidationError(field, DATE_RANGE) from None
    if not round_trips(aware):
        raise ValidationError(field, DATE_RANGE)
    return aware


def lifetime(created: datetime, last_used: datetime, now: datetime, where: str = "") -> None:
    """A memory's two times as a save accepts them. One from the future would be "used"
    before it was made by its first touch, and count as used lately (window_days) while it
    never was."""
    if created > now:
        raise ValidationError("created_at" + where, f"must not be later than now ({now})")
    if last_used < created:
        raise ValidationError("last_used" + where, "must not be before created_at")
    if last_used > now:
        raise ValidationError("last_used" + where, f"must not be later than now ({now})")


def _number(value: object) -> bool:
    """A real number: not NaN, and not True or False (a bool is an int to Python, so
    strength=True was stored as 1.0)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    # An int beyond a float's range (10**400) is a number out of any range, not an error.
    return not (isinstance(value, float) and math.isnan(value))


def _float(value: float, field: str) -> float:
    try:
        return float(value)
    except OverflowError:  # an int such as 10**400
        raise ValidationError(field, "is too large for a number (at most 1.8e308)") from None


def strength(value: float, field: str = "strength") -> float:
    if not _number(value):
        raise ValidationError(field, "must be a number")
    if not MIN_STRENGTH <= value <= MAX_STRENGTH:
        raise ValidationError(field, f"must be between {MIN_STRENGTH} and {MAX_STRENGTH}")
    return float(value) + 0.0  # -0.0 is 0.0 (it was answered as -0.0 and stored as 0.0)


def unit(value: float, field: str) -> float:
    if not _number(value) or not 0.0 <= value <= 1.0:
        raise ValidationError(field, "must be between 0 and 1")
    return float(value) + 0.0  # -0.0 is 0.0


def location(value: str | os.PathLike[str], field: str) -> Path:
    """A file or folder the caller names: text or a path, not blank, without NUL (None or a
    number was a bare TypeError from `Path`)."""
    if not isinstance(value, str | os.PathLike):
        raise ValidationError(field, "must name a file or folder: text or a path")
    if not str(value).strip() or "\x00" in str(value):
        blank = "is empty" if not str(value).strip() else "holds a NUL character"
        raise ValidationError(field, f"must name a file or folder (it {blank})")
    path = Path(value).expanduser()
    try:
        path.stat()
    except OSError as exc:  # missing is fine (it may be made); too long never is
        if exc.errno == errno.ENAMETOOLONG:
            raise ValidationError(field, f"{exc.strerror}: {str(path)[:60]}…") from None
    return path


def sequence(value: object, field: str, what: str = "a list") -> list[Any]:
    """A list the caller gives (a tuple, a set or a generator too), never one string, a
    mapping or a number."""
    if isinstance(value, str | bytes):  # `get_many("3f2a…")`: as a list of strings says
        raise ValidationError(field, f"must be {what}, not one string")
    if isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise ValidationError(field, f"must be {what}")
    return list(value)


def memory_id(value: str, field: str = "memory_id") -> str:
    if not isinstance(value, str) or not ID_PATTERN.fullmatch(value):
        raise ValidationError(field, f"must be {ID_RULE}")
    return value


def memory_ids(values: Iterable[str], field: str = "memory_ids") -> list[str]:
    values = sequence(values, field, "a non-empty list of ids")  # a generator too
    if not values:
        raise ValidationError(field, "must be a non-empty list of ids")
    if len(values) > MAX_IDS:
        raise ValidationError(field, f"has {len(values)} ids; the limit is {MAX_IDS}")
    return list(dict.fromkeys(memory_id(v, field) for v in values))


def limit(value: int, field: str = "limit", most: int = MAX_LIMIT) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        raise ValidationError(field, f"must be an integer from 1 to {most}")
    return value


def query(value: str | None, field: str = "query") -> str | None:
    if value is None:
        return None
    return at_most(storable(value, field), MAX_QUERY, field)


def positive(value: float | None, field: str) -> float | None:
    if value is None:
        return None
    if not _number(value) or value <= 0:
        raise ValidationError(field, "must be a positive number")
    return _float(value, field)


def non_negative(value: float | None, field: str) -> float | None:
    if value is None:
        return None
    if not _number(value) or value < 0:
        raise ValidationError(field, "must be zero or a positive number")
    return _float(value, field)


def relation_type(value: str) -> str:
    if value not in RELATION_TYPES:
        raise ValidationError("relation_type", f"must be one of {', '.join(RELATION_TYPES)}")
    return value


def meta(value: dict[str, Any] | None, field: str = "meta") -> dict[str, Any]:
    """The object as it will be stored and read back: JSON turns keys into strings (a key 1
    becomes "1"), so that is what is returned, whatever the backend."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValidationError(field, "must be an object")
    if _nesting(value) > MAX_META_DEPTH:
        raise ValidationError(field, f"nests deeper than {MAX_META_DEPTH} levels")
    try:
        # Strict JSON (no NaN or Infinity) without NUL characters or lone surrogates: what
        # every backend can store (PostgreSQL's jsonb refuses all three) and move to another.
        text = json.dumps(value, allow_nan=False, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValidationError(field, f"must be JSON-serialisable ({exc})") from None
    if "\\u0000" in text.replace("\\\\", ""):  # JSON escapes control characters
        raise ValidationError(field, "must not contain NUL characters")
    storable(text, field)
    size = len(text.encode())
    if size > MAX_META_BYTES:
        raise ValidationError(field, f"is {size:,} bytes of JSON; the limit is {MAX_META_BYTES:,}")
    stored: dict[str, Any] = json.loads(text)
    if _keys(stored) != _keys(value):
        # {1: "a", "1": "b"} was stored as {"1": "b"}: one value gone without a word (a probe)
        raise ValidationError(
            field, 'has two keys that are one once stored as JSON (1 and "1"): give each once'
        )
    return stored


def own_meta(value: dict[str, Any] | None, field: str = "meta") -> dict[str, Any]:
    """`meta` as a caller gives it for a memory: its merge record (`meta.consolidation`) is
    Engram's, kept for the merge's undo. Given by a caller it replaced a merged memory's
    record, so the merge could never be undone, or made an ordinary memory look merged."""
    checked = meta(value, field)
    if MERGE_RECORD in checked:
        raise ValidationError(
            f"{field}.{MERGE_RECORD}",
            "is Engram's record of a merge (what its undo needs); use another key",
        )
    return checked


def kept_for_good(value: dict[str, Any], keep: bool, field: str = "meta") -> dict[str, Any]:
    """`value` (a memory's meta) marked to be kept for good, or with the mark taken off; within
    the meta limit (the error names `field`)."""
    if not keep:
        return {k: v for k, v in value.items() if k != KEEP}
    return value if is_kept(value) else meta({**value, KEEP: True}, field)


def with_merge_record(given: dict[str, Any], record: Any) -> dict[str, Any]:
    """A merged memory's new meta with its record of the merge kept, within the one limit: the
    error names what the caller gave and what the record takes (it counted bytes the caller
    never sent)."""
    try:
        return meta({**given, MERGE_RECORD: record})
    except ValidationError:
        size = len(json.dumps(given, ensure_ascii=False).encode())
        kept = len(json.dumps({MERGE_RECORD: record}, ensure_ascii=False).encode())
        raise ValidationError(
            "meta",
            f"is {size:,} bytes of JSON, and this merged memory's record of its merge takes "
            f"{kept:,} more; the limit is {MAX_META_BYTES:,} in all",
        ) from None


def _keys(value: Any) -> int:
    """How many keys its objects hold, at every depth (already bounded by `_nesting`)."""
    count, stack = 0, [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            count += len(item)
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return count


def _nesting(value: Any) -> int:
    """How deep objects and lists nest, counted without recursion (3,000 levels overflowed
    Python's stack in json.dumps: a RecursionError instead of an answer)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list | tuple):  # json.dumps writes a tuple as a list
            deepest = max(deepest, depth)
            if deepest > MAX_META_DEPTH:
                break
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


def record(m: Memory, field: str = "") -> Memory:
    """A whole memory record from outside (an export read back): every field within what a
    save accepts, so that no backend refuses it later (PostgreSQL refuses NUL, for one), and
    stored as a save stores it. Checked but kept as read, a tag "  Project " never matched a
    tag filter, 60 tags that are two tags in two cases were stored as 60, and a blank source
    was kept (audit)."""
    memory_id(m.id, field + "id")
    content(m.content, field + "content")
    normal: dict[str, Any] = {
        "tags": tags(m.tags, field + "tags"),
        "entities": entities(m.entities, field + "entities"),
    }
    for name in ("source", "context", "promoted_to"):
        normal[name] = short_text(getattr(m, name), field + name)
    m = m.model_copy(update={k: v for k, v in normal.items() if v != getattr(m, k)})
    episode(m.episode, field + "episode")
    meta(m.meta, field + "meta")
    moment(m.created_at, field + "created_at")
    moment(m.last_used, field + "last_used")
    if m.promoted_at is not None:
        moment(m.promoted_at, field + "promoted_at")
    if m.last_used < m.created_at:  # as a save refuses it; later than now is kept (a clock ahead)
        raise ValidationError(field + "last_used", "must not be before created_at")
    if m.episode is not None and not m.episode.strip():  # older exports: now no episode
        return m.model_copy(update={"episode": None, "episode_seq": None})
    return m


def relation_record(r: Relation) -> Relation:
    """A whole relation record from outside (an export read back): ids a command can name,
    two different ends, metadata within what a relation accepts — what `relate` would refuse,
    a restore must not store either."""
    memory_id(r.id, "id")
    memory_id(r.from_id, "from_id")
    memory_id(r.to_id, "to_id")
    if r.from_id == r.to_id:
        raise ValidationError("to_id", "a memory cannot relate to itself")
    relation_type(r.type)
    meta(r.metadata, "metadata")
    return r


def flag(value: bool, field: str) -> bool:
    """A yes-or-no option is True or False: the string "false" was true to `if`, so a gc
    called with dry_run="false" deleted for real while its result said it had not."""
    if not isinstance(value, bool):
        raise ValidationError(field, f"must be true or false, not {value!r}"[:200])
    return value


def statuses(status: Sequence[Status | str] | Status | str | None) -> tuple[Status, ...]:
    """The statuses a search or browse keeps: active and promoted when none are given, every one
    for "all"; a clear error for an empty list or a status that does not exist."""
    allowed = ", ".join([*(s.value for s in Status), "all"])
    if status is None:
        return (Status.ACTIVE, Status.PROMOTED)
    if not isinstance(status, str | Iterable):
        raise ValidationError("status", f"must be one of {allowed}, or a list of them")
    raw = [status] if isinstance(status, str) else list(status)
    if not raw:  # it searched `status IN ()`: nothing, and "nothing remembered" said
        raise ValidationError("status", f"must name at least one of {allowed}")
    if "all" in raw:  # with others too: "all" holds them (it was refused as not allowed)
        return tuple(Status)
    try:
        return tuple(dict.fromkeys(Status(s) for s in raw))
    except ValueError:
        raise ValidationError("status", f"must be one of {allowed}") from None
