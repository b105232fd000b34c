"""The long-term-memory index contract: every backend with the "ltm" capability behaves alike;
a backend without it refuses writes with a StoreError (the services check the capability first).
The in-memory reference implementation (`MemoryLtm`) is held to the same contract, in memory
and persisted to a file."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engram.core.notes import Note, NoteState
from engram.errors import StoreError
from engram.storage.ltm_memory import MemoryLtm
from engram.storage.protocol import Store
from engram.storage.sqlite import SQLiteStore
from engram.vault.index import parse_note


class FileLtm(MemoryLtm):
    def __init__(self, path: Path) -> None:
        self.path = path

    def _ltm_file(self) -> Path | None:
        return self.path


def note(path: str, text: str, mtime: int = 1) -> Note:
    return parse_note(path, text.encode(), mtime_ns=mtime, size=len(text))


def seed(ltm: Any) -> None:
    ltm.ltm_write(
        upsert=[
            note(
                "Projects/atlas.md",
                "---\ntitle: Atlas\ntags: [project/atlas]\n---\n"
                "Atlas runs PostgreSQL databases. See [[people/alice]].\n",
            ),
            note("people/alice.md", "# Alice\nAlice works on #atlas and likes running.\n"),
            note("inbox.md", "Random thoughts about gardening and [[Atlas]] and [[Nowhere]].\n"),
        ]
    )


def check_notes_are_found_by_any_word_best_first(ltm: Any) -> None:
    seed(ltm)
    hits = ltm.ltm_search(["postgresql", "databases"], [], 10)
    assert [h.path for h in hits] == ["Projects/atlas.md"]
    assert hits[0].title == "Atlas" and hits[0].relevance > 0 and "PostgreSQL" in hits[0].preview
    assert [h.path for h in ltm.ltm_search(["run"], [], 10)] != []  # stemmed: runs, running
    titled = ltm.ltm_search(["alice"], [], 10)
    assert titled[0].path == "people/alice.md"  # title and body beat a link in the body
    assert ltm.ltm_search(["zeppelin"], [], 10) == []


def check_tags_filter_with_nesting_and_without_terms(ltm: Any) -> None:
    seed(ltm)
    assert [h.path for h in ltm.ltm_search([], ["project"], 10)] == ["Projects/atlas.md"]
    assert [h.path for h in ltm.ltm_search([], ["ATLAS"], 10)] == ["people/alice.md"]
    assert [h.path for h in ltm.ltm_search(["atlas"], ["project/atlas"], 10)] == [
        "Projects/atlas.md"
    ]
    assert ltm.ltm_search([], [], 10) == []


def check_states_restate_and_delete(ltm: Any) -> None:
    seed(ltm)
    states = ltm.ltm_states()
    assert set(states) == {"Projects/atlas.md", "people/alice.md", "inbox.md"}
    old = states["inbox.md"]
    ltm.ltm_write(
        restate=[NoteState("inbox.md", 99, old.size, old.digest)], delete=["people/alice.md"]
    )
    after = ltm.ltm_states()
    assert after["inbox.md"].mtime_ns == 99 and "people/alice.md" not in after
    assert ltm.ltm_search(["gardening"], [], 10)[0].path == "inbox.md"
    assert ltm.ltm_search(["likes"], [], 10) == []


def check_upsert_replaces_a_note(ltm: Any) -> None:
    seed(ltm)
    ltm.ltm_write(upsert=[note("inbox.md", "Now about #beekeeping only", mtime=2)])
    assert ltm.ltm_search(["gardening"], [], 10) == []
    assert [h.path for h in ltm.ltm_search([], ["beekeeping"], 10)] == ["inbox.md"]
    assert ltm.ltm_states()["inbox.md"].mtime_ns == 2


def check_links_resolve_by_path_or_name_both_ways(ltm: Any) -> None:
    seed(ltm)
    atlas = ltm.ltm_links("Projects/atlas.md")
    assert atlas.outgoing == ("people/alice.md",) and atlas.incoming == ("inbox.md",)
    inbox = ltm.ltm_links("inbox.md")
    assert inbox.outgoing == ("Projects/atlas.md",) and inbox.unresolved == ("Nowhere",)
    assert ltm.ltm_links("people/alice.md").incoming == ("Projects/atlas.md",)


CHECKS: list[Callable[[Any], None]] = [
    check_notes_are_found_by_any_word_best_first,
    check_tags_filter_with_nesting_and_without_terms,
    check_states_restate_and_delete,
    check_upsert_replaces_a_note,
    check_links_resolve_by_path_or_name_both_ways,
]


@pytest.mark.parametrize("check", CHECKS, ids=[c.__name__[6:] for c in CHECKS])
def test_every_backend_keeps_the_contract_or_refuses_clearly(
    store: Store, check: Callable[[Any], None]
) -> None:
    if "ltm" in store.capabilities:
        check(store)
    else:
        with pytest.raises(StoreError, match="long-term-memory"):
            store.ltm_write(upsert=[note("a.md", "x")])


@pytest.mark.parametrize("check", CHECKS, ids=[c.__name__[6:] for c in CHECKS])
@pytest.mark.parametrize("persisted", [False, True], ids=["in-memory", "file"])
def test_the_reference_implementation_keeps_the_contract(
    tmp_path: Path, persisted: bool, check: Callable[[Any], None]
) -> None:
    check(FileLtm(tmp_path / "ltm.jsonl") if persisted else MemoryLtm())


def test_the_file_backed_index_is_shared_between_instances(tmp_path: Path) -> None:
    first, second = FileLtm(tmp_path / "ltm.jsonl"), FileLtm(tmp_path / "ltm.jsonl")
    seed(first)
    assert set(second.ltm_states()) == set(first.ltm_states())
    second.ltm_write(delete=["inbox.md"])
    assert "inbox.md" not in first.ltm_states()


def test_the_sqlite_full_text_index_stays_consistent_with_its_notes(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "fts.db")
    try:
        seed(store)
        store.ltm_write(upsert=[note("inbox.md", "rewritten", mtime=5)], delete=["people/alice.md"])
        seed(store)
        store.ltm_write(delete=["Projects/atlas.md"])
    finally:
        store.close()
    with sqlite3.connect(tmp_path / "fts.db") as conn:
        conn.execute("INSERT INTO ltm_fts(ltm_fts, rank) VALUES ('integrity-check', 1)")
        tags = conn.execute("SELECT count(*) FROM ltm_note_tags").fetchone()[0]
        links = conn.execute("SELECT count(*) FROM ltm_links").fetchone()[0]
    assert (tags, links) == (1, 2)  # alice's #atlas; inbox's two links
