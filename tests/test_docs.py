"""The docs cover what the code offers: every tool, command and setting is documented."""

from __future__ import annotations

import asyncio
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
