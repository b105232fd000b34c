"""The days a query names: "on 7 Jan 2024", "21.01.2024", "January 6", "yesterday".

People ask a memory about a day ("what did we decide on March 3?", "what did I buy yesterday?")
and the memories saved on that day are the likeliest answers: search lifts them
(`ENGRAM_SEARCH_DATE_WEIGHT`, docs/search.md). Days and weeks are read ("last week"), never a
month or a year alone: "in 2017" is usually when something happened, not when it was said,
and a year's memories are no answer in particular.

A date that reads two ways (02.01.2024: 2 January or 1 February) names both days. A date
without a year is the latest such day not after today. Relative days count back from `today`.
"""

from __future__ import annotations

import contextlib
import re
from datetime import UTC, date, datetime, timedelta

from engram.core.timeutil import DAY

MONTHS = {
    name[:3]: number
    for number, name in enumerate(
        "january february march april may june july august september october november "
        "december".split(),
        start=1,
    )
}
WEEKDAYS = {
    name: number
    for number, name in enumerate(
        "monday tuesday wednesday thursday friday saturday sunday".split()
    )
}
# A month by its name or its usual short form: not any word starting like one ("augment 5").
_MONTH = (
    r"(january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
)
_ORDINAL = r"(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s*(\d{4}))?"
_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
# Dots or slashes with a year of four digits: "3.11.7" is a version, not a day.
_NUMERIC = re.compile(r"\b(\d{1,2})([./])(\d{1,2})\2(\d{4})\b")
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}}){_ORDINAL}\s+(?:of\s+)?{_MONTH}(?![a-z]){_YEAR}", re.I)
_MONTH_DAY = re.compile(
    rf"\b{_MONTH}(?![a-z])\s+(?:the\s+)?(\d{{1,2}}){_ORDINAL}\b(?![.:/]\d){_YEAR}", re.I
)
_AGO = re.compile(
    r"\b(\d{1,3}|a|an|one|two|three|four|five|six|seven)\s+(day|week)s?\s+ago\b", re.I
)
# "last Friday", "on Friday": a weekday alone is as often one to come ("the meeting is Friday").
_WEEKDAY = re.compile(r"\b(?:last|on)\s+(" + "|".join(WEEKDAYS) + r")\b", re.I)
# Not "today": a query says it of the present ("I got a perfect score today!") far more often
# than it asks for what was saved today, and today's memories are the freshest anyway.
_RELATIVE = {"yesterday": 1, "the day before yesterday": 2}
# The calendar week (Monday to Sunday) before this one, or its Saturday and Sunday.
_LAST_WEEK = re.compile(r"\b(?:last|this past)\s+(week(?:end)?)\b", re.I)
_RELATIVE_RE = re.compile(r"\b(the day before yesterday|yesterday)\b", re.I)
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_COUNTS |= {"six": 6, "seven": 7}


def named_days(text: str, today: date) -> tuple[date, ...]:
    """Every day `text` names, in the order found, each once."""
    days: list[date] = []

    def add(year: int, month: int, day: int) -> None:
        with contextlib.suppress(ValueError):  # 31.02, or a number that was no day
            days.append(date(year, month, day))

    def add_yearless(month: int, day: int) -> None:
        for year in (today.year, today.year - 1):
            try:
                candidate = date(year, month, day)
            except ValueError:  # 29 February of a common year
                continue
            if candidate <= today:
                days.append(candidate)
                return

    for year, month, day in _ISO.findall(text):
        add(int(year), int(month), int(day))
    for first, _, second, year in _NUMERIC.findall(text):
        add(int(year), int(second), int(first))  # day first, as most of the world writes
        add(int(year), int(first), int(second))  # month first, as the US does
    named = [*_DAY_MONTH.findall(text), *((d, m, y) for m, d, y in _MONTH_DAY.findall(text))]
    for day, month, year in named:
        month_number = MONTHS[month.lower()[:3]]
        if year:
            add(int(year), month_number, int(day))
        else:
            add_yearless(month_number, int(day))
    for phrase in _RELATIVE_RE.findall(text):
        days.append(today - timedelta(days=_RELATIVE[phrase.lower()]))
    for count, unit in _AGO.findall(text):
        n = int(count) if count.isdigit() else _COUNTS[count.lower()]
        days.append(today - timedelta(days=n * (7 if unit.lower() == "week" else 1)))
    for weekday in _WEEKDAY.findall(text):
        back = (today.weekday() - WEEKDAYS[weekday.lower()]) % 7 or 7
        days.append(today - timedelta(days=back))
    for unit in _LAST_WEEK.findall(text):
        monday = today - timedelta(days=today.weekday() + 7)
        days += [
            monday + timedelta(days=i) for i in range(5 if unit.lower() == "weekend" else 0, 7)
        ]
    return tuple(dict.fromkeys(days))


# A memory counts as saved on a named day a day either side of it: its time is kept in UTC
# while the asker's day is local, and what happened on a day is often told the day after.
SLACK_DAYS = 1


def day_spans(days: tuple[date, ...]) -> list[tuple[float, float, str]]:
    """Each day as the epoch seconds a memory saved on it may carry (start inclusive, end
    exclusive, with the slack), and its ISO date."""
    spans = []
    for day in days:
        start = datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()
        slack = SLACK_DAYS * DAY
        spans.append((start - slack, start + DAY + slack, day.isoformat()))
    return spans


def day_of(created_at: float, spans: list[tuple[float, float, str]]) -> str | None:
    """The named day nearest to a memory saved at `created_at`, among those it counts as saved
    on (of "last week", the day it was saved, not the day before)."""
    near = [(abs(created_at - (a + b) / 2), iso) for a, b, iso in spans if a <= created_at < b]
    return min(near)[1] if near else None
