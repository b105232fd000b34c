"""A misspelled query word is searched as the store's word it misspells, on every backend, with
the real embedding model telling a misspelling from a word of the language."""

from __future__ import annotations

from engram import Engram
from engram.services.spelling import respelled_text


def test_a_misspelled_word_finds_what_the_store_spells_right(mem: Engram) -> None:
    """A probe: 10 of 25 one-word misspellings ("kafak", "Rotterdm", "zettlekasten") found
    nothing at all."""
    kafka = mem.save("We moved the event bus from RabbitMQ to Kafka")
    city = mem.save("I live in Rotterdam with my husband")
    notes = mem.save("I keep my reading notes in a Zettelkasten")
    memory = mem.save("Ebbinghaus measured his own forgetting curve")
    mem.save("Lunch was rice and beans")
    for typed, meant in (
        ("kafak", kafka),
        ("Rotterdm", city),
        ("zettlekasten", notes),  # two letters swapped
        ("ebinghaus", memory),  # a typo in its first three letters
    ):
        hits = mem.search(typed)
        assert hits[0].memory.id == meant.id, typed
        assert hits[0].why.text > 0 and hits[0].why.note is not None, typed
        assert f"searched {typed.lower()!r} as" in hits[0].why.note
    # beside words it spells right, the same
    hits = mem.search("which event bus, kafak or RabbitMQ?")
    assert hits[0].memory.id == kafka.id and "'kafak' as 'kafka'" in (hits[0].why.note or "")


def test_a_word_of_the_language_and_gibberish_are_not_read_as_others(mem: Engram) -> None:
    """ "banana" is what the user meant though the store holds "bandana"; a word the store
    holds is searched as it is."""
    bandana = mem.save("Bought a bandana at the market")
    for typed in ("banana", "bandana", "qwertyuiop"):
        assert all(h.why.note is None for h in mem.search(typed)), typed
    assert all(h.memory.id != bandana.id or h.why.text == 0 for h in mem.search("banana"))


def test_the_names_searched_for_a_kind_are_not_read_as_typos(mem: Engram) -> None:
    """ "framework" is searched with the names of frameworks too ("nextjs", "flask"): read as
    typos, they found "Funded until next August" and "the flat in Porto" (the assistant facts
    of bench/assistant_facts.py)."""
    mem.save("Funded by a fellowship until next August")
    mem.save("We rent the flat in Porto")
    hits = mem.search("which web framework do we use")
    assert all(h.why.note is None and h.why.text == 0 for h in hits)


def test_a_misspelled_query_is_searched_by_meaning_as_respelled(mem: Engram) -> None:
    """By meaning, "my dauhgter's freind" was searched as typed: a chat's turns about a brother
    came first, and the one memory of the daughter's friend, found by its words, third (a
    helper's probe). As respelled ("my daughter's friend", the words as the store writes
    them), it comes first."""
    friend = mem.save("Remember: Maya's best friend is Zoe, her mom is Rachel")
    mem.save("Daughter Maya is 7 years old and loves horses")
    mem.save("User prefers Python over JavaScript for backend work")
    mem.save("Brother Sam lives in Denver and works as a firefighter")
    for turn in (
        "User: my brother just called",
        "Assistant: How is he doing?",
        "User: he got engaged!! wedding will be in Denver in June",
    ):
        mem.save(turn, episode="chat-sam")
    hits = mem.search("my dauhgter's freind")
    assert hits[0].memory.id == friend.id
    assert "'freind' as 'friend'" in (hits[0].why.note or "")


def test_a_respelled_query_takes_the_words_as_the_store_writes_them() -> None:
    """The index holds stems ("receiv"): the query is respelled with the word of a match that
    stems so, as written. Nothing to respell, or no match holding the word: None."""
    found = ["Nothing here", "The parcel was Received on Monday"]
    assert (
        respelled_text("when was the package recieved?", {"recieved": ["receiv"]}, found)
        == "when was the package received?"
    )
    assert respelled_text("when was it recieved?", {"recieved": ["receiv"]}, ["no"]) is None
    assert respelled_text("when was it sent?", {"recieved": ["receiv"]}, found) is None
