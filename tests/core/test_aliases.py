"""Who the user's people are called, read from what memories say of them."""

from __future__ import annotations

from engram.core.aliases import called, names_given, relations_asked, with_names


def test_the_people_a_query_names_by_their_place_in_the_users_life() -> None:
    assert relations_asked("What does my husband do for a living?") == ["husband"]
    assert relations_asked("Is our landlord or my older sister coming?") == ["landlord", "sister"]
    assert relations_asked("where does the user's manager sit") == ["manager"]
    assert relations_asked("What does Kate's sister do?") == []  # someone else's


def test_names_are_read_from_the_ways_memories_give_them() -> None:
    texts = [
        "I live in Rotterdam with my husband Daan and our two kids.",
        "Sarah Kim is my manager now",
        "My sister's name is Ana",
        "User's dentist Dr. Silva moved her practice",
        "Ana, my sister, lives in Montreal",
        "My husband I met in 2010",  # no name after it
        "My sister is visiting",
    ]
    assert names_given("husband", texts) == ["Daan"]
    assert names_given("manager", texts) == ["Sarah Kim"]
    assert names_given("sister", texts) == ["Ana"]
    assert names_given("dentist", texts) == ["Silva"]
    assert names_given("brother", texts) == []


def test_a_querys_meaning_is_given_the_names() -> None:
    assert with_names("What does my husband do?", "husband", ["Daan"]) == (
        "What does my husband Daan do?"
    )
    assert with_names("Where is my manager?", "manager", ["Tom", "Sarah"]) == (
        "Where is my manager Tom or Sarah?"
    )


def test_a_short_question_of_the_user_alone_and_a_memory_of_someone_close() -> None:
    from engram.core.aliases import asks_of_the_user, of_someone_close

    assert asks_of_the_user("Where do I live?") and asks_of_the_user("is the user vegetarian")
    assert not asks_of_the_user("where does my sister live")
    assert not asks_of_the_user("tell me about her grandkids")  # "me" asks, of someone else
    assert not asks_of_the_user("anything I should avoid cooking for the family?")
    story = "Yesterday I walked along the river for an hour and I thought about the old days " * 2
    assert not asks_of_the_user(story)  # a long message tells, it does not ask
    assert of_someone_close("User's sister Ana lives in Montreal")
    assert of_someone_close("Brother Max got a new job")
    assert not of_someone_close("User lives in Munich")
    assert not of_someone_close("My manager approved my vacation")  # the user's too
    assert not of_someone_close("Son of a friend visited")


def test_a_person_goes_by_other_words_too() -> None:
    """ "What does my wife do?" is asked of "my partner Sam" (a held-out probe)."""
    assert called("wife") == ("wife", "partner", "spouse")
    assert called("boss") == ("boss", "manager")
    assert called("sister") == ("sister",)
    assert names_given("partner", ["Moving in with my partner Sam"]) == ["Sam"]


def test_names_are_read_from_an_assistants_notes_too() -> None:
    """Notes without "my": "Lives in Bristol with partner Dana", "Brother Owen lives in
    Manchester" gave no name, so "Where is my partner employed?" was searched without "Dana"
    (a probe of an assistant's notes)."""
    texts = [
        "Lives in Bristol with partner Dana and the kids.",
        "Brother Owen lives in Manchester. Sister Emma lives in Boston",
        "Manager meeting moved to 3pm",
    ]
    assert names_given("partner", texts) == ["Dana"]
    assert names_given("brother", texts) == ["Owen"]
    assert names_given("sister", texts) == ["Emma"]
    assert names_given("manager", texts) == []
