"""Counts in the words people read: "1 memory", "2 memories" (messages, tables, commits)."""

from __future__ import annotations


def plural(noun: str) -> str:
    """The regular English plural of the nouns Engram counts ("memory" → "memories")."""
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u"):
        return noun[:-1] + "ies"
    return noun + "s"


def counted(n: int, noun: str) -> str:
    """`n` and the noun agreeing with it, thousands separated: "1 memory", "1,200 memories",
    "0 relations"."""
    return f"{n:,} {noun if n == 1 else plural(noun)}"
