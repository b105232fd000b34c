"""The days a query names: the forms people write, both readings of an ambiguous date, and no
day where there is none (versions, words that start like a month, "today")."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from engram.core.dates import (
    asks_of_a_month_alone,
    day_of,
    day_spans,
    named_days,
    searched_of_a_day,
    without_written_dates,
)
from engram.core.time_asked import asks_when, says_when

TODAY = date(2024, 1, 26)  # a Friday


@pytest.mark.parametrize(
    ("query", "days"),
    [
        ("What kind of pasta did Kate make on 29 Dec 2023?", [date(2023, 12, 29)]),
        ("what happened on the 17th of January, 2024?", [date(2024, 1, 17)]),
        ("before December 23rd, 2023", [date(2023, 12, 23)]),
        ("naps on January 6 2024", [date(2024, 1, 6)]),
        ("decided on 2023-11-05", [date(2023, 11, 5)]),
        ("finished it on 21.01.2024", [date(2024, 1, 21)]),
        ("Jan. 5", [date(2024, 1, 5)]),
        ("the meeting on March 3", [date(2023, 3, 3)]),  # no year: the last March 3 so far
        ("what did I buy yesterday", [date(2024, 1, 25)]),
        ("the day before yesterday", [date(2024, 1, 24)]),
        ("three days ago", [date(2024, 1, 23)]),
        ("a week ago", [date(2024, 1, 19)]),
        ("what did we do last Friday", [date(2024, 1, 19)]),
        ("on monday", [date(2024, 1, 22)]),
        ("what happened on Feb 29", [date(2020, 2, 29)]),  # the last one so far
        ("day before yesterday", [date(2024, 1, 24)]),
        ("on 7 Jan 23", [date(2023, 1, 7)]),  # one date with a two-digit year, not two days
        ("on 5 May 10 people came", [date(2023, 5, 5)]),  # "10 people" is no year
        ("what did we decide on may 3", [date(2023, 5, 3)]),  # "may" after "on": a month
        ("the 2nd of march", [date(2023, 3, 2)]),
        ("May 3", [date(2023, 5, 3)]),  # with a capital
        ("what did we cook last weekend", [date(2024, 1, 20), date(2024, 1, 21)]),
        ("this past weekend", [date(2024, 1, 20), date(2024, 1, 21)]),
        ("last week", [date(2024, 1, 15) + timedelta(days=i) for i in range(7)]),
        # A timestamp names its day (it named none: the "T" ended no word), in any of its forms.
        ("what did I say at 2023-11-05T10:00?", [date(2023, 11, 5)]),
        ("logged 2023-11-05T10:00:59.5+02:00", [date(2023, 11, 5)]),
        ("logged 2023-11-05 10:00Z", [date(2023, 11, 5)]),
        # Five digits are no year (it read 2024 and left a stray digit): the day of no year.
        ("on 5 May 20245", [date(2023, 5, 5)]),
    ],
)
def test_the_forms_people_write_a_day_in(query: str, days: list[date]) -> None:
    assert list(named_days(query, TODAY)) == days


@pytest.mark.parametrize(
    ("query", "days"),
    [
        ("What's on April 15?", [date(2024, 4, 15)]),  # the next one, not last year's
        ("Anything happening on Friday?", [date(2024, 1, 26)]),  # today is a Friday
        ("What will we do on monday?", [date(2024, 1, 29)]),
        ("Is anything planned for Jan 20?", [date(2025, 1, 20)]),
        ("What is on 29 February?", [date(2024, 2, 29)]),
        ("Anything booked for the 25th of January?", [date(2025, 1, 25)]),
        ("What do I have on June 2?", [date(2024, 6, 2)]),  # probe: it was the June gone
        # back: said of the past, or "last" said outright
        ("What did we eat on Friday?", [date(2024, 1, 19)]),
        ("What's happening, compared with last Friday?", [date(2024, 1, 19)]),
        # a third probe's days to come that named none
        ("What do I have tomorrow?", [date(2024, 1, 27)]),
        ("the day after tomorrow", [date(2024, 1, 28)]),
        (
            "What's on my calendar next week?",
            [date(2024, 1, 29) + timedelta(days=i) for i in range(7)],
        ),
        ("Anything planned for next weekend?", [date(2024, 2, 3), date(2024, 2, 4)]),
        ("What's happening on the 30th?", [date(2024, 1, 30)]),
        ("What's happening on the 20th?", [date(2024, 2, 20)]),  # January's is gone
        ("What did we eat on the 20th?", [date(2024, 1, 20)]),
        ("What did we eat on the 30th?", [date(2023, 12, 30)]),  # January's is to come
        ("What's on for the 31st?", [date(2024, 1, 31)]),
        # something coming up, no day said: the week ahead
        ("Is anything coming up?", [date(2024, 1, 27) + timedelta(days=i) for i in range(7)]),
        ("What's coming up in June?", []),  # a month said: its words are searched
        # the calendar month before this one (an MCP probe: it named no day)
        ("What did we decide last month?", [date(2023, 12, d) for d in range(1, 32)]),
    ],
)
def test_a_question_about_days_to_come_names_the_next_such_day(
    query: str, days: list[date]
) -> None:
    """ "What's on April 15?" in December asked about April of last year, and "anything
    happening on Friday?" about the Friday gone (a helper's probe)."""
    assert list(named_days(query, TODAY)) == days


def test_a_question_about_what_was_said_in_a_month_names_its_days() -> None:
    """ "What did we talk about in March?" named no day: a month alone is read only when a
    question asks what was said in it (a probe), not "plans for May 2024"."""
    march = named_days("What did we talk about in March?", TODAY)
    assert march == tuple(date(2023, 3, 1) + timedelta(days=i) for i in range(31))
    assert named_days("What did I tell you in January 2024?", TODAY)[-1] == date(2024, 1, 31)
    assert searched_of_a_day("What did we talk about in March?").split() == ["What", "about", "?"]


def test_a_question_of_the_past_names_the_days_of_a_month_or_of_a_part_of_it() -> None:
    """A probe's chat questions named no day ("What problem did I have in my garden in early
    June?" found that month's turn 37th): in a conversation what happened is told about when
    it happens. Not a question of what is to come, nor "may" as a word."""

    def span(query: str) -> tuple[date, date] | None:
        days = named_days(query, TODAY)
        return (days[0], days[-1]) if days else None

    assert span("What did I buy in March?") == (date(2023, 3, 1), date(2023, 3, 31))
    assert span("What did I do in the garden in early June?") == (
        date(2023, 6, 1),
        date(2023, 6, 10),
    )
    assert span("What was I dealing with in mid-May?") == (date(2023, 5, 11), date(2023, 5, 20))
    assert span("What did I report in late April 2022?") == (
        date(2022, 4, 21),
        date(2022, 4, 30),
    )
    assert span("What did the vet say at the beginning of October?") == (
        date(2023, 10, 1),
        date(2023, 10, 10),
    )
    assert span("What happened to my garden in early June?") == (
        date(2023, 6, 1),
        date(2023, 6, 10),
    )
    assert span("Remind me what I ate in June") == (date(2023, 6, 1), date(2023, 6, 30))
    assert span("What did I do in early June last year?") == (date(2023, 6, 1), date(2023, 6, 10))
    assert span("What did I buy in January last year?") == (date(2023, 1, 1), date(2023, 1, 31))
    # "last March": the last one before this month (a held-out probe's question found none)
    assert span("What did I get up to last March?") == (date(2023, 3, 1), date(2023, 3, 31))
    assert span("What did I do last January?") == (date(2023, 1, 1), date(2023, 1, 31))
    assert span("What did I buy in January?") == (date(2024, 1, 1), date(2024, 1, 31))
    assert span("What did I do last march?") is None  # "march" as a word, as "may" below
    assert span("Is the wedding in June?") is None  # not of the past
    assert asks_of_a_month_alone("What did I get up to last March?")
    assert asks_of_a_month_alone("What did we do in mid-October?")
    assert not asks_of_a_month_alone("What did I do for myself in late April?")
    # "at the end of August", as docs/search.md reads it (a time probe: its words came first)
    assert asks_of_a_month_alone("What did I do at the end of August?")
    assert not asks_of_a_month_alone("What did I do at the gym in August?")
    assert not asks_of_a_month_alone("What did I do last march?")  # "march" as a word
    # of one person named after its verb, or of the user's life (a fourteenth blind probe's)
    assert asks_of_a_month_alone("What was Wen up to in April 2026?")
    assert asks_of_a_month_alone("What was Carmen dealing with in January 2026?")
    assert asks_of_a_month_alone("What happened in the user's life in September 2025?")
    assert not asks_of_a_month_alone("What was going on with Maya's health in March 2026?")
    assert not asks_of_a_month_alone("What did I do in Paris in August?")  # a place, not who
    assert span("What did I do in may?") is None  # "may" as a word, not a month


def test_this_week_is_the_calendar_week_of_today() -> None:
    """A probe asked on a Monday "Any appointments coming up for me this week?" and got the
    seven days after: today left out, next Monday in."""
    monday = date(2026, 12, 7)
    week = [monday + timedelta(days=i) for i in range(7)]
    assert list(named_days("Any appointments coming up for me this week?", monday)) == week
    friday = date(2026, 12, 11)
    assert list(named_days("anything planned this week?", friday)) == week[4:]
    assert list(named_days("what did I cook this week", friday)) == week[:5]
    assert list(named_days("plans for this weekend?", monday)) == week[5:]


def test_a_month_a_plan_is_for_names_no_days_gone() -> None:
    """ "Did I ever tell you where we're going in October?" in December named every day of the
    October gone, though the trip is to come (a probe)."""
    december = date(2026, 12, 7)
    assert named_days("Did I ever tell you where we're going in October?", december) == ()
    assert named_days("where are we going in October?", december) == ()
    assert named_days("what was going on in October?", december)[0] == date(2026, 10, 1)


def test_a_date_that_reads_two_ways_names_both_days() -> None:
    assert named_days("on 02.01.2024", TODAY) == (date(2024, 1, 2), date(2024, 2, 1))
    assert named_days("on 01/13/2024", TODAY) == (date(2024, 1, 13),)  # no 13th month


@pytest.mark.parametrize(
    "query",
    [
        "python 3.11.7 broke the build",  # a version, not a day
        "augment 5 fields",  # a word that starts like a month
        "marketing 2 people",
        "plans for May 2024",  # a month alone is no day
        "the 2017 football season",
        "I got a perfect score today!",  # said of the present, not asked of it
        "the meeting is Friday",  # a weekday alone is as often one to come
        "on 31.02.2024",  # no such day
        "why step 2 may fail on staging",  # "may" the word, not the month
        "python 3 may break the build",
        "we march 5 miles a day",
        "",
    ],
)
def test_no_day_where_there_is_none(query: str) -> None:
    assert named_days(query, TODAY) == ()


def test_counting_back_past_the_year_1_names_no_day() -> None:
    assert named_days("999 weeks ago", date(1, 1, 3)) == ()


def test_a_memory_counts_as_saved_on_a_named_day_a_day_either_side() -> None:
    spans = day_spans((date(2024, 1, 7),), UTC)

    def at(*moment: int) -> str | None:
        return day_of(datetime(*moment, tzinfo=UTC).timestamp(), spans)

    assert at(2024, 1, 7, 12) == "2024-01-07"
    assert at(2024, 1, 6, 0) == "2024-01-07"  # the asker's day may begin before UTC's
    assert at(2024, 1, 8, 23, 59) == "2024-01-07"  # told the day after
    assert at(2024, 1, 5, 23, 59) is None
    assert at(2024, 1, 9, 0) is None
    week = day_spans(tuple(date(2024, 1, 15) + timedelta(days=i) for i in range(7)), UTC)
    assert day_of(datetime(2024, 1, 17, 9, tzinfo=UTC).timestamp(), week) == "2024-01-17"


def test_a_day_runs_midnight_to_midnight_in_the_askers_zone() -> None:
    """7 January in Tokyo (UTC+9) began at 15:00 UTC on the 6th: a memory saved then, and the
    slack of a day, count from there."""
    tokyo = timezone(timedelta(hours=9))
    spans = day_spans((date(2024, 1, 7),), tokyo)
    assert day_of(datetime(2024, 1, 5, 15, tzinfo=UTC).timestamp(), spans) == "2024-01-07"
    assert day_of(datetime(2024, 1, 5, 14, 59, tzinfo=UTC).timestamp(), spans) is None
    assert day_of(datetime(2024, 1, 8, 14, 59, tzinfo=UTC).timestamp(), spans) == "2024-01-07"
    assert day_of(datetime(2024, 1, 8, 15, tzinfo=UTC).timestamp(), spans) is None


def test_a_query_is_searched_by_meaning_without_its_dates() -> None:
    assert without_written_dates("what did I buy on 3 March 2026?").split() == [
        "what",
        "did",
        "I",
        "buy",
        "on",
        "?",
    ]
    assert without_written_dates("no date here") == "no date here"


def test_a_short_query_about_how_things_stand_now_is_read_as_one() -> None:
    from engram.core.time_asked import asks_about_the_present

    for query in (
        "where does the user live now",
        "which company does she work for currently",
        "what exercise does he do these days",
        "is she still volunteering",
        "What is the book club reading at the moment?",
    ):
        assert asks_about_the_present(query), query
    for query in ("where did the user live", "snow in the mountains", "the stillness of night"):
        assert not asks_about_the_present(query), query
    told = (
        "I fell at school today, and my knee really hurts. It still hurts; I don't even want "
        "to move. Is that okay? I think it would be better to have someone with me."
    )
    assert not asks_about_the_present(told)  # a long message narrates


def test_a_written_day_is_searched_as_the_phrases_a_memory_names_it_by() -> None:
    from engram.core.dates import day_phrases

    today = date(2026, 6, 1)
    phrases = day_phrases("what is on 12 March?", today)
    for named in ("12 march", "march 12", "12th of march", "mar 12th", "03 12", "12 03"):
        assert named in phrases, named
    assert "12" not in phrases and "march" not in phrases
    assert {"5 may", "may 5th", "05 05"} <= set(day_phrases("on 2026-05-05", today))
    assert "1st of july" in day_phrases("1 July", today)
    assert "22nd aug" in day_phrases("22 August", today)
    assert "11th nov" in day_phrases("11 November", today)
    assert day_phrases("what did I do yesterday", today) == []  # counted back: no date written
    assert day_phrases("step 3 may fail", today) == []


@pytest.mark.parametrize(
    ("query", "searched"),
    [
        ("What did I tell you last week?", "What?"),
        ("What did we discuss 3 days ago about pricing?", "What about pricing?"),
        ("What have I said about Lisa yesterday?", "What about Lisa?"),
        ("What did Kate say about the movie last Friday?", "What did Kate say about the movie?"),
    ],
)
def test_a_query_about_a_day_is_searched_without_its_count_back_and_the_act_of_telling(
    query: str, searched: str
) -> None:
    """ "What did I tell you last week?" searched "tell" and "week" (a probe): the words
    name when, and that something was said, never what."""
    assert " ".join(searched_of_a_day(query).split()).replace(" ?", "?") == searched


def test_asking_for_plans_is_kept_in_what_a_query_means() -> None:
    """ "coming up" names no word to search, but by meaning it asks for something planned:
    without it "any operations" was too far from "Cataract surgery scheduled for January"."""
    assert searched_of_a_day("any operations coming up").split() == ["any", "operations"]
    assert searched_of_a_day("any operations coming up", by_meaning=True).split() == [
        "any",
        "operations",
        "coming",
        "up",
    ]
    told = searched_of_a_day("What did I tell you yesterday?", by_meaning=True)
    assert told.split() == ["What", "?"]


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("When did Siobhan move into her new flat?", True),
        ("when is dad retiring", True),
        ("What date is the wedding?", True),
        ("Which year did they meet?", True),
        ("What time does the gig start?", True),
        ("Whenever you can, remind me about the dentist", False),  # "whenever" is no "when"
        ("Where did Siobhan move?", False),
        ("What did I say when we met?", False),  # "when" not asked
    ],
)
def test_a_question_asks_when_by_its_first_word_or_a_date_asked_for(
    question: str, asks: bool
) -> None:
    assert asks_when(question) is asks


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("1st of april. no joke", True),
        ("lands the 12th, staying two weeks", True),
        ("defense moved to July", True),
        ("the gig is at 8pm", True),
        ("back on Monday", True),
        ("I beat you at chess yesterday", True),
        ("we moved three weeks ago", True),
        ("since 2019", True),
        ("I got the walthamstow flat!", False),
        ("we may go, who knows", False),  # "may" and "march" are words too
        ("the marching band was loud", False),
        ("it starts in May", True),  # written as a month
    ],
)
def test_a_text_says_when_by_a_date_a_day_a_time_or_a_day_counted_back(
    text: str, says: bool
) -> None:
    assert says_when(text) is says


def test_a_day_of_the_month_asked_of_the_past_is_no_word_to_search() -> None:
    """Looking back, "on the 2nd" names a day gone by, and the memories of it are found by when
    they were saved: as words ("2nd") it kept "What did I do on the 2nd?" from being a question
    of the day alone (a time probe). Looking ahead, a plan says it so ("Dinner on the 20th")."""
    assert searched_of_a_day("What did I do on the 2nd?").split() == ["What", "did", "I", "do", "?"]
    assert "the 20th" in searched_of_a_day("What's on for the 20th?", by_meaning=True)
