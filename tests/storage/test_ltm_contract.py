"""The long-term-memory index contract: every backend with the "ltm" capability behaves alike;
a backend without it refuses writes with a StoreError (the services check the capability first)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from engram.core.notes import Note, NoteState
from engram.core.text import query_terms
from engram.errors import StoreError
from engram.storage.jsonl import JSONLStore
from engram.storage.postgres import PostgresStore
from engram.storage.protocol import Capability, Store
from engram.storage.sqlite import SQLiteStore
from engram.vault.index import MAX_PATH_BYTES, parse_note


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
    # the note's own words, unmarked: PostgreSQL's put ", StopSel=" and "</b>" into every
    # preview (a probe)
    said = set(re.findall(r"\w+", "Atlas runs PostgreSQL databases. See [[people/alice]]."))
    assert set(re.findall(r"\w+", hits[0].preview)) <= said and "<" not in hits[0].preview
    assert [h.path for h in ltm.ltm_search(["run"], [], 10)] != []  # stemmed: runs, running
    titled = ltm.ltm_search(["alice"], [], 10)
    assert titled[0].path == "people/alice.md"  # title and body beat a link in the body
    assert ltm.ltm_search(["zeppelin"], [], 10) == []


def check_cjk_notes_are_found_by_their_words(ltm: Any) -> None:
    """A note titled "大阪旅行" was found by no query, its own title neither: the notes'
    index held a run of CJK characters as one word (a helper's probe); memories had been
    indexed a character a word since SQLite's 0015."""
    ltm.ltm_write(
        upsert=[
            note("trips/osaka.md", "# 大阪旅行\n大阪城と道頓堀に行きました。\n"),
            note("study.md", "---\ntitle: 学习计划\n---\n每天学习中文一个小时。\n"),
            note("other.md", "# Kyoto\n京都の寺。\n"),
        ]
    )
    assert [h.path for h in ltm.ltm_search(query_terms("大阪"), [], 10)] == ["trips/osaka.md"]
    assert [h.path for h in ltm.ltm_search(query_terms("学习计划"), [], 10)] == ["study.md"]
    ltm.ltm_write(upsert=[note("trips/osaka.md", "# 大阪旅行\n神戸にも行った。\n", mtime=2)])
    assert [h.path for h in ltm.ltm_search(query_terms("神戸"), [], 10)] == ["trips/osaka.md"]
    assert ltm.ltm_search(query_terms("道頓堀"), [], 10) == []  # its old words are gone
    ltm.ltm_write(delete=["trips/osaka.md"])
    assert ltm.ltm_search(query_terms("大阪"), [], 10) == []


def check_a_note_is_found_by_its_aliases_as_by_its_title(ltm: Any) -> None:
    """Obsidian's `aliases:` (or `alias:`) are other names of the note: "JS" found nothing."""
    ltm.ltm_write(
        upsert=[
            note("js.md", "---\naliases: [JS, ECMAScript]\n---\n# JavaScript\nOf the web.\n"),
            note("ts.md", "---\nalias: TS\n---\n# TypeScript\nTyped, and mentions JS once.\n"),
            note("go.md", "# Go\nNo other names.\n"),
        ]
    )
    hits = ltm.ltm_search(query_terms("JS"), [], 10)
    assert [h.path for h in hits] == ["js.md", "ts.md"]  # a title's word beats a body's
    assert hits[0].title == "JavaScript"
    assert [h.path for h in ltm.ltm_search(query_terms("ecmascript"), [], 10)] == ["js.md"]
    assert [h.path for h in ltm.ltm_search(query_terms("TS"), [], 10)] == ["ts.md"]
    ltm.ltm_write(upsert=[note("js.md", "# JavaScript\nNo aliases now.\n", mtime=2)])
    assert ltm.ltm_search(query_terms("ecmascript"), [], 10) == []


def check_a_rare_word_weighs_more_than_a_common_one_repeated(ltm: Any) -> None:
    """BM25's idf for notes too: a name in most notes, three times in each, does not outrank
    the one note with the query's rare word (PostgreSQL's ts_rank_cd alone ranked it so)."""
    daily = [
        note(f"daily/{i}.md", f"Kate called. Kate wrote. Kate left at {i}.\n") for i in range(8)
    ]
    ltm.ltm_write(upsert=[*daily, note("trip.md", "The zeppelin museum was the best part.\n")])
    hits = ltm.ltm_search(["kate", "zeppelin"], [], 10)
    assert hits[0].path == "trip.md" and len(hits) == 9
    assert hits[0].relevance > hits[1].relevance


def check_tags_filter_with_nesting_and_without_terms(ltm: Any) -> None:
    seed(ltm)
    assert [h.path for h in ltm.ltm_search([], ["project"], 10)] == ["Projects/atlas.md"]
    assert [h.path for h in ltm.ltm_search([], ["ATLAS"], 10)] == ["people/alice.md"]
    assert [h.path for h in ltm.ltm_search(["atlas"], ["project/atlas"], 10)] == [
        "Projects/atlas.md"
    ]
    assert ltm.ltm_search([], [], 10) == []
    # LIKE's wildcards in a tag are plain characters: "pro_ect" and "%" match no "project/…"
    for wild in ("pro_ect", "%", "proj%"):
        assert ltm.ltm_search([], [wild], 10) == [], wild


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


# -- note vectors ------------------------------------------------------------------------------

MODEL = "test-model"
DIMS = 384  # what the PostgreSQL column holds
_BASIS = np.eye(DIMS, dtype=np.float32)


def unit(*weights: float) -> NDArray[np.float32]:
    """A unit vector in the span of the first basis vectors: cosines are known exactly."""
    v = np.zeros(DIMS, dtype=np.float32)
    v[: len(weights)] = weights
    out: NDArray[np.float32] = v / np.linalg.norm(v)
    return out


ATLAS, ALICE, INBOX = unit(1), unit(0, 1), unit(0, 0, 1)


def embed_seed(ltm: Any, model: str = MODEL) -> None:
    seed(ltm)
    states = ltm.ltm_states()
    vectors = {"Projects/atlas.md": ATLAS, "people/alice.md": ALICE, "inbox.md": INBOX}
    stored = ltm.ltm_put_vectors([(p, states[p].digest, v) for p, v in vectors.items()], model)
    assert stored == 3


def nearest(ltm: Any, query: NDArray[np.float32], tags: list[str] | None = None) -> list[str]:
    return [h.path for h in ltm.ltm_vector_search(query, MODEL, tags or [], 10)]


def check_vectors_are_searched_by_cosine_best_first(ltm: Any) -> None:
    assert ltm.ltm_vector_search(ATLAS, MODEL, [], 10) == []
    embed_seed(ltm)
    hits = ltm.ltm_vector_search(unit(3, 2, 1), MODEL, [], 10)
    assert [h.path for h in hits] == ["Projects/atlas.md", "people/alice.md", "inbox.md"]
    expected = (unit(3, 2, 1)[:3]).tolist()
    assert [h.relevance for h in hits] == pytest.approx(expected, abs=1e-5)
    atlas = hits[0]
    assert (atlas.title, atlas.tags, atlas.engram_id) == ("Atlas", ("project/atlas",), None)
    assert atlas.preview.startswith("Atlas runs PostgreSQL databases.")
    assert nearest(ltm, unit(0, 1, 3))[:1] == ["inbox.md"]
    assert len(ltm.ltm_vector_search(unit(3, 2, 1), MODEL, [], 2)) == 2
    assert ltm.ltm_vector_search(unit(3, 2, 1), MODEL, [], 0) == []


def check_every_search_gives_the_time_the_file_was_written(ltm: Any) -> None:
    """A hit says when its file was last written (unified search shows the day): by words,
    by tag alone and by vector, the mtime the note was indexed with."""
    embed_seed(ltm)
    ltm.ltm_write(
        upsert=[note("inbox.md", "Random thoughts about gardening.\n", 1_767_225_600 * 10**9)]
    )
    ltm.ltm_put_vectors([("inbox.md", ltm.ltm_states()["inbox.md"].digest, INBOX)], MODEL)
    (worded,) = ltm.ltm_search(["gardening"], [], 10)
    tagged = ltm.ltm_search([], ["project"], 10)
    near = ltm.ltm_vector_search(unit(0, 0, 1), MODEL, [], 1)
    assert worded.modified_ns == near[0].modified_ns == 1_767_225_600 * 10**9
    assert [h.modified_ns for h in tagged] == [1]


def check_vector_search_filters_by_tags_and_model(ltm: Any) -> None:
    embed_seed(ltm)
    assert nearest(ltm, unit(0, 1, 1), ["project"]) == ["Projects/atlas.md"]
    assert nearest(ltm, unit(1, 0, 1), ["ATLAS"]) == ["people/alice.md"]
    assert nearest(ltm, ATLAS, ["nowhere"]) == []
    assert ltm.ltm_vector_search(ATLAS, "another-model", [], 10) == []


def check_missing_vectors_are_listed_per_model(ltm: Any) -> None:
    seed(ltm)
    assert {n.path for n in ltm.ltm_missing_vectors(MODEL, 10)} == {
        "Projects/atlas.md",
        "people/alice.md",
        "inbox.md",
    }
    states = ltm.ltm_states()
    ltm.ltm_put_vectors([("inbox.md", states["inbox.md"].digest, INBOX)], MODEL)
    missing = ltm.ltm_missing_vectors(MODEL, 10)
    assert {n.path for n in missing} == {"Projects/atlas.md", "people/alice.md"}
    atlas = next(n for n in missing if n.path == "Projects/atlas.md")
    assert atlas.title == "Atlas" and "PostgreSQL" in atlas.body
    assert atlas.digest == states["Projects/atlas.md"].digest
    assert len(ltm.ltm_missing_vectors(MODEL, 1)) == 1
    assert len(ltm.ltm_missing_vectors("another-model", 10)) == 3
    # A vector of another model replaces this one: one vector per note.
    ltm.ltm_put_vectors([("inbox.md", states["inbox.md"].digest, INBOX)], "another-model")
    assert len(ltm.ltm_missing_vectors(MODEL, 10)) == 3
    assert nearest(ltm, INBOX) == []


def check_vectors_are_read_back_by_path_and_model(ltm: Any) -> None:
    """Search judges a note found by meaning against its own vector too (docs/search.md 1b)."""
    embed_seed(ltm)
    got = ltm.ltm_get_vectors(["inbox.md", "Projects/atlas.md", "not/indexed.md"], MODEL)
    assert set(got) == {"inbox.md", "Projects/atlas.md"}
    assert got["inbox.md"] == pytest.approx(INBOX) and got["inbox.md"].dtype == np.float32
    assert got["Projects/atlas.md"] == pytest.approx(ATLAS)
    assert ltm.ltm_get_vectors(["inbox.md"], "another-model") == {}
    assert ltm.ltm_get_vectors([], MODEL) == {}
    many = [f"missing/{i}.md" for i in range(1200)] + ["people/alice.md"]  # more than one batch
    assert list(ltm.ltm_get_vectors(many, MODEL)) == ["people/alice.md"]


def check_a_vector_attaches_only_to_the_text_it_was_computed_from(ltm: Any) -> None:
    seed(ltm)
    digest = ltm.ltm_states()["inbox.md"].digest
    assert ltm.ltm_put_vectors([("inbox.md", "another digest", INBOX)], MODEL) == 0
    assert ltm.ltm_put_vectors([("not/indexed.md", digest, INBOX)], MODEL) == 0
    assert nearest(ltm, INBOX) == []
    assert ltm.ltm_put_vectors([("inbox.md", digest, INBOX)], MODEL) == 1
    assert nearest(ltm, INBOX) == ["inbox.md"]


def check_an_edit_drops_the_vector_and_a_same_text_rewrite_keeps_it(ltm: Any) -> None:
    embed_seed(ltm)
    old = ltm.ltm_states()["inbox.md"]
    ltm.ltm_write(restate=[NoteState("inbox.md", 42, old.size, old.digest)])
    assert nearest(ltm, INBOX)[:1] == ["inbox.md"]
    # Same title and body, other frontmatter (so another digest): the vector still holds.
    same_text = (
        "---\nsource: x\n---\nRandom thoughts about gardening and [[Atlas]] and [[Nowhere]].\n"
    )
    ltm.ltm_write(upsert=[note("inbox.md", same_text, mtime=43)])
    assert nearest(ltm, INBOX)[:1] == ["inbox.md"]
    ltm.ltm_write(upsert=[note("inbox.md", "Now about beekeeping only", mtime=44)])
    assert "inbox.md" not in nearest(ltm, INBOX)
    assert [n.path for n in ltm.ltm_missing_vectors(MODEL, 10)] == ["inbox.md"]
    assert nearest(ltm, unit(1, 1)) == ["Projects/atlas.md", "people/alice.md"]


def check_a_deleted_note_takes_its_vector_along(ltm: Any) -> None:
    embed_seed(ltm)
    ltm.ltm_write(delete=["Projects/atlas.md"])
    assert "Projects/atlas.md" not in nearest(ltm, ATLAS)
    ltm.ltm_write(upsert=[note("Projects/atlas.md", "Atlas is back, without a vector")])
    assert "Projects/atlas.md" not in nearest(ltm, ATLAS)
    assert [n.path for n in ltm.ltm_missing_vectors(MODEL, 10)] == ["Projects/atlas.md"]


def check_a_huge_note_and_the_longest_path_are_indexed_with_the_rest(ltm: Any) -> None:
    """PostgreSQL: a note of 150,000 distinct words passed a tsvector's 1 MB and a path near
    PostgreSQL's b-tree key limit failed; either failed the whole batch, no note indexed."""
    words = " ".join(f"w{i:06d}x" for i in range(150_000))  # 1.5 MB, every word distinct
    deep = "/".join(["é" * 60] * 16)[: MAX_PATH_BYTES // 2 - 3] + ".md"  # 2,000 bytes at most
    assert len(deep.encode()) <= MAX_PATH_BYTES
    ltm.ltm_write(
        upsert=[
            note("huge.md", "# Word list\nzebra " + words),
            note(deep, "A note deep in folders about a walrus."),
            note("small.md", "A small note about a zebra."),
        ]
    )
    assert [h.path for h in ltm.ltm_search(["walrus"], [], 10)] == [deep]
    assert sorted(h.path for h in ltm.ltm_search(["zebra"], [], 10)) == ["huge.md", "small.md"]


def check_claims_list_the_notes_naming_each_memory(ltm: Any) -> None:
    ltm.ltm_write(
        upsert=[
            note("b.md", "---\nengram_id: m1\n---\nA copy.\n"),
            note("a.md", "---\nengram_id: m1\n---\nThe note.\n"),
            note("c.md", "---\nengram_id: m2\n---\nAnother.\n"),
            note("d.md", "No memory here.\n"),
        ]
    )
    assert ltm.ltm_claims() == {"m1": ["a.md", "b.md"], "m2": ["c.md"]}
    ltm.ltm_write(delete=["a.md"])
    assert ltm.ltm_claims() == {"m1": ["b.md"], "m2": ["c.md"]}


def check_problems_list_the_notes_indexed_with_one(ltm: Any) -> None:
    ltm.ltm_write(
        upsert=[
            note("b.md", "---\ntitle: [oops\n---\nBroken frontmatter.\n"),
            note("a.md", "---\ntags: [fine]\n---\nA good note.\n"),
            note("c.md", "---\n: : :\n---\nAlso broken.\n"),
        ]
    )
    problems = ltm.ltm_problems()
    assert list(problems) == ["b.md", "c.md"]
    assert all("frontmatter" in why for why in problems.values())
    ltm.ltm_write(upsert=[note("b.md", "---\ntitle: mended\n---\nNow fine.\n", mtime=2)])
    ltm.ltm_write(delete=["c.md"])
    assert ltm.ltm_problems() == {}


CHECKS: list[Callable[[Any], None]] = [
    check_a_note_is_found_by_its_aliases_as_by_its_title,
    check_problems_list_the_notes_indexed_with_one,
    check_claims_list_the_notes_naming_each_memory,
    check_a_huge_note_and_the_longest_path_are_indexed_with_the_rest,
    check_notes_are_found_by_any_word_best_first,
    check_cjk_notes_are_found_by_their_words,
    check_a_rare_word_weighs_more_than_a_common_one_repeated,
    check_tags_filter_with_nesting_and_without_terms,
    check_states_restate_and_delete,
    check_upsert_replaces_a_note,
    check_links_resolve_by_path_or_name_both_ways,
    check_vectors_are_searched_by_cosine_best_first,
    check_vector_search_filters_by_tags_and_model,
    check_every_search_gives_the_time_the_file_was_written,
    check_missing_vectors_are_listed_per_model,
    check_vectors_are_read_back_by_path_and_model,
    check_a_vector_attaches_only_to_the_text_it_was_computed_from,
    check_an_edit_drops_the_vector_and_a_same_text_rewrite_keeps_it,
    check_a_deleted_note_takes_its_vector_along,
]


@pytest.mark.parametrize("check", CHECKS, ids=[c.__name__[6:] for c in CHECKS])
def test_every_backend_keeps_the_contract_or_refuses_clearly(
    store: Store, check: Callable[[Any], None]
) -> None:
    if Capability.LTM in store.capabilities:
        check(store)
    else:
        with pytest.raises(StoreError, match="long-term-memory"):
            store.ltm_write(upsert=[note("a.md", "x")])


def test_a_jsonl_directorys_note_index_is_shared_and_outlives_the_process(tmp_path: Path) -> None:
    first, second = JSONLStore(tmp_path / "j"), JSONLStore(tmp_path / "j")
    try:
        seed(first)
        assert set(second.ltm_states()) == set(first.ltm_states())
        second.ltm_write(delete=["inbox.md"])
        assert "inbox.md" not in first.ltm_states()
    finally:
        first.close()
        second.close()
    reopened = JSONLStore(tmp_path / "j")
    try:
        assert set(reopened.ltm_states()) == {"Projects/atlas.md", "people/alice.md"}
    finally:
        reopened.close()
    assert "ltm.db" in (tmp_path / "j" / ".gitignore").read_text()  # an index, not for git


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


# Two clients of one store: what one writes, the other's next search sees (the SQLite and
# JSONL backends keep the vectors in memory and must notice other processes' writes).
TWO_CLIENTS: dict[str, Callable[[pytest.FixtureRequest, Path], tuple[Store, Store]]] = {
    "sqlite": lambda request, tmp: (SQLiteStore(tmp / "two.db"), SQLiteStore(tmp / "two.db")),
    "jsonl": lambda request, tmp: (JSONLStore(tmp / "two"), JSONLStore(tmp / "two")),
    "postgres": lambda request, tmp: (
        PostgresStore(request.getfixturevalue("postgres_url")),
        PostgresStore(request.getfixturevalue("postgres_url")),
    ),
}


@pytest.fixture(params=sorted(TWO_CLIENTS))
def two_clients(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Store, Store]]:
    a, b = TWO_CLIENTS[request.param](request, tmp_path)
    yield a, b
    a.close()
    b.close()


def test_another_clients_vector_changes_are_seen_by_the_next_search(
    two_clients: tuple[Store, Store],
) -> None:
    a, b = two_clients
    embed_seed(a)
    assert nearest(b, ATLAS)[:1] == ["Projects/atlas.md"]  # b holds its vectors now
    a.ltm_write(delete=["Projects/atlas.md"])
    a.ltm_write(upsert=[note("inbox.md", "Now about beekeeping only", mtime=9)])
    assert nearest(b, unit(1, 1, 1)) == ["people/alice.md"]
    digest = a.ltm_states()["inbox.md"].digest
    a.ltm_put_vectors([("inbox.md", digest, ATLAS)], MODEL)
    assert nearest(b, ATLAS) == ["inbox.md", "people/alice.md"]


def test_the_sqlite_vectors_are_rebuilt_when_the_change_log_was_pruned(tmp_path: Path) -> None:
    a, b = SQLiteStore(tmp_path / "log.db"), SQLiteStore(tmp_path / "log.db")
    try:
        embed_seed(a)
        assert nearest(b, ATLAS)[:1] == ["Projects/atlas.md"]
        a.ltm_write(delete=["Projects/atlas.md", "inbox.md"])
        with sqlite3.connect(tmp_path / "log.db") as conn:  # pruned past what b has seen
            conn.execute(
                "DELETE FROM ltm_vector_changes "
                "WHERE change < (SELECT max(change) FROM ltm_vector_changes)"
            )
        assert nearest(b, unit(1, 1, 1)) == ["people/alice.md"]
    finally:
        a.close()
        b.close()


def test_a_jsonl_directorys_note_vectors_outlive_the_process(tmp_path: Path) -> None:
    first = JSONLStore(tmp_path / "j")
    embed_seed(first)
    first.close()
    second = JSONLStore(tmp_path / "j")
    try:
        assert nearest(second, ATLAS)[:1] == ["Projects/atlas.md"]
        hit = second.ltm_vector_search(ATLAS, MODEL, [], 1)[0]
        assert hit.relevance == pytest.approx(1.0, abs=1e-6)
        assert second.ltm_missing_vectors(MODEL, 10) == []
    finally:
        second.close()
