"""bench/supersede_facts.py runs from a fresh clone (its data is in the repository) and counts
right, wrong and missed links per kind; what it measures is tracked there, not asserted here."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from tests.support import run_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "supersede_facts.py"


@pytest.mark.parametrize("name", ["supersede_facts.json", "supersede_facts_second.json"])
def test_the_shipped_sets_are_well_formed(name: str) -> None:
    scenarios = json.loads((ROOT / "bench" / "data" / name).read_text())
    for number, scenario in enumerate(scenarios["scenarios"]):
        assert scenario["kind"].startswith(("c-", "t-")), number
        assert scenario["news"] and scenario["facts"], number
        assert all(0 <= i < len(scenario["facts"]) for i in scenario["replaces"]), number
        assert scenario["kind"].startswith("c-") == bool(scenario["replaces"]), number


def test_the_benchmark_counts_links_per_kind(tmp_path: Path) -> None:
    data = tmp_path / "scenarios.json"
    scenarios = [
        {
            "kind": "c-diet",
            "facts": ["I'm vegetarian", "I live in Berlin"],
            "news": "Correction: I'm no longer vegetarian, I eat fish now",
            "replaces": [0],
        },
        {
            "kind": "t-plan",
            "facts": ["I live in Berlin"],
            "news": "I might visit Rome",
            "replaces": [],
        },
    ]
    data.write_text(json.dumps({"scenarios": scenarios}))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "TMPDIR": str(tmp_path)}
    run = run_script(SCRIPT, "--data", str(data), "--list", env=env)
    assert run.returncode == 0, run.stderr
    rows = dict(re.findall(r"^\| (all|changes|traps|c-diet|t-plan) \| (\d+) \|", run.stdout, re.M))
    assert rows == {"all": "2", "changes": "1", "traps": "1", "c-diet": "1", "t-plan": "1"}
    right, wrong = re.search(r"^\| all \| 2 \| (\d+) \| (\d+) \|", run.stdout, re.M).groups()
    listed = run.stdout.count("wrong:"), run.stdout.count("missed:")
    assert listed == (int(wrong), 1 - int(right)), run.stdout
    assert not list(tmp_path.rglob("*.db"))  # its stores are removed
