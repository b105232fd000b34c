"""bench/forgetting_year.py runs from a fresh clone (its data is in the repository) and reports
where each kind of question's memory ended up; what it measures is tracked there, not asserted
here."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.support import run_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "forgetting_year.py"
DATA = ROOT / "bench" / "data" / "forgetting_year"
KINDS = {"vital_unused", "vital_used", "changed", "recent", "lasting", "pref", "event"}


def test_the_shipped_year_is_well_formed_and_frozen() -> None:
    for line in (DATA / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split()
        assert hashlib.sha256((DATA / name).read_bytes()).hexdigest() == digest, name
    users = json.loads((DATA / "users.json").read_text())["users"]
    assert len(users) == 6
    for user in users:
        saved = {m["key"]: m["day"] for m in user["memories"]}
        assert len(saved) == len(user["memories"]), user["name"]  # keys are unique
        assert all(0 <= day <= user["days"] for day in saved.values())
        for use in user["usage"]:  # a conversation uses what was saved by then
            assert saved[use["key"]] <= use["day"] <= user["days"], use
            assert use["how"] in ("touch", "boost") or use["how"].startswith("observe:")
        for q in user["questions"]:
            assert (q["key"] is None) == (q["kind"] == "never_told"), q
            assert q["key"] is None or (q["key"] in saved and q["kind"] in KINDS), q


def test_the_benchmark_reports_every_kind_for_one_user() -> None:
    done = run_script(SCRIPT, "--users", "maya", "--keep-vital")
    assert done.returncode == 0, done.stderr
    rows = {line.split(" | ")[0].strip("| ") for line in done.stdout.splitlines()}
    assert KINDS | {"all"} <= rows
    assert "vital facts deleted by gc: 0 of" in done.stdout  # every one was kept for good
    refused = run_script(SCRIPT, "--users", "nobody")
    assert refused.returncode == 2 and "no user named nobody" in refused.stderr
