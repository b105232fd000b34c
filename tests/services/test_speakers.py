"""A query naming one speaker of a saved transcript asks of that speaker's own turns
(`services.speakers`), on every backend."""

from __future__ import annotations

from tests.support import NEBRAAS_CHAT as CHAT

from engram import Draft, Engram
from engram.services.speakers import Speakers
from engram.storage.protocol import Filter


def _saved(mem: Engram, texts: list[str]) -> None:
    mem.save_many([Draft(content=t, episode="chat-1") for t in texts])
    mem.flush()


def test_the_named_speakers_own_turns_come_before_the_other_speakers(mem: Engram) -> None:
    """The other speaker asks what the query asks ("What activities do you like doing…,
    Nebraas?") and came first; the answer is the named speaker's own, which repeats neither
    the question's words nor much of its meaning."""
    _saved(mem, CHAT)
    answer = "Nebraas: I love badminton the most, and painting pottery"
    assert mem.search("What sports does Nebraas play?", limit=1)[0].memory.content == answer
    top = [h.memory.content for h in mem.search("What activities does Nebraas like?", limit=2)]
    assert answer in top
    # naming both speakers, neither is lowered
    both = mem.search("What activities do Vanessa and Nebraas like?", limit=1)
    assert both[0].memory.content.startswith("Vanessa: What activities")


def test_a_query_naming_a_speaker_is_asked_by_meaning_as_they_would_say_it(mem: Engram) -> None:
    """By the name, every turn of the conversation was like the query; as the speaker would
    ask it, their own turns are. Not for a label naming a thing, nor a query naming nobody."""
    _saved(mem, CHAT)
    store = mem._app.context.store
    query = "What are Nebraas's hobbies?"
    found = store.text_search(["nebraas", "hobbies"], Filter(), 20)
    assert Speakers(store, query).asked_as_them(query, found) == "What are my hobbies?"
    # a query naming nobody (no capital) reads no memory and asks as it is
    assert Speakers(store, "what are nebraas's hobbies?").asked_as_them(query, found) is None


def test_a_label_naming_a_thing_is_no_speaker_to_ask_as(mem: Engram) -> None:
    notes = [
        "Atlas: deploys go out on Tuesdays and Thursdays after 14:00 UTC",
        "Atlas: the ledger service moved to PostgreSQL 16 last quarter",
        "Orion: the nightly batch job runs at 02:00 and takes about an hour",
        "Orion: dashboards live in the shared Grafana folder for the team",
    ]
    _saved(mem, notes)
    store = mem._app.context.store
    query = "When do Atlas deploys go out?"
    found = store.text_search(["atlas", "deploys"], Filter(), 20)
    assert Speakers(store, query).asked_as_them(query, found) is None
    # ...but the notes it names still come before the other project's
    top = mem.search(query, limit=2)
    assert all(h.memory.content.startswith("Atlas:") for h in top)
