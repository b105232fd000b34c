"""`text_coverage`: how much of a query's word weight its best text matches hold, on every
backend's own counts and texts."""

from __future__ import annotations

import pytest

from engram import Engram
from engram.core.text import SHORT_QUERY_WORDS
from engram.services.search_coverage import text_coverage
from engram.storage.protocol import Filter


def coverage(mem: Engram, query: str, terms: list[str], respelled: set[str] | None = None) -> float:
    store = mem.app.context.store
    found = store.text_search(terms, Filter(), 10)
    return text_coverage(store, query, terms, found, respelled or set())


@pytest.fixture
def chat(mem: Engram) -> Engram:
    for line in ["lol ruth gave me a shoutout", "the gig is on friday", "my knees hurt"]:
        mem.save(f"Siobhan: {line}")
    mem.save("Kaito: how was galway")
    return mem


def test_a_word_the_store_lacks_counts_at_its_full_weight(chat: Engram) -> None:
    # "siobhan" is in most memories, "summit" in none: holding the name is holding little
    share = coverage(chat, "Siobhan summit", ["siobhan", "summit"])
    assert 0 < share < 0.3


def test_a_one_word_or_long_query_is_covered_whole(chat: Engram) -> None:
    assert coverage(chat, "Siobhan", ["siobhan"]) == 1.0
    long = " ".join(["Siobhan summit"] + ["again"] * (SHORT_QUERY_WORDS - 1))
    assert len(long.split()) > SHORT_QUERY_WORDS
    assert coverage(chat, long, ["siobhan", "summit"]) == 1.0


def test_numbers_and_respelled_words_are_not_counted(chat: Engram) -> None:
    """A day's numbers find memories by when they were saved; a misspelled word is searched
    as the store's word, which counts in its place."""
    assert coverage(chat, "Siobhan 2024", ["siobhan", "2024"]) == 1.0
    assert coverage(chat, "Siobhan galwey", ["siobhan", "galwey"], {"galwey"}) == 1.0


def test_a_tag_or_entity_holds_a_word(mem: Engram) -> None:
    mem.save("Siobhan: the climb was brutal", tags=["summit"])
    mem.save("Siobhan: the gig is on friday")
    mem.save("Siobhan: my knees hurt")
    assert coverage(mem, "Siobhan summit", ["siobhan", "summit"]) == 1.0
