"""Constants and helpers shared by tests."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def through_a_fifo(fifo: Path, write: Callable[[], object]) -> str:
    """What `write` sends into a FIFO made at `fifo` (read on a thread, as a pipe's reader
    would), after checking the FIFO is still one: an atomic rename replaced it with a file."""
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    write()
    reader.join(30)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    return received[0]


def run_script(
    script: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """A script run as its user runs it: a child process of this interpreter, output captured,
    its exit code left to the test."""
    return subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )


def leftover_temporaries(stale: Path, young: Path) -> None:
    """Two temporary files as a killed writer leaves them: `stale` two hours old (removable),
    `young` just written (perhaps another process's write in progress: kept)."""
    for leftover in (stale, young):
        leftover.write_bytes(b"x" * 1000)
    two_hours_ago = stale.stat().st_mtime - 7_200
    os.utime(stale, (two_hours_ago, two_hours_ago))
