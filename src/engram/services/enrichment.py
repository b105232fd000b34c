"""What a save adds to a memory by itself: the names in its text as entities, and a strength
from the words that mark importance ("important", "always", "remember"…), when the caller gave
none. On by default (ENGRAM_ENRICH_ON_SAVE); imports keep their records as they were."""

from __future__ import annotations

from collections.abc import Sequence

from engram.core.entities import extract_entities
from engram.core.importance import importance, kept_for
from engram.core.text import tag_key
from engram.services.results import Enrichment
from engram.services.validation import MAX_ENTITIES, MAX_ENTITY_LEN


def merged_names(given: Sequence[str], found: Sequence[str]) -> list[str]:
    """The caller's names, then the found ones not already there (case-insensitively)."""
    seen = {tag_key(name) for name in given}
    out = list(given)
    for name in found:
        if tag_key(name) not in seen:
            seen.add(tag_key(name))
            out.append(name)
    return out


def enrich(
    content: str, entities: Sequence[str], strength: float | None, judge_keep: bool = False
) -> Enrichment:
    """The entities (the caller's first) and strength a memory of `content` is saved with, and
    (`judge_keep`) why it is kept for good (`kept_for`). Found names fill only the room the
    caller's left under the entity limits: a text naming sixty places must not make a save
    fail over entities nobody typed."""
    names = _within_limit(merged_names(entities, _names_in(content)), len(entities))
    if strength is None:
        strength, why = importance(content)
    else:
        why = []
    return Enrichment(
        entities=names[len(entities) :],
        all_entities=names,
        strength=strength,
        why=why,
        kept_for=kept_for(content) if judge_keep else None,
    )


def reenriched(entities: Sequence[str], old_content: str, new_content: str) -> list[str]:
    """A memory's entities after its text changed (enrichment on, no entities given): the
    names found in the old text that the new one no longer has are dropped, names of the new
    text added; any other entity (one the caller gave, which no text yielded) stays. A memory
    rewritten from "Python code" to "Go code" was still found by "python"."""
    old_found = {name.casefold() for name in _names_in(old_content)}
    new_found = _names_in(new_content)
    new_folded = {name.casefold() for name in new_found}
    kept = [e for e in entities if e.casefold() not in old_found or e.casefold() in new_folded]
    return _within_limit(merged_names(kept, new_found), len(kept))


def names_in(text: str) -> list[str]:
    """The names of a text, as many as a memory's entities may hold: what a save would add."""
    return _within_limit(_names_in(text), 0)


def _names_in(text: str) -> list[str]:
    """The names a text yields that an entity may hold."""
    return [name for name in extract_entities(text) if len(name) <= MAX_ENTITY_LEN]


def _within_limit(names: list[str], given: int) -> list[str]:
    """Found names fill only the room the `given` ones (first in `names`) leave under the
    entity limit; the given ones are the caller's, checked (and refused) on their own."""
    return names[: max(MAX_ENTITIES, given)]
