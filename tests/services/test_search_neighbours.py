"""How the neighbours by meaning of a question naming a speaker are joined with those of the
question as that speaker would ask it (`services.search_neighbours.theirs_as_them`): the
named speaker's turns by the rewritten question, the others' by the question as written, and
the other speakers' turns by the rewritten one too, less a shrink."""

from __future__ import annotations

import pytest

from engram import Draft, Engram
from engram.core.models import Status
from engram.services.search_neighbours import (
    OTHER_SPEAKERS_SHRINK,
    Neighbours,
    theirs_as_them,
)
from engram.services.speakers import Speakers
from engram.storage.protocol import Filter, Stub

CHAT = [
    "Priya: Morning Dev! Did you sleep at all after the flight?",
    "Dev: Barely, I was up at five unpacking boxes",
    "Priya: I've started taking pottery classes on Thursday nights",
    "Dev: I finally bought a bike for the commute",
    "Priya: Work has been hectic with the product launch",
    "Dev: We should grab dinner when your sister is here, Priya",
    "Priya: Definitely, Dev, she loves Thai food",
    "Dev: My landlord still hasn't fixed the heating",
]
NOTE = "I keep my bike in the hallway"  # the user's own note: no speaker's label


def _neighbours(z: dict[str, float]) -> Neighbours:
    stubs = {i: Stub(i, 0, 1.0, 0.0, 0.0, Status.ACTIVE, round(v / 10, 3)) for i, v in z.items()}
    return Neighbours(stubs, None, z, [], {})


def test_the_other_speakers_turns_are_judged_as_the_named_speaker_would_ask_too(
    mem: Engram,
) -> None:
    saved = mem.save_many([Draft(content=t, episode="chat-1") for t in CHAT])
    note = mem.save(NOTE)
    mem.flush()
    ids = {m.content: m.id for m in saved}
    bike, heating, pottery = (
        ids["Dev: I finally bought a bike for the commute"],
        ids["Dev: My landlord still hasn't fixed the heating"],
        ids["Priya: I've started taking pottery classes on Thursday nights"],
    )
    store = mem._app.context.store
    query = "How does Priya get to work?"
    speakers = Speakers(store, query)
    found = store.text_search(["priya", "work"], Filter(), 20)
    assert speakers.asked_as_them(query, found) == "How does I get to work?"
    assert speakers.named == {"Priya"} and speakers.others == {"Dev"}

    asked = _neighbours({bike: 1.0, heating: 1.0, pottery: 2.0, note.id: 1.0})
    as_them = _neighbours({bike: 3.0, heating: 1.1, pottery: 2.5, note.id: 3.0})
    joined = theirs_as_them(asked, as_them, speakers)

    # the other speaker's turn far more like the question as Priya would ask it: that z,
    # less the shrink, and its cosine with that probe
    assert joined.z[bike] == pytest.approx(3.0 - OTHER_SPEAKERS_SHRINK)
    assert joined.stubs[bike].relevance == as_them.stubs[bike].relevance
    # ... and one barely more alike keeps its own
    assert joined.z[heating] == 1.0 and joined.stubs[heating] == asked.stubs[heating]
    # the named speaker's turns by the question as she would ask it, as before
    assert joined.z[pottery] == 2.5
    # the user's own note is no speaker's turn: "How do I get to work?" is not asked of it
    assert joined.z[note.id] == 1.0


def test_without_another_speaker_the_others_keep_their_meaning_as_asked(mem: Engram) -> None:
    """A query naming nobody asks as no one: nothing is rewritten, no other speaker known."""
    mem.save_many([Draft(content=t, episode="chat-1") for t in CHAT])
    mem.flush()
    store = mem._app.context.store
    speakers = Speakers(store, "how do i get to work?")
    assert (
        speakers.asked_as_them("how do i get to work?", store.text_search(["work"], Filter(), 20))
        is None
    )
    assert speakers.others == set()
