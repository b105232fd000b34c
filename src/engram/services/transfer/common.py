"""What migrate, import and export share: result base, batching, canonical forms, checksums."""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import field_validator

from engram.core.models import Memory, Relation, Schedule
from engram.core.wording import counted
from engram.errors import BusyError, EngramError, StoreError, UnavailableError, ValidationError
from engram.services.results import Result
from engram.services.transfer.episodes import after_episodes_there
from engram.storage.protocol import Store

log = logging.getLogger(__name__)

BATCH = 500
MAX_LISTED = 20  # differences and skipped records listed in a report (all are counted)

# (phase, done, total): total is None when unknown.
Progress = Callable[[str, int, int | None], None]
Schedules = Callable[[list[Memory]], list[tuple[Memory, Schedule]]]


class TransferResult(Result):
    """The base of the reports of migrate, import and export."""


class Skipped(TransferResult):
    """A record an import could not take: where it is and why."""

    file: str
    line: int
    id: str | None
    reason: str

    @field_validator("id")
    @classmethod
    def _printable(cls, value: str | None) -> str | None:
        """A skipped id may be the very text that could not be stored (a lone surrogate):
        escaped, so that reporting it cannot fail too."""
        return None if value is None else value.encode("utf-8", "backslashreplace").decode()


@dataclass(frozen=True)
class Writer:
    """Where an import writes and how: `schedules` gives new memories their review times,
    `after_insert` sees each batch written (the service embeds them there), `progress` hears
    of each batch."""

    target: Store
    schedules: Schedules
    batch: int = BATCH
    progress: Progress | None = None
    after_insert: Callable[[list[Memory]], object] | None = None


@dataclass
class Records:
    """What an import read, as `write_records` writes it: `relation_lines` says where each
    relation was read (file, line), for the report of one the store refuses; `skipped`, what
    reading could not take."""

    memories: list[Memory] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    relation_lines: dict[str, tuple[str, int]] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)


@dataclass
class Written:
    """What `write_records` did, and what an import report says of it."""

    imported: int = 0
    present: int = 0
    linked: int = 0
    kept: int = 0
    repeated: int = 0  # edges the file gives twice, under two ids (the first is kept)
    skipped: list[Skipped] = field(default_factory=list)

    def message(self, source: str) -> str:
        done = f"{counted(self.imported, 'memory')} and {counted(self.linked, 'relation')}"
        parts = [f"imported {done} from {source}"]
        if self.present or self.kept:
            parts.append(
                f"{counted(self.present, 'memory')} and {counted(self.kept, 'relation')} "
                "already present (kept)"
            )
        if self.repeated:
            # not "already present": the store was new (an import probe)
            parts.append(
                f"{counted(self.repeated, 'relation')} the file gives again under another id "
                "(the first kept)"
            )
        if self.skipped:
            parts.append(f"{counted(len(self.skipped), 'record')} skipped")
        return "; ".join(parts)

    def report(self, source: str) -> dict[str, Any]:
        """The fields every import report shares (ImportReport, RestoreReport)."""
        return {
            "source": source,
            "imported": self.imported,
            "already_present": self.present,
            "relations_imported": self.linked,
            "relations_present": self.kept,
            "skipped": len(self.skipped),
            "skipped_records": self.skipped[:MAX_LISTED],
            "message": self.message(source),
        }


def in_file_order(*found: Sequence[Skipped]) -> list[Skipped]:
    """The records an import skipped, by file and line: those of reading and of writing came
    one list after the other (line 12 was listed after line 14)."""
    return sorted((s for group in found for s in group), key=lambda s: (s.file, s.line))


# Byte order marks of the encodings an import file must not be in (PowerShell 5.1 writes UTF-16
# for `engram export > file`): read as bytes split at "\n", every line would be garbled.
WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")


def json_line(raw: bytes) -> Any:
    """One JSON line of an import file, read as UTF-8 (its byte order mark or not). Read from
    bytes, `json.loads` guessed the encoding by the bytes, and named a run of NULs
    "'utf-32-be' codec can't decode…" (a probe); it is now "not valid JSON"."""
    return json.loads(raw.removeprefix(b"\xef\xbb\xbf").decode("utf-8"))


def refuse_wide_text(path: Path, what: str) -> None:
    """Refuse a file in UTF-16 or UTF-32 before a store is opened for it: `import cortexgraph`
    took 6 of 7 memories of a UTF-16 folder and said its first line was undecodable (a
    probe), where `import jsonl` refused the file whole."""
    try:
        with path.open("rb") as f:
            start = f.read(4)
    except OSError:
        return  # a pipe, or unreadable: reading it says why
    if start.startswith(WIDE_BOMS):
        raise ValidationError("path", f"{path} is UTF-16 text; {what} is UTF-8 (convert it)")


# How far ahead of this machine's clock an imported time may be: another machine's clock.
CLOCK_AHEAD = timedelta(days=1)


def not_ahead(name: str, moment: datetime | None, now: datetime) -> None:
    """A time further ahead than another machine's clock may be: stored, a last use counted as
    fresh for years, a review date kept every later review from moving it."""
    if moment is not None and moment > now + CLOCK_AHEAD:
        raise ValidationError(name, f"must not be more than a day later than now ({now})")


@contextmanager
def absent_from(
    target: Store, memories: Sequence[Memory]
) -> Iterator[tuple[list[Memory], list[Memory]]]:
    """(The memories `target` holds already, as it holds them; the others), under the store's
    save lock for the block, in which the caller inserts the others: looking for the ids and
    inserting are one step across clients (two imports of one export at once both found none,
    and the second failed on the first's ids)."""
    with target.exclusive("save", wait=True):
        stored = target.get_many([m.id for m in memories])
        have = {m.id for m in stored}
        yield stored, [m for m in memories if m.id not in have]


def write_records(writer: Writer, read: Records) -> Written:
    """Write what an import read: memories whose id the target already has are left as they
    are and relations it already has (same ends and type) kept, so running an import again adds
    nothing. What reading skipped joins what writing skipped in file order. `after_insert` sees
    each batch written, and the memories of the batch the store had already as it holds them
    (to embed those still without a vector: an import killed between writing and embedding,
    run again, left them so)."""
    relations, relation_lines = read.relations, read.relation_lines
    target, batch = writer.target, writer.batch
    memories = after_episodes_there(target, read.memories)
    report = writer.progress or (lambda phase, done, total: None)
    out = Written()
    made: set[tuple[str, str, str]] = set()  # the edges this run added
    for start in range(0, len(memories), batch):
        chunk = memories[start : start + batch]
        with absent_from(target, chunk) as (stored, new):
            if new:
                target.insert(writer.schedules(new))
        if writer.after_insert is not None and (new or stored):
            writer.after_insert([*new, *stored])
        out.imported += len(new)
        out.present += len(stored)
        report("memories", start + len(chunk), len(memories))
    for start in range(0, len(relations), batch):
        edges = relations[start : start + batch]
        # The edges there already, read once a batch: once an edge, a memory with thousands
        # of them read them all for each (2,000 edges of one memory took 18 s; audit).
        sources = sorted({r.from_id for r in edges})
        there = {(r.from_id, r.to_id, r.type) for r in target.relations(sources)} - made
        for relation in edges:
            edge = (relation.from_id, relation.to_id, relation.type)
            if edge in made:
                out.repeated += 1
                continue
            if edge in there:
                out.kept += 1  # imported by an earlier run
                continue
            try:
                add_relation(target, relation)
                out.linked += 1
                made.add(edge)
            except (BusyError, UnavailableError):
                raise  # every record after it would wait and fail alike
            except EngramError as exc:
                file, line = relation_lines.get(relation.id, ("", 0))
                out.skipped.append(Skipped(file=file, line=line, id=relation.id, reason=str(exc)))
        report("relations", start + len(edges), len(relations))
    out.skipped = in_file_order(read.skipped, out.skipped)
    return out


def add_relation(target: Store, relation: Relation) -> Relation:
    """Add an edge another store made. Its id may already name another edge here (imported
    ids such as "rel-1" are not unique across stores): the edge then takes an id derived from
    its own and its ends, the same at every run, so a second run finds it. It was skipped with
    the database's "UNIQUE constraint failed" (an import), or stopped a migration halfway."""
    try:
        return target.add_relation(relation)
    except (BusyError, UnavailableError):
        raise
    except StoreError:  # the store's unique id (a missing end, bad data: other errors)
        key = f"{relation.id} {relation.from_id} {relation.to_id} {relation.type}"
        renamed = relation.model_copy(update={"id": str(uuid.uuid5(uuid.NAMESPACE_URL, key))})
        return target.add_relation(renamed)  # refused again: the reason is not the id


# -- canonical forms and checksums ------------------------------------------------------------

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def micros(moment: datetime | None) -> int | None:
    return None if moment is None else (moment - _EPOCH) // timedelta(microseconds=1)


def canonical_memory(m: Memory) -> bytes:
    """One memory as canonical JSON: sorted keys, times as integer microseconds since the
    epoch (so two backends storing the same instant differently agree)."""
    data: dict[str, Any] = m.model_dump(mode="json")
    for name in ("created_at", "last_used", "promoted_at", "last_review_at"):
        data[name] = micros(getattr(m, name))
    data["meta"] = _as_jsonb_keeps(data["meta"])
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _as_jsonb_keeps(value: Any) -> Any:
    """Numbers as PostgreSQL's jsonb gives them back: a float with no fraction (-0.0, 2.5e16,
    1e300) returns as the integer it is, exactly. Compared as stored, a migration into
    PostgreSQL of such a meta was "NOT verified" at every run (docs/storage.md)."""
    if isinstance(value, float):
        exact = Decimal(repr(value))
        return int(exact) if exact == exact.to_integral_value() else value
    if isinstance(value, dict):
        return {k: _as_jsonb_keeps(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_jsonb_keeps(v) for v in value]
    return value


def canonical_relation(r: Relation) -> bytes:
    data: dict[str, Any] = r.model_dump(mode="json")
    data["created_at"] = micros(r.created_at)
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def checksum(digests: dict[str, str]) -> str:
    """sha256 over "id digest" lines sorted by id."""
    h = hashlib.sha256()
    for ident in sorted(digests):
        h.update(f"{ident} {digests[ident]}\n".encode())
    return h.hexdigest()


def pages(store: Store, batch: int) -> Iterator[list[Memory]]:
    after: str | None = None
    while True:
        page = store.page(after, batch)
        if not page:
            return
        yield page
        after = page[-1].id


def chunks(items: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


# The longest line an export holds, with room to spare: a memory of 50,000 characters, each
# escaped as a surrogate pair (12 bytes), its meta (20 KB), tags and entities. A longer line
# is no export's: read whole, one of 300 MB took a gigabyte of memory, then a MemoryError.
MAX_LINE_BYTES = 4 * 1024 * 1024


def bounded_lines(f: BinaryIO, most: int) -> Iterator[bytes | None]:
    """The lines of `f`; None in place of a line longer than `most` bytes, which is read past
    a piece at a time, never held whole."""
    while True:
        line = f.readline(most + 1)
        if not line:
            return
        if len(line) <= most or line.endswith(b"\n"):
            yield line
            continue
        while line and not line.endswith(b"\n"):
            line = f.readline(most)
        yield None
