"""The MCP server, end to end: a real client spawns `python -m engram.mcp` and talks over stdio.

Most tests share one server on one store (spawning costs about a second); each works on memories
it saves itself, so no test depends on another or on the order they run in. Tests about an empty
store, about stdout at DEBUG level and about broken settings start their own server.
"""

from __future__ import annotations

import json
import logging
import math
import os
import queue
import re
import select
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client import Client, ClientSession, IncomingMessage
from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client
from tests.support import signal_another_thread

from engram import Engram
from engram.config import load_settings
from engram.core.models import RELATION_TYPES
from engram.embeddings.minilm import MODEL_ID
from engram.mcp.server import build_server

TOOLS = {
    "save_memory",
    "search_memory",
    "open_memories",
    "update_memory",
    "delete_memory",
    "touch_memory",
    "observe_memory_usage",
    "gc",
    "promotion_candidates",
    "review_candidates",
    "create_relation",
    "delete_relation",
    "read_graph",
    "traverse_graph",
    "memory_stats",
    "promote_memory",
    "search_unified",
    "vault_status",
    "index_vault",
    "cluster_memories",
    "consolidate_memories",
    "keep_memories_apart",
    "undo_consolidation",
    "analyze_message",
    "analyze_for_recall",
    "run_pipeline",
    "apply_plan",
    "audit_trail",
}

# name -> (every parameter, in signature order; the required ones). Changing a tool's interface
# breaks every client prompt written against it: update this snapshot only on purpose.
SCHEMA_SNAPSHOT: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "save_memory": (
        ("content", "tags", "entities", "source", "context", "meta", "strength", "keep"),
        ("content",),
    ),
    "search_memory": (
        ("query", "tags", "status", "window_days", "min_score", "limit", "verbose"),
        (),
    ),
    "open_memories": (("memory_ids",), ("memory_ids",)),
    "update_memory": (
        (
            "memory_id",
            "content",
            "tags",
            "entities",
            "source",
            "context",
            "meta",
            "strength",
            "keep",
        ),
        ("memory_id",),
    ),
    "delete_memory": (("memory_ids", "archive"), ("memory_ids",)),
    "touch_memory": (("memory_id", "boost"), ("memory_id",)),
    "observe_memory_usage": (("memory_ids", "context_tags"), ("memory_ids",)),
    "gc": (("dry_run", "archive_instead", "limit"), ()),
    "promotion_candidates": (("limit",), ()),
    "review_candidates": (("limit",), ()),
    "create_relation": (
        ("from_memory_id", "to_memory_id", "relation_type", "strength", "metadata"),
        ("from_memory_id", "to_memory_id"),
    ),
    "delete_relation": (("relation_id",), ("relation_id",)),
    "read_graph": (("cursor", "limit"), ()),
    "traverse_graph": (("memory_id", "depth", "types", "direction", "limit"), ("memory_id",)),
    "memory_stats": ((), ()),
    "promote_memory": (("memory_id", "auto_detect", "dry_run", "target"), ()),
    "search_unified": (("query", "tags", "limit", "stm_weight", "ltm_weight"), ()),
    "vault_status": ((), ()),
    "index_vault": ((), ()),
    "cluster_memories": (("memory_ids", "similarity_threshold"), ()),
    "consolidate_memories": (
        (
            "mode",
            "auto_detect",
            "cohesion_threshold",
            "cluster_ids",
            "memory_ids",
            "merged_content",
            "similarity_threshold",
        ),
        (),
    ),
    "keep_memories_apart": (("cluster_ids", "memory_ids", "similarity_threshold"), ()),
    "undo_consolidation": (("merged_id", "force"), ("merged_id",)),
    "analyze_message": (("message", "recent_memory_ids"), ("message",)),
    "analyze_for_recall": (("message",), ("message",)),
    "run_pipeline": (("agents", "dry_run"), ()),
    "apply_plan": (("plan_id",), ("plan_id",)),
    "audit_trail": (("plan_id", "limit"), ()),
}

READ_ONLY = {
    "audit_trail",
    "analyze_message",
    "analyze_for_recall",
    "search_memory",
    "open_memories",
    "promotion_candidates",
    "review_candidates",
    "read_graph",
    "traverse_graph",
    "memory_stats",
    "search_unified",
    "vault_status",
    "cluster_memories",
}
DESTRUCTIVE = {
    "delete_memory",
    "delete_relation",
    "gc",
    "update_memory",
    "consolidate_memories",
    "undo_consolidation",
    "run_pipeline",  # dry_run=false merges and archives
    "apply_plan",
}

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$"


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def server_params(
    home: Path, *, args: Sequence[str] = ("-m", "engram.mcp"), **env: str
) -> StdioServerParameters:
    """Everything the server reads points into `home`: no user config or store can leak in."""
    return StdioServerParameters(
        command=sys.executable,
        args=list(args),
        env={
            "ENGRAM_STORAGE_PATH": str(home / "engram.db"),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
            **env,
        },
        cwd=home,
    )


@dataclass
class Server:
    """A live client session, with helpers that fail loudly on the unexpected."""

    session: ClientSession
    stderr: Path
    stream_errors: list[Exception] = field(default_factory=list)

    async def result(
        self, tool: str, arguments: dict[str, Any] | None = None
    ) -> types.CallToolResult:
        result = await self.session.call_tool(tool, arguments or {})
        # A line on stdout that is not a JSON-RPC message reaches the session as an exception.
        assert self.stream_errors == []
        return result

    async def call(self, tool: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        result = await self.result(tool, arguments)
        assert not result.is_error, text_of(result)
        assert result.structured_content is not None
        return result.structured_content

    async def error(self, tool: str, arguments: dict[str, Any]) -> str:
        result = await self.result(tool, arguments)
        assert result.is_error, f"{tool} accepted {arguments!r}"
        message = text_of(result)
        assert "Traceback" not in message
        return message

    async def save(self, content: str | None = None, **fields: Any) -> dict[str, Any]:
        """The saved memory (save_memory also says what it did: `saved` for these)."""
        done = await self.call("save_memory", {"content": content or f"note {unique()}", **fields})
        memory: dict[str, Any] = done["memory"]
        return memory

    async def stats(self) -> dict[str, Any]:
        return await self.call("memory_stats")


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


def unique() -> str:
    return uuid.uuid4().hex[:12]


@asynccontextmanager
async def running_server(home: Path, **env: str) -> AsyncIterator[Server]:
    """Spawn the server, complete the MCP handshake, and check its stderr on the way out."""
    home.mkdir(parents=True, exist_ok=True)
    stderr = home / "server-stderr.log"
    errors: list[Exception] = []

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, Exception):
            errors.append(message)

    with stderr.open("w") as errlog:
        async with (
            stdio_client(server_params(home, **env), errlog=errlog) as (read, write),
            ClientSession(read, write, message_handler=on_message) as session,
        ):
            await session.initialize()
            yield Server(session, stderr, errors)
    assert errors == [], "the server wrote something other than protocol messages to stdout"
    assert "Traceback" not in stderr.read_text(), stderr.read_text()


@pytest.fixture(scope="module")
async def server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Server]:
    async with running_server(tmp_path_factory.mktemp("shared")) as live:
        yield live


# -- the tool list ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_lists_exactly_the_engram_tools_each_described(server: Server) -> None:
    tools = (await server.session.list_tools()).tools
    assert {t.name for t in tools} == TOOLS
    for tool in tools:
        assert tool.description and len(tool.description) > 40, tool.name
        # Written as the function's docstring, sent as one line (not its indentation)
        assert tool.description == " ".join(tool.description.split()), tool.name
        assert tool.input_schema["type"] == "object", tool.name
        assert tool.output_schema is not None, tool.name
        for name, prop in tool.input_schema.get("properties", {}).items():
            assert prop.get("description"), f"{tool.name}.{name} has no description"
        assert tool.annotations is not None, tool.name
        assert tool.annotations.open_world_hint is False
        assert bool(tool.annotations.read_only_hint) == (tool.name in READ_ONLY), tool.name
        if tool.name not in READ_ONLY:
            assert tool.annotations.destructive_hint == (tool.name in DESTRUCTIVE), tool.name


def arm(prop: dict[str, Any]) -> dict[str, Any]:
    """The non-null branch of an optional parameter's schema."""
    if "anyOf" not in prop:
        return prop
    return next(a for a in prop["anyOf"] if a.get("type") != "null")


@pytest.mark.anyio
async def test_input_schemas_publish_the_limits(server: Server) -> None:
    schemas = {
        t.name: t.input_schema["properties"] for t in (await server.session.list_tools()).tools
    }
    save = schemas["save_memory"]
    assert (save["content"]["minLength"], save["content"]["maxLength"]) == (1, 50_000)
    assert arm(save["tags"])["maxItems"] == 50
    assert arm(save["tags"])["items"]["maxLength"] == 100
    assert (arm(save["strength"])["minimum"], arm(save["strength"])["maximum"]) == (0, 2)
    assert arm(save["source"])["maxLength"] == 1_000
    for tool in ("search_memory", "promotion_candidates", "review_candidates"):
        assert (schemas[tool]["limit"]["minimum"], schemas[tool]["limit"]["maximum"]) == (1, 100)
    assert schemas["touch_memory"]["memory_id"]["pattern"] == ID_PATTERN
    ids = schemas["open_memories"]["memory_ids"]
    assert (ids["minItems"], ids["maxItems"], ids["items"]["pattern"]) == (1, 100, ID_PATTERN)
    merged = arm(schemas["consolidate_memories"]["memory_ids"])  # one id is refused: "1 to 100"
    assert (merged["minItems"], merged["maxItems"]) == (2, 100)
    assert merged["description"].startswith("2 to 100")
    relation = schemas["create_relation"]
    assert relation["relation_type"]["enum"] == list(RELATION_TYPES)
    assert "supersedes" in RELATION_TYPES
    assert relation["from_memory_id"]["pattern"] == ID_PATTERN
    graph = schemas["read_graph"]
    assert (graph["limit"]["default"], graph["limit"]["maximum"]) == (100, 1_000)
    # "" for the first page; else an id, with its place in saving order
    assert graph["cursor"]["pattern"] == f"^$|{ID_PATTERN.rstrip('$')}(@[0-9]{{1,19}})?$"
    walk = schemas["traverse_graph"]
    assert (walk["depth"]["minimum"], walk["depth"]["maximum"], walk["depth"]["default"]) == (
        1,
        5,
        2,
    )
    assert set(arm(walk["types"])["items"]["enum"]) == set(relation["relation_type"]["enum"])
    assert set(walk["direction"]["enum"]) == {"out", "in", "both"}
    assert walk["memory_id"]["pattern"] == ID_PATTERN
    assert schemas["gc"]["dry_run"]["default"] is True
    assert schemas["delete_memory"]["archive"]["default"] is False


@pytest.mark.anyio
async def test_tool_interfaces_match_the_snapshot(server: Server) -> None:
    found = {
        t.name: (
            tuple(t.input_schema.get("properties", {})),
            tuple(t.input_schema.get("required", ())),
        )
        for t in (await server.session.list_tools()).tools
    }
    assert found == SCHEMA_SNAPSHOT


# -- every tool, real behaviour ---------------------------------------------------------------


@pytest.mark.anyio
async def test_save_then_search_finds_it(server: Server) -> None:
    word = f"zebra{unique()}"
    saved = await server.save(
        f"The {word} project deploys on Fridays",
        tags=["deploy", "Deploy", "ops"],
        entities=["Zebra"],
        source="standup",
        meta={"by": "test"},
        strength=1.5,
    )
    assert saved["tags"] == ["deploy", "ops"]  # merged ignoring case
    assert (saved["strength"], saved["use_count"], saved["status"]) == (1.5, 0, "active")
    assert saved["meta"] == {"by": "test"}

    found = await server.call("search_memory", {"query": word, "limit": 5})
    assert found["count"] >= 1  # other tests' memories may be semantic neighbours
    hit = found["hits"][0]
    assert hit["id"] == saved["id"] and hit["content"] == saved["content"]
    assert hit["rank"] > 0 and hit["why"].startswith("text 1, ")
    assert "reason" not in hit  # "match", the schema's default; only a review hit says so
    # The day it was saved, on this machine's calendar (the server's, spawned with our TZ).
    assert (
        hit["saved"] == datetime.fromisoformat(saved["created_at"]).astimezone().date().isoformat()
    )
    assert "memory" not in hit and "details" not in hit  # compact unless verbose
    full = await server.call("search_memory", {"query": word, "limit": 5, "verbose": True})
    assert full["hits"][0]["memory"]["use_count"] == 0  # searching is not using
    assert full["hits"][0]["details"]["text"] == 1.0

    by_tag = await server.call("search_memory", {"query": word, "tags": ["nope"]})
    assert by_tag["count"] == 0


@pytest.mark.anyio
async def test_open_memories_returns_found_in_order_and_lists_missing(server: Server) -> None:
    first, second = await server.save(), await server.save()
    ghost = f"ghost-{unique()}"
    opened = await server.call(
        "open_memories", {"memory_ids": [second["id"], ghost, first["id"], second["id"]]}
    )
    assert [m["id"] for m in opened["memories"]] == [second["id"], first["id"]]
    assert opened["missing"] == [ghost]


@pytest.mark.anyio
async def test_a_long_save_is_echoed_cut_and_opened_whole(server: Server) -> None:
    """A probe: a 50,000-character save came back whole, 50 KB of the assistant's context."""
    text = f"{unique()} " + "meeting notes " * 1_000
    saved = (await server.call("save_memory", {"content": text}))["memory"]
    assert saved["content"].endswith(" …") and len(saved["content"]) <= 2_002
    assert text.startswith(saved["content"].removesuffix(" …"))
    opened = await server.call("open_memories", {"memory_ids": [saved["id"]]})
    assert opened["memories"][0]["content"] == text


@pytest.mark.anyio
async def test_update_memory_changes_only_the_fields_given(server: Server) -> None:
    saved = await server.save("before", tags=["a"], source="origin")
    updated = await server.call(
        "update_memory", {"memory_id": saved["id"], "content": "after", "strength": 0.5}
    )
    assert (updated["content"], updated["strength"]) == ("after", 0.5)
    assert (updated["tags"], updated["source"]) == (["a"], "origin")
    opened = await server.call("open_memories", {"memory_ids": [saved["id"]]})
    assert opened["memories"][0]["content"] == "after"
    # "" is every text parameter's default here, and blank is no text: both leave it as it is
    for blank in ("", "   "):
        same = await server.call(
            "update_memory", {"memory_id": saved["id"], "source": blank, "strength": 0.6}
        )
        assert same["source"] == "origin"


@pytest.mark.anyio
async def test_a_memory_is_kept_for_good_on_save_and_let_fade_again_by_update(
    server: Server,
) -> None:
    saved = await server.call(
        "save_memory", {"content": f"{unique()} blood type A positive", "keep": True}
    )
    ident = saved["memory"]["id"]
    assert saved["memory"]["meta"] == {"keep": True}
    edited = await server.call("update_memory", {"memory_id": ident, "meta": {"lab": "x"}})
    assert edited["meta"] == {"lab": "x", "keep": True}  # the mark outlives a new meta
    faded = await server.call("update_memory", {"memory_id": ident, "keep": False})
    assert faded["meta"] == {"lab": "x"}
    plain = await server.call("save_memory", {"content": f"{unique()} lunch", "keep": None})
    assert plain["memory"]["meta"] == {}
    # left out: kept where its words name a fact wanted for good, and the result says why
    vital = await server.call("save_memory", {"content": f"{unique()} allergic to penicillin"})
    assert vital["memory"]["meta"] == {"keep": True}
    assert vital["enrichment"]["kept_for"] == "safety ('allergic')"
    refused = await server.call(
        "save_memory", {"content": f"{unique()} allergic to cats", "keep": False}
    )
    assert refused["memory"]["meta"] == {} and refused["enrichment"]["kept_for"] is None


@pytest.mark.anyio
async def test_text_that_looks_like_json_stays_text(server: Server) -> None:
    """The SDK parses JSON-looking strings for non-`str` parameters; free text must not be."""
    saved = await server.save(source='{"kind": "url"}', context="null")
    assert (saved["source"], saved["context"]) == ('{"kind": "url"}', "null")
    updated = await server.call(
        "update_memory", {"memory_id": saved["id"], "content": '["step 1", "step 2"]'}
    )
    assert updated["content"] == '["step 1", "step 2"]'
    await server.save(f"null pointer {unique()}")
    await server.save(f"something else {unique()}")
    found = await server.call("search_memory", {"query": "null", "limit": 100, "verbose": True})
    # A search for the word, not a browse of everything: the word's matches come first (other
    # hits may follow by meaning or episode context, each saying so in `why`).
    words = [hit["content"] for hit in found["hits"] if hit["details"]["text"] > 0]
    assert words and all("null" in content for content in words)
    assert "null" in found["hits"][0]["content"]
    await server.call("search_memory", {"query": "[1]"})  # text, not a list: no error
    tag = unique()
    ids = [(await server.save(f"Kate {tag} likes skiing {i}"))["id"] for i in range(2)]
    merged = await server.call(
        "consolidate_memories",
        {"memory_ids": ids, "auto_detect": False, "mode": "apply", "merged_content": "null"},
    )
    assert merged["merged"][0]["merged"]["content"] == "null"  # not the rules' text
    # and null itself, which many clients send for a parameter left out, is "omitted"
    page = await server.call("read_graph", {"cursor": None, "limit": 1})
    assert len(page["memories"]) == 1
    message = await server.error("promote_memory", {"memory_id": None})
    assert "memory_id" in message and "string_type" not in message
    saved = await server.save(f"null fields {unique()}", source=None, context=None)
    assert (saved.get("source"), saved.get("context")) == (None, None)
    assert (await server.call("search_memory", {"query": None, "limit": 1}))["hits"]
    kept = await server.call(
        "update_memory", {"memory_id": saved["id"], "content": None, "strength": 0.5}
    )
    assert (kept["content"], kept["strength"]) == (saved["content"], 0.5)


@pytest.mark.anyio
async def test_no_parameter_takes_a_string_or_null(server: Server) -> None:
    """The SDK parses a string argument as JSON when its parameter is not exactly a string:
    with `str | None`, the text "null" arrived as None (merged_content dropped the caller's
    text; cursor "null" restarted paging). Optional text is a string with "" for omitted."""
    for tool in (await server.session.list_tools()).tools:
        for name, prop in tool.input_schema.get("properties", {}).items():
            kinds = {arm.get("type") for arm in prop.get("anyOf", [])}
            assert not {"string", "null"} <= kinds, f"{tool.name}.{name}"


@pytest.mark.anyio
async def test_touch_counts_a_use_and_boost_adds_strength(server: Server) -> None:
    saved = await server.save()
    touched = await server.call("touch_memory", {"memory_id": saved["id"]})
    assert touched["memory"]["use_count"] == 1
    assert touched["new_score"] > touched["old_score"]
    boosted = await server.call("touch_memory", {"memory_id": saved["id"], "boost": True})
    assert boosted["memory"]["use_count"] == 2
    assert boosted["memory"]["strength"] > saved["strength"]
    # The seed's top-level copies are declared too (computed fields were left out of the
    # output schema, so a client checking results was told they do not exist).
    assert (boosted["memory_id"], boosted["use_count"]) == (saved["id"], 2)
    (tool,) = [t for t in (await server.session.list_tools()).tools if t.name == "touch_memory"]
    assert tool.output_schema is not None
    assert (
        set(boosted) == set(tool.output_schema["properties"]) == set(tool.output_schema["required"])
    )


@pytest.mark.anyio
async def test_observe_reports_cross_domain_use_for_disjoint_context(server: Server) -> None:
    cooking = await server.save("Sourdough needs a warm kitchen", tags=["cooking", "baking"])
    code = await server.save("Prefer pathlib over os.path", tags=["python", "style"])
    observed = await server.call(
        "observe_memory_usage",
        {"memory_ids": [cooking["id"], code["id"]], "context_tags": ["python", "style"]},
    )
    by_id = {r["memory"]["id"]: r for r in observed["results"]}
    assert by_id[cooking["id"]]["cross_domain"] is True
    assert by_id[cooking["id"]]["memory"]["cross_domain_count"] == 1
    assert by_id[cooking["id"]]["memory"]["strength"] > cooking["strength"]
    assert by_id[code["id"]]["cross_domain"] is False
    for result in observed["results"]:
        assert result["memory"]["use_count"] == 1
        assert result["memory"]["review_count"] == 1


@pytest.mark.anyio
async def test_create_relation_is_idempotent_and_read_graph_shows_the_edge(
    server: Server,
) -> None:
    cause, effect = await server.save(), await server.save()
    edge = await server.call(
        "create_relation",
        {
            "from_memory_id": cause["id"],
            "to_memory_id": effect["id"],
            "relation_type": "causes",
            "strength": 0.8,
            "metadata": {"why": "test"},
        },
    )
    assert (edge["from_id"], edge["to_id"], edge["type"]) == (cause["id"], effect["id"], "causes")
    again = await server.call(
        "create_relation",
        {"from_memory_id": cause["id"], "to_memory_id": effect["id"], "relation_type": "causes"},
    )
    assert again["id"] == edge["id"]

    page = await server.call("read_graph", {"limit": 1000})
    while page["next_cursor"] is not None and cause["id"] not in _ids(page):
        page = await server.call("read_graph", {"cursor": page["next_cursor"], "limit": 1000})
    assert cause["id"] in _ids(page)
    (stored,) = [r for r in page["relations"] if r["id"] == edge["id"]]
    assert (stored["strength"], stored["metadata"]) == (0.8, {"why": "test"})

    removed = await server.call("delete_relation", {"relation_id": edge["id"]})
    assert removed == stored
    walk = await server.call("traverse_graph", {"memory_id": cause["id"]})
    assert walk["related"] == []


@pytest.mark.anyio
async def test_traverse_graph_follows_chains_both_ways_and_by_type(server: Server) -> None:
    a, b, c, d = [await server.save() for _ in range(4)]

    async def link(x: dict[str, Any], y: dict[str, Any], kind: str) -> None:
        arguments = {"from_memory_id": x["id"], "to_memory_id": y["id"], "relation_type": kind}
        await server.call("create_relation", arguments)

    await link(a, b, "causes")
    await link(b, c, "causes")
    await link(c, a, "causes")  # a cycle
    await link(d, b, "supports")
    walk = await server.call("traverse_graph", {"memory_id": a["id"], "depth": 3})
    found = {r["memory"]["id"]: (r["depth"], r["reached_from"]) for r in walk["related"]}
    assert found == {
        b["id"]: (1, a["id"]),
        c["id"]: (1, a["id"]),
        d["id"]: (2, b["id"]),
    }
    assert walk["count"] == 3 and walk["memory_id"] == a["id"]
    forward = await server.call(
        "traverse_graph",
        {"memory_id": a["id"], "depth": 5, "types": ["causes"], "direction": "out"},
    )
    assert [(r["memory"]["id"], r["depth"]) for r in forward["related"]] == [
        (b["id"], 1),
        (c["id"], 2),
    ]
    assert forward["related"][1]["relation"]["from_id"] == b["id"]


def _ids(page: dict[str, Any]) -> set[str]:
    return {m["id"] for m in page["memories"]}


@pytest.mark.anyio
async def test_read_graph_pages_through_memories_in_save_order(server: Server) -> None:
    marker = await server.save()  # pages start after it: earlier tests' memories stay out
    saved = [(await server.save())["id"] for _ in range(25)]
    pages, cursor = [], marker["id"]
    while cursor is not None:
        page = await server.call("read_graph", {"cursor": cursor, "limit": 10})
        pages.append([m["id"] for m in page["memories"]])
        cursor = page["next_cursor"]
        assert len(pages) <= 3
    assert [len(p) for p in pages] == [10, 10, 5]
    assert [i for p in pages for i in p] == saved


@pytest.mark.anyio
async def test_delete_removes_and_skips_unknown_ids(server: Server) -> None:
    doomed = await server.save()
    before = await server.stats()
    deleted = await server.call(
        "delete_memory", {"memory_ids": [doomed["id"], f"ghost-{unique()}"]}
    )
    assert (deleted["action"], deleted["count"]) == ("deleted", 1)
    opened = await server.call("open_memories", {"memory_ids": [doomed["id"]]})
    assert opened["missing"] == [doomed["id"]]
    assert (await server.stats())["total"] == before["total"] - 1


@pytest.mark.anyio
async def test_delete_with_archive_keeps_the_memory_archived(server: Server) -> None:
    word = f"archived{unique()}"
    kept = await server.save(f"{word} old plan")
    before = await server.stats()
    archived = await server.call("delete_memory", {"memory_ids": [kept["id"]], "archive": True})
    assert archived == {
        "action": "archived",
        "count": 1,
        "memory_ids": [kept["id"]],
        "left_behind": [],
    }
    opened = await server.call("open_memories", {"memory_ids": [kept["id"]]})
    assert opened["memories"][0]["status"] == "archived"
    hidden = await server.call("search_memory", {"query": word})
    assert kept["id"] not in [h["id"] for h in hidden["hits"]]
    found = await server.call("search_memory", {"query": word, "status": ["archived"]})
    assert found["hits"][0]["id"] == kept["id"]
    after = await server.stats()
    assert after["total"] == before["total"]
    assert after["by_status"]["archived"] == before["by_status"]["archived"] + 1


@pytest.mark.anyio
async def test_gc_lists_in_a_dry_run_then_archives_or_deletes(server: Server) -> None:
    faded = await server.save(strength=0.0)  # scores 0: below the forget threshold at once
    before = await server.stats()
    dry = await server.call("gc", {})
    assert dry["dry_run"] is True and faded["id"] in dry["memory_ids"]
    assert await server.stats() == before

    archived = await server.call("gc", {"dry_run": False, "archive_instead": True})
    assert archived["archived"] is True and faded["id"] in archived["memory_ids"]
    opened = await server.call("open_memories", {"memory_ids": [faded["id"]]})
    assert opened["memories"][0]["status"] == "archived"

    gone = await server.save(strength=0.0)
    deleted = await server.call("gc", {"dry_run": False})
    assert gone["id"] in deleted["memory_ids"]
    assert (await server.call("open_memories", {"memory_ids": [gone["id"]]}))["missing"] == [
        gone["id"]
    ]


@pytest.mark.anyio
async def test_promotion_candidates_include_a_memory_used_often(server: Server) -> None:
    favourite = await server.save()
    for _ in range(5):  # promote_use_count
        await server.call("touch_memory", {"memory_id": favourite["id"]})
    found = await server.call("promotion_candidates", {"limit": 100})
    reasons = {c["memory"]["id"]: c["reason"] for c in found["candidates"]}
    assert reasons.get(favourite["id"]) == "usage"


@pytest.mark.anyio
async def test_review_candidates_include_a_memory_in_the_danger_zone(server: Server) -> None:
    fading = await server.save(strength=0.25)  # score 0.25: mid danger zone (0.15-0.35)
    found = await server.call("review_candidates", {"limit": 100})
    by_id = {c["memory"]["id"]: c for c in found["candidates"]}
    assert by_id[fading["id"]]["review_priority"] > 0.9
    assert by_id[fading["id"]]["score"] == pytest.approx(0.25, abs=0.01)


@pytest.mark.anyio
async def test_memory_stats_counts_saves_relations_and_archives(server: Server) -> None:
    before = await server.stats()
    one, two = await server.save(), await server.save()
    await server.call("create_relation", {"from_memory_id": one["id"], "to_memory_id": two["id"]})
    await server.call("delete_memory", {"memory_ids": [two["id"]], "archive": True})
    after = await server.stats()
    assert after["total"] == before["total"] + 2
    assert after["by_status"]["active"] == before["by_status"]["active"] + 1
    assert after["by_status"]["archived"] == before["by_status"]["archived"] + 1
    assert after["relations"] == before["relations"] + 1
    assert after["location"].endswith("engram.db")
    assert after["decay_model"] == "power_law"


@pytest.mark.anyio
async def test_concurrent_calls_are_all_served(server: Server) -> None:
    """Tool calls run in worker threads: many in flight at once all complete, none is lost."""
    memory = await server.save()
    before = await server.stats()

    async def save_one(i: int) -> None:
        await server.save(f"parallel {i} {unique()}")

    async def touch_once() -> None:
        await server.call("touch_memory", {"memory_id": memory["id"]})

    async with anyio.create_task_group() as group:
        for i in range(10):
            group.start_soon(save_one, i)
            group.start_soon(touch_once)
    assert (await server.stats())["total"] == before["total"] + 10
    opened = await server.call("open_memories", {"memory_ids": [memory["id"]]})
    assert opened["memories"][0]["use_count"] == 10


# -- bad input ------------------------------------------------------------------------------

BAD_INPUT = [
    ("save_memory", {"content": "   "}, ["content", "non-blank"]),
    ("save_memory", {"content": ""}, ["content", "at least 1 character"]),
    ("save_memory", {"content": "x" * 50_001}, ["content", "50000"]),
    ("save_memory", {"content": "ok", "tags": [f"t{i}" for i in range(51)]}, ["tags", "50"]),
    ("save_memory", {"content": "ok", "tags": ["x" * 101]}, ["tags", "100"]),
    ("save_memory", {"content": "ok", "strength": 3}, ["strength", "2"]),
    ("save_memory", {"content": "ok", "meta": {"blob": "x" * 20_001}}, ["meta", "20,000"]),
    ("search_memory", {"limit": 0}, ["limit", "1"]),
    ("search_memory", {"limit": 101}, ["limit", "100"]),
    ("search_memory", {"status": ["deleted"]}, ["status"]),
    ("touch_memory", {"memory_id": "not an id!"}, ["memory_id", "pattern"]),
    ("touch_memory", {"memory_id": "no-such-memory"}, ["not found", "no-such-memory"]),
    ("open_memories", {"memory_ids": []}, ["memory_ids", "at least 1"]),
    ("open_memories", {"memory_ids": ["ok", "../etc/passwd"]}, ["memory_ids", "pattern"]),
    ("update_memory", {"memory_id": "some-id"}, ["update", "at least one field"]),
    ("delete_memory", {"memory_ids": ["no-such-memory"], "archive": True}, ["not found"]),
    (
        "create_relation",
        {"from_memory_id": "a", "to_memory_id": "b", "relation_type": "likes"},
        ["relation_type", "related"],
    ),
    ("create_relation", {"from_memory_id": "a", "to_memory_id": "a"}, ["to_memory_id", "itself"]),
    (
        "create_relation",
        {"from_memory_id": "a", "to_memory_id": "b", "strength": 3},
        ["strength", "1"],
    ),
    ("delete_relation", {"relation_id": "no-such-relation"}, ["not found", "no-such-relation"]),
    ("delete_relation", {"relation_id": "not an id!"}, ["relation_id", "pattern"]),
    ("read_graph", {"limit": 1_001}, ["limit", "1000"]),
    ("read_graph", {"cursor": "bad cursor"}, ["cursor", "pattern"]),
    ("traverse_graph", {"memory_id": "a", "depth": 6}, ["depth", "5"]),
    ("traverse_graph", {"memory_id": "a", "depth": 0}, ["depth", "1"]),
    ("traverse_graph", {"memory_id": "a", "types": ["likes"]}, ["types"]),
    ("traverse_graph", {"memory_id": "a", "direction": "up"}, ["direction"]),
    ("traverse_graph", {"memory_id": "no-such-memory"}, ["not found", "no-such-memory"]),
    ("gc", {"limit": 0}, ["limit"]),
    ("promotion_candidates", {"limit": 101}, ["limit", "100"]),
    ("review_candidates", {"limit": 0}, ["limit", "1"]),
    # read as 1 by pydantic, refused by the Python API and the CLI
    ("search_memory", {"limit": True}, ["limit", "not true or false"]),
    ("traverse_graph", {"memory_id": "a", "depth": True}, ["depth", "not true or false"]),
    # read as 0.0 / 1.0: `"strength": false` zeroed a memory, and the next gc forgot it
    ("update_memory", {"memory_id": "some-id", "strength": False}, ["strength", "true or false"]),
    ("save_memory", {"content": "x", "strength": True}, ["strength", "not true or false"]),
    (
        "create_relation",
        {"from_memory_id": "a", "to_memory_id": "b", "strength": True},
        ["strength", "not true or false"],
    ),
    ("search_memory", {"query": "x", "window_days": True}, ["window_days", "true or false"]),
    ("search_memory", {"query": "x", "min_score": False}, ["min_score", "true or false"]),
    ("search_unified", {"query": "x", "ltm_weight": True}, ["ltm_weight", "true or false"]),
    ("cluster_memories", {"similarity_threshold": True}, ["similarity_threshold", "true or"]),
    # a flag given as text or a number: "no" was read as false, and `gc` deleted what the
    # caller asked to have listed (audit)
    ("gc", {"dry_run": "no"}, ["dry_run", "must be true or false, not the text 'no'"]),
    ("gc", {"dry_run": 0}, ["dry_run", "must be true or false, not int"]),
    ("gc", {"archive_instead": "yes"}, ["archive_instead", "true or false"]),
    ("save_memory", {"content": "x", "keep": "yes"}, ["keep", "true or false"]),
    ("update_memory", {"memory_id": "some-id", "keep": 1}, ["keep", "true or false"]),
    ("promote_memory", {"auto_detect": "on", "dry_run": True}, ["auto_detect", "true or false"]),
    ("promote_memory", {"memory_id": "a", "dry_run": "off"}, ["dry_run", "true or false"]),
    ("delete_memory", {"memory_ids": ["a"], "archive": "yes"}, ["archive", "true or false"]),
    ("search_memory", {"query": "x", "verbose": "1"}, ["verbose", "true or false"]),
    ("touch_memory", {"memory_id": "a", "boost": "y"}, ["boost", "true or false"]),
    ("consolidate_memories", {"auto_detect": "yes"}, ["auto_detect", "true or false"]),
    ("undo_consolidation", {"merged_id": "a", "force": "y"}, ["force", "true or false"]),
    ("run_pipeline", {"dry_run": "no"}, ["dry_run", "true or false"]),
    # an empty selection ran all five agents; an empty cluster list did nothing, silently
    ("run_pipeline", {"agents": []}, ["agents", "at least 1"]),
    ("consolidate_memories", {"cluster_ids": []}, ["cluster_ids", "at least 1"]),
]


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    BAD_INPUT,
    ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(BAD_INPUT)],
)
async def test_bad_input_is_a_readable_error_and_changes_nothing(
    server: Server, tool: str, arguments: dict[str, Any], expected: list[str]
) -> None:
    before = await server.stats()
    message = await server.error(tool, arguments)
    for part in expected:
        assert part in message, message
    assert await server.stats() == before


@pytest.mark.anyio
async def test_a_refused_argument_is_named_with_its_problem_alone(server: Server) -> None:
    """The SDK's report named its model ("1 validation error for save_memoryArguments"),
    repeated the value and sent a web address with every refusal a model reads."""
    missing = await server.error("save_memory", {})
    assert missing == "Error executing tool save_memory: content: is required"
    empty = await server.error("save_memory", {"content": ""})
    assert (
        empty
        == "Error executing tool save_memory: content: String should have at least 1 character"
    )
    both = await server.error("search_memory", {"query": 5, "limit": 0})
    assert "query: " in both and "; limit: " in both
    flag = await server.error("gc", {"dry_run": "no"})
    assert flag == "Error executing tool gc: dry_run: must be true or false, not the text 'no'"
    for message in (missing, empty, both, flag):
        assert "pydantic" not in message and "Arguments" not in message and "\n" not in message


@pytest.mark.anyio
async def test_a_bad_item_in_a_batch_changes_none_of_it(server: Server) -> None:
    real = await server.save()
    before = await server.stats()
    message = await server.error(
        "delete_memory", {"memory_ids": [real["id"], "no-such-memory"], "archive": True}
    )
    assert "not found" in message
    assert await server.stats() == before
    opened = await server.call("open_memories", {"memory_ids": [real["id"]]})
    assert opened["memories"][0]["status"] == "active"


@pytest.mark.anyio
@pytest.mark.parametrize("tool", sorted(TOOLS))
async def test_an_unknown_argument_is_an_error_naming_it(server: Server, tool: str) -> None:
    """Never dropped silently: `tag` for `tags` would otherwise save a memory without tags."""
    before = await server.stats()
    message = await server.error(tool, {"no_such_argument": 1})
    assert "no_such_argument" in message and f"not an argument of {tool}" in message
    assert await server.stats() == before


@pytest.mark.anyio
async def test_a_misspelled_argument_names_the_closest_valid_one(server: Server) -> None:
    before = await server.stats()
    message = await server.error("save_memory", {"content": "Likes jazz", "tag": ["music"]})
    assert message.startswith("Error executing tool save_memory: ")  # as any tool error
    assert "tag: is not an argument of save_memory; did you mean 'tags'?" in message
    assert await server.stats() == before


@pytest.mark.anyio
async def test_the_seeds_documented_tool_calls_run_unchanged(server: Server) -> None:
    """The calls of the seed's readme ("MCP Tools"), argument for argument."""
    saved = await server.save(f"Prefers TypeScript over JavaScript {unique()}", tags=["prefs"])
    touched = await server.call("touch_memory", {"memory_id": saved["id"], "boost_strength": True})
    assert touched["memory_id"] == saved["id"] and touched["use_count"] == 1
    assert touched["strength"] > saved["strength"]  # boost_strength is boost, not dropped
    assert touched["new_score"] > touched["old_score"]
    found = await server.call(
        "search_memory",
        {"query": "typescript preferences", "tags": ["prefs"], "limit": 5, "verbose": True},
    )
    assert found["hits"][0]["memory"]["id"] == saved["id"]
    top = await server.call("search_memory", {"query": "typescript", "top_k": 1})
    assert len(top["hits"]) == 1
    # the seed's unified-search example, as its README prints it (verbose was refused)
    unified = await server.call(
        "search_unified",
        {"query": "typescript preferences", "tags": ["prefs"], "limit": 5, "verbose": True},
    )
    assert [h["id"] for h in unified["hits"]] == [saved["id"]]
    assert unified["hits"][0]["why"]["rank"] > 0  # the scores verbose asks for
    # to three decimals, as search_memory gives them (a probe: 0.9999998855931452)
    numbers = [h["rank"] for h in unified["hits"]] + [
        v for h in unified["hits"] for v in h["why"].values() if isinstance(v, float)
    ]
    assert numbers and all(v == round(v, 3) for v in numbers)
    refused = await server.error("search_unified", {"query": "x", "verbose": False})
    assert "verbose: search_unified always gives its scores" in refused
    # accepted; this server has no vault (the seed's promote calls run in test_mcp_ltm.py)
    no_vault = await server.error("promote_memory", {"auto_detect": True, "dry_run": True})
    assert "ENGRAM_VAULT_PATH" in no_vault
    preview = await server.call(
        "consolidate_memories",
        {"auto_detect": True, "mode": "preview", "cohesion_threshold": 0.75},
    )
    assert preview["mode"] == "preview"
    message = await server.error(
        "promote_memory", {"memory_id": saved["id"], "dry_run": True, "target": "notion"}
    )
    assert "target" in message


@pytest.mark.anyio
async def test_an_alias_and_its_parameter_together_are_an_error(server: Server) -> None:
    message = await server.error("search_memory", {"query": "x", "limit": 3, "top_k": 5})
    assert "top_k: is another name for 'limit'" in message
    # The alias is named whichever of the two comes first.
    message = await server.error("search_memory", {"query": "x", "top_k": 5, "limit": 3})
    assert "top_k: is another name for 'limit'" in message


@pytest.mark.anyio
async def test_an_alias_given_a_bad_value_is_named_as_the_caller_spelled_it(
    server: Server,
) -> None:
    """A CortexGraph call was told about `limit` or `cluster_ids.0`, fields its API lacks."""
    cases = {
        ("search_memory", "top_k"): {"query": "x", "top_k": 500},
        ("touch_memory", "boost_strength"): {"memory_id": "abc", "boost_strength": 1.5},
        ("cluster_memories", "threshold"): {"threshold": 1.5},
        ("consolidate_memories", "cluster_id"): {"cluster_id": ""},
    }
    for (tool, alias), arguments in cases.items():
        message = await server.error(tool, arguments)
        ours = {"top_k": "limit", "boost_strength": "boost", "threshold": "similarity_threshold"}
        assert alias in message, (tool, message)
        field = ours.get(alias, "cluster_ids")
        assert not re.search(rf"^{field}(?:\.\d+)?$", message, re.M), (tool, message)


@pytest.mark.anyio
async def test_a_save_saying_a_fact_changed_supersedes_it_over_mcp(server: Server) -> None:
    """save_memory names the fact a change replaces, and search lists the news first."""
    team = f"team{unique()}"
    old = await server.save(f"The {team} continuous integration runs on Jenkins")
    changed = await server.call(
        "save_memory",
        {"content": f"The {team} switched continuous integration from Jenkins to GitHub Actions"},
    )
    assert changed["supersedes"] == [old["id"]]
    graph = await server.call("traverse_graph", {"memory_id": old["id"], "depth": 1})
    assert "supersedes" in json.dumps(graph)
    hits = await server.call("search_memory", {"query": f"{team} jenkins", "limit": 2})
    assert [h["id"] for h in hits["hits"]] == [changed["memory"]["id"], old["id"]]
    assert f"superseded by {changed['memory']['id']}," in hits["hits"][1]["why"]
    plain = await server.call("save_memory", {"content": f"The {team} likes pizza on Fridays"})
    assert plain["supersedes"] == []


@pytest.mark.anyio
async def test_natural_language_activation_over_mcp(server: Server) -> None:
    """The seed's flow: the assistant asks whether to save, saves what it is told, recalls on
    a question, and reinforces on a confirmation."""
    project = unique()
    said = f"Remember: I prefer TypeScript over JavaScript for project {project}"
    advice = await server.call("analyze_message", {"message": said})
    assert advice["intent"] == "save" and advice["phrase"] == "Remember"
    assert advice["entities"][:2] == ["TypeScript", "JavaScript"]
    assert advice["strength"] > 1.0 and "asked to remember" in advice["why"][0]
    done = await server.call(
        "save_memory",
        {
            "content": advice["content"],
            "tags": advice["tags"],
            "entities": advice["entities"],
            "strength": advice["strength"],
        },
    )
    memory = done["memory"]
    assert memory["strength"] == advice["strength"]
    marked = await server.call("save_memory", {"content": f"Important: deploy freeze {unique()}"})
    assert marked["memory"]["strength"] > 1.0  # no strength given: from its wording
    assert "important" in marked["enrichment"]["why"][0]
    recall = await server.call(
        "analyze_for_recall", {"message": "What did I say about TypeScript?"}
    )
    assert recall["should_search"] and recall["query"] == "TypeScript?"
    hits = await server.call("search_memory", {"query": recall["query"]})
    assert memory["id"] in [h["id"] for h in hits["hits"]]
    confirm = await server.call(
        "analyze_message",
        {"message": "Yes, still using TypeScript", "recent_memory_ids": [memory["id"]]},
    )
    assert (confirm["intent"], confirm["touch"]) == ("reinforce", [memory["id"]])
    nothing = await server.call("analyze_message", {"message": "Why is the sky blue?"})
    assert (nothing["intent"], nothing["should_save"]) == ("none", False)
    # docs/tools.md gives [] as the default of recent_memory_ids: nothing was shown, and the
    # stored memory the confirmation names is the one to touch (of this module's store, the
    # TypeScript memory most alike)
    shown_none = await server.call(
        "analyze_message", {"message": "Yes, still using TypeScript", "recent_memory_ids": []}
    )
    typescript = await server.call("search_memory", {"query": "TypeScript", "limit": 50})
    assert shown_none["intent"] == "reinforce" and len(shown_none["touch"]) == 1
    assert shown_none["touch"][0] in [h["id"] for h in typescript["hits"]]
    # asked to forget it: the memory it names first, for the assistant to delete once confirmed
    drop = await server.call(
        "analyze_message", {"message": f"Please forget what I said about project {project}"}
    )
    assert (drop["intent"], drop["forget"][0]) == ("forget", memory["id"])


@pytest.mark.anyio
async def test_the_pipeline_over_mcp_plans_applies_and_audits(tmp_path: Path) -> None:
    async with running_server(tmp_path / "pipeline", ENGRAM_SAVE_DUPLICATES="keep") as s:
        for text in ("Prefers tea over coffee", "prefers tea over coffee!"):
            await s.save(text)
        plan = await s.call("run_pipeline", {"agents": ["SemanticMerge"]})
        assert plan["dry_run"] and [st["action"] for st in plan["steps"]] == ["merge"]
        assert (await s.stats())["total"] == 2  # a dry run changes nothing
        done = await s.call("apply_plan", {"plan_id": plan["plan_id"]})
        assert [st["result"] for st in done["steps"]] == ["done"]
        trail = await s.call("audit_trail", {"plan_id": plan["plan_id"]})
        assert [e["result"] for e in trail["entries"]] == ["done", "planned"]
        again = await s.error("apply_plan", {"plan_id": plan["plan_id"]})
        assert "was applied already" in again
        bad = await s.error("run_pipeline", {"agents": ["Gardener"]})
        assert "agents" in bad


# -- separate servers ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_fresh_store_is_empty_and_gc_dry_run_changes_nothing(tmp_path: Path) -> None:
    async with running_server(tmp_path / "fresh") as fresh:
        before = await fresh.stats()
        assert before["total"] == 0 and before["relations"] == 0
        dry = await fresh.call("gc", {})
        assert dry == {
            "dry_run": True,
            "archived": False,
            "count": 0,
            "memory_ids": [],
            "has_more": False,
            "promoted": [],
            "promote_error": None,
        }
        assert await fresh.stats() == before
        page = await fresh.call("read_graph", {})
        assert page == {"memories": [], "relations": [], "next_cursor": None}
        assert (await fresh.call("search_memory", {}))["count"] == 0


@pytest.mark.anyio
async def test_a_bad_setting_becomes_a_tool_error_naming_it(tmp_path: Path) -> None:
    async with running_server(tmp_path / "misconfigured", ENGRAM_DECAY_BETA="lots") as broken:
        message = await broken.error("memory_stats", {})
        assert "ENGRAM_DECAY_BETA" in message
    assert not (tmp_path / "misconfigured" / "engram.db").exists()


def initialize_request(client: str, request_id: int = 1) -> dict[str, Any]:
    """The handshake's first request, as a client writes it on the wire."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": client, "version": "0"},
        },
    }


class RawServer:
    """The server process with bare pipes: every stdout line is ours to inspect.

    stderr goes to a file, not a pipe: at DEBUG level the server logs a lot, and an unread pipe
    would fill up and stall it.
    """

    def __init__(
        self, home: Path, *, args: Sequence[str] = ("-m", "engram.mcp"), **env: str
    ) -> None:
        params = server_params(home, args=args, **env)
        self.stderr_path = home / "server-stderr.log"
        with self.stderr_path.open("w") as errlog:
            self.process = subprocess.Popen(
                [params.command, *params.args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errlog,
                env={**get_default_environment(), **(params.env or {})},
                cwd=params.cwd,
                text=True,
            )
        self.lines: queue.Queue[str] = queue.Queue()
        self.stdout: list[str] = []
        self._pump = threading.Thread(target=self._read_stdout, daemon=True)
        self._pump.start()

    def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def response(self, request_id: int) -> dict[str, Any]:
        while True:
            line = self.lines.get(timeout=30)
            self.stdout.append(line)
            message = json.loads(line)
            if message.get("id") == request_id:
                return dict(message)

    def initialize(self, client: str, request_id: int = 1) -> dict[str, Any]:
        """The handshake's first request; its answer."""
        self.send(initialize_request(client, request_id))
        return self.response(request_id)

    def call(self, request_id: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        params = {"name": tool, "arguments": arguments}
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})
        return dict(self.response(request_id)["result"])

    def finish(self) -> str:
        """Close stdin (the client is leaving); return stderr once the server has exited."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)
        self._pump.join(timeout=30)
        while not self.lines.empty():
            self.stdout.append(self.lines.get())
        return self.stderr_path.read_text()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None and not pipe.closed:
                pipe.close()


@pytest.fixture
def raw_server(tmp_path: Path) -> Iterator[RawServer]:
    home = tmp_path / "raw"
    home.mkdir()
    raw = RawServer(home, ENGRAM_LOG_LEVEL="DEBUG")
    try:
        yield raw
    finally:
        raw.close()


def test_the_server_warms_up_for_search_before_the_first_call(raw_server: RawServer) -> None:
    """The model and the vector index load in the background right after start-up, so the
    first search does not wait for them (a search that comes sooner answers from text alone:
    tests/services/test_semantic.py)."""
    assert raw_server.initialize("warm-test")["result"]["serverInfo"]["name"] == "engram"
    deadline = time.monotonic() + 60
    while "ready to search by meaning" not in raw_server.stderr_path.read_text():
        assert time.monotonic() < deadline, "no warm-up within 60 s, and no tool was called"
        time.sleep(0.1)


def test_the_store_and_the_model_load_before_the_sdk_is_imported(tmp_path: Path) -> None:
    """`python -m engram.mcp` and `engram serve` start opening the store and loading the
    model before they import the MCP SDK (a second of imports on its own), so the first search
    after `initialize` finds the model ready. Here, in a fresh interpreter, the whole warm-up
    runs while no module of the SDK is loaded."""
    code = (
        "import sys\n"
        "from engram.mcp.launch import start\n"
        "settings, runtime = start()\n"
        "runtime.app().context.warm_up.wait()\n"
        "print([m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types')])\n"
    )
    params = server_params(tmp_path, ENGRAM_LOG_LEVEL="INFO")
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**get_default_environment(), **(params.env or {})},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    assert "store open:" in done.stderr
    assert "ready to search by meaning" in done.stderr  # the model and the index loaded


def test_a_threshold_that_is_not_a_number_is_named_so(raw_server: RawServer) -> None:
    """NaN was told "should be less than or equal to 1", as if it were a number too large
    (an MCP probe); every other number said it must be finite. Sent raw: the SDK's client
    turns NaN into null."""
    raw_server.initialize("nan-test")
    raw_server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for ident, (tool, name, value) in enumerate(
        [
            ("cluster_memories", "similarity_threshold", math.nan),
            ("consolidate_memories", "cohesion_threshold", math.inf),
        ],
        start=2,
    ):
        answer = raw_server.call(ident, tool, {name: value})
        assert answer["isError"] is True
        assert f"{name}: Input should be a finite number" in answer["content"][0]["text"]


def test_stdout_carries_only_protocol_messages_even_at_debug(raw_server: RawServer) -> None:
    assert raw_server.initialize("raw-test")["result"]["serverInfo"]["name"] == "engram"
    raw_server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert raw_server.call(2, "save_memory", {"content": "hi"})["isError"] is False
    assert raw_server.call(3, "save_memory", {"content": " "})["isError"] is True
    assert raw_server.call(4, "memory_stats", {})["structuredContent"]["total"] == 1

    stderr = raw_server.finish()
    assert raw_server.process.returncode == 0
    assert raw_server.stdout, "no protocol traffic at all"
    for line in raw_server.stdout:
        assert json.loads(line)["jsonrpc"] == "2.0", line
    assert "serving MCP over stdio" in stderr  # the logs exist, and went to stderr
    assert stderr.count("store open:") == 1  # once: not echoed by the SDK's root handler
    assert "Traceback" not in stderr


# -- in-process: what happens before and around the first call ------------------------------


def test_building_the_server_opens_nothing(tmp_path: Path) -> None:
    build_server()
    build_server(load_settings(storage_path=str(tmp_path / "explicit.db")))
    assert not (tmp_path / "engram.db").exists()  # ENGRAM_STORAGE_PATH of the hermetic fixture
    assert not (tmp_path / "explicit.db").exists()


@pytest.mark.anyio
async def test_an_unreadable_store_is_a_tool_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a SQLite database" * 100)
    with caplog.at_level(logging.WARNING, logger="engram"):
        async with Client(build_server(load_settings(storage_path=str(garbage)))) as client:
            result = await client.call_tool("memory_stats", {})
    assert result.is_error
    assert "is not a SQLite store; nothing was changed" in text_of(result)
    # the log says so at start-up too (it said nothing: the server looked healthy)
    assert any("cannot open the store" in r.getMessage() for r in caplog.records)


@pytest.mark.anyio
async def test_a_client_session_is_one_episode(tmp_path: Path) -> None:
    """The server fills in the episode by itself: one per client session, in saving order; the
    neighbour of a match in that conversation is found through it (`why.context`)."""
    async with running_server(tmp_path) as first:
        plan = await first.save("Let's plan the kayak trip")
        reply = await first.save("Sure, which weekend works?")
    async with running_server(tmp_path) as second:
        later = await second.save("Sure, which weekend works? Asking again")
        assert plan["episode"] and plan["episode"] == reply["episode"] != later["episode"]
        assert (plan["episode_seq"], reply["episode_seq"], later["episode_seq"]) == (0, 1, 0)
        found = await second.call("search_memory", {"query": "kayak", "verbose": True})
        by_id = {hit["id"]: hit for hit in found["hits"]}
        assert by_id[reply["id"]]["details"]["context"] > 0
        assert "context" in by_id[reply["id"]]["why"]
        assert later["id"] not in by_id


KILLED_AFTER_SAVING = """
import os, signal, sys
from engram import Engram
mem = Engram.open(sys.argv[1])
for i in range(40):
    mem.save(f"The flight to Lisbon number {i} leaves at 9am")
print("saved", flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # vectors still being computed in the background
"""


@pytest.mark.anyio
async def test_vectors_pending_at_a_crash_are_computed_by_the_server_in_the_background(
    tmp_path: Path,
) -> None:
    db = tmp_path / "engram.db"
    child = subprocess.run(
        [sys.executable, "-c", KILLED_AFTER_SAVING, str(db)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert child.returncode == -signal.SIGKILL and child.stdout == "saved\n", child.stderr
    with Engram.open(str(db), embedding_model="none") as mem:
        assert mem.stats().total == 40  # every acknowledged save is there
    async with running_server(tmp_path) as server:
        # The server catches up in the background while idle; wait for it, boundedly.
        for _ in range(300):
            found = await server.call(
                "search_memory", {"query": "when does my plane depart", "verbose": True}
            )
            if found["count"] == 10 and all(h["details"]["semantic"] for h in found["hits"]):
                break
            await anyio.sleep(0.1)
        assert found["count"] == 10 and all(h["details"]["semantic"] for h in found["hits"])
        for _ in range(300):
            stats = await server.call("memory_stats")
            with Engram.open(str(db), embedding_model="none") as mem:
                if mem.app.context.store.vector_counts() == {MODEL_ID: 40}:
                    break
            await anyio.sleep(0.1)
    with Engram.open(str(db)) as mem:
        assert mem.embedding_status().vectors == {MODEL_ID: 40}
        assert stats["total"] == 40


@pytest.mark.anyio
async def test_saving_a_repeat_merges_it_into_the_stored_memory(server: Server) -> None:
    code = unique()  # letters and digits: an identifier, whose case is part of the fact
    first = await server.call(
        "save_memory", {"content": f"Prefers oolong tea {code}", "tags": ["drinks"]}
    )
    again = await server.call(
        "save_memory", {"content": f"PREFERS OOLONG Tea {code}!", "tags": ["morning"]}
    )
    assert first["action"] == "saved" and first["duplicate_of"] is None
    assert again["action"] == "merged" and again["duplicate_of"] == first["memory"]["id"]
    assert again["memory"]["tags"] == ["drinks", "morning"]
    assert again["memory"]["use_count"] == first["memory"]["use_count"] + 1


@pytest.mark.anyio
async def test_consolidation_over_mcp_previews_merges_and_undoes(server: Server) -> None:
    tag = unique()
    texts = (f"Kate {tag} likes skiing in the Alps", f"Kate {tag} enjoys skiing in the Alps")
    ids = [(await server.save(t))["id"] for t in texts]
    found = await server.call("cluster_memories", {"memory_ids": ids})
    (cluster,) = found["clusters"]
    assert cluster["action"] in ("merge", "review")
    assert cluster["merged_preview"]["content"].splitlines() == list(texts)
    preview = await server.call("consolidate_memories", {"memory_ids": ids, "auto_detect": False})
    assert preview["merged"] == [] and preview["mode"] == "preview"
    applied = await server.call(
        "consolidate_memories", {"memory_ids": ids, "auto_detect": False, "mode": "apply"}
    )
    (done,) = applied["merged"]
    assert sorted(done["archived_ids"]) == sorted(ids)
    undone = await server.call("undo_consolidation", {"merged_id": done["merged"]["id"]})
    assert sorted(undone["restored_ids"]) == sorted(ids)
    message = await server.error("consolidate_memories", {"mode": "apply", "cluster_ids": ["nope"]})
    assert "cluster_ids" in message
    # After the undo, the assistant merges them in its own words.
    own = f"Kate {tag} likes and enjoys skiing in the Alps"
    written = await server.call(
        "consolidate_memories",
        {"memory_ids": ids, "auto_detect": False, "mode": "apply", "merged_content": own},
    )
    (done,) = written["merged"]
    assert done["merged"]["content"] == own and done["path"] == "approved with the caller's text"


@pytest.mark.anyio
async def test_memories_kept_apart_over_mcp_are_not_clustered_again(server: Server) -> None:
    tag = unique()
    texts = (f"Kate {tag} likes skiing in the Alps", f"Kate {tag} enjoys skiing in the Alps")
    ids = [(await server.save(t))["id"] for t in texts]
    assert len((await server.call("cluster_memories", {"memory_ids": ids}))["clusters"]) == 1
    kept = await server.call("keep_memories_apart", {"memory_ids": ids})
    assert (kept["memory_ids"], kept["marked"], kept["already"]) == (sorted(ids), 1, 0)
    assert (await server.call("cluster_memories", {"memory_ids": ids}))["clusters"] == []
    message = await server.error("keep_memories_apart", {})
    assert "memory_ids or cluster_ids" in message


@pytest.mark.anyio
async def test_ten_typical_hits_fit_in_three_kilobytes(tmp_path: Path) -> None:
    """Every hit lands in the assistant's context window: compact by default."""
    async with running_server(tmp_path) as server:
        for i in range(12):
            await server.save(
                f"Project Atlas decision {i}: PostgreSQL 16 for the billing service, "
                f"reviewed with Dana in sprint {i}",
                tags=["decision", "atlas"],
            )
        result = await server.result("search_memory", {"query": "atlas decision", "limit": 10})
        compact = result.structured_content
        assert compact is not None and compact["count"] == 10
        assert len(json.dumps(compact)) <= 3_000
        # What most clients show the model: the same content as compact JSON, not indented.
        (block,) = result.content
        assert isinstance(block, types.TextContent) and json.loads(block.text) == compact
        assert "\n" not in block.text and len(block.text.encode()) <= 3_000
        verbose = await server.call(
            "search_memory", {"query": "atlas decision", "limit": 10, "verbose": True}
        )
        assert len(json.dumps(verbose)) > 2 * len(json.dumps(compact))
        assert verbose["hits"][0]["memory"]["id"] == compact["hits"][0]["id"]


@pytest.mark.anyio
async def test_a_long_memory_is_cut_in_a_search_hit_not_in_its_record(tmp_path: Path) -> None:
    """A 50,000-character memory made one compact answer 50 KB (found here by its words; a
    context credit brought it along as well). The hit shows its start and how long it is;
    `verbose` and `open_memories` give it whole, and the client's schema check passes."""
    async with running_server(tmp_path) as server:
        long = "Atlas migration log. " + "step done and checked. " * 2_000
        saved = await server.save(long)
        short = await server.save("Atlas migration finished on Friday")
        found = await server.call("search_memory", {"query": "atlas migration"})
        hits = {h["id"]: h for h in found["hits"]}
        cut = hits[saved["id"]]
        assert cut["content"].endswith(" …") and long.startswith(cut["content"][:-2])
        assert len(cut["content"]) <= 2_002 and cut["content_length"] == len(long)
        assert "content_length" not in hits[short["id"]]  # a whole one says nothing more
        assert len(json.dumps(found)) < 3_000
        verbose = await server.call("search_memory", {"query": "atlas migration", "verbose": True})
        whole = {h["id"]: h for h in verbose["hits"]}[saved["id"]]
        assert whole["memory"]["content"] == long
        opened = await server.call("open_memories", {"memory_ids": [saved["id"]]})
        assert opened["memories"][0]["content"] == long


def _to_the_process(pid: int, signum: int) -> None:
    os.kill(pid, signum)


@pytest.mark.parametrize(
    ("send", "signum"),
    [
        (_to_the_process, signal.SIGINT),
        (_to_the_process, signal.SIGTERM),
        pytest.param(
            signal_another_thread,
            signal.SIGINT,
            marks=pytest.mark.skipif(
                not sys.platform.startswith("linux"), reason="sends to one thread with tgkill"
            ),
        ),
    ],
)
def test_ctrl_c_or_sigterm_stops_the_server_while_the_client_keeps_stdin_open(
    tmp_path: Path, send: Callable[[int, int], None], signum: int
) -> None:
    """The SDK reads stdin on a thread that returns only when the client closes it; Ctrl-C
    (SIGINT) or SIGTERM must stop the server anyway, promptly and without a traceback, whichever
    of its threads the kernel hands the signal to. When it was not the main thread, the main
    thread slept on in the event loop's wait: the server stopped 30 s late, once in five runs."""
    params = server_params(tmp_path)
    with subprocess.Popen(
        [params.command, *params.args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**get_default_environment(), **(params.env or {})},
        cwd=tmp_path,
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        assert server.stderr is not None
        hello = initialize_request("test")
        server.stdin.write((json.dumps(hello) + "\n").encode())
        server.stdin.flush()
        ready, _, _ = select.select([server.stdout], [], [], 60)  # bounded: never hang the suite
        assert ready, "the server did not answer initialize"
        assert json.loads(server.stdout.readline())["id"] == 1  # serving, stdin still open
        send(server.pid, signum)
        try:
            code = server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            pytest.fail(f"the server did not stop within 30 s of signal {signum}")
        assert code == 128 + signum
        said = server.stderr.read()
        assert b"Traceback" not in said
        assert said.count(b"engram: stopping on signal") == 1


@pytest.mark.anyio
async def test_initialize_does_not_wait_for_a_busy_store(tmp_path: Path) -> None:
    """The store is opened in the background at start, and `initialize` took the lock that
    opening holds: with another process writing to the store, the handshake was answered
    only when that write ended (12 s here; up to the busy timeout, beyond a client's patience).
    Here the write lock is held until the handshake is done: the old server never got there
    before the 60 s busy timeout, which the 30 s bound below turns into a failure."""
    with Engram.open(str(tmp_path / "engram.db")) as mem:
        mem.save("Atlas ships in May")
    writer = sqlite3.connect(tmp_path / "engram.db", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        with anyio.fail_after(30):
            async with running_server(tmp_path, ENGRAM_SQLITE_BUSY_TIMEOUT="60") as live:
                tools = (await live.session.list_tools()).tools
                assert {t.name for t in tools} == TOOLS  # the event loop is free meanwhile
                writer.execute("ROLLBACK")
                found = await live.call("search_memory", {"query": "Atlas"})
                assert found["count"] == 1
    finally:
        writer.close()
