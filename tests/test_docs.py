"""The docs cover what the code offers: every tool, command and setting is documented."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from engram.cli.main import cli
from engram.config import Settings
from engram.mcp.server import build_server

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_every_mcp_tool_is_documented() -> None:
    tools = asyncio.run(build_server().list_tools())
    text = (DOCS / "tools.md").read_text()
    missing = [t.name for t in tools if f"### {t.name}" not in text]
    assert tools and missing == []


def test_the_annotations_table_says_what_each_tool_declares() -> None:
    """Clients decide from these hints what to run without asking: the table in docs/tools.md
    had left out the consolidation tools (two of them wrongly marked non-destructive)."""
    text = (DOCS / "tools.md").read_text()
    table = text[text.index("| tool | read-only | destructive | idempotent |") :]
    documented: dict[str, tuple[str, ...]] = {}
    for row in table.splitlines()[2:]:
        if not row.startswith("|"):
            break
        names, *hints = (cell.strip() for cell in row.strip("|").split("|"))
        for name in re.findall(r"`(\w+)`", names):
            documented[name] = tuple(hints)
    tools = asyncio.run(build_server().list_tools())
    declared = {}
    for tool in tools:
        a = tool.annotations
        assert a is not None
        if a.read_only_hint:
            declared[tool.name] = ("yes", "", "")
        else:
            yes_no = ["yes" if h else "no" for h in (a.destructive_hint, a.idempotent_hint)]
            declared[tool.name] = ("no", *yes_no)
    assert documented == declared


def test_every_cli_command_is_documented() -> None:
    text = (DOCS / "cli.md").read_text()
    missing = [name for name in cli.commands if f"engram {name}" not in text]
    assert cli.commands and missing == []


def test_every_setting_is_documented() -> None:
    text = (DOCS / "configuration.md").read_text()
    missing = [n for n in Settings.model_fields if f"`ENGRAM_{n.upper()}`" not in text]
    assert missing == []


def test_readme_links_resolve() -> None:
    readme = (DOCS.parent / "README.md").read_text()
    for name in ("decay.md", "search.md", "tools.md", "cli.md", "performance.md"):
        assert f"docs/{name}" in readme
        assert (DOCS / name).exists(), name


def documented_keys(shape: str) -> set[str]:
    """The top-level keys of a result shape as docs/tools.md writes them: `{"a", "b": [...]}`."""
    keys, depth, previous = set(), 0, ""
    for match in re.finditer(r'[{}\[\],:|]|"[^"]*"', shape):
        token = match.group(0)
        if token in "{[":
            depth += 1
        elif token in "}]":
            depth -= 1
        elif token.startswith('"') and depth == 1 and previous in ("{", ","):
            keys.add(token.strip('"'))
        previous = "string" if token.startswith('"') else token
    return keys


def test_every_documented_result_shape_matches_the_tools_output_schema() -> None:
    """Doc drift: each tool's **Result:** shape in docs/tools.md names exactly the top-level
    fields of the output schema the server publishes (tools whose result is described in words
    — "the updated memory" — are skipped)."""
    text = (DOCS / "tools.md").read_text()
    drift = {}
    checked = 0
    for tool in asyncio.run(build_server().list_tools()):
        section = text.split(f"### {tool.name}\n", 1)[1].split("\n### ", 1)[0]
        result = re.search(r"\*\*Result:\*\*(.*?)(?:\n\n|$)", section, re.S)
        shape = re.search(r"`(\{.*?\})`", result.group(1), re.S) if result else None
        if shape is None:
            continue
        checked += 1
        published = set((tool.output_schema or {}).get("properties", {}))
        documented = documented_keys(shape.group(1))
        if documented != published:
            drift[tool.name] = (sorted(documented - published), sorted(published - documented))
    assert checked >= 20 and drift == {}


# The commands of docs/cli.md's "JSON shapes" table whose documented keys are checked, with
# the arguments that produce each document (KNOWN: a saved memory's id, OTHER: another's).
CLI_SHAPES = {
    "search": ["search", "lisbon"],
    "open": ["open", "KNOWN", "missing-id"],
    "delete": ["delete", "--archive", "OTHER"],
    "touch": ["touch", "KNOWN"],
    "observe": ["observe", "KNOWN", "--context-tag", "travel"],
    "gc": ["gc"],
    "candidates promote": ["candidates", "promote"],
    "candidates review": ["candidates", "review"],
    "graph": ["graph"],
    "related": ["related", "KNOWN"],
    "stats": ["stats"],
    "config": ["config"],
}


def test_every_documented_cli_json_shape_is_what_the_command_prints(tmp_path: Path) -> None:
    """Doc drift in docs/cli.md: gc's and touch's documents had gained fields the table did
    not name."""
    from click.testing import CliRunner

    text = (DOCS / "cli.md").read_text()
    table = text.split("### JSON shapes", 1)[1].split("\n\n", 2)[1]
    shapes = {}
    for row in table.splitlines()[2:]:
        commands, shape = (cell.strip() for cell in row.strip("|").split("|", 1))
        found = re.search(r"`(\{.*\})`", shape)
        for command in re.findall(r"`([a-z ]+)`", commands):
            if found:
                shapes[command] = documented_keys(found.group(1))
    store = str(tmp_path / "shapes.db")
    env = {"ENGRAM_EMBEDDING_MODEL": "none"}

    def run(*args: str) -> dict[str, object]:
        result = CliRunner().invoke(cli, ["--store", store, "--json", *args], env=env)
        assert result.exit_code in (0, 1), result.output  # `open` of a missing id exits 1
        document: dict[str, object] = json.loads(result.stdout)
        return document

    known = str(run("save", "the flight to Lisbon", "--tag", "trip")["id"])
    other = str(run("save", "another memory")["id"])
    run("relate", known, other)
    drift = {}
    for command, args in CLI_SHAPES.items():
        printed = run(*[{"KNOWN": known, "OTHER": other}.get(a, a) for a in args])
        if set(printed) != shapes[command]:
            drift[command] = (
                sorted(shapes[command] - set(printed)),
                sorted(set(printed) - shapes[command]),
            )
    assert drift == {}
