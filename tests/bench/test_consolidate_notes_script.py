"""bench/consolidate_notes.py runs from a fresh clone (its chats are in the repository) and
reports how many planted pairs it held together; what it measures is tracked there, not
asserted here."""

from __future__ import annotations

import os
import re
from pathlib import Path

from tests.support import run_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "consolidate_notes.py"


def test_the_benchmark_plants_notes_and_their_turns_and_clusters_them(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "TMPDIR": str(tmp_path)}
    run = run_script(SCRIPT, "--n", "80", env=env)
    assert run.returncode == 0, run.stderr
    row = re.search(
        r"^\| 80 \| (\d+) \| (\d+) \| [\d.]+ \| [\d.]+ \| [\d.]+ \| (\d+) / (\d+) \|",
        run.stdout,
        re.M,
    )
    assert row is not None, run.stdout
    memories, notes, _, pairs = (int(g) for g in row.groups())
    assert (memories, notes, pairs) == (82, 60, 2)
