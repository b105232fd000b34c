"""bench/abstention.py runs from a fresh clone (it needs no data beside the repository) and
reports both kinds of question; what it measures is tracked there, not asserted here."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from tests.support import run_script

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("layer", [[], ["--notes"]], ids=["memories", "notes"])
def test_the_abstention_benchmark_reports_both_kinds_of_question(
    tmp_path: Path, layer: list[str]
) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "TMPDIR": str(tmp_path)}
    script = ROOT / "bench" / "abstention.py"
    run = run_script(script, *layer, "--set", "search_diversity=0", env=env)
    assert run.returncode == 0, run.stderr
    counts = re.findall(r"^\| (?:paraphrase|off-topic)[^|]*\| (\d+) \| (\d+) \|$", run.stdout, re.M)
    assert [int(n) for n, _ in counts] == [16, 20], run.stdout
    assert all(0 <= int(right) <= int(n) for n, right in counts)
    assert not list(tmp_path.rglob("abstention.db*"))  # its store (and vault) are removed
    assert not list(tmp_path.rglob("*.md"))
