"""bench/activation_speed.py runs from a fresh clone and times every message it builds at
every size asked; the times themselves are tracked there, not asserted here."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

from tests.support import run_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "activation_speed.py"


def test_the_activation_benchmark_times_each_message_at_each_size() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    run = run_script(SCRIPT, "--sizes", "200", "400", env=env)
    assert run.returncode == 0, run.stderr
    rows = re.findall(r"^\| ([^|]+) \| ([\d.]+) \| ([\d.]+) \|$", run.stdout, re.M)
    spec = importlib.util.spec_from_file_location("activation_speed", SCRIPT)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert [name for name, _, _ in rows] == list(bench.MESSAGES), run.stdout
