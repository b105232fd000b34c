"""Questions people type in short, read by what the store holds, on every backend: a fact asked
back with a tag, a thing asked for by its name alone, a day by its short name."""

from __future__ import annotations

from engram import Engram, Memory


def assert_recalled_first(mem: Engram, asked: str, answer: Memory) -> str:
    """`asked` is a recall whose query finds `answer` first; the query."""
    assert mem.analyze_message(asked).intent == "recall", asked
    recall = mem.analyze_for_recall(asked)
    assert recall.should_search and recall.query is not None, asked
    assert mem.search(recall.query)[0].memory.id == answer.id, asked
    return recall.query


def test_a_fact_asked_back_with_a_tag_searches_what_was_told(mem: Engram) -> None:
    """ "Ruby is 9 now isn't she?" was none at 0.9 beside "My sister Ruby turned 8 in May"."""
    ruby = mem.save("My sister Ruby turned 8 in May")
    dentist = mem.save("Dentist appointment moved to Thursday the 15th")
    mem.flush()
    for asked, answer in (
        ("Ruby is 9 now isn't she?", ruby),
        ("ruby is 9 now isnt she?", ruby),  # typed in lower case, no apostrophe
        ("the dentist is on thursday, right?", dentist),
    ):
        assert_recalled_first(mem, asked, answer)
    # a tag after what the store never heard of asks the world, or nothing
    for world in ("that was fast, no?", "Python is faster than Java, right?", "Right?"):
        assert mem.analyze_message(world).intent == "none", world


def test_a_thing_asked_for_by_its_name_alone_is_a_recall_when_the_store_holds_it(
    mem: Engram,
) -> None:
    """ "launch date pls" was none at 0.7 beside "Launch date is March 3"."""
    launch = mem.save("Launch date is March 3, the press release goes out the day before")
    mem.flush()
    for asked in ("launch date pls", "the launch date again?", "launch date?"):
        assert_recalled_first(mem, asked, launch)
    # what the store does not hold, and requests opening with their verb, are no recall
    for other in ("coffee please", "a draft pls", "save this pls", "help please"):
        assert mem.analyze_message(other).intent != "recall", other


def test_a_day_asked_by_its_short_name_finds_the_day_written_whole(mem: Engram) -> None:
    """ "is italian tues or weds now?" shared no word with "Italian class is on Tuesdays"."""
    italian = mem.save("Italian class is on Tuesdays at 7pm")
    mem.save("Pottery on Saturday mornings")
    mem.flush()
    asked = "is italian tues or weds now?"
    assert mem.analyze_message(asked).intent == "recall"
    assert mem.search("italian class tues")[0].memory.id == italian.id
    assert [h.memory.id for h in mem.search("tues")] == [italian.id]


def test_a_topic_then_a_question_of_it_searches_the_topic(mem: Engram) -> None:
    """An eighth blind probe's "pickle's vet appt - what time was it" was none beside the
    appointment stored."""
    vet = mem.save("our cat Pickle needs her jabs, vet appointment at Moorside on tuesday 4pm")
    mem.save("Pottery on Saturday mornings")
    mem.flush()
    assert_recalled_first(mem, "pickle's vet appt - what time was it", vet)
    # a topic the store never heard of asks the world
    assert mem.analyze_message("tour de france - who won it last year").intent == "none"


def test_a_question_with_a_long_reason_after_it_is_read_as_the_question(mem: Engram) -> None:
    """ "which knee is the bad one? need to tell the doc at the dot physical for the new company"
    (13 words of reason) was none."""
    knee = mem.save("my left knee is the bad one, torn meniscus in 2019")
    mem.flush()
    asked = (
        "which knee is the bad one? need to tell the doc at the dot physical for the new company"
    )
    assert "physical" not in assert_recalled_first(mem, asked, knee)


def test_a_question_meaning_a_stored_memory_and_sharing_a_word_is_a_recall(mem: Engram) -> None:
    """A ninth blind probe's "when does the fixed rate run out on the clifton one" shared too
    few words with "mortgage on clifton st …, fixed at 4.1% til march 2027" to be read by
    them, and was none; its meaning is far clearer than unrelated text's."""
    mortgage = mem.save("mortgage on clifton st is with nationwide, fixed at 4.1% til march 2027")
    mem.save("my son is Cian, he's 9, plays left back and refuses to wear shin pads")
    mem.save("I run a 53ft dry van out of joplin mo for Hartline Freight")
    mem.flush()
    assert_recalled_first(mem, "when does the fixed rate run out on the clifton one", mortgage)
    # a deadline of the user's asked with "need" is theirs, not advice
    registration = mem.save("my GPhC registration renews every november, fee is £257")
    mem.flush()
    assert_recalled_first(mem, "when do i need to renew my professional registration", registration)
    # the world's questions, an opinion asked, and work asked of the assistant stay none
    for other in (
        "whats the offside rule for under 10s in england",
        "is it normal for a 9 yr old to get heel pain after matches?",
        "can you figure out miles from joplin to laredo",
    ):
        assert mem.analyze_message(other).intent == "none", other
