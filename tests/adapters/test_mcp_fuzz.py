"""Property-based fuzzing of the MCP server over a real stdio session: arguments drawn from each
tool's own input schema (valid-looking) and from anything JSON can hold (invalid), every call
answered — a result or a tool error, never a hang, a crash or a traceback — and the server
still serving afterwards. Bigger runs belong in bench/; this one is small and seeded."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from tests.adapters.test_mcp import running_server, text_of

CALL_SECONDS = 20  # an answer, of any kind, within this
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=10,
)


def from_schema(prop: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values of a property's declared type (limits ignored on purpose: out-of-range values are
    part of the test), or any JSON value when it declares none."""
    for option in prop.get("anyOf", []):
        if option.get("type") != "null":
            return st.none() | from_schema(option)
    kind = prop.get("type")
    if "enum" in prop:
        return st.sampled_from(prop["enum"]) | st.text(max_size=12)
    if kind == "string":
        return st.text(max_size=60) | st.sampled_from(["", " ", "x" * 2000, "\x00", "../../etc"])
    if kind == "integer":
        return st.integers(min_value=-5, max_value=10**6)
    if kind == "number":
        return st.floats(min_value=-10, max_value=10, allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        return st.lists(from_schema(prop.get("items", {})), max_size=5)
    if kind == "object":
        return st.dictionaries(st.text(max_size=8), JSON, max_size=3)
    return JSON


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    async def listing() -> dict[str, dict[str, Any]]:
        async with running_server(tmp_path_factory.mktemp("schemas")) as s:
            return {t.name: t.input_schema for t in (await s.session.list_tools()).tools}

    return anyio.run(listing)


def calls(tools: dict[str, dict[str, Any]]) -> st.SearchStrategy[list[tuple[str, dict[str, Any]]]]:
    def for_tool(name: str) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
        props = tools[name].get("properties", {})
        valid = st.fixed_dictionaries({}, optional={k: from_schema(v) for k, v in props.items()})
        anything = st.dictionaries(st.text(max_size=12), JSON, max_size=4)
        return st.tuples(st.just(name), valid | anything)

    return st.lists(st.sampled_from(sorted(tools)).flatmap(for_tool), min_size=30, max_size=30)


@seed(20261130)
@settings(
    max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_every_fuzzed_call_is_answered_and_the_server_keeps_serving(
    tools: dict[str, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    batch = data.draw(calls(tools))

    async def run() -> None:
        home = tmp_path_factory.mktemp("fuzz")
        async with running_server(home, ENGRAM_EMBEDDING_MODEL="none") as s:
            for name, arguments in batch:
                with anyio.fail_after(CALL_SECONDS):
                    result = await s.session.call_tool(name, arguments)
                if result.is_error:
                    message = text_of(result)
                    assert message and "Traceback" not in message, (name, arguments)
            with anyio.fail_after(CALL_SECONDS):
                stats = await s.call("memory_stats")  # still serving
            assert stats["total"] >= 0

    anyio.run(run)
