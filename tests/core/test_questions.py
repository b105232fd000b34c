"""Which texts only ask (`engram.core.questions.only_asks`): search lowers them below what
answers."""

from __future__ import annotations

import pytest

from engram.core.questions import (
    ASKING_WORDS,
    asks_an_amount,
    asks_for_a_reply,
    only_asks,
    says_an_amount,
)


@pytest.mark.parametrize(
    "text",
    [
        "the knee?",
        "Kaito: is the new flat near the station?",
        "any ideas?  ",
        "really??",
        "wait who's alba",  # texting leaves the mark out
        "Omar: how’s amira",
        "where are you staying now",
        "ok so what did the physio say",
    ],
)
def test_a_short_question_only_asks(text: str) -> None:
    assert only_asks(text)


@pytest.mark.parametrize(
    "text",
    [
        "ten minutes walk from the station",
        "what a day!",  # an exclamation
        "What should the floor be? My daughter is two, nothing slippery please.",
        "how it ended. we left early",  # more than one sentence: it tells
        "i got it!! i start may 15th",
        "Has a Border Collie named Biscuit",  # an assistant's note, its subject left out
        "Will move to Zurich in September",
        "Is it far? Ten minutes from the station.",  # answered in the same memory
        "",
    ],
)
def test_what_tells_does_not_only_ask(text: str) -> None:
    assert not only_asks(text)


def test_a_long_question_tells_what_it_asks_about() -> None:
    """ "I'm going to Tokyo in May and need a quiet hotel …, any ideas?" says where and when."""
    short = " ".join(["word"] * (ASKING_WORDS - 1)) + " ok?"
    assert only_asks(short)
    assert not only_asks("more " + short)


def test_a_turn_ending_by_asking_asks_for_a_reply_however_long() -> None:
    """News then a question: it tells too much to only ask, and its reply answers it."""
    news = "Things are hectic but good, " + "really " * ASKING_WORDS + "What is your thesis about?"
    assert not only_asks(news)
    assert asks_for_a_reply(news)
    assert asks_for_a_reply("wait who's alba")  # a short question without its mark
    assert not asks_for_a_reply("Is it far? Ten minutes from the station.")


@pytest.mark.parametrize(
    "text",
    [
        "How many kids does Tomas have?",
        "how long was Lucia out with her wrist",
        "So how much did the car cost?",
        "What did she order? And how often does she go there?",
        "how old is Biscuit",
    ],
)
def test_a_question_of_how_many_or_how_long_asks_an_amount(text: str) -> None:
    assert asks_an_amount(text)


@pytest.mark.parametrize(
    "text",
    [
        "How did the interview go?",
        "When did Tomas move?",
        "I don't know how long it will take",  # said, not asked: mid-sentence
        "Tell me how much you liked it",
    ],
)
def test_other_questions_and_statements_ask_no_amount(text: str) -> None:
    assert not asks_an_amount(text)


@pytest.mark.parametrize(
    "text, says",
    [
        ("three kids under six is a lot", True),
        ("2 hrs each way", True),
        ("it was $300 a month", True),
        ("twice a week, sometimes more", True),
        ("a couple of days off", True),
        ("the kids are sick again", False),
        ("someone asked about it", False),  # "one" inside a word is no number
    ],
)
def test_a_number_in_figures_or_words_says_an_amount(text: str, says: bool) -> None:
    assert says_an_amount(text) is says
