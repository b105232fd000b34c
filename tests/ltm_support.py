"""Helpers for the long-term-memory tests: a real vault folder and an Engram opened on it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from engram import Engram, FixedClock, Memory

# No embedding model: these tests are about the vault, and loading a model costs seconds.
FAST = {"embedding_model": "none"}


@contextmanager
def open_with_vault(
    tmp_path: Path, clock: FixedClock, **settings: Any
) -> Iterator[tuple[Engram, Path]]:
    vault = tmp_path / "vault"
    vault.mkdir(exist_ok=True)
    with Engram.open(
        str(tmp_path / "ltm.db"), clock=clock, vault_path=str(vault), **(FAST | settings)
    ) as mem:
        yield mem, vault


def used(mem: Engram, content: str, times: int = 5, **fields: Any) -> Memory:
    """A memory used often enough to be a promotion candidate."""
    memory = mem.save(content, **fields)
    for _ in range(times):
        mem.touch(memory.id)
    return mem.get(memory.id)


def write_note(vault: Path, rel: str, text: str) -> Path:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
