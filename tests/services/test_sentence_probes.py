"""A query of several sentences (what a user just said) is searched by meaning one sentence at
a time too, on every backend: one vector for the whole averages its topics, and the memory one
sentence is about fell below the meaning floor."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from engram import Engram
from engram.services import search_query
from engram.services.search_query import probe_sentences
from engram.storage.protocol import Filter, Stub

SAID = (
    "I had a long day at work and the commute was awful. By the way, we adopted a puppy last "
    "weekend. Anyway, what should I cook for dinner with some leftover rice?"
)
MEMORIES = (
    "The family got a new little dog recently",
    "Prefers window seats on long flights",
    "The quarterly tax return is due in April",
)


def test_the_memory_one_sentence_is_about_is_found_by_meaning(
    mem: Engram, monkeypatch: pytest.MonkeyPatch
) -> None:
    dog, *_ = (mem.save(text) for text in MEMORIES)
    hits = {h.memory.id: h for h in mem.search(SAID)}
    assert dog.id in hits
    semantic = hits[dog.id].why.semantic
    assert semantic is not None and semantic > 0.4  # its cosine with "we adopted a puppy"
    # Searched as one vector only, the query does not find it.
    monkeypatch.setattr(search_query, "SENTENCE_MIN_WORDS", 10_000)
    assert dog.id not in {h.memory.id for h in mem.search(SAID)}


def test_which_sentences_are_searched_on_their_own() -> None:
    assert probe_sentences("which database did we pick") == []  # one sentence: the query
    assert probe_sentences("Hi. What did we pick for the database?") == []  # one long enough
    assert probe_sentences(SAID) == [
        "I had a long day at work and the commute was awful.",
        "By the way, we adopted a puppy last weekend.",
        "Anyway, what should I cook for dinner with some leftover rice?",
    ]
    many = " ".join(f"This is sentence number {i} of the message." for i in range(9))
    assert len(probe_sentences(many)) == search_query.SENTENCE_PROBES


def test_a_readable_sentence_of_an_unreadable_message_is_searched(mem: Engram) -> None:
    """Amharic the model cannot read made the whole message's vector None, and its English
    sentence was never searched by meaning."""
    dog, *_ = (mem.save(text) for text in MEMORIES)
    amharic = "ሰላም ነው እንዴት ነህ ዛሬ ጥሩ ቀን ነው ብዙ ስራ አለኝ። ሰላም ነው እንዴት ነህ ዛሬ ጥሩ ቀን ነው."
    said = f"{amharic} By the way, we adopted a puppy last weekend."
    assert len(probe_sentences(said)) == 2
    assert mem.app.context.text_vectors([said]) == [None]  # less than half of it readable
    assert dog.id in {h.memory.id for h in mem.search(said)}


def test_a_query_naming_someone_is_also_searched_without_the_names() -> None:
    assert search_query.without_names("Where are Jonah and Amara going on their honeymoon?") == (
        "Where are and going on their honeymoon?"
    )
    assert search_query.without_names("What is Maya’s dog called?") == "What is dog called?"
    assert search_query.without_names("which database did we pick") is None  # names no one
    assert search_query.without_names("When did Mike?") is None  # too little is left


def test_the_query_without_its_names_raises_the_turns_of_a_chat_alone(mem: Engram) -> None:
    """Of a note without a speaker's label, the names were what the query asked of: "What
    instrument does Ben play?" without Ben found the user's own "I play the cello" first."""
    turn = mem.save("Ben: I have been practicing the trumpet every evening")
    note = mem.save("I play the cello in a community orchestra")
    mem.flush()
    ctx = mem.app.context
    vector = ctx.text_vector("What instrument does play?")
    assert vector is not None
    found: dict[str, Stub] = {}
    z: dict[str, float] = {}
    search_query.turns_meant(ctx, vector, 0.5, Filter(), 10, {}, found, z)
    assert set(found) == set(z) == {turn.id}
    calibration = ctx.calibration(vector, "What instrument does play?")
    assert calibration is not None
    assert z[turn.id] == pytest.approx(calibration.z(found[turn.id].relevance) - 0.5)
    assert note.id not in found


def test_search_asks_without_the_names_only_a_query_naming_someone(
    mem: Engram, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engram.services import search

    asked: list[NDArray[np.float32]] = []
    real = search.turns_meant

    def spy(ctx: Any, vector: NDArray[np.float32], *rest: Any) -> None:
        asked.append(vector)
        real(ctx, vector, *rest)

    monkeypatch.setattr(search, "turns_meant", spy)
    mem.save("Ben: I have been practicing the trumpet every evening")
    mem.flush()
    assert mem.search("What instrument does Ben play?")
    assert len(asked) == 1
    expected = mem.app.context.text_vector("What instrument does play?")
    assert expected is not None and float(asked[0] @ expected) == pytest.approx(1.0, abs=1e-5)
    mem.search("what instrument is played")  # names no one
    # several sentences: each is searched on its own instead
    mem.search("Ben was practicing all evening again. Which instrument does Ben play best?")
    assert len(asked) == 1
