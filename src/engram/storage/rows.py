"""Rows of the SQL backends back into models, and the rows they write. Both stores select the
memory and relation columns in the same order; they differ only in whether JSON columns arrive
decoded (PostgreSQL JSONB and arrays) or as text (SQLite)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from engram.core.models import AuditEntry, Memory, Relation, Status
from engram.core.notes import Note, NoteHit, link_key, link_name
from engram.core.timeutil import from_epoch, to_epoch
from engram.storage.protocol import Stub

Decode = Callable[[Any], Any]

# Vault notes, on every backend: the full-text weights of title, tags and body, and how much of
# a body a hit without a snippet shows.
NOTE_FIELD_WEIGHTS = (3.0, 2.0, 1.0)
NOTE_PREVIEW_CHARS = 200


def as_is(value: Any) -> Any:
    return value


def from_json(value: Any) -> Any:
    return json.loads(value)


def json_text(value: Any) -> str:
    """A JSON column as SQLite stores it: text, other scripts kept as they are."""
    return json.dumps(value, ensure_ascii=False)


def unchanged(text: str) -> str:
    """Text as the file has it: SQLite stores any string."""
    return text


def optional_datetime(seconds: float | None) -> datetime | None:
    return None if seconds is None else from_epoch(seconds)


def memory_from_row(row: Sequence[Any], decode: Decode = as_is) -> Memory:
    """id, content, tags, entities, source, context, meta, created_at, last_used, use_count,
    strength, status, promoted_at, promoted_to, review_priority, last_review_at, review_count,
    cross_domain_count, episode, episode_seq, cues. Rows come from our own schema, validated on the
    way in: no re-check."""
    return Memory.model_construct(
        id=row[0],
        content=row[1],
        tags=tuple(decode(row[2])),
        entities=tuple(decode(row[3])),
        source=row[4],
        context=row[5],
        meta=decode(row[6]),
        created_at=from_epoch(row[7]),
        last_used=from_epoch(row[8]),
        use_count=row[9],
        strength=row[10],
        status=Status(row[11]),
        promoted_at=optional_datetime(row[12]),
        promoted_to=row[13],
        review_priority=row[14],
        last_review_at=optional_datetime(row[15]),
        review_count=row[16],
        cross_domain_count=row[17],
        episode=row[18],
        episode_seq=row[19],
        cues=tuple(decode(row[20])),
    )


# Status by its stored value: a dict lookup, several times faster than calling the enum.
_STATUS = {s.value: s for s in Status}


def stub_from_row(row: Sequence[Any]) -> Stub:
    """id, use_count, strength, last_used, created_at, status, relevance."""
    return Stub(row[0], row[1], row[2], row[3], row[4], _STATUS[row[5]], float(row[6]))


def relation_from_row(row: Sequence[Any], decode: Decode = as_is) -> Relation:
    """id, from_id, to_id, type, strength, metadata, created_at."""
    return Relation.model_construct(
        id=row[0],
        from_id=row[1],
        to_id=row[2],
        type=row[3],
        strength=row[4],
        metadata=decode(row[5]),
        created_at=from_epoch(row[6]),
    )


AUDIT_COLUMNS = "id, plan_id, step, agent, action, memory_ids, detail, why, applied, result, at"
# The newest audit entries a store keeps; older ones go as new ones come. Nothing pruned the
# trail: a probe's year of weekly pipeline runs left 12,656 entries, 8 of a store's 11 MB.
AUDIT_KEEP = 20_000
# SQL, with its parameter mark as {p}: the entries older than the newest `keep` removed.
KEEP_NEWEST_AUDIT = "DELETE FROM audit WHERE seq <= (SELECT max(seq) FROM audit) - {p}"


def audit_row(entry: AuditEntry, encode: Callable[[Any], Any] = json.dumps) -> tuple[Any, ...]:
    """An audit entry as the SQL backends store it (JSON columns encoded by `encode`)."""
    return (
        entry.id,
        entry.plan_id,
        entry.step,
        entry.agent,
        entry.action,
        encode(list(entry.memory_ids)),
        encode(entry.detail),
        entry.why,
        entry.applied,
        entry.result,
        to_epoch(entry.at),
    )


def audit_from_row(row: Sequence[Any], decode: Decode = from_json) -> AuditEntry:
    return AuditEntry(
        id=row[0],
        plan_id=row[1],
        step=row[2],
        agent=row[3],
        action=row[4],
        memory_ids=tuple(decode(row[5])),
        detail=decode(row[6]),
        why=row[7],
        applied=bool(row[8]),
        result=row[9],
        at=from_epoch(row[10]),
    )


def note_hit_from_row(row: Sequence[Any], decode: Decode = as_is) -> NoteHit:
    """path, title, tags, engram_id, relevance, preview (whitespace collapsed), mtime_ns."""
    return NoteHit(
        path=row[0],
        title=row[1],
        tags=tuple(decode(row[2])),
        engram_id=row[3],
        relevance=float(row[4]),
        preview=" ".join(str(row[5] or "").split()),
        modified_ns=int(row[6]),
    )


# The columns of a vault note both schemas store, in `note_row` order; PostgreSQL adds its
# case-folded key arrays after them.
NOTE_COLUMNS = (
    "path",
    "key",
    "name",
    "title",
    "tags",
    "links",
    "body",
    "frontmatter",
    "aliases",
    "engram_id",
    "problem",
    "mtime_ns",
    "size",
    "digest",
)


def note_row(
    note: Note,
    encode_list: Callable[[list[str]], Any] = json_text,
    clean: Callable[[str], str] = unchanged,
) -> tuple[Any, ...]:
    """A vault note in NOTE_COLUMNS order, the one Note → row conversion of both schemas: the
    tag and link lists encoded by `encode_list` (JSON text for SQLite, arrays for PostgreSQL),
    and every text of the file passed through `clean` (PostgreSQL text cannot hold NUL)."""
    return (
        note.path,
        link_key(note.path),
        link_name(note.path),
        clean(note.title),
        encode_list([clean(t) for t in note.tags]),
        encode_list([clean(t) for t in note.links]),
        clean(note.body),
        clean(json.dumps(note.frontmatter, ensure_ascii=False, default=str)),
        clean(" ".join(note.aliases)),  # words of the index's title field, after the title
        note.engram_id,
        note.problem,
        note.mtime_ns,
        note.size,
        note.digest,
    )
