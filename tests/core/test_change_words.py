"""The words that say something changed, and a change denied (`engram.core.change_words`), and
a change made again (`engram.core.fact_values.changed_again`): a fourteenth blind probe's."""

from __future__ import annotations

import pytest

from engram.core.change_words import says_a_change
from engram.core.fact_values import changed_again
from engram.core.keeping import may_be_news, replaces_a_fact


@pytest.mark.parametrize(
    "text",
    [
        "Maya: he wants to move to Seattle for a flight medic job and i'm not leaving Portland",
        "I didn't quit my job after all",
        "we never really moved, the house fell through",
        "I haven't switched banks yet",
    ],
)
def test_a_change_denied_is_no_news(text: str) -> None:
    assert not says_a_change(text)
    assert not replaces_a_fact(text)
    assert not replaces_a_fact(text, similarity=0.6, old="I live in Portland, near Laurelhurst")


@pytest.mark.parametrize(
    "text",
    [
        # the words that deny themselves still say a change
        "I don't smoke anymore",
        "I no longer eat meat",
        "I quit my job at Contoso",
        # the past told with "did": a fact changed all the same
        "Wen: oh and i did switch to pescatarian. feel way better already",
    ],
)
def test_a_change_told_is_news(text: str) -> None:
    assert says_a_change(text)
    assert may_be_news(text)


def test_a_change_after_a_question_of_it_replaces_what_was_held() -> None:
    old = "Wen: im thinking of going pescatarian? ive been vegan for 4 yrs but im always tired"
    news = "Wen: good idea. oh and i did switch to pescatarian. feel way better already"
    assert replaces_a_fact(news, similarity=0.57, old=old)


@pytest.mark.parametrize(
    ("news", "old", "again"),
    [
        (
            "User: Dr. Okonkwo switched me again. Now on losartan 50mg. The swelling is gone.",
            "User: the pharmacist switched my blood pressure pill, now it's amlodipine 5mg",
            True,
        ),
        ("we moved again, to Leeds this time", "we moved to York last spring", True),
        # the same verb is needed in the old one: a word that starts alike is not it
        ("we moved again, to Leeds this time", "I love old movies", False),
        # and "again" of the change, not of anything else
        ("switched my pill, feeling sick again", "the pharmacist switched my pill", False),
    ],
)
def test_a_change_made_again_replaces_the_last_news_of_it(news: str, old: str, again: bool) -> None:
    assert changed_again(news, old) is again
