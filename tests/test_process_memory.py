"""Freed heap pages go back to the operating system where the allocator allows it (glibc)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from engram.process_memory import release_freed_memory


def _rss_mb() -> float:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * 4096 / 2**20


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="malloc_trim is glibc's")
def test_freed_small_allocations_are_handed_back() -> None:
    # Objects of 1 KB come from malloc's heap (not pymalloc, not mmap): freed, they stay
    # mapped until trimmed.
    blocks = [bytes(1_000) + i.to_bytes(4, "little") for i in range(100_000)]
    keep = blocks[-1]  # the top of the heap stays in use, as after loading the model
    del blocks
    before = _rss_mb()
    assert release_freed_memory() is True
    assert _rss_mb() < before - 50
    assert keep[-4:] == (99_999).to_bytes(4, "little")
