"""MCP prompts and resources through a real client session over stdio."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError
from tests.adapters.test_mcp import Server, running_server, unique

PROMPTS = {"use_memory", "recall_context"}
RESOURCES = {
    "engram://stats",
    "engram://review-queue",
    "engram://promotion-candidates",
    "engram://notes",
}
TEMPLATES = {"engram://memory/{memory_id}", "engram://memory/{memory_id}/note"}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def text(result: types.ReadResourceResult) -> str:
    (content,) = result.contents
    assert isinstance(content, types.TextResourceContents)
    return content.text


def prompt_text(result: types.GetPromptResult) -> str:
    (message,) = result.messages
    assert message.role == "user" and isinstance(message.content, types.TextContent)
    return message.content.text


@pytest.mark.anyio
async def test_prompts_and_resources_are_listed(tmp_path: Path) -> None:
    async with running_server(tmp_path / "home") as s:
        prompts = await s.session.list_prompts()
        assert {p.name for p in prompts.prompts} == PROMPTS
        recall = next(p for p in prompts.prompts if p.name == "recall_context")
        assert [(a.name, a.required) for a in recall.arguments or []] == [("topic", True)]
        resources = await s.session.list_resources()
        assert {str(r.uri) for r in resources.resources} == RESOURCES
        templates = await s.session.list_resource_templates()
        assert {t.uri_template for t in templates.resource_templates} == TEMPLATES


@pytest.mark.anyio
async def test_the_usage_prompt_names_the_real_tools(tmp_path: Path) -> None:
    async with running_server(tmp_path / "home") as s:
        guide = prompt_text(await s.session.get_prompt("use_memory"))
        tools = {t.name for t in (await s.session.list_tools()).tools}
        named = {word.strip(".,()") for word in guide.split() if "_" in word}
        assert named and named <= tools  # every tool it mentions exists
        assert {"search_memory", "save_memory", "observe_memory_usage"} <= named


@pytest.mark.anyio
async def test_recall_context_brings_the_topics_memories_with_their_ids(tmp_path: Path) -> None:
    async with running_server(tmp_path / "home") as s:
        db = await s.save("Atlas runs on PostgreSQL 16", tags=["atlas"])
        await s.save("Prefers green tea in the afternoon")
        found = prompt_text(
            await s.session.get_prompt("recall_context", {"topic": "which database for Atlas"})
        )
        first = found.split("\n")[2]  # after the heading and a blank line: the best match
        day = datetime.fromisoformat(db["created_at"]).astimezone().date()  # the server's TZ
        assert first.startswith(
            f"- [{db['id']}] ({day}) Atlas runs on PostgreSQL 16 (tags: atlas) — "
        )
        nothing = prompt_text(
            await s.session.get_prompt("recall_context", {"topic": "xyzzy plugh frobnicate"})
        )
        assert "no memories about" in nothing


@pytest.mark.anyio
async def test_recall_context_cuts_a_long_memory_to_one_line_as_search_does(
    tmp_path: Path,
) -> None:
    """A 50,000-character memory came whole into the prompt (search answers cut it at 2,000),
    its line breaks broke the list, and the topic was quoted as Python's repr."""
    async with running_server(tmp_path / "home") as s:
        long = await s.save("Atlas runbook:\nstep one, check the replica.\n" + "lag " * 12_000)
        found = prompt_text(
            await s.session.get_prompt("recall_context", {"topic": "what's the Atlas runbook"})
        )
        assert found.startswith("Here is what Engram remembers about “what's the Atlas runbook”")
        (line,) = [x for x in found.split("\n") if x.startswith(f"- [{long['id']}]")]
        assert "Atlas runbook: step one, check the replica. lag lag" in line
        assert " … — " in line  # cut, then why it matched
        assert len(found) < 3_000


@pytest.mark.anyio
async def test_a_bad_prompt_argument_is_named_not_a_rendering_failure(tmp_path: Path) -> None:
    """The SDK answered "Error rendering prompt NAME" and logged a traceback."""
    async with running_server(tmp_path / "home") as s:
        with pytest.raises(MCPError) as long_topic:
            await s.session.get_prompt("recall_context", {"topic": "x" * 5000})
        assert "recall_context: topic: is 5,000 characters; the limit is 1,000" in str(
            long_topic.value
        )
        for blank in ("", "   "):  # listed the latest memories as "about ''"
            with pytest.raises(MCPError) as empty:
                await s.session.get_prompt("recall_context", {"topic": blank})
            assert "recall_context: topic: give the topic to recall" in str(empty.value)
        with pytest.raises(MCPError) as missing:  # no arguments at all: a logged traceback
            await s.session.get_prompt("recall_context")
        assert "topic" in str(missing.value)
        with pytest.raises(MCPError) as unknown:
            await s.session.get_prompt("use_memory", {"x": "1"})
        assert "x: is not an argument of use_memory" in str(unknown.value)
        with pytest.raises(MCPError) as no_such:  # was error code 0, with a traceback
            await s.session.get_prompt("no_such_prompt")
        assert no_such.value.error.code == types.INVALID_PARAMS
        assert "no_such_prompt" in no_such.value.error.message
        assert prompt_text(await s.session.get_prompt("use_memory")).startswith("You have")
    log = s.stderr.read_text()
    assert "Traceback" not in log and "Error rendering prompt recall_context\n" not in log


async def read_json(s: Server, uri: str) -> dict[str, object]:
    data: dict[str, object] = json.loads(text(await s.session.read_resource(uri)))
    return data


@pytest.mark.anyio
async def test_resources_read_a_memory_the_stats_and_the_queues(tmp_path: Path) -> None:
    async with running_server(tmp_path / "home") as s:
        saved = await s.save(f"Worth reading {unique()}", tags=["x"])
        memory = await read_json(s, f"engram://memory/{saved['id']}")
        assert memory == saved  # the same record the tools return
        stats = await read_json(s, "engram://stats")
        assert stats["total"] == 1
        # compact JSON, as tool results (indented, a quarter more tokens for the same record)
        raw = text(await s.session.read_resource("engram://stats"))
        assert "\n" not in raw and ": " not in raw
        assert await read_json(s, "engram://review-queue") == {"candidates": []}
        assert await read_json(s, "engram://promotion-candidates") == {"candidates": []}
        opened = await s.call("open_memories", {"memory_ids": [saved["id"]]})
        assert opened["memories"][0]["use_count"] == 0  # reading is not a use
        # The caller's mistakes are invalid params (-32602), not a failure of the server
        with pytest.raises(MCPError, match="memory not found: no-such-id") as missing:
            await s.session.read_resource("engram://memory/no-such-id")
        assert missing.value.error.code == types.INVALID_PARAMS
        with pytest.raises(MCPError, match="memory_id") as malformed:
            await s.session.read_resource("engram://memory/bad%20id")
        assert malformed.value.error.code == types.INVALID_PARAMS


@pytest.mark.anyio
async def test_a_promoted_memorys_note_is_a_markdown_resource(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    async with running_server(tmp_path / "home", ENGRAM_VAULT_PATH=str(vault)) as s:
        saved = await s.save("Atlas runs on PostgreSQL 16", tags=["atlas"])
        with pytest.raises(MCPError, match="never promoted") as unpromoted:
            await s.session.read_resource(f"engram://memory/{saved['id']}/note")
        assert unpromoted.value.error.code == types.INVALID_PARAMS
        await s.call("promote_memory", {"memory_id": saved["id"]})
        note = await s.session.read_resource(f"engram://memory/{saved['id']}/note")
        (content,) = note.contents
        assert content.mime_type == "text/markdown"
        assert "Atlas runs on PostgreSQL 16" in text(note)
        # a body that opens with a tag, not a heading, still gets its title
        tagged = await s.save("#python is my favourite language", tags=["lang"])
        await s.call("promote_memory", {"memory_id": tagged["id"]})
        body = text(await s.session.read_resource(f"engram://memory/{tagged['id']}/note"))
        assert body.startswith("# ") and "\n#python is my favourite language" in body
        listed = await read_json(s, "engram://notes")
        assert listed["count"] == 2
