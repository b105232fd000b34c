"""A note naming whom the query names is judged by meaning on the rest of the query: the name
is counted by the words, and by meaning it made every short note about that person alike."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from engram import Engram
from engram.services import search_query
from engram.storage.protocol import Filter, Stub

ARJUN = [
    "Arjun is lactose intolerant.",
    "Arjun is on an F-1 student visa; his I-20 is valid until 31 August 2026.",
    "Thesis topic: single-cell RNA-seq of zebrafish fin regeneration.",
    "Coffee order: oat flat white, extra shot.",
    "Lab meeting every Monday at 10am.",
    "Went to the gym, legs are sore.",
]


def _saved(mem: Engram, texts: list[str]) -> list[str]:
    ids = [mem.save(text).id for text in texts]
    mem.flush()
    return ids


def test_the_thesis_is_found_above_the_notes_that_only_name_its_owner(mem: Engram) -> None:
    lactose, visa, topic, *_ = _saved(mem, ARJUN)
    hits = {h.memory.id: h for h in mem.search("What is Arjun's thesis about?")}
    order = list(hits)
    assert order.index(topic) < order.index(lactose)
    assert order.index(topic) < order.index(visa)
    # the name still counts, as a word: not by meaning too
    assert hits[lactose].why.text > 0
    assert hits[lactose].why.semantic is None


def test_a_note_alike_beyond_the_name_keeps_its_meaning(mem: Engram) -> None:
    cello, _ = _saved(mem, ["Ben plays the cello in a community orchestra", "Ben is 34"])
    hits = mem.search("What instrument does Ben play?")
    assert hits[0].memory.id == cello
    assert hits[0].why.semantic is not None


def test_only_notes_naming_someone_the_query_names_are_discounted(mem: Engram) -> None:
    note, turn, other = _saved(
        mem,
        [
            "Arjun is lactose intolerant.",
            "Arjun: I am lactose intolerant, so no cheese for me",
            "Priya is lactose intolerant.",
        ],
    )
    ctx = mem.app.context
    query, free = "Is Arjun lactose intolerant?", "Is lactose intolerant?"
    vector, free_vector = ctx.text_vector(query), ctx.text_vector(free)
    assert vector is not None and free_vector is not None
    calibration = ctx.calibration(vector, query)
    assert calibration is not None
    rows: dict[str, NDArray[np.float32]] = {}
    found: dict[str, Stub] = {s.id: s for s in ctx.store.vector_search(vector, Filter(), 10, rows)}
    z = {i: calibration.z(s.relevance) for i, s in found.items()}
    before = dict(z)
    said = {free: free_vector}
    name_free = search_query.names_discounted(ctx, free, said, ["Arjun"], rows, found, z)
    assert name_free is not None and name_free.names == ("Arjun",)
    assert z[turn] == before[turn]  # a turn of Arjun's: whose it is, is the question
    assert z[other] == before[other]  # names no one asked of
    assert z[note] < before[note]  # alike by the name: judged without it
    assert z[note] == pytest.approx(name_free.probe.calibration.z(found[note].relevance))


def test_only_a_name_given_as_the_owner_is_left_out() -> None:
    assert search_query.owners_named("What is Arjun's thesis about?") == ["Arjun"]
    assert search_query.owners_named("why did we move off Celery?") == []  # what is asked of
    assert search_query.owners_named("What instrument does Ben play?") == []
    assert search_query.without_names("Arjun's thesis project", 2, ["Arjun"]) == "thesis project"
    assert search_query.without_names("Arjun's thesis project") is None  # too short for turns


def test_a_name_asked_of_keeps_the_meaning_of_the_notes_naming_it(mem: Engram) -> None:
    decision, *_ = _saved(
        mem,
        [
            "Decided to replace Celery with Dramatiq: too many problems with Celery's Redis "
            "visibility timeout",
            "Public API deadline moved again: now March 24",
            "Background jobs run on Celery 5.3 with Redis as the broker",
        ],
    )
    hits = {h.memory.id: h for h in mem.search("why did we move off Celery?")}
    assert hits[decision].why.semantic is not None
