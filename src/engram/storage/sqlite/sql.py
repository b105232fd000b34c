"""SQL helpers of the SQLite store and its mixins: parameter chunks, `IN (…)` lookups, filters,
error messages."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, TypeVar

from engram.core.text import tag_key
from engram.errors import DamagedStoreError, StoreError
from engram.storage.protocol import Filter

MAX_VARS = 900  # bound parameters per statement, under SQLite's default limit
T = TypeVar("T")


def filter_sql(where: Filter, alias: str, *, by_key: bool = False) -> tuple[str, list[Any]]:
    """The filter as SQL. `by_key`: the rows are already picked by id or seq (`IN (…)`), and
    the unary `+` keeps SQLite from walking the status index instead, which it otherwise does
    with bound parameters: a scan of every active memory for a lookup of a hundred (4 ms
    instead of 0.5 at 10K memories, and linear in the store)."""
    clauses: list[str] = []
    params: list[Any] = []
    statuses = [s.value for s in where.statuses]
    plus = "+" if by_key else ""
    clauses.append(f"AND {plus}{alias}.status IN ({', '.join('?' * len(statuses))})")
    params += statuses
    if where.used_since is not None:
        clauses.append(f"AND {plus}{alias}.last_used >= ?")
        params.append(where.used_since)
    if where.tags:
        marks = ", ".join("?" * len(where.tags))
        clauses.append(
            f"AND {alias}.seq IN (SELECT seq FROM memory_tags WHERE folded IN ({marks}))"
        )
        params += [tag_key(t) for t in where.tags]
    return " ".join(clauses), params


_calls = threading.local()
# What SQLite says when a function of ours raised, whatever it raised.
_FUNCTION_RAISED = "user-defined function raised exception"


def interruptible(function: Callable[..., Any]) -> Callable[..., Any]:
    """SQLite turns whatever a function of ours raises into "user-defined function raised
    exception", Ctrl-C included: a migration retried the batch memory by memory and carried on,
    an import said the store had failed. What the function itself raised is noted; a Ctrl-C
    that came while SQLite ran is raised by Python as the wrapper starts, before anything of
    it runs, so a failure with nothing noted was that interrupt (`interrupted`)."""

    def call(*args: Any) -> Any:
        try:
            result = function(*args)
        except BaseException as exc:
            _calls.raised = exc
            raise
        _calls.raised = None
        return result

    return call


def interrupted(exc: sqlite3.DatabaseError) -> bool:
    """Whether `exc` is Ctrl-C that came while SQLite ran one of our functions (and forget
    what the last one raised)."""
    raised = getattr(_calls, "raised", None)
    _calls.raised = None
    if _FUNCTION_RAISED not in str(exc):
        return False
    return raised is None or isinstance(raised, KeyboardInterrupt)


def file_identity(path: Path) -> tuple[int, int] | None:
    """Which file `path` names now (device and inode); None when nothing is there."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def store_error(exc: sqlite3.DatabaseError, path: Path) -> StoreError:
    """What a failure of the file means for the user's data, and what to do about it. Ctrl-C
    that came while SQLite ran one of our functions is raised as the interrupt it was."""
    if interrupted(exc):
        raise KeyboardInterrupt from exc
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        # what to do too: the message said only what happened (a probe)
        return StoreError(
            f"store {path} is busy ({exc}): another process held it past "
            "ENGRAM_SQLITE_BUSY_TIMEOUT; this was not written, and trying again is safe"
        )
    # "vtable constructor failed": the full-text index's own pages cannot be read.
    damaged = ("malformed", "not a database", "corrupt", "vtable constructor failed")
    if any(word in text for word in damaged):
        return DamagedStoreError(
            f"the store {path} is damaged ({exc}); nothing more was written to it. Restore a "
            f"backup into a new store (engram import jsonl BACKUP/engram/export.jsonl), or "
            f"save what is readable with "
            f"`sqlite3 {path} .recover`"
        )
    if "readonly" in text or "read-only" in text:
        return StoreError(
            f"the store {path} is read-only ({exc}); nothing was written: check the "
            "permissions of the file and its folder"
        )
    if "full" in text:
        return StoreError(
            f"the disk holding the store {path} is full ({exc}); nothing was written: free "
            "some space and try again"
        )
    if "closed database" in text:
        # "Cannot operate on a closed database" read as a failing store (a probe)
        return StoreError(
            f"the store {path} was closed (the handle's close() ran, or its `with` block "
            "ended): open it again to read or write"
        )
    return StoreError(f"the store {path} failed: {exc}")


def chunks(items: list[T], size: int = MAX_VARS) -> Iterator[list[T]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


Rows = list[Any]

# Entries kept in `vector_changes` and `ltm_vector_changes`.
CHANGE_LOG_KEEP = 50_000


def prune_change_log(conn: sqlite3.Connection, table: str) -> None:
    """A change log (vector_changes, ltm_vector_changes) need reach back only as far as a
    process's in-memory copy of the vectors may lag: one further behind rebuilds from the
    table. Pruned wherever entries are added: when vectors are stored, and when memories or
    notes are deleted (a store that only deleted grew it for ever)."""
    conn.execute(
        f"DELETE FROM {table} WHERE change <= (SELECT max(change) FROM {table}) - ?",
        (CHANGE_LOG_KEEP,),
    )


def on(conn: sqlite3.Connection) -> Callable[[str, list[Any]], Rows]:
    """A `rows_in` runner on this connection: inside a write transaction, where the store's own
    query method (its own lock and error mapping) does not apply."""
    return lambda sql, params: conn.execute(sql, params).fetchall()


def rows_in(
    run: Callable[[str, list[Any]], Rows],
    sql: Callable[[str], str],
    keys: Iterable[Any],
    before: Sequence[Any] = (),
    after: Sequence[Any] = (),
) -> Rows:
    """The rows of `sql(marks)` for the distinct keys, a statement per chunk of them: `marks`
    is the chunk's `?, ?, …` for an `IN (…)` list, bound between the `before` and `after`
    parameters. `run` executes one statement and returns its rows."""
    out: Rows = []
    for chunk in chunks(list(dict.fromkeys(keys))):
        out += run(sql(", ".join("?" * len(chunk))), [*before, *chunk, *after])
    return out


def delete_in(
    write: Callable[[], AbstractContextManager[sqlite3.Connection]],
    sql: Callable[[str], str],
    keys: Iterable[Any],
) -> None:
    """`rows_in` for a statement that returns nothing (a `DELETE … IN (…)`), every chunk in the
    one write transaction `write` opens: all the keys go, or none."""
    with write() as conn:
        rows_in(on(conn), sql, keys)
