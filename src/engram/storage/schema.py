"""What every SQL backend's migrations check the same way."""

from __future__ import annotations

from collections.abc import Sequence

from engram.errors import StoreError


def refuse_newer(done: set[str], known: Sequence[tuple[str, str]]) -> None:
    """A store a newer Engram has migrated is not opened: its triggers may call functions
    this one lacks (every save failed with "no such function"), its columns mean what this
    one does not know."""
    unknown = sorted(done - {name for name, _ in known})
    if unknown:
        raise StoreError(
            f"it was written by a newer Engram (its schema has {unknown[-1]}, which this "
            "version does not know): upgrade Engram to open it"
        )
