"""Long-term memory through a real MCP client: promote_memory and search_unified over stdio,
with the server process writing into a real vault folder."""

from __future__ import annotations

from pathlib import Path

import anyio
import frontmatter
import pytest
from tests.adapters.test_mcp import running_server

NO_MODEL = {"ENGRAM_EMBEDDING_MODEL": "none"}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_promotion_end_to_end_through_the_mcp_client(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    async with running_server(tmp_path / "home", ENGRAM_VAULT_PATH=str(vault), **NO_MODEL) as s:
        saved = await s.save(
            "Atlas: we chose PostgreSQL 16 for logical replication",
            tags=["decision", "atlas"],
            source='standup "Tuesday" --- notes',
        )
        other = await s.save("Atlas deploys on Fridays", tags=["atlas"])
        await s.call(
            "create_relation", {"from_memory_id": saved["id"], "to_memory_id": other["id"]}
        )
        for _ in range(5):
            await s.call("touch_memory", {"memory_id": saved["id"]})

        dry = await s.call("promote_memory", {"auto_detect": True, "dry_run": True})
        assert [i["memory_id"] for i in dry["items"]] == [saved["id"]]
        assert dry["items"][0]["reason"] == "usage" and list(vault.iterdir()) == []

        done = await s.call("promote_memory", {"auto_detect": True})
        (item,) = done["items"]
        assert item["action"] == "promoted" and item["path"].startswith("Engram/")
        post = frontmatter.load(vault / item["path"])
        assert post["engram_id"] == saved["id"] and post["source"] == saved["source"]
        assert post["tags"] == ["decision", "atlas"]

        opened = await s.call("open_memories", {"memory_ids": [saved["id"]]})
        memory = opened["memories"][0]
        assert (memory["status"], memory["promoted_to"]) == ("promoted", item["path"])

        again = await s.call("promote_memory", {"memory_id": saved["id"]})
        assert again["count"] == 0 and "already promoted" in again["message"]

        # The related memory, promoted later, links to the first note and gets the backlink.
        # the seed's call for one memory, `target` included
        linked = await s.call(
            "promote_memory", {"memory_id": other["id"], "dry_run": False, "target": "obsidian"}
        )
        first = (vault / item["path"]).read_text()
        assert linked["items"][0]["path"][:-3] in first

        found = await s.call("search_unified", {"query": "postgresql replication"})
        hit = found["hits"][0]  # the memory and its note, once (the other note links to it)
        assert [h["path"] for h in found["hits"]].count(item["path"]) == 1
        assert [h["id"] for h in found["hits"]].count(saved["id"]) == 1
        assert (hit["id"], hit["path"]) == (saved["id"], item["path"])
        assert set(hit["why"]) == {
            "text",
            "semantic",
            "context",
            "expansion",
            "decay",
            "weight",
            "rank",
            "superseded_by",
        }
        assert hit["why"]["superseded_by"] is None  # nothing replaced it


@pytest.mark.anyio
async def test_without_a_vault_the_tools_explain_the_setting(tmp_path: Path) -> None:
    async with running_server(tmp_path / "home", **NO_MODEL) as s:
        saved = await s.save("Worth keeping")
        message = await s.error("promote_memory", {"memory_id": saved["id"]})
        assert "ENGRAM_VAULT_PATH" in message
        both = await s.error("promote_memory", {"memory_id": saved["id"], "auto_detect": True})
        assert "memory_id" in both and "not both" in both
        unified = await s.call("search_unified", {"query": "keeping"})
        assert [h["source"] for h in unified["hits"]] == ["stm"]
        assert unified["vault"] == "not configured"
        assert "ENGRAM_VAULT_PATH" in await s.error("vault_status", {})
        bad = await s.error("search_unified", {"query": "x", "ltm_weight": 11})
        assert "ltm_weight" in bad
        empty = await s.error("search_unified", {})
        assert "query" in empty


@pytest.mark.anyio
async def test_the_seeds_vault_variable_works_and_the_notice_goes_to_stderr(
    tmp_path: Path,
) -> None:
    """A Claude Desktop config written for the seed sets LTM_VAULT_PATH: it is read, and the
    notice saying so goes to stderr (running_server fails on anything else on stdout)."""
    vault = tmp_path / "vault"
    vault.mkdir()
    home = tmp_path / "home"
    async with running_server(home, LTM_VAULT_PATH=str(vault), **NO_MODEL) as s:
        saved = await s.save("Atlas runs on PostgreSQL 16")
        done = await s.call("promote_memory", {"memory_id": saved["id"], "target": "obsidian"})
        assert (vault / done["items"][0]["path"]).is_file()
    assert "LTM_VAULT_PATH is read as ENGRAM_VAULT_PATH" in (home / "server-stderr.log").read_text()


@pytest.mark.anyio
async def test_the_server_indexes_notes_edited_in_the_vault_by_itself(tmp_path: Path) -> None:
    """What a user of Obsidian does while the assistant runs: write, edit and delete notes.
    search_unified finds them with no index command; vault_status and index_vault say and do
    the rest."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "before.md").write_text("Written before the server started: the quince tree.\n")
    async with running_server(tmp_path / "home", ENGRAM_VAULT_PATH=str(vault), **NO_MODEL) as s:

        async def paths(query: str) -> list[str]:
            found = await s.call("search_unified", {"query": query, "stm_weight": 0})
            assert found["vault"] == "watched"
            return [h["path"] for h in found["hits"]]

        async def eventually(query: str, expected: list[str]) -> None:
            with anyio.fail_after(20):
                while await paths(query) != expected:
                    await anyio.sleep(0.1)

        await eventually("quince", ["before.md"])
        (vault / "Daily").mkdir()
        (vault / "Daily" / "today.md").write_text("Planted a fig tree today.\n")
        await eventually("fig", ["Daily/today.md"])
        (vault / "before.md").unlink()
        await eventually("quince", [])

        status = await s.call("vault_status", {})
        assert status["watching"] is True
        assert (status["notes_on_disk"], status["notes_indexed"]) == (1, 1)
        assert (status["changed"], status["removed"], status["orphaned"]) == (0, 0, [])
        report = await s.call("index_vault", {})
        assert (report["notes"], report["unchanged"]) == (1, 1)
