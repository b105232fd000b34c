"""A thing moved to another day, time, date or amount replaces the fact holding the old one
(`engram.core.value_moves`): a sixth blind probe's changes, and the traps beside them."""

from __future__ import annotations

import pytest

from engram.core.keeping import may_be_news, replaces_a_fact
from engram.core.value_moves import moves_a_value, value_moved


@pytest.mark.parametrize(
    ("old", "news"),
    [
        (
            "Theo's dentist appt is thursday 14th at 3:30, dr okafor",
            "dentist office called, theo's appointment got moved to thurs the 21st, same time",
        ),
        (
            "Marcus and I do week on / week off with Theo. handover is sunday 6pm at his place",
            "marcus wants to switch the handover to saturday mornings 10am from now on",
        ),
        (
            "lab consumables budget for this year is £4200",
            "finance meeting went badly. lab budget has been cut to £3500 for the rest of the year",
        ),
        (
            "booked movers: Britannia, pickup 24 Feb, about £2900",
            "Changed movers!! Pink Removals was 600 cheaper. pickup now 26 Feb",
        ),
        (
            "current flat is 14 Ducie St, Manchester, lease finish on 28 Feb",
            "landlord agree to end lease on 15 March instead 28 Feb",
        ),
        (
            "I tutor on Tuesdays and Thursdays 4-6pm at Kumon",
            "tutoring shifts changed, now mondays and wednesdays instead",
        ),
        (
            "started an evening course, beginner italian, tuesdays 7-9pm at the college",
            "italian class is moving to wednesdays from next week, same time same place",
        ),
        # an amount moved to: the number after the move's "to" (a seventh blind probe's)
        (
            "my beagle Biscuit is 4, vet put him on apoquel 10mg once a day",
            "vet bumped biscuit up to 16mg apoquel, the itching is still bad",
        ),
        (
            "so sophie called, seed target is 2M euro",
            "we upped the seed target to 3M after talking to 2 more funds",
        ),
        # a number a thing is down to, told after an "also" turning to it (a fourteenth's)
        (
            "Rachel: i started at the firm 3 days a week this month tho, for tax season",
            "Rachel: also tax season is over so im down to 1 day a week for the firm",
        ),
        # a day told month first (a twelfth blind probe's)
        (
            "Flying to Tokyo on May 3, JAL flight 61 from LAX",
            "flight changed: now departing May 4, same flight number",
        ),
    ],
)
def test_a_thing_moved_to_another_value_replaces_its_fact(old: str, news: str) -> None:
    assert may_be_news(news)
    assert value_moved(news, old)
    assert replaces_a_fact(news, similarity=0.45, old=old)


@pytest.mark.parametrize(
    ("old", "news"),
    [
        # another thing on another day: nothing both name, or only one word and no move
        ("I went to the gym on Friday", "I'm going to the gym on Mondays now"),
        (
            "We have a team meeting on Monday at 10am",
            "Grabbed lunch with the team on Friday instead",
        ),
        ("Dentist appointment on March 14 at 3pm", "I moved my car to the garage on Tuesday"),
        # a value added beside the old one, someone else's, or the same value
        ("Mia has piano lessons on Wednesdays", "Mia now also takes swimming lessons on Fridays"),
        ("Yoga is on Mondays at 6pm", "yoga moved to the big studio, still mondays at 6pm"),
        ("Flight to Oslo on March 21", "flight changed to the March 21 one at noon"),
        ("Beach day with the kids on Saturday at 10am", "we went down to the beach at 5pm"),
        ("The budget for March was 4 million", "the budget changed: March 4.5 million now"),
        # a thing moved to a place, its count beside it
        ("I have 5 plants on the windowsill", "I moved my 2 plants to the balcony"),
    ],
)
def test_another_thing_or_the_same_value_replaces_nothing(old: str, news: str) -> None:
    assert not value_moved(news, old)


def test_news_told_before_a_question_replaces_as_told() -> None:
    """The sixth probe's handover news ended asking "do you think theo will care?", and a
    statement with a question mark was read as a question: no link."""
    old = "Marcus and I do week on / week off with Theo. handover is sunday 6pm"
    news = (
        "ok so marcus texted, he wants to switch the handover to saturday mornings 10am. fine "
        "by me honestly. do you think theo will care?"
    )
    assert replaces_a_fact(news, similarity=0.6, old=old)
    assert not replaces_a_fact("is the handover still sunday 6pm?", similarity=0.8, old=old)


def test_a_month_is_a_word_of_its_own() -> None:
    """ "decided" read as December made a REALTALK turn about hair colour news of a date, and
    compared it down to two turns about fashion, which it superseded."""
    assert not moves_a_value("I decided to change the color from platinum blonde to honey blonde")
    assert moves_a_value("the dentist moved my appointment to 3 Dec")
    assert not moves_a_value("I may switch to tea")


# A sixteenth blind probe's developer notes: each change linked to a note about another thing.
PROBE_16_OTHER_THINGS = [
    # a bare number moved to, of a thing the old note does not name (its "SQLAlchemy 2.0")
    (
        "Halyard is the shipment-tracking API. Python 3.11, FastAPI, SQLAlchemy 2.0 async.",
        "Raised SQLAlchemy pool_size to 20 and max_overflow to 10; PgBouncer now sits in front",
    ),
    (
        "Retrained the student with max_seq_len=256: NDCG@10 0.439. p99 latency 38 ms.",
        "Student learning rate changed to 3e-5 (5e-5 was unstable with seq len 256)",
    ),
    # someone moving to a team, a month after: no date moved
    (
        "Priya is on leave Feb 24 – Mar 7; Dana covers auth reviews while she's out.",
        "Dana is moving to the data platform team in April; billing ownership passes to Kenji.",
    ),
    # what a verb is done to, named after it, or the note's label with none there
    (
        "2.4.0 moved to April 30 because the tracking map needs Oskar's websocket endpoint",
        "Bumped targetSdkVersion and compileSdkVersion to 34; added a foreground service for "
        "tracking",
    ),
    (
        "Decision: moved from react-native-config to Expo public env vars (EXPO_PUBLIC_*)",
        "Image caching: switched from react-native-fast-image (unmaintained) to expo-image.",
    ),
    (
        "Image caching: switched from react-native-fast-image (unmaintained) to expo-image.",
        "Bundle size: JS bundle was 7.8 MB, of which the lottie-react-native animations were "
        "1.2 MB; moved them to remote JSON.",
    ),
]


@pytest.mark.parametrize(("old", "news"), PROBE_16_OTHER_THINGS)
def test_a_change_of_another_thing_replaces_nothing(old: str, news: str) -> None:
    assert may_be_news(news)
    assert not value_moved(news, old)
    assert not replaces_a_fact(news, similarity=0.45, old=old)


@pytest.mark.parametrize(
    ("old", "news"),
    [
        # the thing the verb is done to, held by the old note
        ("Dockerfile base image is python:3.11-slim", "Bumped the base image to Python 3.12"),
        ("My 1:1 with Sarah is on Tuesdays at 2pm", "I moved my 1:1 with Sarah to Thursdays"),
        # one of a kind swapped for another: the kind is named, not the thing
        ("I'm on T-Mobile", "I switched carriers to Verizon"),
        # a label naming the thing the change is told of
        (
            "Holdout week: 2024-W50, for every offline evaluation",
            "Holdout week: changed from 2024-W50 to 2025-W03 because W50 had the holiday sale",
        ),
    ],
)
def test_a_change_of_the_thing_a_note_holds_replaces_it(old: str, news: str) -> None:
    assert replaces_a_fact(news, similarity=0.45, old=old)
