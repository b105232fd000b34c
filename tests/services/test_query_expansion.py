"""Query expansion on every backend, with the real embedding model: a memory that shares no word
with the question, and does not mean the same, is found through a rarer word it shares with the
best match, says so in `why.expansion`, and respects the search's filters."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator

import pytest

from engram import Draft, Engram, FixedClock
from engram.core.ranking import SearchHit
from engram.services.results import why_summary
from engram.services.search import MODEL_LOADING

QUESTION = "What are Kate's hobbies?"
BEST = "Kate's hobbies: she plays the cello in a community orchestra"
LINKED = "The orchestra rehearsal moved to Thursday evening"  # no word of the question
FILLER = (
    "The dentist appointment is on Monday at nine",
    "Bought new running shoes on sale",
    "The car needs an oil change soon",
    "Mom's birthday dinner is at the Italian place",
    "The Wi-Fi password for the office changed",
    "Booked flights to Lisbon for June",
    "The printer on the second floor is jammed again",
    "Started reading a novel about sailors",
    "Watered the plants on the balcony",
    "The team standup moved to 10am",
)


def open_with(store_url: str, clock: FixedClock, weight: float) -> Engram:
    return Engram.open(store_url, clock=clock, search_expansion_weight=weight)


def hits_for(store_url: str, clock: FixedClock, weight: float) -> dict[str, SearchHit]:
    """The question's hits by memory id, searched with this expansion weight."""
    with open_with(store_url, clock, weight) as mem:
        return {h.memory.id: h for h in mem.search(QUESTION)}


@pytest.fixture
def saved(store_url: str, clock: FixedClock) -> Iterator[tuple[str, str]]:
    """The store with the memories above; (best match id, linked memory id)."""
    with open_with(store_url, clock, 0.6) as mem:
        for text in FILLER:
            mem.save(text)
        best = mem.save(BEST, tags=["kate"])
        linked = mem.save(LINKED)
        mem.flush()
        yield best.id, linked.id


def test_a_memory_sharing_a_rare_word_with_the_best_match_is_found_through_it(
    saved: tuple[str, str], store_url: str, clock: FixedClock
) -> None:
    best, linked = saved
    hits = hits_for(store_url, clock, 0.6)
    assert best in hits and linked in hits
    # no shared word, and unrelated in meaning (a cosine near 0, far below the meaning floor)
    assert hits[linked].why.text == 0.0 and (hits[linked].why.semantic or 0.0) < 0.1
    assert 0 < (hits[linked].why.expansion or 0) <= 0.6  # at most the weight
    assert hits[linked].rank < hits[best].rank
    assert "expansion" in why_summary(hits[linked])


def test_expansion_off_scores_the_query_alone(
    saved: tuple[str, str], store_url: str, clock: FixedClock
) -> None:
    best, linked = saved
    hits = hits_for(store_url, clock, 0.0)
    assert best in hits and linked not in hits
    assert all(h.why.expansion is None for h in hits.values())


def test_expansion_respects_the_filters_of_the_search(
    saved: tuple[str, str], store_url: str, clock: FixedClock
) -> None:
    best, _ = saved  # the linked memory has no tag: a search for tag "kate" must not reach it
    with open_with(store_url, clock, 0.6) as mem:
        assert {h.memory.id for h in mem.search(QUESTION, tags=["kate"])} == {best}


def test_the_one_line_why_names_every_part_in_short_numbers(
    saved: tuple[str, str], store_url: str, clock: FixedClock
) -> None:
    """The line an assistant reads with each compact hit: two decimals at most, trailing zeros
    dropped, the reason only where it does not already stand beside the line."""
    best, linked = saved
    hits = hits_for(store_url, clock, 0.6)
    line = why_summary(hits[linked], with_reason=False)
    why = hits[linked].why
    assert line.startswith("text 0, ") and f"decay {why.decay:.2f}".rstrip("0").rstrip(".") in line
    assert f"expansion {why.expansion:.2f}".rstrip("0").rstrip(".") in line
    assert why_summary(hits[linked]) == f"{hits[linked].reason}: {line}"
    assert why_summary(hits[best], with_reason=False).startswith("text 1, meaning 0.")


def test_a_weak_match_does_not_steer_the_search(store_url: str, clock: FixedClock) -> None:
    """A paraphrase found by meaning alone, and a weak neighbour just above the meaning floor
    whose words fill the store: those words must not be searched (the neighbour is far from the
    best match), so sixty look-alike notes never bury the answer."""
    with open_with(store_url, clock, 0.6) as mem:
        flight = mem.save("The flight to Lisbon leaves at 9am")
        for i in range(60):
            mem.save(f"note {i} about the garden, the weather and the week ahead")
        mem.flush()
        hits = mem.search("when does my plane depart")
    assert hits[0].memory.id == flight.id
    assert all(h.why.expansion is None for h in hits)


def test_one_match_by_meaning_alone_lends_its_words_only_if_it_is_strong(mem: Engram) -> None:
    """ "zebra migration patterns in Kenya" matches the flight to Lisbon by meaning, barely
    (z just above the floor); through its word "Lisbon" the search went on to the office Wi-Fi,
    which has nothing to do with either (audit, bench/abstention.py)."""
    flight = mem.save("The flight to Lisbon leaves at 9am")
    wifi = mem.save("The Lisbon office Wi-Fi is slow on Monday mornings.")
    for text in (
        "I have a cat named Miso",
        "My favourite drink is coffee",
        "I started learning Portuguese",
        "Deploys happen on Tuesdays after the standup",
    ):
        mem.save(text)
    hits = {h.memory.id: h for h in mem.search("zebra migration patterns in Kenya")}
    assert wifi.id not in hits
    assert all(h.why.expansion is None for h in hits.values())
    # a strong match by meaning still lends its words
    found = {h.memory.id: h for h in mem.search("when does my plane depart")}
    assert found[flight.id].why.semantic is not None
    assert wifi.id in found and found[wifi.id].why.expansion is not None


def test_no_expansion_while_the_model_loads(
    saved: tuple[str, str], store_url: str, clock: FixedClock
) -> None:
    """The search that arrives while a server is still loading the model answers from the text
    alone, fast, and says so; expansion waits with meaning until the model is there."""
    best, linked = saved
    with open_with(store_url, clock, 0.6) as mem:
        loading = threading.Event()
        mem.app.context.warm_up.start(loading.wait)
        try:
            early = {h.memory.id: h for h in mem.search(QUESTION)}
        finally:
            loading.set()
            mem.app.context.warm_up.wait()
        later = {h.memory.id for h in mem.search(QUESTION)}
    assert best in early and linked not in early
    assert early[best].why.note == MODEL_LOADING
    assert linked in later


def test_a_function_word_of_the_best_match_leads_nowhere(store_url: str, clock: FixedClock) -> None:
    """In a store of a few memories every word is rare: "every" in the best match found the
    standup time through expansion alone, an unrelated second result (audit)."""
    with open_with(store_url, clock, 0.6) as mem:
        editor = mem.save("I prefer dark mode in every editor")
        for text in ("Standup is at 9:30 every weekday", "Mia has a peanut allergy"):
            mem.save(text)
        mem.flush()
        hits = mem.search("what editor theme do I like")
    assert [h.memory.id for h in hits] == [editor.id]


def test_a_code_only_one_memory_holds_finds_that_memory_first(mem: Engram) -> None:
    """A probe's store of made-up codes: searched for a code only one memory holds, another
    memory came first in 37 of 390 searches, lifted by expansion words found in every memory
    or by the item number of a memory alike in meaning."""
    letters = "bcdfghjklmnpqrstvwxz"

    def code(worker: int, item: int) -> str:
        h = int(hashlib.sha256(f"{worker}-{item}".encode()).hexdigest(), 16)
        out = ""
        for _ in range(8):
            out += letters[h % 20]
            h //= 20
        return "qz" + out

    rows = [(w, i, code(w, i)) for w in (1, 2, 4) for i in range(100, 120)]
    mem.save_many(
        [
            Draft(f"Probe record {c} written by worker {w} about item {i} of the garden inventory")
            for w, i, c in rows
        ]
    )
    mem.flush()
    wrong = [c for _, _, c in rows if c not in mem.search(c, limit=3)[0].memory.content]
    assert wrong == []
