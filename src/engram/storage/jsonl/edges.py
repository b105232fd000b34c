"""Relations read from relations.jsonl into the index: the last line of an id wins, and so does
the last line of an edge (from, to, type).

The index holds one edge per (from, to, type), as SQLite and PostgreSQL do. Two clones of a
store in git that each linked the same two memories the same way wrote the edge under two ids;
merged, the index kept the first line and ignored the second, whose id then named nothing
(deleting by it did nothing while the edge stayed). Now the later line of the edge wins, as
for an id; the earlier id is reported when read and still names the edge: deleting by it
deletes the edge (`held_under_another_id`). A compaction drops the earlier line.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

from engram.core.models import Relation
from engram.storage.jsonl.files import read_lines
from engram.storage.jsonl.records import BadLine, Tombstone, decode_relation
from engram.storage.sqlite import SQLiteStore

log = logging.getLogger(__name__)

Edge = tuple[str, str, str]  # from, to, type


def edge_of(relation: Relation) -> Edge:
    return relation.from_id, relation.to_id, relation.type


def apply_relations(index: SQLiteStore, records: Sequence[Relation | Tombstone]) -> None:
    """In file order: runs of additions in one transaction, tombstones as they come. The last
    line of an id wins, as for memories (an edit appended by hand was ignored, and compaction
    then dropped it), and the last line of an edge replaces an edge held under another id."""
    run: dict[str, Relation] = {}

    def flush() -> None:
        latest = _last_of_each_edge(run.values())
        replaced = _held_under_other_ids(index, latest.values(), run)
        index.delete_relations([*run, *replaced])
        index.add_relations(list(latest.values()))
        run.clear()

    for record in records:
        if isinstance(record, Tombstone):
            flush()
            index.delete_relations([record.id])
        else:
            run.pop(record.id, None)
            run[record.id] = record
    flush()


def _last_of_each_edge(relations: Iterable[Relation]) -> dict[Edge, Relation]:
    latest: dict[Edge, Relation] = {}
    for relation in relations:
        earlier = latest.pop(edge_of(relation), None)
        if earlier is not None and earlier.id != relation.id:
            _report(earlier.id, relation)
        latest[edge_of(relation)] = relation
    return latest


def _held_under_other_ids(
    index: SQLiteStore, relations: Iterable[Relation], reported: Collection[str]
) -> list[str]:
    """The ids under which the index holds these relations' edges, where they differ (those
    in `reported` were reported already)."""
    wanted = {edge_of(r): r for r in relations}
    if not wanted:
        return []
    replaced = []
    for held in index.relations(list({r.from_id for r in wanted.values()})):
        newer = wanted.get(edge_of(held))
        if newer is not None and held.id != newer.id:
            if held.id not in reported:
                _report(held.id, newer)
            replaced.append(held.id)
    return replaced


def _report(earlier: str, later: Relation) -> None:
    log.warning(
        "relations.jsonl: relations %r and %r are the same edge (%s -[%s]-> %s), as when two "
        "clones of the store in git both made it: the later line, %r, is kept, and either id "
        "deletes it (a compaction drops the earlier line)",
        earlier,
        later.id,
        later.from_id,
        later.type,
        later.to_id,
        later.id,
    )


def held_under_another_id(path: Path, ident: str, index: SQLiteStore) -> Relation | None:
    """The edge the index holds that the last line of relation `ident` in `path` names under
    another id (see above); None when there is none. Reads the file: this is for a deletion by
    an id the index does not hold, which is rare."""
    needle = ident.encode()  # a valid id has no character JSON escapes
    last: Relation | Tombstone | None = None
    for _, raw in read_lines(path):
        if needle not in raw:
            continue
        try:
            record = decode_relation(raw)
        except BadLine:
            continue
        if record.id == ident:
            last = record
    if not isinstance(last, Relation):
        return None
    edge = edge_of(last)
    return next((r for r in index.relations([last.from_id]) if edge_of(r) == edge), None)
