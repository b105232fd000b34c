"""What a save is given: a `Draft`, and its fields checked as the store keeps them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from engram.services import validation as check


@dataclass(frozen=True)
class Draft:
    """A memory to save; `created_at`/`last_used` let an import keep its history."""

    content: str
    tags: Sequence[str] = ()
    entities: Sequence[str] = ()
    source: str | None = None
    context: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    # None: from the words that mark importance when enrichment is on (ENGRAM_ENRICH_ON_SAVE),
    # else 1.0
    strength: float | None = None
    # a datetime or ISO 8601 text, with its offset either way
    created_at: datetime | str | None = None
    last_used: datetime | str | None = None
    id: str | None = None
    # The conversation this memory comes from; memories of one episode are kept in the order
    # saved, so search can credit a memory's neighbours (see engram.core.ranking.spread).
    episode: str | None = None
    # Kept for good: gc never forgets it (`meta.keep`, engram.core.models.KEEP). None: kept
    # where its words name a fact wanted for good (ENGRAM_KEEP_VITAL)
    keep: bool | None = None


def checked_fields(d: Draft, where: str = "") -> dict[str, Any]:
    """A draft's own fields as a save stores them, each checked (`where` names the item of a
    batch): what an adapter refuses before it opens, and so creates, a store (a refused
    `engram save` left a new, empty store behind)."""
    meta = (check.meta if d.id is not None else check.own_meta)(d.meta, "meta" + where)
    if d.keep is not None:  # else as `meta` says, or as its words say (`MemoryService.save`)
        meta = check.kept_for_good(meta, check.flag(d.keep, "keep" + where), "meta" + where)
    return {
        "content": check.content(d.content, "content" + where),
        "tags": check.tags(d.tags, "tags" + where),
        "entities": check.entities(d.entities, "entities" + where),
        # "" is no source, as over MCP (docs/tools.md), whichever adapter it came from (only
        # "": a 0 or [] is a mistake to name, not none).
        "source": check.short_text(None if d.source == "" else d.source, "source" + where),
        "context": check.short_text(None if d.context == "" else d.context, "context" + where),
        # An import (its own id) keeps a merged memory's record of its merge
        "meta": meta,
        "strength": check.strength(1.0 if d.strength is None else d.strength, "strength" + where),
        # A blank episode is none, like a blank source: "" was one episode shared by every
        # memory saved with it, each lending the others context credit.
        "episode": check.episode(d.episode, "episode" + where),
    }
