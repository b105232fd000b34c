"""Several real processes on one store: no lost writes, no lost increments (on every backend),
and every acknowledged save survives kill -9 (SQLite)."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engram import Draft, Engram, Status
from engram.errors import StoreError

WORKER = textwrap.dedent(
    """
    import json, sys
    from engram import Engram
    path, worker, shared = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
    saved = []
    with Engram.open(path) as mem:
        for i in range(250):
            saved.append(mem.save(f"worker {worker} note {i}", tags=[f"w{worker}"]).id)
            mem.touch(shared[(i + worker) % len(shared)])
    print(json.dumps(saved))
    """
)

SAVER = textwrap.dedent(
    """
    import sys
    from engram import Engram
    with Engram.open(sys.argv[1]) as mem:
        i = 0
        while True:
            m = mem.save(f"crash test note {i} " + "x" * 500)
            print(m.id, flush=True)
            i += 1
    """
)

MERGER = textwrap.dedent(
    """
    import json, random, sys, time
    from pathlib import Path
    from engram import Engram
    from engram.errors import EngramError
    path, worker, pairs, sync = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), Path(sys.argv[4])
    rng = random.Random(worker)
    out = []
    with Engram.open(path) as mem:
        for trial, ids in enumerate(pairs):
            (sync / f"ready-{trial}-{worker}").touch()
            while len(list(sync.glob(f"ready-{trial}-*"))) < 2:
                time.sleep(0.001)
            time.sleep(rng.uniform(0, 0.03))  # the other client a moment ahead or behind
            try:
                result = mem.consolidate(mode="apply", auto_detect=False, memory_ids=ids)
                out.append({"merged": [d.merged.id for d in result.merged],
                            "skipped": list(result.skipped.values())})
            except EngramError as exc:
                out.append({"error": str(exc)})
    print(json.dumps(out))
    """
)

REPEATER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from engram import Draft, Engram
    path, worker, rounds, sync = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
    actions = []
    with Engram.open(path) as mem:
        for i in range(rounds):
            (sync / f"ready-{i}-{worker}").touch()
            while len(list(sync.glob(f"ready-{i}-*"))) < 2:
                time.sleep(0.0005)
            draft = Draft(content=f"The user prefers option {i}", tags=[worker])
            actions.append(mem.save_result(draft).action)
    print(json.dumps(actions))
    """
)

IMPORTER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from engram import Draft, Engram
    from engram.errors import EngramError
    path, worker, sync = sys.argv[1], sys.argv[2], Path(sys.argv[4])
    exports = json.loads(sys.argv[3])
    out = []
    with Engram.open(path) as mem:
        for i, export in enumerate(exports):
            (sync / f"ready-{i}-{worker}").touch()
            while len(list(sync.glob(f"ready-{i}-*"))) < 2:
                time.sleep(0.0005)
            try:
                if i % 2:  # the same ids given to save_many by both
                    mem.save_many([Draft(content=f"given {i} {k}", id=f"given-{i}-{k}")
                                   for k in range(20)])
                    out.append({"saved": 20})
                else:  # the same export imported by both
                    report = mem.import_export(export)
                    out.append({"imported": report.imported, "present": report.already_present})
            except EngramError as exc:
                out.append({"error": str(exc)})
    print(json.dumps(out))
    """
)

# backend -> the location of a fresh store that several processes open at once
SHARED: dict[str, Callable[[pytest.FixtureRequest, Path], str]] = {
    "sqlite": lambda request, tmp: str(tmp / "shared.db"),
    "jsonl": lambda request, tmp: f"jsonl://{tmp / 'shared-jsonl'}",
    "postgres": lambda request, tmp: request.getfixturevalue("postgres_url"),
}


@pytest.mark.slow
@pytest.mark.parametrize("backend", sorted(SHARED))
def test_four_processes_lose_no_saves_and_no_touches(
    request: pytest.FixtureRequest, tmp_path: Path, backend: str
) -> None:
    path = SHARED[backend](request, tmp_path)
    with Engram.open(path) as mem:
        shared = [mem.save(f"shared {i}").id for i in range(10)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, path, str(w), json.dumps(shared)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(4)
    ]
    saved: list[str] = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        saved += json.loads(out)
    with Engram.open(path) as mem:
        assert len(saved) == 1000 and len(mem.get_many(saved[:100])) == 100
        assert mem.stats().total == 1010
        for w in range(4):
            assert len(mem.search(tags=[f"w{w}"], limit=100)) == 100
        counts = [m.use_count for m in mem.get_many(shared)]
        assert counts == [100] * 10


@pytest.mark.slow
def test_kill_9_during_a_save_loop_keeps_every_acknowledged_save(tmp_path: Path) -> None:
    path = tmp_path / "crash.db"
    proc = subprocess.Popen(
        [sys.executable, "-c", SAVER, str(path)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    acknowledged = [proc.stdout.readline().strip() for _ in range(300)]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    acknowledged += [line.strip() for line in proc.stdout.read().splitlines() if line.strip()]
    proc.stdout.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with Engram.open(str(path)) as mem:
        present = {
            m.id
            for i in range(0, len(acknowledged), 100)
            for m in mem.get_many(acknowledged[i : i + 100])
        }
        assert present == set(acknowledged)
        assert len(mem.search("crash test", limit=5)) == 5


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_two_clients_merging_the_same_memories_leave_exactly_one_merged_memory(
    request: pytest.FixtureRequest, tmp_path: Path, backend: str
) -> None:
    """consolidation.md: never both, never neither. Two processes used to interleave inside a
    merge: the loser's clean-up deleted the memory the winner had just made (both originals
    archived, no merged memory left), or its insert failed on the same merged id."""
    path = SHARED[backend](request, tmp_path)
    with Engram.open(path) as mem:
        pairs = [
            [
                mem.save(f"Project {n} ships on Fridays after the review").id,
                mem.save(f"project {n} ships every Friday after its review").id,
            ]
            for n in range(8)
        ]
        mem.flush()
    sync = tmp_path / "sync"
    sync.mkdir()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", MERGER, path, str(w), json.dumps(pairs), str(sync)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(2)
    ]
    reports = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        reports.append(json.loads(out))
    with Engram.open(path) as mem:
        for trial, ids in enumerate(pairs):
            outcomes = [r[trial] for r in reports]
            merged = [m for o in outcomes for m in o.get("merged", [])]
            assert len(merged) == 1, outcomes  # one client merged; the other was told why not
            (loser,) = [o for o in outcomes if not o.get("merged")]
            # Skipped (another client is merging, or a member changed), or refused because the
            # members are archived by the winner's merge: never a database error.
            reason = " ".join(loser.get("skipped", [])) + loser.get("error", "")
            told = r"merg(?:ing|e is running)|changed|merged already|archived"
            assert re.search(told, reason), outcomes
            (made,) = mem.get_many(merged)
            assert made.status == Status.ACTIVE
            assert {m.status for m in mem.get_many(ids)} == {Status.ARCHIVED}


def two_workers(script: str, path: str, *args: str) -> list[Any]:
    """What two processes running `script` (path, worker "a" or "b", `args`) print as JSON, side
    by side; each must exit cleanly. Embeddings off: the race is in the writes."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, path, worker, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "ENGRAM_EMBEDDING_MODEL": "none"},
        )
        for worker in ("a", "b")
    ]
    printed = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        printed.append(json.loads(out))
    return printed


@pytest.mark.slow
@pytest.mark.parametrize("backend", sorted(SHARED))
def test_two_clients_saving_the_same_words_at_once_keep_one_memory(
    request: pytest.FixtureRequest, tmp_path: Path, backend: str
) -> None:
    """A save looks for a stored copy, then writes: two servers saving one text at the same
    moment both found none and both wrote (12 of 20 rounds made two memories)."""
    path = SHARED[backend](request, tmp_path)
    Engram.open(path).close()
    sync = tmp_path / "sync"
    sync.mkdir()
    rounds = 20
    actions = two_workers(REPEATER, path, str(rounds), str(sync))
    for first, second in zip(*actions, strict=True):
        assert sorted([first, second]) == ["merged", "saved"]  # one wrote, the other merged
    with Engram.open(path) as mem:
        assert mem.stats().total == rounds
        kept = mem.search("prefers option 7", limit=5)
        assert sorted(kept[0].memory.tags) == ["a", "b"]  # merged: both clients' tags


def _search_in_child(path: str, answers: Any) -> None:
    with Engram.open(path) as mem:
        answers.put([h.memory.content for h in mem.search("tea", limit=3)])


def in_a_forked_child(work: Callable[[Any, Any], None], argument: Any) -> Any:
    """What `work(argument, answers)` puts in `answers`, run in a forked child that must end
    within a minute and cleanly."""
    forking = multiprocessing.get_context("fork")
    answers = forking.Queue()
    child = forking.Process(target=work, args=(argument, answers))
    child.start()
    child.join(60)
    if child.is_alive():
        child.kill()
    assert child.exitcode == 0
    return answers.get(timeout=5)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork exists on POSIX only")
def test_a_forked_child_searches_with_threads_of_its_own(tmp_path: Path) -> None:
    """A child forked after the parent had saved and searched inherited the parent's pool of
    threads without its threads: its first search handed work to it and waited forever."""
    path = str(tmp_path / "fork.db")
    with Engram.open(path) as mem:
        mem.save("Prefers green tea over coffee")
        assert mem.search("tea")
        assert in_a_forked_child(_search_in_child, path) == ["Prefers green tea over coffee"]


def _save_and_search_with_the_parents_handle(mem: Engram, answers: Any) -> None:
    mem.save("The child saved this note about deep sea diving")
    answers.put([h.memory.content for h in mem.search("scuba ocean", limit=1)])
    mem.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork exists on POSIX only")
def test_a_forked_child_using_its_parents_handle_embeds_what_it_saves(tmp_path: Path) -> None:
    """The child's save queued its vector for the parent's embedding worker, which a forked
    child does not have: its next search waited for ever, and the memory never got a vector.
    The search below matches by meaning only (no word of it is in the memory)."""
    path = str(tmp_path / "fork.db")
    with Engram.open(path) as mem:
        mem.save("The parent saved this note about mountain hiking trails")
        assert mem.search("hiking")
        found = in_a_forked_child(_save_and_search_with_the_parents_handle, mem)
        assert found == ["The child saved this note about deep sea diving"]
    with Engram.open(path) as mem:
        status = mem.embedding_status()
        assert status.memories == 2 and set(status.vectors.values()) == {2}


def _touch_with_the_parents_handle(job: tuple[Engram, str], answers: Any) -> None:
    mem, ident = job
    for _ in range(100):
        mem.touch(ident)
    answers.put("done")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork exists on POSIX only")
def test_forked_children_using_a_jsonl_handle_lose_no_touch(tmp_path: Path) -> None:
    """A forked child shared its parent's open lock file, and with it the parent's locks: two
    children's touches did not exclude each other (185 of 200 counted), and a child that
    exited removed the parent's private index folder (audit)."""
    with Engram.open(f"jsonl://{tmp_path / 'store'}", embedding_model="none") as mem:
        ident = mem.save("Prefers green tea over coffee").id
        forking = multiprocessing.get_context("fork")
        answers = forking.Queue()
        children = [
            forking.Process(target=_touch_with_the_parents_handle, args=((mem, ident), answers))
            for _ in range(2)
        ]
        for child in children:
            child.start()
        for child in children:
            child.join(120)
        assert [child.exitcode for child in children] == [0, 0]
        assert mem.get(ident).use_count == 200
        assert [h.memory.id for h in mem.search("tea")] == [ident]  # the parent's index lives


@pytest.mark.slow
@pytest.mark.parametrize("backend", sorted(SHARED))
def test_two_clients_writing_the_same_ids_at_once_import_once_and_refuse_clearly(
    request: pytest.FixtureRequest, tmp_path: Path, backend: str
) -> None:
    """An import (and a `save_many` of drafts with ids) looks for the ids, then writes: two
    imports of one export at once both found none, and the second failed with SQLite's
    "UNIQUE constraint failed: memories.id", abandoning its whole import."""
    path = SHARED[backend](request, tmp_path)
    Engram.open(path).close()
    rounds, per_export = 6, 60
    exports = []
    for i in range(rounds):
        source = tmp_path / f"source-{i}.db"
        with Engram.open(str(source), embedding_model="none") as mem:
            mem.save_many([Draft(content=f"round {i} fact {k}") for k in range(per_export)])
            export = tmp_path / f"export-{i}.jsonl"
            export.write_text(
                "".join(
                    line if line.endswith("\n") else line + "\n" for line in mem.export("jsonl")
                )
            )
        exports.append(str(export))
    sync = tmp_path / "sync"
    sync.mkdir()
    results = two_workers(IMPORTER, path, json.dumps(exports), str(sync))
    for i, (first, second) in enumerate(zip(*results, strict=True)):
        if i % 2:  # one saved them, the other was told which id is taken
            assert sorted(first) != sorted(second), (first, second)
            refused = first.get("error") or second.get("error")
            assert refused is not None and "already exists" in refused, (first, second)
        else:
            assert "error" not in first and "error" not in second, (first, second)
            assert first["imported"] + second["imported"] == per_export
            assert first["present"] + second["present"] == per_export
    with Engram.open(path) as mem:
        assert mem.stats().total == rounds // 2 * per_export + rounds // 2 * 20


def test_a_store_opens_and_reads_while_another_process_writes(tmp_path: Path) -> None:
    """Opening took the write lock to see whether the schema needed migrating: while another
    process wrote, `engram stats`, `search` and `export` waited the busy timeout and failed
    as "busy" (a probe), though SQLite's readers do not wait for its writer. A store at head
    is opened by reading it."""
    path = str(tmp_path / "x.db")
    with Engram.open(path, embedding_model="none") as mem:
        kept = mem.save("Atlas runs on PostgreSQL 16")
    writer = sqlite3.connect(path, isolation_level=None)  # another process's write, held
    writer.execute("BEGIN IMMEDIATE")
    try:
        with Engram.open(path, embedding_model="none", sqlite_busy_timeout=1) as mem:
            assert mem.stats().total == 1
            assert [h.memory.id for h in mem.search("PostgreSQL")] == [kept.id]
            assert len(list(mem.export())) == 2  # the memory, and the end line
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_a_write_that_waited_too_long_says_what_to_do(tmp_path: Path) -> None:
    """ "store … is busy (database is locked); another process holds it" said what happened,
    not that nothing was written, nor what to do (a probe)."""
    path = str(tmp_path / "x.db")
    with Engram.open(path, embedding_model="none") as mem:
        mem.save("Atlas runs on PostgreSQL 16")
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        with Engram.open(path, embedding_model="none", sqlite_busy_timeout=0.2) as mem:
            with pytest.raises(StoreError) as busy:
                mem.save("a second memory")
            said = str(busy.value)
            assert "ENGRAM_SQLITE_BUSY_TIMEOUT" in said and "trying again is safe" in said
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    with Engram.open(path, embedding_model="none") as mem:
        assert mem.stats().total == 1  # nothing was written


def _news_with_the_parents_handle(job: tuple[Engram, str], answers: Any) -> None:
    mem, ident = job
    news = mem.save("raised prices for 2026: full day now £2800")
    mem.flush()
    answers.put([(r.type, r.from_id == news.id) for r in mem.relations(ident)])
    mem.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork exists on POSIX only")
def test_a_forked_child_links_the_news_it_saves_with_a_thread_of_its_own(tmp_path: Path) -> None:
    """News saved without its report is linked on a thread of its own after the save returns
    (`engram.services.news_links`); a forked child inheriting a handle that had linked news
    has no such thread, and must not wait for the parent's."""
    path = str(tmp_path / "fork.db")
    with Engram.open(path) as mem:
        old = mem.save("i charge £2400 for a full day package")
        mem.save("elopements now cost £1200")  # news: the parent's thread links it
        mem.flush()
        found = in_a_forked_child(_news_with_the_parents_handle, (mem, old.id))
        assert found == [("supersedes", True)]
