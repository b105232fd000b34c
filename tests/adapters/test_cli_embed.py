"""`engram embed`: coverage report and resumable backfill through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from engram import Draft, Engram
from engram.cli.main import cli
from engram.embeddings.minilm import MODEL_ID


def invoke(db: Path, *args: str) -> dict[str, object]:
    result = CliRunner().invoke(cli, ["--store", str(db), "--json", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    parsed: dict[str, object] = json.loads(result.stdout)
    return parsed


def test_embed_reports_coverage_and_backfills_missing_vectors(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "e.db"
    with Engram.open(str(db), embedding_model="none") as mem:
        for i in range(5):
            mem.save(f"note {i} about the flight to Lisbon")
    before = invoke(db, "embed")
    assert before["embedded"] == 0
    # `missing` is the work left; `pending` only this process's queue (0 here: it said 0 while
    # a killed import had left most memories without a vector)
    assert before["status"] == {
        "model_id": MODEL_ID,
        "vectors": {},
        "memories": 5,
        "missing": 5,
        "pending": 0,
    }
    caplog.clear()
    after = invoke(db, "embed", "--backfill", "--batch", "2")
    assert after["embedded"] == 5
    # not told, while backfilling, to run `engram embed --backfill`
    assert [r.getMessage() for r in caplog.records if "no vector yet" in r.getMessage()] == []
    assert after["status"] == {
        "model_id": MODEL_ID,
        "vectors": {MODEL_ID: 5},
        "memories": 5,
        "missing": 0,
        "pending": 0,
    }
    assert invoke(db, "embed", "--backfill")["embedded"] == 0


def test_embed_for_people_says_what_to_do(tmp_path: Path) -> None:
    db = tmp_path / "e.db"
    with Engram.open(str(db), embedding_model="none") as mem:
        mem.save("unembedded note")
    result = CliRunner().invoke(cli, ["--store", str(db), "embed"], catch_exceptions=False)
    assert "0 of 1 memory has a vector" in result.stdout
    assert "engram embed --backfill" in result.stdout


def test_embed_writes_both_counts_alike(tmp_path: Path) -> None:
    """ "2000 of 2,000 memories have a vector": one count with a separator, one without (a
    probe)."""
    db = tmp_path / "e.db"
    with Engram.open(str(db), embedding_model="none") as mem:
        mem.save_many([Draft(f"note {i} about boats") for i in range(1_000)])
    result = CliRunner().invoke(
        cli, ["--store", str(db), "embed", "--backfill"], catch_exceptions=False
    )
    assert "Embedded 1,000 memories." in result.stdout
    assert "1,000 of 1,000 memories have a vector." in result.stdout
