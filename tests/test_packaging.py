"""The wheel a user installs: its name, its version, its data files and its command.

Built here from the source tree (with the build tools of the dev extra, no download) and
installed without dependencies into a folder of its own, so what is checked is the wheel's own
content, not the editable install the other tests use."""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp.client import ClientSession
from mcp.client.streamable_http import streamable_http_client
from tests.adapters.test_mcp_http import free_port, wait_listening

ROOT = Path(__file__).resolve().parent.parent
DATA = (
    "engram/embeddings/data/minilm-vocab.txt",
    "engram/embeddings/data/background.txt",
    "engram/embeddings/data/background-languages.txt",
    "engram/embeddings/data/background-minilm.npy",
    "engram/embeddings/data/minilm-probes.npy",  # without it no model loads
    "engram/web/templates/base.html",
    "engram/web/templates/memory.html",
    "engram/py.typed",  # a checker reads the package's annotations (mypy --strict refused it)
)


def build_wheel(into: Path) -> Path:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(into),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = into.glob("*.whl")
    return wheel


def test_the_wheel_carries_the_package_its_data_and_the_engram_command(tmp_path: Path) -> None:
    pip = [sys.executable, "-m", "pip"]
    wheel = build_wheel(tmp_path / "dist")
    assert wheel.name.startswith("engram_local-")  # `engram` on PyPI is another project
    names = set(zipfile.ZipFile(wheel).namelist())
    assert all(name in names for name in DATA), sorted(set(DATA) - names)
    info = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "engram = engram.cli.entry:main" in zipfile.ZipFile(wheel).read(info).decode()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)

    target = tmp_path / "installed"
    subprocess.run(
        [*pip, "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); import engram, numpy;"
        "from click.testing import CliRunner; from engram.cli.main import cli;"
        "from engram.embeddings.background import SHIPPED_VECTORS;"
        "assert engram.__file__.startswith(sys.argv[1]), engram.__file__;"
        "assert numpy.load(SHIPPED_VECTORS).shape[1] == 384;"
        "print(CliRunner().invoke(cli, ['--version']).output)"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe, str(target)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "engram, version 0.1.0"


@pytest.mark.slow
def test_the_wheel_in_a_clean_venv_runs_the_demo_and_serves_mcp_over_http(tmp_path: Path) -> None:
    """What a user gets from `pip install <wheel>`: a venv of its own with the wheel and its
    dependencies from the package index (pip's cache makes that quick after the first time),
    then `engram demo`, and `engram serve --http` answering a real MCP client that sends the
    token, and 401 without it."""
    wheel = build_wheel(tmp_path / "dist")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    subprocess.run(
        [str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)],
        check=True,
        capture_output=True,
        timeout=900,
    )
    engram = str(env_dir / "bin" / "engram")
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    demo = subprocess.run([engram, "demo"], env=env, capture_output=True, text=True, timeout=300)
    assert demo.returncode == 0, demo.stderr
    assert "forgotten" in demo.stdout.lower()

    port = free_port()
    token = "wheel-test-token-0123456789"
    server = subprocess.Popen(
        [engram, "serve", "--http", "--port", str(port)],
        env={**env, "ENGRAM_HTTP_TOKEN": token, "ENGRAM_EMBEDDING_MODEL": "none"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_listening(port, server)
        url = f"http://127.0.0.1:{port}/mcp"
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        assert httpx2.post(url, json=ping, timeout=10).status_code == 401

        async def session() -> list[str]:
            headers = {"Authorization": f"Bearer {token}"}
            async with (
                httpx2.AsyncClient(headers=headers, timeout=30) as client,
                streamable_http_client(url, http_client=client) as (read, write, *_),
                ClientSession(read, write) as mcp,
            ):
                await mcp.initialize()
                tools = [t.name for t in (await mcp.list_tools()).tools]
                saved = await mcp.call_tool("save_memory", {"content": "Installed from a wheel"})
                assert not saved.is_error
                found = await mcp.call_tool("search_memory", {"query": "wheel"})
                assert found.structured_content is not None
                assert found.structured_content["hits"][0]["content"] == "Installed from a wheel"
                return tools

        assert "search_memory" in anyio.run(session)
    finally:
        server.terminate()
        server.communicate(timeout=15)
