"""Semantic search end to end: real MiniLM vectors, the real HNSW index file, real processes."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import textwrap
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from tests.support import leftover_temporaries

from engram import Draft, Engram, FixedClock
from engram.app import build_app
from engram.config import load_settings
from engram.core.models import Memory, Schedule
from engram.embeddings.minilm import MODEL_ID
from engram.services.context import Context
from engram.services.search import MODEL_LOADING
from engram.storage.protocol import Filter
from engram.storage.sqlite import SQLiteStore

PARAPHRASE = "when does my plane depart"
FLIGHT = "The flight to Lisbon leaves at 9am"


def index_files(db: Path) -> tuple[Path, Path]:
    base = Path(str(db) + ".vectors.usearch")
    return base, base.with_suffix(".json")


def test_finds_a_paraphrase_that_shares_no_word(mem: Engram) -> None:
    flight = mem.save(FLIGHT)
    mem.save("quarterly tax return is due in April")
    (hit,) = mem.search(PARAPHRASE)
    assert hit.memory.id == flight.id
    assert hit.why.text == 0.0 and hit.why.semantic is not None and hit.why.semantic > 0.5


GERMAN = [
    "Unser Hund heißt Bello und ist ein Dackel.",
    "Ich trinke morgens immer schwarzen Kaffee ohne Zucker.",
    "Am Wochenende fahre ich gern Fahrrad an der Elbe.",
    "Das Projekt Atlas nutzt PostgreSQL 16 als Datenbank.",
]


def test_in_another_language_only_what_the_query_means_matches_by_meaning(mem: Engram) -> None:
    """Judged against English reference text, every German memory stood out for any German
    question (a multilingual probe): "Was ist die Hauptstadt von Peru?" listed all of them.
    Against German reference text only the memory the question is about matches."""
    saved = [mem.save(text).id for text in GERMAN]
    mem.save("Mi hermana vive en Madrid y trabaja de profesora.")
    for about_nothing in (
        "Was ist die Hauptstadt von Peru?",
        "Quantenphysik Vorlesung morgen",
        "Combien coûte une voiture neuve ?",
    ):
        assert mem.search(about_nothing) == [], about_nothing
    (dog, *_) = mem.search("Wie heißt der Hund?")
    assert dog.memory.id == saved[0] and dog.why.semantic is not None
    (sister,) = mem.search("¿Dónde vive mi hermana?")
    assert sister.why.semantic is not None and "Madrid" in sister.memory.content


def test_a_rare_word_finds_no_short_memory_by_chance_but_a_kin_word_does(mem: Engram) -> None:
    """Two texts of a word or two stand closer by chance than the reference sentences show:
    "emptyimp" was the first hit, at rank 1.0, for "pangolin", "ocelot" and "quokka" (probe)."""
    junk = mem.save("emptyimp").id
    cat, puppy = mem.save("My cat"), mem.save("puppy")
    mem.save("The standup is at 9:30")
    for rare in ("pangolin", "ocelot", "quokka", "arabic greeting"):  # z 2.7-3.1 with it
        assert junk not in {h.memory.id for h in mem.search(rare)}, rare
    assert mem.search("kitten")[0].memory.id == cat.id  # kin words, a word or two each
    assert mem.search("dog")[0].memory.id == puppy.id


def test_meaning_is_reported_only_where_it_made_the_match(store_url: str) -> None:
    """`why.semantic` carried the cosine of every vector neighbour, "meaning 0.11" on a match by
    one common word; and with all weight on meaning (a documented limit) such a word match was
    dropped from the results."""
    with Engram.open(store_url) as mem:
        editor = mem.save("Alice prefers dark mode in every editor")
        mem.save("The build server is in room 4")
        (hit,) = mem.search("every")
        assert hit.memory.id == editor.id and hit.why.semantic is None
        assert mem.search("color theme for editing")[0].why.semantic is not None
    with Engram.open(store_url, search_semantic_weight=1.0) as mem:
        assert [h.memory.id for h in mem.search("every")] == [editor.id]


def test_one_sentence_of_a_long_memory_is_found_by_meaning(mem: Engram) -> None:
    """The whole turn's vector averages four topics ("learning to tango" against it: z 1.3,
    under the floor of 2); its sentence about the dance class alone matches (z 3.1)."""
    turn = mem.save(
        "Paola: The traffic downtown was terrible again this morning and I was late. "
        "My cousin finally got her visa approved. I signed up for a salsa dancing class on "
        "Thursday evenings. Also the new bakery near work sells great croissants."
    )
    mem.save("quarterly tax return is due in April")
    (hit,) = mem.search("learning to tango")
    assert hit.memory.id == turn.id
    assert hit.why.text == 0.0 and hit.why.semantic is not None


def test_a_word_match_and_a_meaning_match_both_count(mem: Engram) -> None:
    both = mem.save("my plane to Lisbon departs at 9am")
    meaning = mem.save(FLIGHT)
    word = mem.save("the plane of the ecliptic")
    ids = [h.memory.id for h in mem.search(PARAPHRASE)]
    assert ids[0] == both.id and set(ids) == {both.id, meaning.id, word.id}


def test_deleted_and_archived_memories_never_resurface(db_path: Path, clock: FixedClock) -> None:
    copies = {"save_duplicates": "keep"}  # three copies on purpose
    with (
        Engram.open(str(db_path), clock=clock, **copies) as a,
        Engram.open(str(db_path), clock=clock, **copies) as b,
    ):
        gone, archived, kept = (a.save(FLIGHT), a.save(FLIGHT + "!"), a.save(FLIGHT + "."))
        a.flush()  # another handle finds them by meaning once their vectors are stored
        assert len(b.search(PARAPHRASE)) == 3  # b builds its index now
        a.delete(gone.id)
        a.archive(archived.id)
        assert [h.memory.id for h in b.search(PARAPHRASE)] == [kept.id]
        assert [h.memory.id for h in b.search(PARAPHRASE, status="archived")] == [archived.id]


def test_editing_the_text_replaces_its_vector(mem: Engram) -> None:
    m = mem.save(FLIGHT)
    mem.update(m.id, content="bake the sourdough for forty minutes")
    assert mem.search(PARAPHRASE) == []
    assert [h.memory.id for h in mem.search("how long should the bread cook")] == [m.id]


@pytest.mark.parametrize(
    "damage",
    ["missing", "corrupt", "foreign", "stale", "null", "[1, 2]", "42", "change", "recent"],
)
def test_a_damaged_index_file_is_repaired_from_the_store(
    tmp_path: Path, clock: FixedClock, damage: str
) -> None:
    db = tmp_path / "v.db"
    with Engram.open(str(db), clock=clock) as mem:
        first = mem.save(FLIGHT)
        mem.search(PARAPHRASE)  # builds and, at close, saves the index
    index, sidecar = index_files(db)
    assert index.exists() and sidecar.exists()
    if damage == "missing":
        index.unlink()
    elif damage == "corrupt":
        index.write_bytes(b"\x00garbage" * 100)
    elif damage in ("null", "[1, 2]", "42"):  # a sidecar of valid JSON that is no object
        sidecar.write_text(damage)  # (every search and save failed on it)
    elif damage in ("change", "recent"):  # its checksum right, one field not (edited by hand)
        meta = json.loads(sidecar.read_text())
        meta[damage] = None if damage == "change" else [[1, 2]]
        sidecar.write_text(json.dumps(meta))
    elif damage == "foreign":
        other = tmp_path / "other.db"
        with Engram.open(str(other), clock=clock) as mem:
            mem.save("something else entirely")
            mem.search("something")
        for src, dst in zip(index_files(other), index_files(db), strict=True):
            dst.write_bytes(src.read_bytes())
    else:  # stale: more saves happen after the file was written, by a process without it
        saved = index.read_bytes(), sidecar.read_bytes()
        with Engram.open(str(db), clock=clock) as mem:
            second = mem.save("my plane to Porto departs at noon")
            mem.search(PARAPHRASE)
        index.write_bytes(saved[0])
        sidecar.write_bytes(saved[1])
    with Engram.open(str(db), clock=clock) as mem:
        found = {h.memory.id for h in mem.search(PARAPHRASE)}
    expected = {first.id} | ({second.id} if damage == "stale" else set())
    assert found == expected


SAVER = textwrap.dedent(
    """
    import sys
    from engram import Engram
    with Engram.open(sys.argv[1]) as mem:
        i = 0
        while True:
            m = mem.save(f"flight number {i} to Lisbon leaves at nine in the morning")
            print(m.id, flush=True)
            i += 1
    """
)


@pytest.mark.slow
def test_kill_9_while_saving_leaves_every_acknowledged_memory_findable(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    with Engram.open(str(db)) as mem:
        mem.save("warm the index")
        mem.search("warm")
    proc = subprocess.Popen(
        [sys.executable, "-c", SAVER, str(db)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    acknowledged = [proc.stdout.readline().strip() for _ in range(40)]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    with Engram.open(str(db)) as mem:
        assert len(mem.get_many(acknowledged)) == len(acknowledged)
        mem.app.embeddings.backfill()  # a save killed between its two commits lacks a vector
        status = mem.app.embeddings.status()
        assert status.vectors == {status.model_id: status.memories}
        for memory in mem.get_many(acknowledged[::10]):
            hits = mem.search(memory.content.replace("nine in the morning", "9am"), limit=3)
            assert memory.id in {h.memory.id for h in hits}


def test_backfill_embeds_what_was_saved_without_vectors(tmp_path: Path, clock: FixedClock) -> None:
    db = str(tmp_path / "b.db")
    with Engram.open(db, clock=clock, embedding_model="none", save_duplicates="keep") as mem:
        ids = [mem.save(FLIGHT).id for _ in range(70)]
    # As `engram embed --backfill` opens it: Engram.open would also embed them in the
    # background, racing the backfill (see the test of vectors pending at a crash).
    app = build_app(load_settings(storage_path=db), clock=clock, recover_vectors=False)
    with Engram(app) as mem:
        assert mem.search(PARAPHRASE) == []
        status = mem.app.embeddings.status()
        assert status.memories == 70 and status.vectors == {}
        steps: list[int] = []
        assert mem.app.embeddings.backfill(batch=32, progress=steps.append) == 70
        assert steps == [32, 32, 6]
        assert mem.app.embeddings.backfill() == 0  # resumable: nothing left
        assert {h.memory.id for h in mem.search(PARAPHRASE, limit=100)} == set(ids)


def test_vectors_from_another_model_are_reported(
    tmp_path: Path, clock: FixedClock, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "m.db"
    with Engram.open(str(db), clock=clock) as mem:
        m = mem.save(FLIGHT)
        mem.flush()
        mem.app.context.store.put_vectors(
            [(m.id, mem.app.context.embedder.embed_batch(["x"])[0])],  # type: ignore[union-attr]
            "some-other-model",
        )
    with caplog.at_level(logging.WARNING, logger="engram"), Engram.open(str(db), clock=clock):
        pass
    assert "some-other-model" in caplog.text and "engram embed --backfill" in caplog.text


def test_similar_finds_near_duplicates_through_the_index(mem: Engram) -> None:
    original = mem.save("The flight to Lisbon leaves at 9am on Friday")
    duplicate = mem.save("the flight to Lisbon leaves at 9 am on Friday, gate 4")
    mem.save("The train to Porto leaves at noon")
    mem.save("quarterly tax return is due in April")
    found = mem.similar(original.id)
    assert [s.memory_id for s in found] == [duplicate.id]
    assert found[0].cosine >= 0.88
    assert {s.memory_id for s in mem.similar(original.id, min_cosine=0.3)} >= {duplicate.id}


SEARCH_FIRST = textwrap.dedent(
    """
    import sys
    from engram import Engram
    with Engram.open(sys.argv[1]) as mem:
        (first,) = mem.search(limit=1)
        print(len(mem.similar(first.memory.id, min_cosine=0.0)))  # the index loads first...
        print(mem.save("and the model loads after it").id)        # ...then the embedder
    """
)


def test_loading_the_index_before_the_model_does_not_crash(tmp_path: Path) -> None:
    """usearch imported before onnxruntime used to kill the process with SIGSEGV."""
    db = tmp_path / "order.db"
    with Engram.open(str(db)) as mem:
        mem.save(FLIGHT)
        mem.save(FLIGHT + " sharp")
    run = subprocess.run(
        [sys.executable, "-c", SEARCH_FIRST, str(db)], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0] == "1"


def test_an_edit_right_after_a_save_keeps_the_vector_of_the_new_text(mem: Engram) -> None:
    """The save's vector may still be queued when the edit lands: the stored one is the edit's.
    (Across processes the same guarantee comes from the store: see the storage contract.)"""
    for i in range(20):
        m = mem.save(f"{FLIGHT} (draft {i})")
        mem.update(m.id, content=f"bake the sourdough for forty minutes ({i})")
    mem.flush()
    embedder = mem.app.context.embedder
    assert embedder is not None
    latest = mem.app.context.store.get_vectors([m.id], embedder.model_id)[m.id]
    expected = embedder.embed_batch([f"bake the sourdough for forty minutes ({i})"])[0]
    assert float(latest @ expected) > 0.999
    assert mem.search(PARAPHRASE) == []


def test_a_note_of_the_user_is_found_by_the_users_own_words(mem: Engram) -> None:
    """An assistant notes "User works as a nurse…"; the user asks "what does my job involve?"
    (as `analyze_for_recall` passes it on), which stood at 0.24 to the note, under the floor:
    nothing was found. A note of the user has a further vector, its words in the first
    person (0.39), stored last."""
    note = mem.save("User works as a nurse at St. Mary's hospital")
    for text in ("The Lisbon office Wi-Fi is slow", "Atlas deploys go out on Tuesdays"):
        mem.save(text)
    said = mem.save("I moved to Portland in May")
    mem.flush()
    (hit, *_) = mem.search("what does my job involve")
    assert hit.memory.id == note.id
    ctx = mem.app.context
    assert ctx.embedder is not None
    rows = ctx.store.get_vectors([note.id, said.id], ctx.embedder.model_id, passages=True)
    first_person = ctx.embedder.embed_batch(["I works as a nurse at St. Mary's hospital"])[0]
    assert len(rows[note.id]) == 2 and float(rows[note.id][-1] @ first_person) > 0.999
    assert len(rows[said.id]) == 1  # the user's own words need no other


def test_vector_neighbours_answer_many_memories_at_once(mem: Engram) -> None:
    """The store's batch neighbour search (clustering's): nearest others passing the filter."""
    from engram.core.models import Status
    from engram.storage.protocol import Filter

    flight = mem.save(FLIGHT)
    plane = mem.save("My plane to Lisbon departs at nine in the morning")
    taxes = mem.save("quarterly tax return is due in April")
    gone = mem.save(FLIGHT + "!")
    mem.archive([gone.id])
    mem.flush()
    ctx = mem.app.context
    assert ctx.embedder is not None
    vectors = ctx.store.get_vectors([flight.id, taxes.id], ctx.embedder.model_id)
    near = ctx.store.vector_neighbours(vectors, Filter(statuses=(Status.ACTIVE,)), 1)
    assert [n for n, _ in near[flight.id]] == [plane.id]  # itself and the archived copy left out
    assert [n for n, _ in near[taxes.id]] != [taxes.id]
    assert 0.5 < near[flight.id][0][1] <= 1.0


SEARCHER = textwrap.dedent(
    """
    import sys
    from engram import Engram
    with Engram.open(sys.argv[1]) as mem:
        print(" ".join(h.memory.id for h in mem.search(sys.argv[2])))
    """
)


def test_an_index_saved_after_the_database_was_copied_is_not_trusted_by_the_copy(
    tmp_path: Path, clock: FixedClock
) -> None:
    """A database restored from a copy (a backup taken by copying the file) has the store's
    uid, and the index saved since held other vectors under the numbers the restored store
    reuses: memories saved after the restore were never found by meaning."""
    db = tmp_path / "v.db"
    with Engram.open(str(db), clock=clock) as mem:
        # more than a search's vector neighbours: not every memory is re-scored exactly
        mem.save_many([Draft(content=f"note {i} about the garden, the week") for i in range(200)])
    backup = db.read_bytes()
    with Engram.open(str(db), clock=clock) as mem:
        mem.save_many([Draft(content=f"ticket {i}: the office printer jams") for i in range(30)])
        mem.search("printer")  # the index, saved at close, is now ahead of the copy
    db.write_bytes(backup)  # restored
    with Engram.open(str(db), clock=clock) as mem:
        flight = mem.save(FLIGHT)
    with Engram.open(str(db), clock=clock) as mem:
        found = mem.search(PARAPHRASE, limit=3)
    assert [h.memory.id for h in found][:1] == [flight.id]
    assert found[0].why.semantic is not None


def test_an_index_saved_at_a_deletion_is_not_trusted_by_a_restored_copy(
    tmp_path: Path, clock: FixedClock
) -> None:
    """Saved when its last change was a deletion, the index kept no memory id to check that
    change against: a copy restored from before it, whose later saves and deletion reused the
    same row and change numbers, was taken for the same history, and a memory saved after the
    restore was never found by meaning (audit)."""
    db = tmp_path / "v.db"
    with Engram.open(str(db), clock=clock) as mem:
        _, gone = mem.save_many(
            [
                Draft(content="Alice prefers green tea in the morning"),
                Draft(content="The backup server lives in rack 12"),
            ]
        )
    backup = db.read_bytes()
    with Engram.open(str(db), clock=clock) as mem:
        mem.save_many([Draft(content="Our dog is called Biscuit")])
        mem.search("backup server rack")  # loads the index
        mem.delete([gone.id])
        mem.search("tea")  # saved at close, its last change a deletion
    db.write_bytes(backup)  # restored, the index files kept
    with Engram.open(str(db), clock=clock) as mem:
        mem.save_many(
            [
                Draft(content="The quarterly budget meeting moved to Thursday"),
                Draft(content="Invoices are due on the first of the month"),
            ]
        )
        mem.flush()  # their vectors, then the deletion: the change numbers the index saw
        mem.delete([gone.id])
    with Engram.open(str(db), clock=clock) as mem:
        found = [h.memory.content for h in mem.search("when must bills be paid", limit=3)]
    assert found[:1] == ["Invoices are due on the first of the month"]


def test_the_newest_memory_deleted_and_its_row_number_reused_is_caught_up_not_rebuilt(
    tmp_path: Path, clock: FixedClock, caplog: pytest.LogCaptureFixture
) -> None:
    """SQLite gives the next memory the number of the newest one deleted; the log's older
    changes of that row then joined another memory, and from the third save-then-delete cycle
    of separate processes on, each one rebuilt the whole index as "not of this database's
    history" (a helper's probe: 135 s at 1M memories, docs/performance.md)."""
    db = str(tmp_path / "v.db")
    with Engram.open(db, clock=clock) as mem:
        mem.save_many([Draft(content=f"seed {i}: tomatoes in the greenhouse") for i in range(5)])
        mem.search("greenhouse")
    caplog.set_level(logging.WARNING, logger="engram")
    for cycle in range(4):
        with Engram.open(db, clock=clock) as mem:
            newest = mem.save(f"cycle {cycle}: the newest memory, about to be deleted")
            mem.search("greenhouse")  # the index, saved at close, knows its row
        with Engram.open(db, clock=clock) as mem:
            mem.delete([newest.id])
    with Engram.open(db, clock=clock) as mem:
        flight = mem.save(FLIGHT)
        found = mem.search(PARAPHRASE, limit=1)
    assert [h.memory.id for h in found] == [flight.id]
    assert not [r.message for r in caplog.records if "rebuilding" in r.message]


def test_an_index_file_damaged_anywhere_is_rebuilt_never_a_crash(
    tmp_path: Path, clock: FixedClock
) -> None:
    """Bytes overwritten in place (same size, sidecar intact) once crashed every searching
    process (SIGSEGV). The checksum in the sidecar catches them before the native library reads
    the file; each search runs in a child process, so a crash would fail the test, not kill it."""
    db = tmp_path / "v.db"
    with Engram.open(str(db), clock=clock) as mem:
        first = mem.save(FLIGHT)
        for i in range(60):
            mem.save(f"note {i} about the garden, the weather and the week ahead")
        mem.search(PARAPHRASE)  # builds and, at close, saves the index
    index, _ = index_files(db)
    pristine = index.read_bytes()
    size = len(pristine)
    for offset in (16, size // 5, size // 3, size // 2, 3 * size // 4, size - 300):
        damaged = bytearray(pristine)
        damaged[offset : offset + 256] = bytes(b ^ 0x5A for b in damaged[offset : offset + 256])
        index.write_bytes(bytes(damaged))
        child = subprocess.run(
            [sys.executable, "-c", SEARCHER, str(db), PARAPHRASE],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert child.returncode == 0, (offset, child.returncode, child.stderr[-500:])
        assert first.id in child.stdout.split(), offset
        assert "damaged" in child.stderr, offset
        assert index.read_bytes() != bytes(damaged)  # rebuilt and saved again


def test_a_search_while_the_model_warms_up_answers_from_text_and_says_so(mem: Engram) -> None:
    """A server warms up in the background (`Context.warm_up`); meanwhile a search must not
    wait for the model. Here the warm-up is held open on purpose, as a slow model load would."""
    flight = mem.save(FLIGHT)
    taxes = mem.save("quarterly tax return is due in April")
    loading = threading.Event()
    mem.app.context.warm_up.start(loading.wait)
    try:
        with ThreadPoolExecutor(1) as pool:
            # No word in common: only meaning can answer, and an empty answer could not say
            # that meaning was not searched; this search waits for the model instead.
            paraphrase = pool.submit(mem.search, PARAPHRASE)
            (hit,) = mem.search("tax return")  # found by its words: answered at once
            assert hit.memory.id == taxes.id
            assert hit.why.semantic is None and hit.why.note == MODEL_LOADING
            assert not paraphrase.done()
            loading.set()
            (found,) = paraphrase.result(timeout=60)
    finally:
        loading.set()
        mem.app.context.warm_up.wait()
    assert found.memory.id == flight.id and found.why.note is None


def test_an_index_saved_on_an_empty_store_rebuilds_once_the_log_was_pruned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server started on a new store saves an empty index (change 0); an import in another
    process then stores more vectors than the log keeps (5 here instead of 50,000). The next
    process must not replay only the kept tail: the oldest memories would never be found by
    meaning. Store level, so that the importing process never loads the index itself."""
    monkeypatch.setattr("engram.storage.sqlite.sql.CHANGE_LOG_KEEP", 5)
    for attempt in range(30):  # a graph built on several threads lost a node in 1 of 40 builds
        rebuilt_index_finds_every_memory(tmp_path / f"empty-first-{attempt}.db")


def rebuilt_index_finds_every_memory(db: Path) -> None:
    model = ("test-model", 8)
    rng = np.random.default_rng(7)
    first = SQLiteStore(db, vector_model=model)
    assert first.vector_search(np.ones(8, np.float32), Filter(), 5) == []  # saved at change 0
    first.close()
    importer = SQLiteStore(db, vector_model=model)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    ids = [f"m{i:03d}" for i in range(40)]
    importer.insert(
        [(Memory(id=i, content=i, created_at=now, last_used=now), Schedule()) for i in ids]
    )
    raw = rng.normal(size=(40, 8)).astype(np.float32)
    vectors = dict(zip(ids, raw / np.linalg.norm(raw, axis=1, keepdims=True), strict=True))
    for i in range(0, 40, 4):
        importer.put_vectors([(k, vectors[k]) for k in ids[i : i + 4]], "test-model")
    importer.close()
    later = SQLiteStore(db, vector_model=model)
    for ident in ids:
        # In the index and reachable (a memory left out is never found by meaning): among the
        # nearest few, as an approximate index promises.
        assert ident in [s.id for s in later.vector_search(vectors[ident], Filter(), 5)]
    later.close()


def test_the_vector_change_log_stays_bounded_and_a_lagging_index_rebuilds(
    tmp_path: Path, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite logs every vector change for the processes whose index must catch up; the log is
    pruned to its last CHANGE_LOG_KEEP entries (5 here instead of 50,000), and an index saved
    before the kept window is rebuilt from the table, not trusted."""
    monkeypatch.setattr("engram.storage.sqlite.sql.CHANGE_LOG_KEEP", 5)
    db = tmp_path / "log.db"
    index, sidecar = index_files(db)
    with Engram.open(str(db), clock=clock) as mem:
        mem.save(FLIGHT)
        assert mem.search(PARAPHRASE)  # the index exists and is saved at close
    old = {f: f.read_bytes() for f in (index, sidecar)}  # an index from before the pruning
    with Engram.open(str(db), clock=clock) as mem:
        for i in range(30):
            mem.save(f"Planted tomato seedling number {i} in the vegetable garden")
        mem.flush()
        conn = mem.app.context.store._conn  # type: ignore[attr-defined]
        assert conn.execute("SELECT count(*) FROM vector_changes").fetchone()[0] <= 5 + 30 // 2
    for f, data in old.items():
        f.write_bytes(data)
    with Engram.open(str(db), clock=clock) as mem:
        hits = mem.search("growing vegetables", limit=5)
        assert hits and all(h.why.semantic is not None for h in hits)  # from the rebuilt index


def test_deleting_alone_keeps_the_vector_change_log_bounded(
    tmp_path: Path, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The log was pruned only when vectors were stored: a store that from then on only
    deleted memories (gc, a clean-up) logged every deletion for ever."""
    monkeypatch.setattr("engram.storage.sqlite.sql.CHANGE_LOG_KEEP", 5)
    with Engram.open(str(tmp_path / "deletes.db"), clock=clock) as mem:
        saved = [mem.save(f"Repotted cactus number {i} on the balcony").id for i in range(12)]
        mem.flush()
        conn = mem.app.context.store._conn  # type: ignore[attr-defined]
        assert mem.delete(saved[:10]) == saved[:10]
        assert conn.execute("SELECT count(*) FROM vector_changes").fetchone()[0] <= 5 + 1
        hits = mem.search("repotting succulents", limit=5)
        assert hits and {h.memory.id for h in hits} <= set(saved[10:])  # the rest, by meaning


def test_a_query_the_model_cannot_read_finds_nothing_by_meaning(mem: Engram) -> None:
    """A Thai or Amharic query got a vector of noise, and the memories nearest to it passed
    the meaning floor by chance: five unrelated English memories came back."""
    who = ["Alice", "Bob", "Carol", "the team", "our manager", "the server", "my cat"]
    did = ["likes", "prefers", "fixed", "deployed", "planned", "reviewed", "painted", "ordered"]
    what = ["green tea", "the staging cluster", "a new roof", "the quarterly report", "sushi"]
    mem.save_many(
        [
            Draft(content=f"{a} {b} {c} in week {i}")
            for i, (a, b, c) in enumerate((a, b, c) for a in who for b in did for c in what)
        ]
    )
    for query in ("ภาษาไทยวันนี้อากาศดีมาก", "😀🎉🔥", "ሰላም ለዓለም"):
        assert mem.search(query) == [], query


KILLED_BEFORE_STORING_VECTORS = """
import os, signal, sys, threading, time
from engram import Engram
from engram.storage.sqlite import SQLiteStore

acknowledged = threading.Event()

def killed(self, *args, **kwargs):  # the process dies as the worker stores the vector
    acknowledged.wait()
    os.kill(os.getpid(), signal.SIGKILL)

SQLiteStore.put_vectors = killed
mem = Engram.open(sys.argv[1])
mem.save("The flight to Lisbon leaves at 9am")
print("saved", flush=True)  # acknowledged; its vector follows on the worker
acknowledged.set()
time.sleep(60)
"""

KILLED_BEFORE_EMBEDDING = """
import os, signal, sys
from engram import Engram
from engram.services.context import Context

def killed(self, memories):  # after the import's first batch is written, before its vectors
    print("written", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)

Context.embed_missing = killed
with Engram.open(sys.argv[1]) as mem:
    mem.import_export(sys.argv[2])
"""


def killed(script: str, marker: str, *args: str) -> None:
    """Run `script` in a child process that kills itself (SIGKILL) after printing `marker`."""
    child = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert child.returncode == -signal.SIGKILL and child.stdout == marker + "\n", child.stderr


def vectors_of(db: Path) -> int:
    """How many memories have a vector, read without an embedder (nothing is recomputed)."""
    with Engram.open(str(db), embedding_model="none") as mem:
        return sum(mem.app.context.store.vector_counts().values())


def test_vectors_pending_at_a_crash_are_computed_at_the_next_open(tmp_path: Path) -> None:
    """Only the MCP server caught up on them: a script or an application using the Python API
    left those memories unfindable by meaning for good (audit)."""
    db = tmp_path / "engram.db"
    killed(KILLED_BEFORE_STORING_VECTORS, "saved", str(db))
    assert vectors_of(db) == 0
    with Engram.open(str(db)) as mem:
        assert mem.stats().total == 1  # the acknowledged save is there
        for _ in range(600):  # computed in the background: waited for, boundedly
            if mem.embedding_status().vectors == {MODEL_ID: 1}:
                break
            threading.Event().wait(0.05)
        assert mem.embedding_status().vectors == {MODEL_ID: 1}
        assert mem.search(PARAPHRASE)[0].why.semantic is not None


def test_an_import_run_again_embeds_what_a_killed_run_left_without_vectors(
    tmp_path: Path,
) -> None:
    """Killed between writing its memories and embedding them, an import run again said
    "already present" and left them unfindable by meaning (audit)."""
    source, db = tmp_path / "source.db", tmp_path / "target.db"
    with Engram.open(str(source)) as mem:
        mem.save_many([Draft(content=f"{FLIGHT} (booking {i})") for i in range(3)])
        export = tmp_path / "export.jsonl"
        export.write_text("".join(line + "\n" for line in mem.export()))
    killed(KILLED_BEFORE_EMBEDDING, "written", str(db), str(export))
    assert vectors_of(db) == 0
    with Engram.open(str(db), embedding_model="none") as mem:
        assert mem.stats().total == 3
    with Engram.open(str(db)) as mem:
        assert mem.import_export(export).already_present == 3
    assert vectors_of(db) == 3


def test_a_temporary_file_of_an_index_save_a_killed_process_left_is_removed(
    tmp_path: Path, clock: FixedClock
) -> None:
    """Killed while saving the index, a process left a temporary file as large as the index,
    and nothing ever removed it (audit). One as young as another process's save is kept."""
    db = tmp_path / "v.db"
    stale = tmp_path / ".v.db.vectors.usearch.0123abcd.tmp"
    young = tmp_path / ".v.db.vectors.json.4567ef01.tmp"
    leftover_temporaries(stale, young)
    with Engram.open(str(db), clock=clock) as mem:
        mem.save(FLIGHT)
        assert mem.search(PARAPHRASE)  # the index is built, and saved at close
    assert not stale.exists() and young.exists()
    assert all(p.exists() for p in index_files(db))


def test_backfill_goes_on_past_memories_deleted_while_it_embedded(
    tmp_path: Path, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch whose memories another client deleted while it was embedded stored nothing,
    and `engram embed --backfill` stopped there: "Embedded 64 memories" and the rest of the
    store still without vectors, no hint to run it again (audit)."""
    db = str(tmp_path / "b.db")
    with Engram.open(db, clock=clock, embedding_model="none", save_duplicates="keep") as mem:
        for i in range(70):
            mem.save(f"{FLIGHT} (note {i})")
    # No catch-up in the background: the backfill alone embeds them.
    app = build_app(load_settings(storage_path=db), clock=clock, recover_vectors=False)
    with Engram(app) as mem:
        embed_and_store = Context.embed_and_store
        deleted: list[str] = []

        def deleted_meanwhile(ctx: Context, items: list[tuple[str, str]]) -> int:
            if not deleted:
                deleted.extend(mem.delete([ident for ident, _ in items]))  # another client
            return embed_and_store(ctx, items)

        monkeypatch.setattr(Context, "embed_and_store", deleted_meanwhile)
        assert mem.app.embeddings.backfill(batch=32) == 70 - 32 == 70 - len(deleted)
        status = mem.app.embeddings.status()
        assert status.vectors == {status.model_id: status.memories} and status.memories == 38


GERMAN_CLAUSE = (
    "die Bundesregierung hat am Mittwoch beschlossen, die Förderung für energieeffiziente "
    "Gebäudesanierungen deutlich auszuweiten, wobei insbesondere Eigentümer älterer "
    "Einfamilienhäuser von den neuen Zuschüssen profitieren sollen"
)


def test_the_end_of_a_long_statement_in_dense_words_is_read(
    tmp_path: Path, clock: FixedClock
) -> None:
    """A German statement of 108 words is 335 word pieces, and only the first 256 reach the
    model: two memories differing only in their last clause had the same vector in every row,
    and that clause matched neither (audit). Windows are cut by the model's pieces now."""
    allergy = "ich habe eine schwere Erdnussallergie und trage immer ein Notfallset bei mir"
    chess = "ich spiele jeden Sonntag Schach mit meinem Großvater im Stadtpark"
    with Engram.open(str(tmp_path / "de.db"), clock=clock) as mem:
        a = mem.save("; ".join([GERMAN_CLAUSE] * 4 + [allergy]))
        b = mem.save("; ".join([GERMAN_CLAUSE] * 4 + [chess]))
        mem.flush()
        store, embedder = mem.app.context.store, mem.app.context.embedder
        assert embedder is not None and embedder.pieces(a.content) > 256
        rows = store.get_vectors([a.id, b.id], MODEL_ID, passages=True)
        assert len(rows[a.id]) > 1  # the whole text, and windows
        fact = embedder.embed_batch([allergy])[0]
        # Before, every row of the two was the same: their best match with the clause too.
        assert float(np.max(rows[a.id] @ fact)) > float(np.max(rows[b.id] @ fact)) + 0.1


def test_an_in_memory_store_searches_by_meaning_and_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its vector index was saved beside it, as ":memory:.vectors.usearch" and ".json" in the
    working directory, and the next in-memory store took them for another store's (audit)."""
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        with Engram.open(":memory:") as mem:
            flight = mem.save(FLIGHT)
            mem.save("the dentist appointment is on Tuesday")
            assert [h.memory.id for h in mem.search(PARAPHRASE, limit=1)] == [flight.id]
    assert list(tmp_path.iterdir()) == []


ASSISTANT_NOTES = [
    "Team uses GitHub Actions for CI and Terraform for infrastructure",
    "Thesis defense planned for next May",
    "Wants type hints everywhere and runs mypy in strict mode",
    "Allergic to peanuts; carries an EpiPen",
    "Prefers concise answers with the code first",
]


def test_a_word_shared_by_chance_is_no_match(mem: Engram) -> None:
    """bench/assistant_facts.py: questions about nothing stored found memories by one word
    whose meaning was no closer to the question than unrelated text ("Team uses GitHub
    Actions" for "favorite football team"). Such a memory is no match; one whose meaning
    answers stays found by its word and by what it means."""
    mem.save_many([Draft(content=note) for note in ASSISTANT_NOTES])
    mem.flush()
    for about_nothing in ("favorite football team", "wedding plans"):
        assert mem.search(about_nothing) == [], about_nothing
    assert mem.search("which team CI system")[0].memory.content == ASSISTANT_NOTES[0]
    assert mem.search("food allergies")[0].memory.content == ASSISTANT_NOTES[3]


def test_a_name_of_the_kind_asked_for_is_no_chance(mem: Engram) -> None:
    """docs/cli.md's example, "database decision", found nothing: the query's "database"
    reads PostgreSQL too, the memory's text held it, and a text holding a query word unlike
    the query by meaning was dropped as a chance match (a helper's probe). The name of a
    kind the query names is what it asks for; a word it typed still counts as before."""
    atlas = mem.save(
        "Project Atlas uses PostgreSQL 16", tags=["decision", "atlas"], entities=["Atlas"]
    )
    mem.save_many([Draft(content=note) for note in ASSISTANT_NOTES])
    mem.flush()
    for query in ("database decision", "decision on the database"):
        assert mem.search(query)[0].memory.id == atlas.id, query
    assert mem.search("favorite football team") == []


def test_a_match_by_the_label_saying_what_a_note_is_about_is_no_chance(mem: Engram) -> None:
    """A fifteenth blind probe's: "Thesis topic: single-cell RNA-seq of zebrafish fin
    regeneration" is 0.05 alike to "thesis topic" in meaning, and was dropped as a chance
    match of its words; only the committee was found."""
    topic = mem.save("Thesis topic: single-cell RNA-seq of zebrafish fin regeneration")
    mem.save("Thesis committee: Helen Ward, Dr. Chidi Okoye and Dr. Sara Lin")
    mem.save_many([Draft(content=note) for note in ASSISTANT_NOTES])
    mem.flush()
    assert mem.search("thesis topic")[0].memory.id == topic.id
    assert mem.search("favorite football team") == []


def test_a_match_by_its_tags_or_entities_is_no_chance(mem: Engram) -> None:
    """A helper's probe: "atlas notes" found nothing where every Atlas memory said so by its
    tag alone. A tag or an entity is the memory's own word for what it is about, while its
    vector, made from its text alone, is no nearer the query for it."""
    tagged = [
        mem.save("Chose Kafka over RabbitMQ for the event bus", tags=["atlas"]),
        mem.save("Priya owns the ingest service", tags=["atlas", "people"]),
        mem.save("Anniversary dinner booked at Le Pigeon, 7pm", entities=["Maya"]),
    ]
    mem.save_many([Draft(content=note) for note in ASSISTANT_NOTES])
    mem.flush()
    assert {h.memory.id for h in mem.search("atlas notes")} >= {tagged[0].id, tagged[1].id}
    assert mem.search("Maya plans")[0].memory.id == tagged[2].id
