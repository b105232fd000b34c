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


def test_every_public_name_loads_on_first_use_and_import_engram_loads_nothing_heavy() -> None:
    """`import engram` imports its names on first use (the console script catches a Ctrl-C
    while the rest loads): each name in `__all__` must still be there, and only those."""
    code = (
        "import sys, engram\n"
        "heavy = [m for m in ('engram.api', 'numpy', 'pydantic') if m in sys.modules]\n"
        "names = {n: getattr(engram, n).__name__ for n in engram.__all__}\n"
        "print(heavy, sorted(names) == sorted(engram.__all__) == sorted(names.values()))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[] True"
