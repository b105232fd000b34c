"""Every long command shows progress by one rule (`engram.cli.common.progress_bar`): on stderr
when it is a terminal, never with --json, never when piped; stdout carries the result alone.

CliRunner's stderr is a buffer, not a terminal: rich's documented `TTY_COMPATIBLE=1` makes it
count as one, the way a user's terminal would.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from tests.ltm_support import write_note

from engram import Engram
from engram.cli.main import cli
from engram.cli.vault import PROGRESS_MIN_FILES

TERMINAL = {"TTY_COMPATIBLE": "1"}
PIPED = {"TTY_COMPATIBLE": "0"}


def unembedded_store(tmp_path: Path) -> list[str]:
    db = tmp_path / "e.db"
    with Engram.open(str(db), embedding_model="none") as mem:
        for i in range(3):
            mem.save(f"note {i} about the ferry to Lisbon")
    return ["--store", str(db), "embed", "--backfill"]


def store_to_migrate(tmp_path: Path) -> list[str]:
    source = tmp_path / "a.db"
    with Engram.open(str(source), embedding_model="none") as mem:
        mem.save("The ferry leaves at nine")
    return ["migrate", "--from", str(source), "--to", f"jsonl://{tmp_path / 'b'}"]


def large_vault(tmp_path: Path) -> list[str]:
    vault = tmp_path / "vault"
    for i in range(PROGRESS_MIN_FILES):
        write_note(vault, f"note-{i}.md", f"Note {i} about the harbour.\n")
    return ["--store", str(tmp_path / "v.db"), "index-ltm"]


def store_to_consolidate(tmp_path: Path) -> list[str]:
    db = tmp_path / "c.db"
    with Engram.open(str(db), embedding_model="none") as mem:
        mem.save("The ferry to Lisbon leaves at nine")
    return ["--store", str(db), "consolidate", "pipeline"]


COMMANDS: dict[str, tuple[Callable[[Path], list[str]], str]] = {
    "consolidate pipeline": (store_to_consolidate, "DecayAnalyzer"),
    "embed --backfill": (unembedded_store, "embedding"),
    "migrate": (store_to_migrate, "memories"),
    "index-ltm": (large_vault, "indexing the vault"),
}


def invoke(tmp_path: Path, argv: list[str], env: dict[str, str]) -> Result:
    settings = {
        "ENGRAM_VAULT_PATH": str(tmp_path / "vault"),
        "ENGRAM_EMBEDDING_MODEL": "none" if "index-ltm" in argv else "minilm",
    }
    result = CliRunner().invoke(cli, argv, env={**settings, **env}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


@pytest.mark.parametrize("command", COMMANDS)
def test_progress_shows_on_a_terminal(tmp_path: Path, command: str) -> None:
    setup, phase = COMMANDS[command]
    result = invoke(tmp_path, setup(tmp_path), TERMINAL)
    assert phase in result.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_progress_is_hidden_with_json_even_on_a_terminal(tmp_path: Path, command: str) -> None:
    setup, phase = COMMANDS[command]
    result = invoke(tmp_path, ["--json", *setup(tmp_path)], TERMINAL)
    assert phase not in result.stderr
    json.loads(result.stdout)  # stdout is the result, nothing else


@pytest.mark.parametrize("command", COMMANDS)
def test_progress_is_hidden_when_piped(tmp_path: Path, command: str) -> None:
    setup, phase = COMMANDS[command]
    result = invoke(tmp_path, setup(tmp_path), PIPED)
    assert phase not in result.stderr
    assert "━" not in result.stderr
