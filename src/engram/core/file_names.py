"""What a new file or folder name in the vault may be: one rule set for the notes promotion
writes, their slugs and the configured vault folder, so that every name Engram creates opens
on Windows, macOS and Linux alike (Obsidian vaults are synced between them)."""

from __future__ import annotations

import re

# Refused by Windows in any file name (and "\\" and ":" mean something on every system).
UNSAFE_CHARS = re.compile(r'[<>:"|?*\\\x00-\x1f\x7f]')
# Windows refuses these as file names whatever the extension (CON.md, nul.txt, ...).
RESERVED_NAMES = frozenset(
    ["con", "prn", "aux", "nul"] + [f"com{i}" for i in range(10)] + [f"lpt{i}" for i in range(10)]
)


def is_reserved(name: str) -> bool:
    """A Windows device name, whatever follows its first dot (`aux.md`, `Nul .txt`)."""
    return name.split(".", 1)[0].strip().casefold() in RESERVED_NAMES


def ends_badly(name: str) -> bool:
    """Windows drops a final space or dot, so the file would get another name."""
    return name.endswith((" ", "."))
