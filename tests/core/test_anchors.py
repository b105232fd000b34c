"""Reading a time told by an event: which event, how far from it, and what is asked besides."""

from __future__ import annotations

from datetime import date

import pytest

from engram.core.anchors import anchor, anchored_days, event_day


@pytest.mark.parametrize(
    ("question", "event", "offset", "spread", "asked"),
    [
        (
            "About three weeks after I started planning a river trip, what was I overwhelmed "
            "with in the garden?",
            "I started planning a river trip",
            21,
            5,
            "what was I overwhelmed with in the garden?",
        ),
        (
            "What gear did I order about a month before moving to the Pearl?",
            "moving to the Pearl",
            -30,
            8,
            "What gear did I order?",
        ),
        ("What did Tom say 3 days before the exam", "the exam", -3, 1, "What did Tom say"),
        ("What did I eat the day after the wedding?", "the wedding", 1, 0, "What did I eat?"),
        ("What did we do the week after the move?", "the move", 4, 3, "What did we do?"),
    ],
)
def test_the_event_the_distance_and_the_question_left(
    question: str, event: str, offset: int, spread: int, asked: str
) -> None:
    told = anchor(question)
    assert told is not None
    assert (told.event, told.offset, told.spread, told.asked) == (event, offset, spread, asked)


@pytest.mark.parametrize(
    "question",
    [
        "What did we do a week after that?",  # the conversation's event, not the store's
        "Just the month before last, I learned how to plant flowers.",  # counted from today
        "How long after my defense did I find a place to live?",  # no distance told
        "What should I pack a week before the move?",  # what to do: the plan names the event
        "What are we going to do two days after the wedding?",  # days to come
        "What did I cook last week?",
        # of how things are, rules and plans: the memory naming the event answers (a probe)
        "What happens a month after the Notion trial?",
        "Is it safe to fly a week after surgery?",
        "Can I drive two weeks after the knee surgery?",
        "Why do muscles hurt two days after a workout?",
    ],
)
def test_no_event_to_count_from(question: str) -> None:
    assert anchor(question) is None


def test_the_days_counted_from_the_event() -> None:
    came = date(2024, 4, 2)
    week_before = anchor("What changed a week before the grandkids came?")
    assert week_before is not None
    assert anchored_days(week_before, came) == tuple(date(2024, 3, d) for d in (24, 25, 26, 27, 28))
    weekend = anchor("What happened on the weekend before February 19?")
    assert weekend is not None and weekend.weekend
    # 19 February 2024 is a Monday: the weekend before it is the 17th and 18th
    assert anchored_days(weekend, date(2024, 2, 19)) == (date(2024, 2, 17), date(2024, 2, 18))
    after = anchor("What happened the weekend after the party?")
    assert after is not None
    # from a Saturday, the weekend after is the next one
    assert anchored_days(after, date(2024, 2, 17)) == (date(2024, 2, 24), date(2024, 2, 25))


@pytest.mark.parametrize(
    ("content", "saved", "day"),
    [
        # a plan: the day it names, months after it was saved
        ("Knee surgery scheduled for May 5 at St. Mary's", date(2025, 2, 10), date(2025, 5, 5)),
        # told soon after
        ("The grandkids arrived yesterday, the house is full", date(2025, 4, 2), date(2025, 4, 1)),
        ("We moved on March 3, finally unpacked", date(2025, 3, 10), date(2025, 3, 3)),
        # no day named, or one as often another's: the day it was saved
        ("We moved into the Pearl apartment today", date(2025, 3, 3), date(2025, 3, 3)),
        ("The wedding is on June 14, so excited", date(2025, 2, 10), date(2025, 2, 10)),
    ],
)
def test_the_day_a_memory_gives_its_event(content: str, saved: date, day: date) -> None:
    assert event_day(content, saved) == day
