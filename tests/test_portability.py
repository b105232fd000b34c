"""Engram where POSIX file locking does not exist (Windows has no `fcntl`): importing the package
and using the default SQLite store must not need it. This machine has `fcntl`, so a child
process blocks the module before anything imports it — the same ImportError Windows raises."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

WITHOUT_FCNTL = """
import sys
sys.modules["fcntl"] = None  # `import fcntl` now raises ImportError, as on Windows
from engram import Engram
from engram.errors import StoreError

with Engram.open(sys.argv[1], embedding_model="none") as mem:
    mem.save("Prefers green tea in the morning")
    print(mem.search("green tea")[0].memory.content)
try:
    Engram.open("jsonl://" + sys.argv[2], embedding_model="none")
except StoreError as exc:
    print("jsonl:", exc)
"""


def test_import_and_the_sqlite_store_work_without_fcntl(tmp_path: Path) -> None:
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent(WITHOUT_FCNTL),
            str(tmp_path / "s.db"),
            str(tmp_path / "j"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "Prefers green tea in the morning"
    # What needs a lock says so, by name, instead of failing at import.
    assert lines[1].startswith("jsonl: file locking is not available here")
