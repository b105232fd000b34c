"""Give memory the process has freed back to the operating system.

Loading the embedding model parses and rewrites a 23 MB graph (embeddings/integer_graph.py).
Python frees those copies at once, but glibc keeps the freed heap pages mapped, so a
long-running server would carry about 20 MB it no longer uses. `malloc_trim` hands them back.
Elsewhere (macOS, Windows, musl) this does nothing: their allocators return memory differently,
and there is nothing to call.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from functools import cache
from typing import Any


@cache
def _libc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


def release_freed_memory() -> bool:
    """True if pages were handed back (glibc only)."""
    libc = _libc()
    return bool(libc is not None and libc.malloc_trim(0))
