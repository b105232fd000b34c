"""Short ids: the start of an id Engram made, typed by people instead of the whole id."""

from __future__ import annotations

import re

# A short id must be at least this long: shorter ones match too much to mean one memory.
MIN_PREFIX = 4
PREFIX_PAGE = 4  # ids read at a time to tell a short id's one match from several


# The ids Engram makes: a random UUID, and a merged memory's (its cluster's digest).
_MADE_ID = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|merged-[0-9a-f]{16}"
)


def abbreviable(ident: str) -> bool:
    """Whether a short id may stand for `ident`: only for an id Engram made (a random UUID,
    or a merged memory's digest, whose start names one memory). An id chosen by hand or by
    an import is given whole: once it was deleted, typing it again resolved it as the start
    of a longer one (deleting "proj-alpha" a second time deleted "proj-alphabet"; "note-1",
    "note-10")."""
    return _MADE_ID.fullmatch(ident) is not None
