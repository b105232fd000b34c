"""The long-term-memory commands through click's CliRunner, on a real store and vault folder."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from tests.ltm_support import write_note

from engram.cli.main import cli


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    path = tmp_path / "vault"
    path.mkdir()
    return path


@pytest.fixture(autouse=True)
def _settings(monkeypatch: pytest.MonkeyPatch, vault: Path) -> None:
    monkeypatch.setenv("ENGRAM_VAULT_PATH", str(vault))
    monkeypatch.setenv("ENGRAM_EMBEDDING_MODEL", "none")


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def ok(*args: str) -> Result:
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result


def as_json(*args: str) -> Any:
    return json.loads(ok("--json", *args).stdout)


def used(content: str, *options: str) -> str:
    memory_id = str(as_json("save", content, *options)["id"])
    for _ in range(5):
        ok("touch", memory_id)
    return memory_id


def test_promote_by_id_then_again_is_a_no_op(vault: Path) -> None:
    memory_id = used("Prefers dark roast coffee", "--tag", "coffee")
    first = ok("promote", memory_id)
    assert "Promoted 1 memory to the vault: Engram/prefers-dark-roast-coffee.md" in first.stdout
    assert (vault / "Engram/prefers-dark-roast-coffee.md").exists()
    again = as_json("promote", memory_id)
    assert again["count"] == 0 and again["items"][0]["action"] == "already_promoted"
    assert as_json("open", memory_id)["memories"][0]["status"] == "promoted"


def test_promote_auto_with_dry_run_lists_and_changes_nothing(vault: Path) -> None:
    memory_id = used("Deploys happen on Tuesdays")
    dry = ok("promote", "--auto", "--dry-run")
    assert "Dry run: 1 memory would be promoted" in dry.stdout
    assert memory_id[:8] in dry.stdout and memory_id not in dry.stdout  # a short id
    assert "usage" in dry.stdout
    assert list(vault.iterdir()) == []
    done = as_json("promote", "--auto")
    assert [i["memory_id"] for i in done["items"]] == [memory_id]


def test_promote_errors_are_one_line_naming_the_problem(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    memory_id = used("x")
    missing = run("promote")
    assert missing.exit_code == 1 and "Error: MEMORY_ID:" in missing.stderr
    monkeypatch.delenv("ENGRAM_VAULT_PATH")
    no_vault = run("promote", memory_id)
    assert no_vault.exit_code == 1 and "ENGRAM_VAULT_PATH" in no_vault.stderr
    assert "Traceback" not in no_vault.output


def test_index_ltm_then_search_all_finds_notes_and_memories(vault: Path) -> None:
    write_note(vault, "Recipes/bread.md", "---\ntags: [food]\n---\nSourdough needs a warm spot.\n")
    write_note(vault, "broken.md", "---\nx: [\n---\nsourdough starter notes\n")
    memory_id = as_json("save", "Sourdough starter lives in the fridge")["id"]
    indexed = ok("index-ltm")
    assert "Indexed 2 notes" in indexed.stdout and "2 added" in indexed.stdout
    assert "broken.md: frontmatter is not valid YAML" in indexed.stdout
    again = as_json("index-ltm")
    assert (again["unchanged"], again["added"]) == (2, 0)

    table = ok("search", "sourdough", "--all", "--verbose")
    # ids short, as in every table (whole ones left no room for the scores at 80 columns)
    for text in ("stm", "ltm", memory_id[:8], "weight", "Sourdough"):
        assert text in table.stdout
    assert memory_id not in table.stdout
    # a note's row says where its words matched, not its title alone
    assert "needs a warm spot" in ok("search", "sourdough", "--all").stdout
    found = as_json("search", "sourdough", "--all")
    assert {h["source"] for h in found["hits"]} == {"stm", "ltm"}
    assert sorted(h["path"] for h in found["hits"] if h["source"] == "ltm") == [
        "Recipes/bread.md",
        "broken.md",
    ]
    plain = as_json("search", "sourdough")  # without --all: memories only, as before
    assert [h["memory"]["id"] for h in plain["hits"]] == [memory_id]
    mixed = run("search", "sourdough", "--all", "--status", "archived")
    assert mixed.exit_code == 2 and "--status" in mixed.stderr


def test_vault_list_show_and_open(vault: Path) -> None:
    memory_id = used("Lisbon is home", "--tag", "home")
    ok("promote", memory_id)
    write_note(vault, "Other/user.md", "A user's note linking [[Engram/lisbon-is-home]].\n")
    ok("index-ltm")
    listed = ok("vault", "list")
    assert "Engram/lisbon-is-home.md" in listed.stdout and "Other/user.md" not in listed.stdout
    assert as_json("vault", "list", "--all")["count"] == 2
    assert "2 notes in the vault" in ok("vault", "list", "--all").stdout  # it said "in ."
    shown = ok("vault", "show", "Engram/lisbon-is-home.md")
    assert "Lisbon is home" in shown.stdout and "linked from: Other/user.md" in shown.stdout
    opened = as_json("vault", "open", memory_id)
    assert opened["path"] == "Engram/lisbon-is-home.md" and opened["engram_id"] == memory_id
    escape = run("vault", "show", "../../etc/passwd")
    assert escape.exit_code == 1 and "Error: PATH:" in escape.stderr
    # a note renamed in the vault: its memory follows, and the report says so (only --json
    # did: a helper's probe)
    (vault / "Engram/lisbon-is-home.md").rename(vault / "Engram/home.md")
    assert "1 moved" in ok("index-ltm").stdout
    assert as_json("vault", "open", memory_id)["path"] == "Engram/home.md"


def test_backup_commits_into_a_git_repository(tmp_path: Path) -> None:
    memory_id = used("Back me up")
    ok("promote", memory_id)
    repo = tmp_path / "repo"
    first = ok("backup", "--repo", str(repo), "--include-vault")
    assert "Created the backup repository" in first.stdout and "Committed" in first.stdout
    assert (repo / "vault/Engram/back-me-up.md").exists()
    again = ok("backup", "--repo", str(repo), "--include-vault")
    assert "Nothing to commit" in again.stdout
    log = subprocess.run(
        ["git", "log", "--format=%s"], cwd=repo, capture_output=True, text=True, check=True
    )
    assert log.stdout.startswith("engram backup ") and "1 memory," in log.stdout


def test_a_dry_run_of_vault_import_makes_no_store(vault: Path, tmp_path: Path) -> None:
    """It said "A dry run: nothing was changed." and left a new store at a mistyped --store."""
    write_note(vault, "Atlas.md", "---\nengram: memory\n---\nAtlas ships in May.\n")
    missing = tmp_path / "typo.db"
    result = run("--store", str(missing), "vault", "import")
    assert result.exit_code == 1 and "there is no store at" in result.stderr
    assert not missing.exists()
    applied = as_json("--store", str(missing), "vault", "import", "--apply")
    assert applied["count"] == 1 and missing.exists()
