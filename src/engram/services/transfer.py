"""Moving memories between stores and formats: migrate, import from CortexGraph, export.

Written over the `Store` protocol only, so every pair of backends works the same way.

* `migrate` copies every memory (all counters and timestamps), relation and vector from one
  store to another in batches, then verifies: every memory is present in the target and a
  sha256 over a canonical JSON form of each memory, relation and vector matches the source's.
  Safe to re-run: ids already in the target are skipped (kept as they are), or replaced with
  `overwrite`; relations are idempotent by (from, to, type); vectors are replaced.
* `read_cortexgraph` / `import_cortexgraph` read a CortexGraph (mnemex) JSONL directory:
  `memories.jsonl` and `relations.jsonl`, where the last line for an id wins and
  `{"id": ..., "_deleted": true}` deletes; times are unix seconds.
* `export_lines` renders the whole store as JSON lines or Markdown, page by page.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict
from pydantic import ValidationError as PydanticError

from engram.core.models import Memory, Relation, Schedule, Status
from engram.errors import EngramError, ValidationError
from engram.services import validation as check
from engram.storage.protocol import Store

log = logging.getLogger(__name__)

BATCH = 500
MAX_LISTED = 20  # differences and skipped records listed in a report (all are counted)

# (phase, done, total): total is None when unknown.
Progress = Callable[[str, int, int | None], None]
Schedules = Callable[[list[Memory]], list[tuple[Memory, Schedule]]]


class _Result(BaseModel):
    model_config = ConfigDict(frozen=True)


# -- canonical forms and checksums ------------------------------------------------------------

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _micros(moment: datetime | None) -> int | None:
    return None if moment is None else (moment - _EPOCH) // timedelta(microseconds=1)


def canonical_memory(m: Memory) -> bytes:
    """One memory as canonical JSON: sorted keys, times as integer microseconds since the
    epoch (so two backends storing the same instant differently agree)."""
    data: dict[str, Any] = m.model_dump(mode="json")
    for name in ("created_at", "last_used", "promoted_at", "last_review_at"):
        data[name] = _micros(getattr(m, name))
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def canonical_relation(r: Relation) -> bytes:
    data: dict[str, Any] = r.model_dump(mode="json")
    data["created_at"] = _micros(r.created_at)
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _checksum(digests: dict[str, str]) -> str:
    """sha256 over "id digest" lines sorted by id."""
    h = hashlib.sha256()
    for ident in sorted(digests):
        h.update(f"{ident} {digests[ident]}\n".encode())
    return h.hexdigest()


def _pages(store: Store, batch: int) -> Iterator[list[Memory]]:
    after: str | None = None
    while True:
        page = store.page(after, batch)
        if not page:
            return
        yield page
        after = page[-1].id


def _chunks(items: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


# -- migrate ----------------------------------------------------------------------------------


class MigrationReport(_Result):
    source: str
    target: str
    memories: int  # in the source
    copied: int  # written to the target by this run
    skipped: int  # already in the target, left as they were
    overwritten: int  # already in the target, replaced (overwrite)
    relations: int  # in the source
    vectors: dict[str, int]  # copied, per model id
    target_memories: int  # in the target afterwards (it may hold others too)
    checksum_source: str
    checksum_target: str
    verified: bool
    differences: list[str]  # the first ids that are missing or differ in the target
    message: str


@dataclass
class _Tally:
    copied: int = 0
    skipped: int = 0
    overwritten: int = 0
    memories: dict[str, str] = field(default_factory=dict)  # id -> digest, as read
    relations: dict[str, str] = field(default_factory=dict)
    vectors: dict[str, str] = field(default_factory=dict)  # "model id" -> digest
    vector_counts: dict[str, int] = field(default_factory=dict)


def migrate(
    source: Store,
    target: Store,
    schedules: Schedules,
    *,
    overwrite: bool = False,
    batch: int = BATCH,
    progress: Progress | None = None,
) -> MigrationReport:
    """Copy `source` into `target` and verify the copy (see the module docstring).

    `schedules` computes the target's schedule keys (with the target's decay settings).
    Stop other clients of the source first: what changes during the copy cannot be verified.
    """
    batch = check.limit(batch, "batch", most=10_000)
    if source.location == target.location:
        raise ValidationError("--to", "is the same store as --from")
    report = progress or (lambda phase, done, total: None)
    tally = _Tally()
    total = sum(source.count().values())
    done = 0
    for page in _pages(source, batch):
        _copy_memories(page, target, schedules, overwrite, tally)
        done += len(page)
        report("memories", done, total)
    done = 0
    for page in _pages(source, batch):
        ids = {m.id for m in page}
        for relation in source.relations(list(ids)):
            if relation.from_id in ids:  # each edge once: on its source's page
                target.add_relation(relation)
                tally.relations[relation.id] = _digest(canonical_relation(relation))
        done += len(page)
        report("relations", done, total)
    _copy_vectors(source, target, list(tally.memories), batch, tally, report)
    return _verify(source, target, tally, batch, report)


def _copy_memories(
    page: list[Memory], target: Store, schedules: Schedules, overwrite: bool, tally: _Tally
) -> None:
    for m in page:
        tally.memories[m.id] = _digest(canonical_memory(m))
    present = {m.id: m for m in target.get_many([m.id for m in page])}
    new = [m for m in page if m.id not in present]
    if new:
        target.insert(schedules(new))
        tally.copied += len(new)
    differing = [m for m in page if m.id in present and present[m.id] != m]
    tally.skipped += len(present) - (len(differing) if overwrite else 0)
    if overwrite and differing:
        wanted = {m.id: m for m in differing}

        def replace(old: Memory) -> tuple[Memory, Schedule]:
            return schedules([wanted[old.id]])[0]

        target.modify(list(wanted), replace)
        tally.overwritten += len(differing)


def _copy_vectors(
    source: Store,
    target: Store,
    ids: list[str],
    batch: int,
    tally: _Tally,
    report: Progress,
) -> None:
    vector_stores = "vectors" in source.capabilities and "vectors" in target.capabilities
    if not vector_stores:
        return
    models = source.vector_counts()
    total = sum(models.values())
    done = 0
    for model in sorted(models):
        for chunk in _chunks(ids, batch):
            found = source.get_vectors(chunk, model, passages=True)
            if not found:
                continue
            target.put_vectors(list(found.items()), model)
            for ident, vector in found.items():
                tally.vectors[f"{ident} {model}"] = _vector_digest(vector)
            tally.vector_counts[model] = tally.vector_counts.get(model, 0) + len(found)
            done += len(found)
            report("vectors", done, total)


def _vector_digest(vector: np.ndarray[Any, Any]) -> str:
    return _digest(np.ascontiguousarray(vector, dtype="<f4").tobytes())


def _verify(
    source: Store, target: Store, tally: _Tally, batch: int, report: Progress
) -> MigrationReport:
    ids = list(tally.memories)
    seen: dict[str, str] = {}
    relations: dict[str, str] = {}
    vectors: dict[str, str] = {}
    models = sorted({key.split(" ", 1)[1] for key in tally.vectors})
    done = 0
    for chunk in _chunks(ids, batch):
        for m in target.get_many(chunk):
            seen[m.id] = _digest(canonical_memory(m))
        members = set(chunk)
        for r in target.relations(list(chunk)):
            if r.from_id in members and r.id in tally.relations:
                relations[r.id] = _digest(canonical_relation(r))
        for model in models:
            for ident, vector in target.get_vectors(list(chunk), model, True).items():
                if f"{ident} {model}" in tally.vectors:
                    vectors[f"{ident} {model}"] = _vector_digest(vector)
        done += len(chunk)
        report("verifying", done, len(ids))
    differences = [i for i in ids if seen.get(i) != tally.memories[i]]
    differences += [
        f"relation {r}" for r in tally.relations if relations.get(r) != tally.relations[r]
    ]
    differences += [f"vector {k}" for k in tally.vectors if vectors.get(k) != tally.vectors[k]]
    source_sum = _checksum(
        {**tally.memories, **_prefixed("r", tally.relations), **_prefixed("v", tally.vectors)}
    )
    target_sum = _checksum({**seen, **_prefixed("r", relations), **_prefixed("v", vectors)})
    verified = not differences and source_sum == target_sum
    if verified:
        message = (
            f"verified: {len(ids)} memories, {len(tally.relations)} relations and "
            f"{len(tally.vectors)} vectors are identical in the target"
        )
    else:
        message = (
            f"NOT verified: {len(differences)} records are missing or differ in the target"
            + (
                ""
                if tally.overwritten or not tally.skipped
                else " (kept as they were; "
                "re-run with --overwrite to replace them with the source's)"
            )
        )
    return MigrationReport(
        source=source.location,
        target=target.location,
        memories=len(ids),
        copied=tally.copied,
        skipped=tally.skipped,
        overwritten=tally.overwritten,
        relations=len(tally.relations),
        vectors=tally.vector_counts,
        target_memories=sum(target.count().values()),
        checksum_source=source_sum,
        checksum_target=target_sum,
        verified=verified,
        differences=differences[:MAX_LISTED],
        message=message,
    )


def _prefixed(prefix: str, digests: dict[str, str]) -> dict[str, str]:
    return {f"{prefix}:{key}": value for key, value in digests.items()}


# -- import from CortexGraph ------------------------------------------------------------------

_CORTEXGRAPH_IDS = uuid.UUID("5d0f7c1e-8a2b-4c3d-9e4f-1a2b3c4d5e6f")
CORTEXGRAPH_STATUSES = {
    "active": Status.ACTIVE,
    "promoted": Status.PROMOTED,
    "archived": Status.ARCHIVED,
}


class Skipped(_Result):
    file: str
    line: int
    id: str | None
    reason: str


class ImportReport(_Result):
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
class CortexGraphData:
    memories: list[Memory]
    relations: list[Relation]
    distinct: int = 0
    memory_lines: int = 0
    deleted: int = 0
    superseded: int = 0
    renamed: int = 0
    relation_count: int = 0
    dropped: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    relation_lines: dict[str, int] = field(default_factory=dict)  # relation id -> line


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


def _memory_from_cortexgraph(obj: dict[str, Any]) -> tuple[Memory, bool]:
    """(memory, renamed). Raises ValidationError naming the field."""
    raw_id = obj.get("id")
    if not isinstance(raw_id, str) or not raw_id:
        raise ValidationError("id", "must be a non-empty string")
    meta_in = _field(obj, "meta", dict, {})
    extra = meta_in.get("extra") or {}
    if not isinstance(extra, dict):
        raise ValidationError("meta.extra", "must be an object")
    meta: dict[str, Any] = {
        k: v for k, v in meta_in.items() if k not in ("tags", "source", "context", "extra")
    }
    meta.update(extra)
    renamed = not check.ID_PATTERN.fullmatch(raw_id)
    if renamed:
        meta["cortexgraph_id"] = raw_id
    ident = _renamed_id(raw_id) if renamed else raw_id
    created = _seconds(obj.get("created_at"), "created_at")
    if created is None:
        raise ValidationError("created_at", "is missing")
    last_used = _seconds(obj.get("last_used"), "last_used") or created
    status_name = _field(obj, "status", str, "active")
    if status_name not in CORTEXGRAPH_STATUSES:
        raise ValidationError("status", f"{status_name!r} is not one of active, promoted, archived")
    try:
        memory = Memory(
            id=ident,
            content=check.content(_field(obj, "content", str, "")),
            tags=check.tags(_field(meta_in, "tags", list, []), "meta.tags"),
            entities=check.entities(_field(obj, "entities", list, [])),
            source=check.short_text(_field(meta_in, "source", str, None), "meta.source"),
            context=check.short_text(_field(meta_in, "context", str, None), "meta.context"),
            meta=check.meta(meta, "meta.extra"),
            created_at=created,
            last_used=last_used,
            use_count=_field(obj, "use_count", int, 0),
            strength=check.strength(_field(obj, "strength", (int, float), 1.0)),
            status=CORTEXGRAPH_STATUSES[status_name],
            promoted_at=_seconds(obj.get("promoted_at"), "promoted_at"),
            promoted_to=_field(obj, "promoted_to", str, None),
            review_priority=_field(obj, "review_priority", (int, float), 0.0),
            last_review_at=_seconds(obj.get("last_review_at"), "last_review_at"),
            review_count=_field(obj, "review_count", int, 0),
            cross_domain_count=_field(obj, "cross_domain_count", int, 0),
        )
    except PydanticError as exc:
        first = exc.errors()[0]
        raise ValidationError(".".join(str(p) for p in first["loc"]), first["msg"]) from None
    return memory, renamed


def _renamed_id(raw_id: str) -> str:
    """A stable new id for an id Engram cannot use: the same on every run (safe re-imports)."""
    return str(uuid.uuid5(_CORTEXGRAPH_IDS, raw_id))


def _relation_from_cortexgraph(obj: dict[str, Any], ids: dict[str, str]) -> Relation | str:
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
    if not check.ID_PATTERN.fullmatch(rid):
        rid = _renamed_id(rid)
    created = _seconds(obj.get("created_at"), "created_at") or datetime.fromtimestamp(0, tz=UTC)
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
        first = exc.errors()[0]
        raise ValidationError(".".join(str(p) for p in first["loc"]), first["msg"]) from None


def _last_lines(
    path: Path, report: list[Skipped]
) -> tuple[dict[str, tuple[int, dict[str, Any]]], int, int, int]:
    """id -> (line number, object) of the last line per id, tombstones applied; and the counts
    of lines read, ids deleted and lines superseded."""
    if not path.exists():
        return {}, 0, 0, 0
    latest: dict[str, tuple[int, dict[str, Any]]] = {}
    deleted: set[str] = set()
    lines = superseded = 0
    with path.open("rb") as f:
        for number, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            lines += 1
            try:
                obj = json.loads(raw)
            except ValueError as exc:
                report.append(
                    Skipped(file=path.name, line=number, id=None, reason=f"not valid JSON ({exc})")
                )
                continue
            ident = obj.get("id") if isinstance(obj, dict) else None
            if not isinstance(ident, str) or not ident:
                report.append(Skipped(file=path.name, line=number, id=None, reason="id: missing"))
                continue
            if ident in latest:
                superseded += 1
                del latest[ident]  # a later line wins, and takes its place in the order
            if obj.get("_deleted") is True:
                deleted.add(ident)
                continue
            deleted.discard(ident)
            latest[ident] = (number, obj)
    return latest, lines, len(deleted), superseded


def read_cortexgraph(directory: Path) -> CortexGraphData:
    """Parse a CortexGraph data directory; bad records are skipped and reported, never fatal."""
    memories_file = directory / "memories.jsonl"
    if not directory.is_dir():
        raise ValidationError("DIR", f"{directory} is not a directory")
    if not memories_file.exists():
        raise ValidationError(
            "DIR", f"{directory} has no memories.jsonl: not a CortexGraph directory"
        )
    skipped: list[Skipped] = []
    latest, lines, deleted, superseded = _last_lines(memories_file, skipped)
    memories: list[Memory] = []
    ids: dict[str, str] = {}  # their id -> ours
    renamed = 0
    for ident, (number, obj) in latest.items():
        try:
            memory, was_renamed = _memory_from_cortexgraph(obj)
        except ValidationError as exc:
            skipped.append(Skipped(file=memories_file.name, line=number, id=ident, reason=str(exc)))
            continue
        renamed += was_renamed
        ids[ident] = memory.id
        memories.append(memory)
    relations_file = directory / "relations.jsonl"
    rel_latest, _, _, _ = _last_lines(relations_file, skipped)
    relations: list[Relation] = []
    lines_of: dict[str, int] = {}
    dropped = 0
    for rid, (number, obj) in rel_latest.items():
        try:
            outcome = _relation_from_cortexgraph(obj, ids)
        except ValidationError as exc:
            skipped.append(Skipped(file=relations_file.name, line=number, id=rid, reason=str(exc)))
            continue
        if isinstance(outcome, str):
            dropped += 1
            log.info("relations.jsonl line %d dropped: %s", number, outcome)
            continue
        relations.append(outcome)
        lines_of[outcome.id] = number
    return CortexGraphData(
        memories=memories,
        relations=relations,
        distinct=len(latest),
        memory_lines=lines,
        deleted=deleted,
        superseded=superseded,
        renamed=renamed,
        relation_count=len(rel_latest),
        dropped=dropped,
        skipped=skipped,
        relation_lines=lines_of,
    )


def import_cortexgraph(
    directory: Path,
    target: Store,
    schedules: Schedules,
    *,
    batch: int = BATCH,
    progress: Progress | None = None,
    after_insert: Callable[[list[Memory]], object] | None = None,
) -> ImportReport:
    """Import into `target`; ids it already has are left as they are (so re-running is safe).
    `after_insert` sees each batch written (the CLI computes their embeddings there)."""
    report = progress or (lambda phase, done, total: None)
    data = read_cortexgraph(directory)
    imported = present = 0
    for start in range(0, len(data.memories), batch):
        chunk = data.memories[start : start + batch]
        have = {m.id for m in target.get_many([m.id for m in chunk])}
        new = [m for m in chunk if m.id not in have]
        if new:
            target.insert(schedules(new))
            if after_insert is not None:
                after_insert(new)
        imported += len(new)
        present += len(have)
        report("memories", start + len(chunk), len(data.memories))
    linked = kept = 0
    skipped = list(data.skipped)
    for i, relation in enumerate(data.relations, 1):
        around = target.relations([relation.from_id])
        if any((r.to_id, r.type) == (relation.to_id, relation.type) for r in around):
            kept += 1  # imported by an earlier run (or the same edge made here)
        else:
            try:
                target.add_relation(relation)
                linked += 1
            except EngramError as exc:
                skipped.append(
                    Skipped(
                        file="relations.jsonl",
                        line=data.relation_lines.get(relation.id, 0),
                        id=relation.id,
                        reason=str(exc),
                    )
                )
        report("relations", i, len(data.relations))
    parts = [f"imported {imported} memories and {linked} relations from {directory}"]
    if present or kept:
        parts.append(f"{present} memories and {kept} relations already present (kept)")
    if skipped:
        parts.append(f"{len(skipped)} records skipped")
    return ImportReport(
        source=str(directory),
        target=target.location,
        memory_lines=data.memory_lines,
        memories=data.distinct,
        imported=imported,
        already_present=present,
        deleted=data.deleted,
        superseded=data.superseded,
        renamed=data.renamed,
        relations=data.relation_count,
        relations_imported=linked,
        relations_present=kept,
        relations_dropped=data.dropped,
        skipped=len(skipped),
        skipped_records=skipped[:MAX_LISTED],
        message="; ".join(parts),
    )


# -- export -----------------------------------------------------------------------------------

ExportFormat = Literal["jsonl", "markdown"]


class ExportSummary(_Result):
    format: str
    path: str
    memories: int
    relations: int


@dataclass
class ExportCount:
    memories: int = 0
    relations: int = 0


def export_lines(
    store: Store, fmt: ExportFormat, count: ExportCount | None = None, batch: int = BATCH
) -> Iterator[str]:
    """The store as text lines (without newlines), memories in save order.

    jsonl: `{"kind": "memory", ...every field...}` lines, then `{"kind": "relation", ...}`.
    markdown: a document with one section per memory (its fields, content and relations).
    """
    if fmt not in ("jsonl", "markdown"):
        raise ValidationError("format", "must be jsonl or markdown")
    tally = count if count is not None else ExportCount()
    if fmt == "markdown":
        yield "# Engram export"
        yield ""
        yield f"Store: `{store.location}`"
    relations: list[Relation] = []
    for page in _pages(store, batch):
        ids = {m.id for m in page}
        edges = [r for r in store.relations(list(ids)) if r.from_id in ids]
        tally.memories += len(page)
        tally.relations += len(edges)
        if fmt == "jsonl":
            for m in page:
                yield json.dumps(
                    {"kind": "memory", **m.model_dump(mode="json")}, ensure_ascii=False
                )
            relations += edges
        else:
            by_source: dict[str, list[Relation]] = {}
            for r in edges:
                by_source.setdefault(r.from_id, []).append(r)
            for m in page:
                yield from _markdown(m, by_source.get(m.id, []))
    for r in relations:
        yield json.dumps({"kind": "relation", **r.model_dump(mode="json")}, ensure_ascii=False)


def _markdown(m: Memory, edges: list[Relation]) -> Iterator[str]:
    first = m.content.strip().splitlines()[0] if m.content.strip() else m.id
    title = first if len(first) <= 80 else first[:79] + "…"
    yield ""
    yield f"## {title}"
    yield ""
    rows = [
        ("id", f"`{m.id}`"),
        ("status", m.status.value),
        ("tags", ", ".join(m.tags)),
        ("entities", ", ".join(m.entities)),
        ("source", m.source or ""),
        ("context", m.context or ""),
        ("created", m.created_at.isoformat()),
        ("last used", m.last_used.isoformat()),
        ("uses", str(m.use_count)),
        ("strength", f"{m.strength:g}"),
    ]
    if m.promoted_to:
        rows.append(("promoted to", m.promoted_to))
    for name, value in rows:
        if value:
            yield f"- **{name}**: {value}"
    yield ""
    for line in m.content.splitlines() or [""]:
        yield f"> {line}" if line else ">"
    if edges:
        yield ""
        for r in edges:
            yield f"- {r.type} → `{r.to_id}` (strength {r.strength:g})"
