"""Reads the SQLite and PostgreSQL stores answer with the same SQL, written once.

The two dialects differ here only in the placeholder (`?` / `%s`) and in whether JSON columns
arrive as text (SQLite) or decoded (PostgreSQL). The methods are typed against `SqlDialect`, a
protocol of what they use (mypy's pattern for mixins), so the class has no stub hooks to
override. `schedule_batches` is the read side of recomputing every schedule; each store writes
the results back its own way.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from engram.core.models import AuditEntry, Memory, Status
from engram.core.notes import NoteLinks, NoteState, link_key, link_name
from engram.errors import NotFoundError
from engram.storage.columns import MEMORY_COLUMN_LIST
from engram.storage.protocol import CURSOR_MARK, ScheduleInputs
from engram.storage.rows import AUDIT_COLUMNS, AUDIT_KEEP, Decode, audit_from_row, memory_from_row

FINGERPRINT_KEY = "schedule_fingerprint"  # in store_meta: the policy the schedules were made by
RESCHEDULE_BATCH = 50_000  # memories read, computed and written back at a time

# A statement's parameters, by position or by name: both drivers take either.
Params = Sequence[Any] | Mapping[str, Any]
# Runs one statement in the caller's transaction and returns its rows.
Fetch = Callable[[str, list[Any]], Sequence[Sequence[Any]]]


def nested_tags(tags: Sequence[str]) -> tuple[list[str], list[str]]:
    """What a vault-note tag filter matches, in both dialects: the tags themselves (folded, no
    `#`) and LIKE patterns (escape character `\\`) for tags nested below them, so that
    `project` finds `project/atlas`."""
    folded = [t.casefold().strip("#/") for t in tags]
    escaped = (t.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") for t in folded)
    return folded, [t + "/%" for t in escaped]


def schedule_batches(fetch: Fetch, p: str, kept: str) -> Iterator[tuple[list[int], ScheduleInputs]]:
    """What every memory's schedule is computed from, RESCHEDULE_BATCH memories at a time in
    save order, with their seqs (where the store writes the results back). Read through
    `fetch`, inside the store's write transaction: no memory is saved or changed between a
    batch's read and its write. `kept`: the dialect's test of `meta.keep` being JSON true."""
    last = 0
    while rows := fetch(
        "SELECT seq, use_count, strength, last_used, created_at, "
        "CASE WHEN status = 'active' THEN 1 ELSE 0 END, "
        f"CASE WHEN {kept} THEN 1 ELSE 0 END "
        f"FROM memories WHERE seq > {p} ORDER BY seq LIMIT {p}",
        [last, RESCHEDULE_BATCH],
    ):
        seqs = [int(row[0]) for row in rows]
        yield seqs, ScheduleInputs.from_rows(rows)
        last = seqs[-1]


class PageEnds:
    """Where the memories of the pages a store handle returned sit (id -> save-order
    position). A cursor is a memory of a page (its last; the one before it when the caller
    read one more to learn whether more follow, as `read_graph` does); deleted before the next
    page is asked for (by gc, another client, a merge undone), it still marks its place, so an
    export, a backup or a client paging the graph goes on instead of failing on "cursor not
    found". The latest `most` are kept."""

    def __init__(self, most: int = 4096) -> None:
        self._seqs: OrderedDict[str, int] = OrderedDict()
        self._most = most
        self._lock = threading.Lock()

    def remember(self, rows: Sequence[tuple[str, int]]) -> None:
        with self._lock:
            for ident, seq in rows:
                self._seqs[ident] = seq
                self._seqs.move_to_end(ident)
            while len(self._seqs) > self._most:
                self._seqs.popitem(last=False)

    def seq_of(self, ident: str) -> int | None:
        with self._lock:
            return self._seqs.get(ident)


class SqlDialect(Protocol):
    @property
    def P(self) -> str: ...

    @property
    def decode_json(self) -> Decode:  # a JSON column as the driver returns it -> Python value
        ...

    def _query(self, sql: str, params: Params = ()) -> Sequence[Sequence[Any]]: ...

    def _seq_after(self, after: str | None) -> int: ...

    def position(self, memory_id: str) -> int | None: ...

    @property
    def page_ends(self) -> PageEnds: ...

    def _linking_to(self, path: str) -> list[str]:
        """The notes whose wikilinks reach `path` (by its path or, bare, by its name), sorted;
        each schema keeps the links its own way."""
        ...


class SqlReads:
    audit_keep = AUDIT_KEEP  # the newest audit entries kept (`rows.KEEP_NEWEST_AUDIT`)

    def ltm_states(self: SqlDialect) -> dict[str, NoteState]:
        rows = self._query("SELECT path, mtime_ns, size, digest FROM ltm_notes")
        return {row[0]: NoteState(row[0], int(row[1]), int(row[2]), row[3]) for row in rows}

    def ltm_claims(self: SqlDialect) -> dict[str, list[str]]:
        claims: dict[str, list[str]] = {}
        rows = self._query(
            "SELECT engram_id, path FROM ltm_notes WHERE engram_id IS NOT NULL ORDER BY path"
        )
        for engram_id, path in rows:
            claims.setdefault(engram_id, []).append(path)
        return claims

    def ltm_problems(self: SqlDialect) -> dict[str, str]:
        rows = self._query(
            "SELECT path, problem FROM ltm_notes WHERE problem IS NOT NULL ORDER BY path"
        )
        return {str(path): str(problem) for path, problem in rows}

    def ltm_links(self: SqlDialect, path: str) -> NoteLinks:
        found = self._query(f"SELECT links FROM ltm_notes WHERE path = {self.P}", (path,))
        outgoing: dict[str, None] = {}
        unresolved: dict[str, None] = {}
        for target in self.decode_json(found[0][0]) if found else ():
            resolved = _resolve_link(self, target)
            if resolved is None:
                unresolved.setdefault(target)
            elif resolved != path:
                outgoing.setdefault(resolved)
        return NoteLinks(
            path=path,
            outgoing=tuple(outgoing),
            incoming=tuple(self._linking_to(path)),
            unresolved=tuple(unresolved),
        )

    def count(self: SqlDialect) -> dict[Status, int]:
        counts = {status: 0 for status in Status}
        for status, n in self._query("SELECT status, count(*) FROM memories GROUP BY status"):
            counts[Status(status)] = int(n)
        return counts

    def page(self: SqlDialect, after: str | None, limit: int) -> list[Memory]:
        p = self.P
        rows = self._query(
            f"SELECT seq, {MEMORY_COLUMN_LIST} FROM memories WHERE seq > {p} "
            f"ORDER BY seq LIMIT {p}",
            (self._seq_after(after), limit),
        )
        out = [memory_from_row(row[1:], self.decode_json) for row in rows]
        self.page_ends.remember([(m.id, int(row[0])) for m, row in zip(out, rows, strict=True)])
        return out

    def page_texts(
        self: SqlDialect, after: str | None, limit: int
    ) -> list[tuple[str, Status, str]]:
        p = self.P
        rows = self._query(
            f"SELECT seq, id, status, content FROM memories WHERE seq > {p} ORDER BY seq LIMIT {p}",
            (self._seq_after(after), limit),
        )
        self.page_ends.remember([(str(row[1]), int(row[0])) for row in rows])
        return [(str(i), Status(status), str(content)) for _, i, status, content in rows]

    def position(self: SqlDialect, memory_id: str) -> int | None:
        found = self._query(f"SELECT seq FROM memories WHERE id = {self.P}", (memory_id,))
        return int(found[0][0]) if found else self.page_ends.seq_of(memory_id)

    def _seq_after(self: SqlDialect, after: str | None) -> int:
        """The save-order position of the cursor `after` (0 before the first): a memory id,
        or "<id>@<position>" (what `read_graph` hands out), whose position serves when that
        memory is gone since — deleted by another process between two pages."""
        if after is None:
            return 0
        ident, _, saved = after.partition(CURSOR_MARK)
        seq = self.position(ident)
        if seq is None and saved.isdigit():
            seq = int(saved)
        if seq is None:
            raise NotFoundError("cursor", after)
        return int(seq)

    def schedule_fingerprint(self: SqlDialect) -> str | None:
        rows = self._query(f"SELECT value FROM store_meta WHERE key = {self.P}", (FINGERPRINT_KEY,))
        return str(rows[0][0]) if rows else None

    def audit_entries(self: SqlDialect, plan_id: str | None, limit: int) -> list[AuditEntry]:
        p = self.P
        where, params = (f"WHERE plan_id = {p}", [plan_id]) if plan_id is not None else ("", [])
        rows = self._query(
            f"SELECT {AUDIT_COLUMNS} FROM audit {where} ORDER BY seq DESC LIMIT {p}",
            [*params, limit],
        )
        return [audit_from_row(row, decode=self.decode_json) for row in rows]


def _resolve_link(store: SqlDialect, target: str) -> str | None:
    """Obsidian's rule, simplified: a path match wins; a bare name matches the note of that
    name nearest the vault root."""
    p = store.P
    key = link_key(target)
    exact = store._query(
        f"SELECT path FROM ltm_notes WHERE key = {p} ORDER BY path LIMIT 1", (key,)
    )
    if exact:
        return str(exact[0][0])
    if "/" in key:
        return None
    named = store._query(
        f"SELECT path FROM ltm_notes WHERE name = {p} ORDER BY length(path), path LIMIT 1",
        (link_name(target),),
    )
    return str(named[0][0]) if named else None
