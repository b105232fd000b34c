"""bench/search_latency.py times searches on copies of kept stores, leaving the stores as
they were. Its conversational mode asks each question of the store `bench/retrieval.py
--workdir` kept for its conversation; small sets written here stand in for the development
data, which a fresh clone does not have."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.support import locomo_conversation, run_script

import engram

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "search_latency.py"


def chat(sample_id: str, turns: list[tuple[str, str]], questions: list[str]) -> dict[str, object]:
    qa: list[dict[str, object]] = [
        {"question": q, "evidence": ["D1:1"], "category": 4} for q in questions
    ]
    return locomo_conversation(sample_id, turns, qa)


def write_set(data: Path) -> None:
    data.mkdir()
    first = chat(
        "c1",
        [("Ana", "I adopted a grey cat called Miso"), ("Ben", "I started learning the cello")],
        ["What is the name of Ana's cat?", "Which instrument is Ben learning?"],
    )
    second = chat("c2", [("Ben", "The marathon is on Sunday")], ["When is the marathon?"])
    (data / "c1.json").write_text(json.dumps(first))
    (data / "c2.json").write_text(json.dumps(second))


def digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_every_question_is_timed_on_a_copy_of_its_conversations_store(tmp_path: Path) -> None:
    data, kept = tmp_path / "data", tmp_path / "kept"
    write_set(data)
    built = run_script(ROOT / "bench" / "retrieval.py", "--data", str(data), "--workdir", str(kept))
    assert built.returncode == 0, built.stderr
    before = digests(kept)

    run = run_script(SCRIPT, "--data", str(data), "--workdir", str(kept))

    assert run.returncode == 0, run.stderr
    row = run.stdout.strip().splitlines()[-1].split("|")
    assert Path(row[1].strip()) == Path(engram.__file__).parent.parent
    assert int(row[2]) == 3  # the three questions of both conversations
    assert row[3].strip().endswith(" ms") and float(row[3].split()[0]) > 0
    assert digests(kept) == before


def test_a_store_not_kept_yet_is_named_with_the_command_that_builds_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_set(data)
    (tmp_path / "empty").mkdir()

    run = run_script(SCRIPT, "--data", str(data), "--workdir", str(tmp_path / "empty"))

    assert run.returncode != 0
    assert "is missing" in run.stderr and "bench/retrieval.py --data" in run.stderr
    assert "Traceback" not in run.stderr


def test_a_store_or_conversations_are_asked_for_not_both(tmp_path: Path) -> None:
    neither = run_script(SCRIPT)
    both = run_script(SCRIPT, "--store", "x.db", "--data", str(tmp_path))
    without_workdir = run_script(SCRIPT, "--data", str(tmp_path))
    for run in (neither, both, without_workdir):
        assert run.returncode == 2
        assert "give --store, or --data with --workdir" in run.stderr


def test_a_store_file_that_is_not_there_is_refused(tmp_path: Path) -> None:
    run = run_script(SCRIPT, "--store", str(tmp_path / "nowhere.db"))
    assert run.returncode == 2
    assert "nowhere.db: no such store file" in run.stderr
    assert not (tmp_path / "nowhere.db").exists()
