"""Whose turns a question asks of in a chat with an assistant (`engram.core.chat_roles`)."""

from __future__ import annotations

from engram.core.chat_roles import (
    ADVICE_SHARE,
    asks_of_the_assistant,
    asks_of_the_user,
    chat_roles,
)
from engram.core.text import ASSISTANT_LABELS, USER_LABELS


def test_who_a_question_asks_of() -> None:
    """The least share the assistant's turns keep: the other speakers' (0) for a question of
    the user's, more for advice asked for, none for a question of what the assistant said."""
    assert asks_of_the_user("What was my last 10K time?") == 0.0
    assert asks_of_the_user("What did I tell you about my sister?") == 0.0  # told to it
    # a request for what would suit the user asks of the user's own turns
    assert asks_of_the_user("Can you suggest running shoes that would suit me?") == 0.0
    # advice asked for: the user's situation and the advice given before alike
    assert asks_of_the_user("How should I treat my knee pain?") == ADVICE_SHARE
    assert asks_of_the_user("What's a good harness for my dog?") == ADVICE_SHARE
    # the user's household, and the user's world named in no person
    for of_the_user in (
        "What did we find under the floor?",
        "How much does Mom weigh now?",
        "How many candles has Juniper & Co. ordered in total?",
        "What did they find when the bathroom demo started?",
        "What does the user prefer?",
        "Mom's weight now?",
        "our savings for the house",
    ):
        assert asks_of_the_user(of_the_user) == 0.0, of_the_user
    for of_the_assistant in (
        "What did you suggest for my knee?",
        "What was the adhesive recommended for my tiles?",
        "What was the recommendation for my laptop?",
        # the chat itself: what either said
        "I'm checking our previous chat about the rotation sheet. Can you remind me what "
        "Admon does on Sundays?",
        "I think we discussed jobs for seniors earlier. What was the seventh one?",
        "What was the Medicaid program for long-term care that came up?",
        # words, not a question: of neither
        "Kyoto hostel",
        "boiling point of water at altitude",
        # knowledge, in the present, in no person: often the assistant's answer asked again
        "How does a heat pump work?",
        "What's iliotibial band syndrome?",
        "Can baking powder replace baking soda?",
    ):
        assert asks_of_the_user(of_the_assistant) is None, of_the_assistant


def test_what_the_assistant_said_is_asked_of_the_assistant() -> None:
    """Said in the past, by "you": not the user telling it or asking it now, and not a plea to
    recall, which asks of either."""
    for of_the_assistant in (
        "What did you suggest for my knee?",
        "I remember you made me a marking rubric. How many marks was the results section?",
        "I'm going back to our previous conversation about the brisket. At what temperature "
        "did you say to wrap it?",
        "Can you remind me which huts you suggested on the Routeburn?",
        "What were your tips for the late-afternoon confusion?",
        "What did the assistant suggest for dessert?",
    ):
        assert asks_of_the_assistant(of_the_assistant), of_the_assistant
    for not_of_it in (
        "What did I tell you about my sister?",
        "Can you suggest running shoes that would suit me?",
        "What do you suggest for dinner tonight?",
        "Can you remind me which chart the exam's navigation problems use?",
        "Do you remember where I parked?",
        "What was my last 10K time?",
    ):
        assert not asks_of_the_assistant(not_of_it), not_of_it


def test_chat_roles_name_one_side_and_lower_the_other() -> None:
    roles = chat_roles("Which huts did you suggest on the Routeburn?")
    assert roles is not None
    assert (roles.named, roles.lowered, roles.least_share) == (ASSISTANT_LABELS, USER_LABELS, 0.0)
    roles = chat_roles("How should I treat my knee pain?")
    assert roles is not None
    assert (roles.named, roles.lowered, roles.least_share) == (
        USER_LABELS,
        ASSISTANT_LABELS,
        ADVICE_SHARE,
    )
    assert chat_roles("Can you remind me which chart the exam uses?") is None
