"""The two whole-file rewrites of a JSONL store, both in place (`inplace`): compaction, and the
schedules rewritten after a change of decay settings.

* A compaction drops the superseded lines of each file and keeps the rest where they stand:
  each record's last line (as the index holds the record, which is the same line unless it
  was hand-written, e.g. with a misspelled key), every tombstone that is its id's last line,
  and the lines of a memory that is not in the store but was never deleted (`orphans`).
  Tombstones stay for good (one short line per deleted record): dropped, a memory deleted
  on one clone and compacted came back when git merged in a touch of it from another clone.
  Kept, the last line of a file Engram wrote always stays too, so a compaction on a clone
  with nothing unpushed merges with the lines other clones append, without a conflict.
* A reschedule replaces each memory's last line with the same record and its new schedule,
  where it stands, and keeps every other line: it drops nothing (that is a compaction's job).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import NamedTuple

from engram.storage.jsonl import inplace, orphans
from engram.storage.jsonl.files import LineFile, read_lines
from engram.storage.jsonl.inplace import Current, Line
from engram.storage.jsonl.records import encode_memory, encode_relation
from engram.storage.jsonl.sync import Tally
from engram.storage.sqlite import SQLiteStore

_PAGE = 1_000  # memories encoded at a time


class Compacted(NamedTuple):
    tallies: tuple[Tally, Tally, Tally]  # the new line counts of the three files
    # Whether the memories' saving order, which a whole read takes from the order of their
    # lines, is no longer the index's: a memory written again since it was saved keeps the
    # place of its current line, after memories saved later and not changed since.
    reordered: bool


def compact(
    index: SQLiteStore,
    files: tuple[LineFile, LineFile, LineFile],
    unscheduled: Collection[str],
) -> Compacted:
    """Rewrite memories, relations and vectors (`files`) without their dead lines; `index`
    holds exactly what the files say (read whole just before, under the exclusive lock), and
    `unscheduled` the memories whose line carries no schedule."""
    memories, relations, vectors = files
    encoded = _encoded_memories(index, unscheduled)  # in saving order
    deleted = orphans.deleted_memories(memories.path)
    edges = {r.id: encode_relation(r) for r in index.all_relations()}
    unheld = orphans.orphan_relations(relations.path, encoded, deleted)
    rel = _rewrite(relations, lambda i, line: edges.get(i) or unheld.get(i) or _tombstone(line))
    embedded = index.vector_models(list(encoded))  # whose last vector line the index holds
    unheld = orphans.orphan_vectors(vectors.path, encoded, deleted)
    vec = _rewrite(
        vectors,
        lambda i, line: line.raw if i in embedded else unheld.get(i) or _tombstone(line),
    )
    # Last: killed before this, the lines it drops still say which lines above were dead (a
    # memory's line the index lacks, which cannot be after a whole read, would be kept).
    mem = _rewrite(memories, lambda i, line: encoded.get(i, line.raw))
    order = [ident for ident in mem.ids if ident in encoded]
    return Compacted((_tally(mem), _tally(rel), _tally(vec)), order != list(encoded))


def reschedule(memories: LineFile, encoded: Mapping[str, bytes]) -> None:
    """Put `encoded` (each memory's line with its new schedule) in the place of each memory's
    last line; every other line stays. Nothing is written when no line changes."""
    lines = _lines(memories)
    new = inplace.rewritten(lines, lambda i, line: encoded.get(i, line.raw), superseded=True)
    if new.lines != [line.raw for line in lines]:
        memories.rewrite(new.lines)


def _encoded_memories(index: SQLiteStore, unscheduled: Collection[str]) -> dict[str, bytes]:
    """Every memory's line as the index holds it, a page at a time (a list of every memory
    first held them all as objects at once)."""
    encoded: dict[str, bytes] = {}
    after: str | None = None
    while page := index.page(after, _PAGE):
        schedules = index.schedules([m.id for m in page])
        for m in page:
            encoded[m.id] = encode_memory(m, None if m.id in unscheduled else schedules[m.id])
        after = page[-1].id
    return encoded


def _rewrite(file: LineFile, current: Current) -> inplace.Rewrite:
    """The file without its superseded lines, each id's last one as `current` gives it."""
    new = inplace.rewritten(_lines(file), current, superseded=False)
    file.rewrite(new.lines)
    return new


def _tally(rewrite: inplace.Rewrite) -> Tally:
    return Tally(len(rewrite.lines), rewrite.tombstones)


def _lines(file: LineFile) -> list[Line]:
    return inplace.read(raw.rstrip(b"\r") for _, raw in read_lines(file.path))


def _tombstone(line: Line) -> bytes | None:
    """A tombstone is kept, in its place; any other line not accounted for is dead."""
    return line.raw if line.tombstone else None
