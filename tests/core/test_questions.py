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
    tagged_statement,
    thing_named_alone,
    told_then_asked,
    without_asking_how_it_went,
    without_the_span,
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
        "Jess: any dating news",  # asking after news, as friends text
        "any luck with the landlord",
        "anything new at work",
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
        "Any dairy gives her hives",  # "any" opens a statement too
        "any new shoes need breaking in",
        "Is it far? Ten minutes from the station.",  # answered in the same memory
        "",
    ],
)
def test_what_tells_does_not_only_ask(text: str) -> None:
    assert not only_asks(text)


@pytest.mark.parametrize(
    ("sentence", "asked"),
    [
        (
            "Noor doesn't eat pork for religious reasons, is Portuguese food going to be hard?",
            "is Portuguese food going to be hard?",
        ),
        ("I was thinking of joining a book club, what do you think?", "what do you think?"),
        ("We sail in a few weeks, any last things to pack??", "any last things to pack??"),
        ("I’ve never heard of that band before, and is it any good?", "is it any good?"),
    ],
)
def test_a_question_after_a_statement_tells_first(sentence: str, asked: str) -> None:
    """ "Noor doesn't eat pork…, is Portuguese food going to be hard?" was lowered as a question
    that only asks, below the assistant's reply holding its words as cues."""
    assert told_then_asked(sentence) == asked
    assert not only_asks("User: " + sentence)
    assert asks_for_a_reply(sentence)  # its reply still answers it


@pytest.mark.parametrize(
    "sentence",
    [
        "Hey Sam, did you go?",  # a greeting, not a statement
        "If I move in May, will I lose my deposit?",  # a case asked of
        "When you were in Lisbon, did you try the tarts?",
        "So after all that, is it worth it?",  # a lead-in
        "the knee?",
        "Is it far, or is it close?",  # asks twice
        "I moved to Lisbon in May and love it",  # asks nothing
    ],
)
def test_a_greeting_case_or_lead_in_before_a_question_tells_nothing(sentence: str) -> None:
    assert told_then_asked(sentence) is None


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


@pytest.mark.parametrize(
    "text, searched",
    [
        ("What pets has Margot had over the course of the year?", "What pets has Margot had ?"),
        ("Where has Ayesha worked during these conversations?", "Where has Ayesha worked ?"),
        ("What has Dana tried for her sleep so far?", "What has Dana tried for her sleep ?"),
        ("How did his opinion change over time?", "How did his opinion change ?"),
    ],
)
def test_a_short_question_is_not_searched_by_the_span_it_covers(text: str, searched: str) -> None:
    assert " ".join(without_the_span(text).split()) == " ".join(searched.split())


@pytest.mark.parametrize(
    "text",
    [
        "What did we launch last year?",  # a time, not the whole record
        "How far did she go so far away from home?",  # "so far" inside a phrase
        "My kite flew so far over the whole year of practice that I lost count of every "
        "try I made over the year?",  # long: it tells
    ],
)
def test_a_time_named_or_a_long_message_keeps_its_words(text: str) -> None:
    assert without_the_span(text) == text


def test_a_how_question_is_not_searched_by_the_verb_it_asks_a_change_by() -> None:
    assert without_asking_how_it_went("How did Biscuit's health change?").split() == [
        "How",
        "did",
        "Biscuit's",
        "health",
        "?",
    ]
    assert "go" not in without_asking_how_it_went("How did the interview go?").split()
    assert "progressed" not in without_asking_how_it_went("How has the renovation progressed")
    # not a how-question: "change" is what is asked of
    assert without_asking_how_it_went("What did Omar change at work?") == (
        "What did Omar change at work?"
    )


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Ruby is 9 now isn't she?", "Ruby is 9 now"),
        ("the dentist is on the 15th, right?", "the dentist is on the 15th"),
        ("we moved it to friday didnt we?", "we moved it to friday"),
        ("Tom can’t come, can’t he?", "Tom can’t come"),
        ("the party is saturday no?", "the party is saturday"),
    ],
)
def test_a_tag_asks_back_the_statement_before_it(text: str, said: str) -> None:
    assert tagged_statement(text) == said


@pytest.mark.parametrize(
    "text",
    ["Right?", "Is it Tuesday, right?", "what a day, eh?", "Can you help me?", "no?"],
)
def test_a_question_or_a_lone_tag_asks_back_no_statement(text: str) -> None:
    assert tagged_statement(text) is None


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        ("launch date pls", "launch date"),
        ("the wifi password?", "wifi password"),
        ("gate code again?", "gate code"),
        ("mum's address pls", "mum's address"),
    ],
)
def test_a_thing_named_alone_is_what_is_asked_for(text: str, thing: str) -> None:
    assert thing_named_alone(text) == thing


@pytest.mark.parametrize(
    "text",
    ["save this pls", "help please", "thanks!", "launch date", "what is it?", "ok?"],
)
def test_a_request_a_question_or_a_statement_names_no_thing_alone(text: str) -> None:
    assert thing_named_alone(text) is None
