"""Reading back an export: the file `engram export --format jsonl` writes and `engram backup`
commits (`engram/export.jsonl`), so that a backup can be restored into any store.

Every line is `{"kind": "memory", …}` or `{"kind": "relation", …}` with the fields of the
record. Memories keep their ids, counters and times; a memory the store already has (same id)
is kept as it is, and a relation it already has (same ends and type) too, so restoring twice
adds nothing. Vectors are not in an export: restored memories are embedded as they are written.
A line that cannot be restored (torn, hand-edited into something invalid) is skipped and listed
with its line number and the field at fault; nothing is fatal.
"""

from __future__ import annotations

import logging
import stat
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO

from engram.clock import system_clock
from engram.core.models import Memory, Relation
from engram.core.wording import counted
from engram.errors import ValidationError
from engram.services import validation as check
from engram.services.transfer.common import (
    MAX_LINE_BYTES,
    WIDE_BOMS,
    Records,
    Skipped,
    TransferResult,
    Writer,
    bounded_lines,
    json_line,
    not_ahead,
    write_records,
)
from engram.services.transfer.export import END
from engram.storage.jsonl.records import BadLine, memory_from_object, relation_from_object

log = logging.getLogger(__name__)


class RestoreReport(TransferResult):
    source: str
    target: str
    lines: int  # non-blank lines read
    memories: int  # memory records read (the last line of each id)
    superseded: int  # earlier lines of an id that appears again (memory or relation)
    imported: int
    already_present: int
    relations: int
    relations_imported: int
    relations_present: int
    skipped: int
    skipped_records: list[Skipped]  # the first ones, with line and reason
    warning: str | None = None  # the export may not be whole (`ExportData.incomplete`)
    message: str


@dataclass
class ExportData(Records):
    lines: int = 0
    records: int = 0  # lines that say they are a memory or a relation
    superseded: int = 0  # lines replaced by a later line of the same id
    source: str = ""  # the file it was read from
    kinds: Counter[str] = field(default_factory=Counter)  # lines of each kind read
    ends: list[dict[str, Any]] = field(default_factory=list)  # the end lines (one per export)

    def incomplete(self) -> str | None:
        """Why the export may not be whole, or None: no end line (cut short, or written by
        an Engram before the end line existed), or fewer lines than its end line counts."""
        if not self.ends:
            return (
                "the export has no end line: it may have been cut short (an export written "
                "before Engram added the line has none)"
            )
        for kind, line in (("memories", "memory"), ("relations", "relation")):
            said = sum(int(end[kind]) for end in self.ends)
            read = self.kinds[line]
            if read < said:
                # The end line is there, so the file was not cut short: lines in it were
                # unreadable (a torn edit, a line too long), and are listed as skipped.
                how = (
                    f"{len(self.skipped)} of its lines could not be read"
                    if self.skipped
                    else ("lines were removed from it")
                )
                return f"its end line counts {said} {kind}, {read} read: {how}"
        return None


def check_export_file(path: Path) -> Path:
    """`path` if it can be read as an export: a file or a pipe, not /dev/zero."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise ValidationError("path", f"{path} does not exist") from None
    except OSError:
        mode = 0
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
        raise ValidationError("path", f"{path} is not a file")
    return path


# How an export read from standard input is named in reports and errors.
STDIN = Path("<stdin>")


def read_export(
    path: Path, stream: BinaryIO | None = None, now: datetime | None = None
) -> ExportData:
    """Parse an export; bad lines are skipped and reported, never fatal. The last line of an
    id wins (two backups merged in git may hold a memory twice). From `stream` when given (a
    pipe: `engram export | engram import jsonl -`), named `path` in what it reports. A time
    later than `now` (the store's clock; this machine's when read before a store is opened)
    is refused, as a save refuses it: a simulation's store on a FixedClock took a record
    dated 300 days ahead of it and held it at full strength all year (a probe)."""
    when = now or system_clock()
    if stream is not None:
        return _read_export(path, stream, when)
    check_export_file(path)
    with path.open("rb") as f:  # read once, in order: FILE may be a pipe
        return _read_export(path, f, when)


def _read_export(path: Path, f: BinaryIO, now: datetime) -> ExportData:
    data = ExportData(source=str(path))
    memories: dict[str, Memory] = {}
    relations: dict[str, Relation] = {}
    for number, raw in enumerate(bounded_lines(f, MAX_LINE_BYTES), 1):
        if raw is None:
            reason = f"line: longer than {MAX_LINE_BYTES:,} bytes, no export's"
            data.skipped.append(_skipped(path, number, None, reason))
            continue
        if number == 1 and raw.startswith(WIDE_BOMS):
            raise ValidationError(
                "path",
                f"{path} is UTF-16 text; an export is UTF-8 (write it with "
                "`engram export --out FILE`, or convert it)",
            )
        if not raw.strip():
            continue
        data.lines += 1
        try:
            obj = json_line(raw)
        except (ValueError, RecursionError) as exc:  # nested beyond Python's stack
            data.skipped.append(_skipped(path, number, None, f"not valid JSON ({exc})"))
            continue
        if not isinstance(obj, dict):
            data.skipped.append(_skipped(path, number, None, "line: must be a JSON object"))
            continue
        ident = obj.get("id") if isinstance(obj.get("id"), str) else None
        kind = obj.get("kind")
        if kind == END and all(isinstance(obj.get(k), int) for k in ("memories", "relations")):
            data.ends.append(obj)
            continue
        if kind in ("memory", "relation"):
            data.records += 1
            data.kinds[kind] += 1
        try:
            _take(obj, number, path.name, data, memories, relations, now)
        except (BadLine, ValidationError) as exc:
            data.skipped.append(_skipped(path, number, ident, str(exc)))
    # An export of an empty store is its end line alone: nothing to import, and no error (it
    # was refused as no export). A file without a line is no export (it was imported, rc 0).
    if not data.lines:
        raise ValidationError(
            "path", f"{path} is empty: an export has at least its end line; nothing was imported"
        )
    if not data.records and not data.ends:
        raise ValidationError(
            "path",
            f"{path} is not an Engram export: no line is a memory or a relation "
            '({"kind": "memory", …}); nothing was imported',
        )
    data.memories = list(memories.values())
    data.relations = list(relations.values())
    return data


def _skipped(path: Path, number: int, ident: str | None, reason: str) -> Skipped:
    return Skipped(file=path.name, line=number, id=ident, reason=reason)


def _take(
    obj: dict[str, Any],
    number: int,
    name: str,
    data: ExportData,
    memories: dict[str, Memory],
    relations: dict[str, Relation],
    now: datetime,
) -> None:
    kind = obj.pop("kind", None)
    if kind == "memory":
        # What a store held comes back as it was, its times too (a clock may have been
        # ahead); but only ids a command can name: another (hand-written in a JSONL file)
        # would make a memory nobody can open, touch or delete, and could reach the terminal.
        memory = check.record(memory_from_object(obj).memory)
        for name in ("created_at", "last_used", "promoted_at", "last_review_at"):
            not_ahead(name, getattr(memory, name), now)
        if memory.id in memories:
            data.superseded += 1
            del memories[memory.id]  # the later line wins, and takes its place in the order
        memories[memory.id] = memory
    elif kind == "relation":
        relation = check.relation_record(relation_from_object(obj))
        if relation.id in relations:  # the later line wins, as for memories
            data.superseded += 1
            del relations[relation.id]
        relations[relation.id] = relation
        data.relation_lines[relation.id] = (name, number)
    else:
        raise ValidationError("kind", f"{kind!r} is neither 'memory' nor 'relation'")


def restore_export(
    path: Path | ExportData, writer: Writer, *, now: datetime | None = None
) -> RestoreReport:
    """`path` an export, or what `read_export` read of one (checked before the target store
    is opened, so that a file that is no export creates no store)."""
    data = path if isinstance(path, ExportData) else read_export(path, now=now)
    written = write_records(writer, data)
    fields = written.report(data.source)
    if data.superseded:
        # the later line of an id wins, a relation's as a memory's: said, not done silently
        # (an import probe found a relation whose id named another edge later gone, exit 0)
        fields["message"] += (
            f"; {counted(data.superseded, 'line')} replaced by a later line of the same id"
        )
    warning = data.incomplete()
    if warning is not None:
        log.info("%s: %s", data.source, warning)  # the report says it (the CLI said it twice)
        fields["message"] += f"; warning: {warning}"
    return RestoreReport(
        target=writer.target.location,
        lines=data.lines,
        memories=len(data.memories),
        superseded=data.superseded,
        relations=len(data.relations),
        warning=warning,
        **fields,
    )
