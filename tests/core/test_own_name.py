"""The user's own name in a query: the phrases that give it, and the query without it or in
the first person."""

from __future__ import annotations

from engram.core.own_name import (
    gives_the_name,
    in_first_person,
    names_the_user,
    naming_phrases,
    told_the_other_way,
    without_name,
)


def test_the_phrases_that_give_a_name_are_read_as_the_index_reads_them() -> None:
    phrases = naming_phrases("Priya Sharma")
    assert "my name is priya sharma" in phrases and "call me priya sharma" in phrases
    assert "user's name is priya sharma" in phrases  # the index splits it as the memory


def test_a_query_naming_the_user_is_asked_in_the_first_person() -> None:
    assert in_first_person("Where does Priya work?", "Priya") == "Where does I work?"
    assert in_first_person("Who is Priya's manager?", "Priya") == "Who is my manager?"
    assert in_first_person("who is priya’s dentist", "Priya") == "who is my dentist"
    # another name that starts the same is left alone
    assert in_first_person("Is Priyanka Priya's sister?", "Priya") == "Is Priyanka my sister?"


def test_a_query_naming_the_user_is_searched_without_the_name() -> None:
    assert without_name("Where does Priya work?", "Priya").split() == ["Where", "does", "work?"]
    assert without_name("Priya's manager", "Priya").split() == ["manager"]
    assert without_name("Priya-Lee's team", "Priya").split() == ["Priya-Lee's", "team"]


def test_a_name_is_given_in_so_many_words() -> None:
    """The index reads "call me. Tom" as the phrase "call me tom": a probe's store made Tom
    the user by "Ask the plumber to call me. Tom said Monday works"."""
    assert gives_the_name("My name is Priya Sharma", "Priya")
    assert gives_the_name("my name's priya", "Priya")
    assert gives_the_name("User's name is Priya Sharma.", "Priya Sharma")
    assert gives_the_name("Call me Ishmael", "Ishmael")
    assert not gives_the_name("Ask the plumber to call me. Tom said Monday works", "Tom")
    assert not gives_the_name("My name is Priya Sharma", "Sharma")
    assert not gives_the_name("My name is on the waiting list", "Priya")
    # as people introduce themselves (an MCP probe's "Hi! I'm Marco.")
    assert gives_the_name("Hi! I'm Marco.", "Marco")
    assert gives_the_name("I am Marco Rossi, the new PM", "Marco Rossi")
    assert not gives_the_name("I'm Marco's brother", "Marco")
    assert not gives_the_name("I'm meeting Marco later", "Marco")


def test_a_fact_of_the_user_is_told_the_other_way() -> None:
    """An assistant's note of the user in the first person, and the user's words as a note; the
    grammar as it falls. Users, a user-facing API or no person at all: nothing."""
    assert told_the_other_way("User prefers Python") == "I prefers Python"
    assert told_the_other_way("The user's sister lives in Lyon") == "my sister lives in Lyon"
    assert told_the_other_way("I'm allergic to peanuts") == "User is allergic to peanuts"
    assert told_the_other_way("I’ve got two cats") == "User has got two cats"
    assert told_the_other_way("My wife and I moved; call me") == (
        "User's wife and User moved; call User"
    )
    for nobody in ("Users love it", "We use Postgres", "a user-facing API", "Iris is here"):
        assert told_the_other_way(nobody) is None, nobody


def test_a_note_of_the_user_opens_with_them() -> None:
    """Consolidation compares such a note in the first person (`names_the_user`)."""
    assert names_the_user("User works as a nurse at St. Mary's")
    assert names_the_user("The user's sister Ana lives in Montreal")
    # a transcript's label, the user's own words, a compound, or the user named later
    assert not names_the_user("User: I work as a nurse")
    assert not names_the_user("I work as a nurse")
    assert not names_the_user("user-facing errors are logged")
    assert not names_the_user("Remind the user to stretch")
