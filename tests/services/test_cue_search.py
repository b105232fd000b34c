"""A turn saved after a question keeps its words as cues (`core.cues`), on every backend, saved
in one batch or one turn at a time, and is found by them."""

from __future__ import annotations

from engram import Draft, Engram

CHAT = [
    "Omar: the cat knocked my coffee over again",
    "Omar: how's Owen doing? the driving test was thursday, right?",
    "Lena: he passed!! second try",
    "Omar: no way, congrats to him",
    "Lena: the bus was late again this morning",
]


def test_a_reply_saved_in_a_batch_keeps_the_words_of_the_question(mem: Engram) -> None:
    saved = mem.save_many([Draft(content=turn, episode="chat") for turn in CHAT])
    reply = saved[2]
    assert {"Owen", "driving", "test", "thursday"} <= set(reply.cues)
    assert mem.get(reply.id).cues == reply.cues  # stored as given back
    assert saved[0].cues == () and saved[1].cues == ()  # nothing asked before them
    assert saved[4].cues == ()  # a statement before, and speaks of no one unnamed


def test_turns_saved_one_at_a_time_follow_the_last_turn_stored(mem: Engram) -> None:
    """The first turn of a save follows the episode's last stored one: an MCP client saves a
    conversation turn by turn."""
    ids = [mem.save(turn, episode="chat").id for turn in CHAT]
    batch = mem.save_many([Draft(content=turn, episode="other") for turn in CHAT])
    assert [mem.get(i).cues for i in ids] == [m.cues for m in batch]
    assert mem.get(ids[2]).cues != ()


def test_the_reply_is_found_by_the_words_it_answers(mem: Engram) -> None:
    """ "he passed!! second try" shares no word with the question asked of it: its cues bring
    it first, above the question that only asks."""
    saved = mem.save_many([Draft(content=turn, episode="chat") for turn in CHAT])
    mem.flush()
    hits = mem.search("When did Owen pass his driving test?", limit=3)
    assert hits[0].memory.id == saved[2].id
    plain = mem.save_many([Draft(content=turn) for turn in CHAT[2:3]])  # no episode, no cues
    assert plain[0].cues == ()


def test_a_turn_without_an_episode_has_no_cues(mem: Engram) -> None:
    """Facts saved one by one, far apart, are no conversation: nothing carries over."""
    mem.save("Omar asked whether Owen's driving test was on thursday?")
    assert mem.save("He passed on the second try").cues == ()


def test_a_question_that_tells_first_is_found_before_the_reply_to_it(mem: Engram) -> None:
    """ "Noor doesn't eat pork…, is Portuguese food going to be hard?" tells what Noor eats. It
    was lowered as a question that only asks, and the assistant's reply, holding its words as
    cues, came first for "What doesn't Noor eat?"."""
    chat = [
        "User: we fly to Lisbon in April, Noor and me",
        "User: Noor doesn't eat pork for religious reasons, is Portuguese food going to be hard?",
        "Assistant: It leans on pork in places, but seafood is everywhere and excellent.",
        "User: great, thanks",
    ]
    saved = mem.save_many([Draft(content=turn, episode="trip") for turn in chat])
    mem.flush()
    assert {c.lower() for c in saved[2].cues} == {"portuguese", "food", "going", "hard"}
    hits = mem.search("What doesn't Noor eat?", limit=3)
    assert hits[0].memory.id == saved[1].id
