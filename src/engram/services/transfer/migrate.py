"""Copy every memory, relation and vector from one store to another, then verify (`migrate`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from engram.core.models import Memory, Relation, Schedule
from engram.core.wording import counted
from engram.errors import (
    BusyError,
    EngramError,
    RefusedDataError,
    UnavailableError,
    ValidationError,
)
from engram.services import validation as check
from engram.services.transfer.common import (
    BATCH,
    MAX_LISTED,
    Progress,
    Schedules,
    TransferResult,
    absent_from,
    add_relation,
    canonical_memory,
    canonical_relation,
    checksum,
    chunks,
    digest,
    pages,
)
from engram.storage.factory import same_store
from engram.storage.protocol import Capability, Store

log = logging.getLogger(__name__)

# -- migrate ----------------------------------------------------------------------------------


class MigrationReport(TransferResult):
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
    kept: set[str] = field(default_factory=set)  # in the target already, differing, kept
    same: set[str] = field(default_factory=set)  # in the target already, identical
    refused: dict[str, str] = field(default_factory=dict)  # id -> why the target refused it
    refused_relations: dict[str, str] = field(default_factory=dict)  # the same, for edges
    # "from to type" -> digest of the edge without its id and time: the target may hold the
    # same edge under another id (made there too; `add_relation` returns that one).
    relations: dict[str, str] = field(default_factory=dict)
    vectors: dict[str, str] = field(default_factory=dict)  # "model id" -> digest
    vector_counts: dict[str, int] = field(default_factory=dict)
    vectors_kept: int = 0  # memories there already, identical, that kept their own vectors


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
    if same_store(source.location, target.location):
        raise ValidationError("target", "is the same store as the source")
    report = progress or (lambda phase, done, total: None)
    tally = _Tally()
    total = sum(source.count().values())
    done = 0
    for page in pages(source, batch):
        _copy_memories(page, target, schedules, overwrite, tally)
        done += len(page)
        report("memories", done, total)
    done = 0
    for page in pages(source, batch):
        ids = {m.id for m in page}
        for relation in source.relations(list(ids)):
            ends = {relation.from_id, relation.to_id}
            # each edge once, on its source's page; none to a memory the target refused
            if relation.from_id in ids and not ends & tally.refused.keys():
                tally.relations[_edge_key(relation)] = _edge_digest(relation)
                try:
                    stored = add_relation(target, relation)
                    if overwrite and _edge_digest(stored) != _edge_digest(relation):
                        # the target's edge of the same ends and type, with another strength
                        # or metadata: replaced as a memory is (it stayed, not verified, at
                        # every run; a helper's probe)
                        target.delete_relation(stored.id)
                        add_relation(target, relation)
                except (BusyError, UnavailableError):
                    raise  # every edge after it would wait and fail alike
                except EngramError as exc:
                    # One edge the target refuses (metadata with a NUL, which PostgreSQL
                    # cannot hold) stopped the migration with no relation copied and nothing
                    # named: the rest is copied, and the report names it (not verified).
                    tally.refused_relations[relation.id] = str(exc)
                    log.warning("relation %s was not copied: %s", relation.id, exc)
        done += len(page)
        report("relations", done, total)
    # A memory kept as it was in the target keeps its own vector too: the source's is the
    # vector of another text.
    copied = [i for i in tally.memories if i not in tally.kept and i not in tally.refused]
    _copy_vectors(source, target, copied, batch, tally, report)
    return _verify(source, target, tally, batch, report)


def _copy_memories(
    page: list[Memory], target: Store, schedules: Schedules, overwrite: bool, tally: _Tally
) -> None:
    for m in page:
        tally.memories[m.id] = digest(canonical_memory(m))
    with absent_from(target, page) as (stored, new):  # a save or an import meanwhile
        present = {m.id: m for m in stored}
        if new:
            try:
                target.insert(schedules(new))
                tally.copied += len(new)
            except RefusedDataError:
                # One record the target refuses (a hand-edited JSONL line with a NUL character,
                # which PostgreSQL cannot hold) stopped the whole migration without naming it:
                # one at a time, the rest is copied and the report names it.
                for m in new:
                    try:
                        target.insert(schedules([m]))
                        tally.copied += 1
                    except RefusedDataError as exc:  # another failure (the server gone) stops it
                        tally.refused[m.id] = str(exc)
                        log.warning("memory %s was not copied: %s", m.id, exc)
    differing = [m for m in page if m.id in present and present[m.id] != m]
    tally.same.update(m.id for m in page if m.id in present and present[m.id] == m)
    tally.skipped += len(present) - (len(differing) if overwrite else 0)
    if not overwrite:
        tally.kept.update(m.id for m in differing)
    if overwrite and differing:
        wanted = {m.id: m for m in differing}

        def replace(old: Memory) -> tuple[Memory, Schedule]:
            return schedules([wanted[old.id]])[0]

        target.modify(list(wanted), replace)
        tally.overwritten += len(differing)


def _with_vectors(store: Store, ids: list[str], batch: int) -> set[str]:
    """Those of `ids` that have a vector in `store`, of any model."""
    found: set[str] = set()
    for model in store.vector_counts() if ids else ():
        for chunk in chunks(ids, batch):
            found.update(store.get_vectors(chunk, model))
    return found


def _copy_vectors(
    source: Store,
    target: Store,
    ids: list[str],
    batch: int,
    tally: _Tally,
    report: Progress,
) -> None:
    vector_stores = (
        Capability.VECTORS in source.capabilities and Capability.VECTORS in target.capabilities
    )
    if not vector_stores:
        return
    models = source.vector_counts()
    total = sum(models.values())
    # A memory the target held already, identical, keeps the vector it has there (re-embedded
    # by a newer model, say: the source's replaced it, though the report said "kept"); one
    # without a vector (a run stopped before its vectors) gets the source's.
    vectored = _with_vectors(target, [i for i in ids if i in tally.same], batch)
    tally.vectors_kept = len(vectored)
    ids = [i for i in ids if i not in vectored]
    done = 0
    for model in sorted(models):
        for chunk in chunks(ids, batch):
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
    return digest(np.ascontiguousarray(vector, dtype="<f4").tobytes())


def _verify(
    source: Store, target: Store, tally: _Tally, batch: int, report: Progress
) -> MigrationReport:
    ids = list(tally.memories)
    seen: dict[str, str] = {}
    relations: dict[str, str] = {}
    vectors: dict[str, str] = {}
    models = sorted({key.split(" ", 1)[1] for key in tally.vectors})
    done = 0
    for chunk in chunks(ids, batch):
        for m in target.get_many(chunk):
            seen[m.id] = digest(canonical_memory(m))
        members = set(chunk)
        for r in target.relations(list(chunk)):
            if r.from_id in members and _edge_key(r) in tally.relations:
                relations[_edge_key(r)] = _edge_digest(r)
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
    source_sum = checksum(
        {**tally.memories, **_prefixed("r", tally.relations), **_prefixed("v", tally.vectors)}
    )
    target_sum = checksum({**seen, **_prefixed("r", relations), **_prefixed("v", vectors)})
    verified = not differences and source_sum == target_sum
    if verified:
        message = (
            f"verified: {counted(len(ids), 'memory')}, {counted(len(tally.relations), 'relation')} "
            f"and {counted(len(tally.vectors), 'vector')} are identical in the target"
        )
        if tally.vectors_kept:
            # a run again copies no vector, and "0 vectors are identical" read as none there
            # (a probe)
            kept = counted(tally.vectors_kept, "memory")
            message += f"; the vectors of {kept} there already were kept"
    else:
        message = (
            f"NOT verified: {counted(len(differences), 'record')} missing or different in the "
            "target" + _why_kept(tally, differences)
        )
    notes = _notes_indexed(source)
    if notes and not _notes_indexed(target):
        # A cache of the vault's files, not the store's data: built again from them, not
        # copied (unified search found no note in the new store, and said nothing of why).
        message += (
            f"; the vault index ({counted(notes, 'note')}) is not copied: `engram index-ltm` "
            "builds it from the vault (a running server does so by itself)"
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


def _notes_indexed(store: Store) -> int:
    return len(store.ltm_states()) if Capability.LTM in store.capabilities else 0


def _why_kept(tally: _Tally, differences: list[str]) -> str:
    notes = []
    if tally.refused:
        first, reason = next(iter(tally.refused.items()))
        notes.append(
            f"{counted(len(tally.refused), 'memory')} the target refused, with their relations and "
            f"vectors (first: {first}: {reason})"
        )
    if tally.refused_relations:
        first, reason = next(iter(tally.refused_relations.items()))
        notes.append(
            f"{counted(len(tally.refused_relations), 'relation')} the target refused (first: "
            f"{first}: "
            f"{reason})"
        )
    if tally.kept:
        notes.append(
            f"kept as they were, with their vectors: {counted(len(tally.kept), 'memory')} "
            "with other values than the source's; "
            "re-run with --overwrite to replace them with the source's (whatever the target's "
            "copies hold since, their uses and edits there too, is lost)"
        )
    if any(d.startswith("relation ") for d in differences):
        notes.append(
            "an edge the target has with another strength or metadata is kept as it is there; "
            "re-run with --overwrite to replace it with the source's"
        )
    return f" ({'; '.join(notes)})" if notes else ""


def _edge_key(r: Relation) -> str:
    return f"{r.from_id} {r.to_id} {r.type}"


def _edge_digest(r: Relation) -> str:
    """What makes two edges the same edge: ends, type, strength and metadata."""
    return digest(canonical_relation(r.model_copy(update={"id": "", "created_at": _EPOCH})))


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _prefixed(prefix: str, digests: dict[str, str]) -> dict[str, str]:
    return {f"{prefix}:{key}": value for key, value in digests.items()}
