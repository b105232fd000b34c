"""bench/retrieval.py runs the shared harness through the public API on any data in its format.

The real development set (REALTALK) is not in the repository; this checks the plumbing on a
two-conversation file written here, in the harness's documented format.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT.parent / "shared" / "bench" / "retrieval_eval.py"


def conversation(sample_id: str, turns: list[tuple[str, str]], qa: list[dict[str, object]]) -> dict:
    session = [
        {"speaker": speaker, "dia_id": f"D1:{i + 1}", "text": text}
        for i, (speaker, text) in enumerate(turns)
    ]
    return {
        "sample_id": sample_id,
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "2024-03-01 10:00:00",
            "session_1": session,
        },
        "qa": qa,
    }


def test_retrieval_bench_reports_recall_through_engram(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    first = conversation(
        "c1",
        [
            ("Ana", "I adopted a grey cat called Miso last week"),
            ("Ben", "Nice! I started learning the cello"),
            ("Ana", "My sister moved to Porto for her new job"),
        ],
        [
            {"question": "What is the name of Ana's cat?", "evidence": ["D1:1"], "category": 4},
            {"question": "Which instrument is Ben learning?", "evidence": ["D1:2"], "category": 4},
        ],
    )
    second = conversation(
        "c2",
        [("Ben", "The marathon is on Sunday"), ("Ana", "Good luck with the race")],
        [{"question": "When is the marathon?", "evidence": ["D1:1"], "category": 2}],
    )
    (data / "c1.json").write_text(json.dumps(first))
    (data / "c2.json").write_text(json.dumps(second))
    out = tmp_path / "result.json"
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "retrieval.py"),
            "--data",
            str(data),
            "--harness",
            str(HARNESS),
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "recall@10" in run.stdout.lower() or "r@10" in run.stdout.lower()
    result = json.loads(out.read_text())
    assert result["overall_all"]["n"] == 3
    assert result["overall_all"]["recall@1"] == 1.0  # each answer shares a word with its question
    assert len(result["latency_ms"]) == 3
