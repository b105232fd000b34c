"""Multi-hop graph traversal as one recursive CTE, shared by the SQL backends.

The walk is breadth-first: `walk` holds (memory, depth) pairs and is combined with `UNION`, not
`UNION ALL`, so a pair is produced once however many paths lead to it. A cycle therefore cannot
loop (the depth limit bounds every path, and revisits add no rows), and the work is bounded by
depth × edges. `best` keeps each memory's shortest distance; each reached memory is then joined
back to the edges that reach it from a memory exactly one level closer, and the earliest such
edge (created_at, id) is its `via` — the same choice on every backend (see `Store.traverse`).
"""

from __future__ import annotations

from collections.abc import Callable

from engram.core.models import Direction


def _steps(near: str, far: str) -> dict[str, tuple[str, str]]:
    """(condition joining edge `e` to the node, expression for the node at the edge's other
    end) for each direction, "{node}" standing for the node column; `near` is the column an
    edge leaves from when followed "out"."""
    return {
        "out": (f"e.{near} = {{node}}", f"e.{far}"),
        "in": (f"e.{far} = {{node}}", f"e.{near}"),
        "both": (
            f"(e.{near} = {{node}} OR e.{far} = {{node}})",
            f"CASE WHEN e.{near} = {{node}} THEN e.{far} ELSE e.{near} END",
        ),
    }


_STEP = _steps("from_id", "to_id")
# The same edges seen from the far end: how a reached node joins back to its parent.
_BACK = _steps("to_id", "from_id")

RELATION_COLUMNS = "id, from_id, to_id, type, strength, metadata, created_at"


def traversal_sql(
    *,
    table: str,
    direction: Direction,
    typed: bool,
    param: Callable[[str], str],
    type_filter: str,
    start_cast: str = "",
) -> str:
    """The query returning (memory id, depth, parent id, *edge columns) rows.

    `param(name)` renders a named placeholder (`:name`, `%(name)s`); the query uses `start`,
    `depth` and `limit`, and `type_filter` (a condition on `e.type`, only when `typed`).
    """
    on, far = _STEP[direction]
    back_on, back_far = _BACK[direction]
    types = f"AND {type_filter}" if typed else ""
    parent = back_far.format(node="b.node")
    return f"""
        WITH RECURSIVE walk(node, depth) AS (
            SELECT {param("start")}{start_cast}, 0
          UNION
            SELECT {far.format(node="w.node")}, w.depth + 1
            FROM walk w JOIN {table} e ON {on.format(node="w.node")}
            WHERE w.depth < {param("depth")} {types}
        ),
        best AS (SELECT node, min(depth) AS depth FROM walk GROUP BY node),
        hops AS (
            SELECT b.node, b.depth, {parent} AS parent,
                   e.id, e.from_id, e.to_id, e.type, e.strength, e.metadata, e.created_at,
                   row_number() OVER (PARTITION BY b.node ORDER BY e.created_at, e.id) AS k
            FROM best b
            JOIN {table} e ON {back_on.format(node="b.node")}
            JOIN best p ON p.node = {parent} AND p.depth = b.depth - 1
            WHERE b.depth > 0 {types}
        )
        SELECT node, depth, parent, {RELATION_COLUMNS} FROM hops WHERE k = 1
        ORDER BY depth, created_at, id LIMIT {param("limit")}
    """
