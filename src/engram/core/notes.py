"""Long-term memory notes: what the vault index knows about each Markdown file.

A note is identified by its path relative to the vault, always with `/` separators. The index
keeps, per note, the file's modification time, size and content digest (so re-indexing reads
only files that changed), what was parsed out of it (title, tags, wikilinks, body, frontmatter)
and, for a note written by promotion, the id of the memory it came from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


@dataclass(frozen=True)
class NoteState:
    """What tells whether a file changed since it was indexed."""

    path: str
    mtime_ns: int
    size: int
    digest: str


class Note(BaseModel):
    """One indexed Markdown note."""

    model_config = ConfigDict(frozen=True)

    path: str
    title: str
    tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()  # other names in the frontmatter, searched as the title is
    links: tuple[str, ...] = ()  # wikilink targets as written, without alias or heading
    body: str = ""
    frontmatter: dict[str, Any] = Field(default_factory=dict)
    engram_id: str | None = None  # the memory a promoted note came from
    problem: str | None = None  # e.g. broken frontmatter: the note is indexed as plain text
    mtime_ns: int = 0
    size: int = 0
    digest: str = ""

    def state(self) -> NoteState:
        return NoteState(self.path, self.mtime_ns, self.size, self.digest)


@dataclass(frozen=True)
class NoteHit:
    """A note matching a full-text query; `relevance` is higher for better matches."""

    path: str
    title: str
    tags: tuple[str, ...]
    engram_id: str | None
    relevance: float
    preview: str
    modified_ns: int  # when the file was last written (what a hit shows as the day it was saved)


@dataclass(frozen=True)
class NoteText:
    """What a note's embedding is computed from, with the digest of the file it was read from
    (a vector is stored only if the note still has that digest)."""

    path: str
    digest: str
    title: str
    body: str


@dataclass(frozen=True)
class NoteLinks:
    """The wikilink graph around one note: notes it links to, notes linking to it, and link
    targets that match no indexed note."""

    path: str
    outgoing: tuple[str, ...]
    incoming: tuple[str, ...]
    unresolved: tuple[str, ...]


def link_key(target: str) -> str:
    """How a wikilink target or a note path is compared: case-insensitive, without `.md`,
    with `/` separators (Obsidian resolves `[[Folder/Note]]` and `[[note]]` alike)."""
    key = target.strip().replace("\\", "/").strip("/").casefold()
    return key[:-3] if key.endswith(".md") else key


def link_name(target: str) -> str:
    """The last segment of a link key: `[[note]]` matches any `…/note.md`."""
    return link_key(target).rsplit("/", 1)[-1]


def distinct_links(links: Sequence[str]) -> list[str]:
    """One target for each note the links name (by `link_key`, the first spelling kept), empty
    targets left out: what a note's outgoing links are indexed by."""
    seen: dict[str, str] = {}
    for target in links:
        key = link_key(target)
        if key and key not in seen:
            seen[key] = target
    return list(seen.values())
