"""bench/assistant_facts.py runs from a fresh clone (its data is in the repository) and reports
every query type; what it measures is tracked there, not asserted here."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support import run_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "assistant_facts.py"


def test_the_shipped_set_is_well_formed() -> None:
    users = json.loads((ROOT / "bench" / "data" / "assistant_facts.json").read_text())["users"]
    for user in users:
        ids = {m["id"] for m in user["memories"]}
        for q in user["queries"]:
            assert set(q["gold"]) <= ids, q["qid"]
            assert (q["type"] == "none") == (not q["gold"]), q["qid"]
            assert {q.get("current", q["gold"][0] if q["gold"] else None)} <= ids | {None}


def test_the_benchmark_scores_each_query_type(tmp_path: Path) -> None:
    data = tmp_path / "facts.json"
    facts = [
        ("f1", "Allergic to shellfish", 30.0, "s1"),
        ("f2", "Lives in Berlin", 20.0, "s1"),
        ("f3", "Moved from Berlin to Lisbon", 1.0, "s2"),
    ]
    queries = [
        ("q1", "food the user cannot eat", "paraphrase", ["f1"]),
        ("q2", "where does the user live now", "temporal", ["f3"]),
        ("q3", "quantum chromodynamics lattice gluons", "none", []),
    ]
    user = {
        "user": "u",
        "memories": [{"id": i, "text": t, "days_ago": d, "episode": e} for i, t, d, e in facts],
        "queries": [{"qid": i, "query": q, "type": k, "gold": g} for i, q, k, g in queries],
    }
    user["queries"][1] |= {"current": "f3", "outdated": ["f2"]}
    data.write_text(json.dumps({"users": [user]}))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "TMPDIR": str(tmp_path)}
    run = run_script(SCRIPT, "--data", str(data), env=env)
    assert run.returncode == 0, run.stderr
    rows = dict(re.findall(r"^\| (paraphrase|temporal|overall) \| (\d+) \|", run.stdout, re.M))
    assert rows == {"paraphrase": "1", "temporal": "1", "overall": "2"}, run.stdout
    assert re.search(r"nothing found: Engram [01] of 1, BM25 [01] of 1", run.stdout)
    assert re.search(r"outdated ones: Engram [01] of 1, BM25 [01] of 1", run.stdout)
    assert not list(tmp_path.rglob("*.db"))  # its stores are removed


def test_facts_are_written_as_notes_and_queries_asked_in_the_users_words(tmp_path: Path) -> None:
    """`--notes` and `--first-person`: the same set, as assistants write notes ("User works
    as…") and as users ask ("where does I live now")."""
    data = tmp_path / "facts.json"
    user = {
        "user": "u",
        "memories": [
            {"id": "f1", "text": "Allergic to shellfish", "days_ago": 3.0, "episode": "s1"},
            {"id": "f2", "text": "Works as a nurse", "days_ago": 2.0, "episode": "s1"},
            {"id": "f3", "text": "Project Atlas ships in May", "days_ago": 1.0, "episode": "s1"},
        ],
        "queries": [
            {
                "qid": "q1",
                "query": "where does the user work",
                "type": "paraphrase",
                "gold": ["f2"],
            },
        ],
    }
    data.write_text(json.dumps({"users": [user]}))
    shown = tmp_path / "shown.json"
    script = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import assistant_facts as a; "
        "users = json.load(open(sys.argv[2]))['users']; a.as_notes_of_the_user(users); "
        "a.asked_by_the_user(users); json.dump(users, open(sys.argv[3], 'w'))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    ran = subprocess.run(
        [sys.executable, "-c", script, str(ROOT / "bench"), str(data), str(shown)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    (written,) = json.loads(shown.read_text())
    assert [m["text"] for m in written["memories"]] == [
        "User is allergic to shellfish",
        "User works as a nurse",
        "Project Atlas ships in May",
    ]
    assert written["queries"][0]["query"] == "where does I work"
    run = run_script(SCRIPT, "--data", str(data), "--notes", "--first-person", env=env)
    assert run.returncode == 0, run.stderr
    assert re.search(r"^\| overall \| 1 \|", run.stdout, re.M), run.stdout
