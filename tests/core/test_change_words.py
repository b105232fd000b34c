"""The words that say something changed, and a change denied (`engram.core.change_words`), and
a change made again (`engram.core.fact_values.changed_again`): a fourteenth blind probe's."""

from __future__ import annotations

import pytest

from engram.core.change_words import says_a_change
from engram.core.fact_values import changed_again, value_swapped
from engram.core.keeping import may_be_news, replaces_a_fact
from engram.core.thing_changed import owned_before_the_sale, thing_sold


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


SALE = "Sold the Camry in September; now uses the community shuttle and Emma's Uber account."


def test_a_sale_is_news_of_the_thing_sold_only() -> None:
    """A fifteenth blind probe's: the sale superseded "Daughter Emma lives in Denver…" (0.41
    alike, by the name) and left the car current."""
    assert thing_sold(SALE) == "Camry"
    assert thing_sold("We sold our house in Austin") == "house"
    assert thing_sold("Sold out in an hour!") is None  # not a sale of anything
    daughter = "Daughter Emma lives in Denver and calls every Sunday evening."
    assert not replaces_a_fact(SALE, similarity=0.41, old=daughter)
    car = "Drives a 2015 Toyota Camry, plate GEO 71."
    assert owned_before_the_sale(SALE, car)
    assert not owned_before_the_sale(SALE, daughter)
    assert not owned_before_the_sale(SALE, "Took the Camry in for an oil change")  # an event
    assert owned_before_the_sale("We sold our Camry", "We have a 2015 Camry")
    assert not owned_before_the_sale("I sold my Camry", "My brother drives a Camry")  # his


def test_a_change_to_a_thing_goes_to_the_thing_not_its_article() -> None:
    """A fifteenth blind probe's: "…to a Tandem t:slim X2 pump" was read as going to "a", which
    the old note held ("a Dexcom G7 sensor"), so it agreed with the note and replaced nothing."""
    news = "Maya switched from the Omnipod to a Tandem t:slim X2 pump this week."
    assert value_swapped(news) == ("Omnipod", "Tandem")
    old = "Maya has type 1 diabetes; she wears an Omnipod 5 insulin pump and a Dexcom G7 sensor."
    assert replaces_a_fact(news, similarity=0.61, old=old)


# A seventeenth blind probe's account manager and recruiter: news of one person or thing that
# superseded a fact of another, and search listed it first for the other's question.
@pytest.mark.parametrize(
    ("news", "old"),
    [
        # someone named first in each, neither naming the other's
        (
            "Jenna Liu left Cobalt Dynamics; Owen Blake is the new workspace admin.",
            "Alex Morgan is the finance controller at Cobalt Dynamics; phone 555-0101",
        ),
        (
            "Priya now says she would accept €95k if the role is fully remote",
            "Chloe Martin wants £80k and is fully remote from Manchester",
        ),
        # a thing gone live is no home
        (
            "The new reporting dashboard is now live for Kestrel Aviation.",
            "Alex Chen is CTO of Brightpath Analytics, based in Singapore.",
        ),
    ],
)
def test_news_of_another_replaces_nothing(news: str, old: str) -> None:
    assert may_be_news(news)
    assert not replaces_a_fact(news, similarity=0.5, old=old)


@pytest.mark.parametrize(
    ("news", "old"),
    [
        # the same name opening both, or the news naming whom the fact opens with
        (
            "Jenna Liu left Cobalt Dynamics; Owen Blake is the new workspace admin.",
            "Jenna Liu is Cobalt's workspace admin",
        ),
        ("Acme upgraded from Team to Enterprise, 120 seats", "Acme is on the Team plan, 80 seats"),
        ("We now live in Boulder, on Maple Street", "I live in Denver, Colorado"),
    ],
)
def test_news_of_the_same_one_still_replaces(news: str, old: str) -> None:
    assert replaces_a_fact(news, similarity=0.5, old=old)
