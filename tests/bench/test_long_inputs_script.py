"""bench/long_inputs.py runs from a fresh clone and times each helper on each input at every
size asked; the times themselves are tracked there, not asserted here."""

from __future__ import annotations

import os
import re
from pathlib import Path

from tests.support import run_script

ROOT = Path(__file__).resolve().parents[2]


def test_the_long_inputs_benchmark_times_each_helper_on_each_input_at_each_size() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    run = run_script(ROOT / "bench" / "long_inputs.py", "--sizes", "200", "400", env=env)
    assert run.returncode == 0, run.stderr
    rows = re.findall(r"^\| ([^|]+) \| (\w+) \| ([\d.]+) \| ([\d.]+) \|$", run.stdout, re.M)
    assert {(name, helper) for name, helper, _, _ in rows} == {
        (name, helper)
        for name in ("marks, then a word", "minified JSON", "a long word in marks", "prose")
        for helper in ("statement_key", "memory_content")
    }, run.stdout
