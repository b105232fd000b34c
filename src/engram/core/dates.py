"""The days a query names: "on 7 Jan 2024", "21.01.2024", "January 6", "yesterday".

People ask a memory about a day ("what did we decide on March 3?", "what did I buy yesterday?")
and the memories saved on that day are the likeliest answers: search lifts them
(`ENGRAM_SEARCH_DATE_WEIGHT`, docs/search.md). Days and weeks are read ("last week"), never a
month or a year alone: "in 2017" is usually when something happened, not when it was said,
and a year's memories are no answer in particular.

A date that reads two ways (02.01.2024: 2 January or 1 February) names both days. A date
without a year is the latest such day not after today, and "on Friday" the last Friday, unless
the text looks ahead ("What's on April 15?", "Anything happening on Friday?", "What will we do
on Friday?"): then the next such day, today included. Relative days count back from `today`,
the asker's date (the caller gives it in the local time zone).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import suppress
from datetime import date, datetime, timedelta, tzinfo

from engram.core.timeutil import DAY

MONTH_NAMES = (
    "January February March April May June July August September October November December"
).split()
MONTHS = {name[:3].lower(): number for number, name in enumerate(MONTH_NAMES, start=1)}
WEEKDAYS = {
    name: number
    for number, name in enumerate(
        "monday tuesday wednesday thursday friday saturday sunday".split()
    )
}
_WEEKDAY_NAMES = tuple(WEEKDAYS)  # "monday"… in the order of `date.weekday()`
# A month by its name or its usual short form: not any word starting like one ("augment 5").
_MONTH = (
    r"(january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
)
# Month names that are everyday words too: "step 2 may fail", "we march 5 miles". Read as a
# month only when written with a capital, with a year, or after a word that introduces a date.
_WORDS_TOO = frozenset({"may", "march", "mar"})
_DATE_LEAD = re.compile(r"\b(?:on|of|since|before|after|until|by|from|the)\s+$", re.I)
_ORDINAL = r"(?:st|nd|rd|th)?"
# Four digits, or two at the end of the date ("7 Jan 23"; not "on 5 May 10 people came"); not
# the start of a longer number ("5 May 20245" was 5 May 2024 and a stray digit).
_YEAR = r"(?:,?\s*(\d{4}(?!\d)|\d{2}(?=\s*(?:[^\w\s]|$))))?"
# A timestamp too, its time read as part of it: "2024-05-05T10:00" named no day.
_ISO = re.compile(
    r"\b(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:[Tt ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?)?\b"
)
# Dots or slashes with a year of four digits: "3.11.7" is a version, not a day.
_NUMERIC = re.compile(r"\b(\d{1,2})([./])(\d{1,2})\2(\d{4})\b")
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})({_ORDINAL})\s+(?:of\s+)?{_MONTH}(?![a-z]){_YEAR}", re.I)
_MONTH_DAY = re.compile(
    rf"\b{_MONTH}(?![a-z])\s+(?:the\s+)?(\d{{1,2}})({_ORDINAL})\b(?![.:/]\d){_YEAR}", re.I
)
# Whole numbers only: "1.5 days ago" is not 5 days ago, nor "1,000 days ago" 0 days ago.
_AGO = re.compile(
    r"(?<![\d.,])\b(\d{1,3}|a|an|one|two|three|four|five|six|seven)\s+(day|week)s?\s+ago\b",
    re.I,
)
# "last Friday", "on Friday": a weekday alone is as often one to come ("the meeting is Friday").
_WEEKDAY = re.compile(r"\b(last|on)\s+(" + "|".join(WEEKDAYS) + r")\b", re.I)
# Words of a text that asks about days to come: "what's on Friday?" is about the next one, where
# "what did we eat on Friday?" is about the last. Read only where a day is named.
_AHEAD = re.compile(
    r"\b(?:will|won'?t|going to|gonna|planned|plans?|scheduled|booked|upcoming|coming up|"
    r"happening|what'?s on|what is on|anything on|do (?:i|we) have|due"
    # "where we're going in October", "are we going": not "was going", "what went on"
    r"|(?:'re|'m|are|am)\s+going|are\s+(?:we|you|they)\s+going)\b",
    re.I,
)
# Not "today": a query says it of the present ("I got a perfect score today!") far more often
# than it asks for what was saved today, and today's memories are the freshest anyway.
_RELATIVE_RE = re.compile(r"\b((?:the\s+)?day\s+before\s+yesterday|yesterday)\b", re.I)
# The calendar week (Monday to Sunday) before this one, or its Saturday and Sunday.
_LAST_WEEK = re.compile(r"\b(?:last|this past)\s+(week(?:end)?)\b", re.I)
# The calendar month before this one: "What did we decide about Atlas last month?" (an MCP
# probe: its October decision came first on December 4).
_LAST_MONTH = re.compile(r"\b(?:last|this past)\s+month\b", re.I)
# Days to come: "tomorrow", "the day after tomorrow", the calendar week after this one or its
# weekend ("what's coming up next week?", a probe's question that named no day).
_TOMORROW = re.compile(
    # written as a title ("The Day After Tomorrow", a film) it names no day
    r"\b((?:the\s+)?(?-i:day\s+after\s+tomorrow)|(?-i:tomorrow)"
    r"|(?:(?<=^)|(?<=[.!?]\s))(?-i:Tomorrow))\b",
    re.I,
)
_NEXT_WEEK = re.compile(r"\bnext\s+(week(?:end)?)\b", re.I)
# The calendar week of today, or its weekend: "Any appointments coming up for me this week?"
# (asked on a Monday, it named the seven days after, today left out and next Monday in: a
# probe).
_THIS_WEEK = re.compile(r"\bthis\s+(week(?:end)?)\b", re.I)
_UPCOMING = re.compile(r"\b(?:coming up|upcoming)\b", re.I)
_A_MONTH = re.compile(rf"\b{_MONTH}(?![a-z])", re.I)
# A day of the month alone: "what's happening on the 20th?" (not "the 10th of February", a
# written date).
_ORDINAL_DAY = re.compile(r"\b(?:on|for)\s+the\s+(\d{1,2})(?:st|nd|rd|th)\b(?!\s+of\b)", re.I)
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_COUNTS |= {"six": 6, "seven": 7}
# How far back (or ahead) a date without a year is looked for: 29 February comes every four
# years.
_YEARS_LOOKED = 8


def looks_ahead(text: str) -> bool:
    """Whether `text` asks about days to come ("what's on Friday?", "anything planned for
    April 15?"): a day it names without a year or a "last" is then the next one."""
    return _AHEAD.search(text.replace("\u2019", "'")) is not None


def named_days(text: str, today: date, weeks: bool = True) -> tuple[date, ...]:
    """Every day `text` names, in the order found, each once; `weeks=False`: not the days of
    "last week" or "last weekend"."""
    days = [
        *_written_days(text, today),
        *relative_days(text, today, weeks),
        *_month_said(text, today),
        *_month_asked(text, today),
    ]
    return tuple(dict.fromkeys(days))


# A month, or a part of one, that a question of the past asks about: "What did I do in June?",
# "What problem did I have in my garden in early June?", "…at the beginning of October", "What
# did I get up to last March?" (a held-out probe's question found nothing of that March). In a
# conversation what happened is told about when it happens: a probe's chat questions named no
# day so (`named_days` read none) and found the turns of that month at 11-37; "What happened
# in June?" and "Remind me what I ate in early June" are such questions too (a third probe).
_PAST_ASKED = re.compile(r"\b(?:did|was|were|had|happened|went|came up|remind me)\b", re.IGNORECASE)
_MONTH_ASKED = re.compile(
    r"(?:\bin\s+|\b(?P<part>early|mid|late)[\s-]+"
    r"|\b(?:the\s+)?(?P<of>beginning|start|middle|end)\s+of\s+|\b(?P<last>last)\s+)"
    rf"(?P<month>{_MONTH})(?![a-z])(?:\s+(?P<year>\d{{4}}))?",
    re.IGNORECASE,
)
_LAST_YEAR = re.compile(r"\blast year\b", re.IGNORECASE)
# The days of a month each part names (the last ends with the month).
_PARTS = {
    None: (1, 31),
    "early": (1, 10),
    "beginning": (1, 10),
    "start": (1, 10),
    "mid": (11, 20),
    "middle": (11, 20),
    "late": (21, 31),
    "end": (21, 31),
}


def _month_asked(text: str, today: date) -> list[date]:
    """The days of a month, or of a part of it, that a question of the past (`_PAST_ASKED`,
    not one that `looks_ahead`) names: the last such month so far, or the one of the year
    given. "May" and "March" only
    written with a capital ("what did I do in may" may be asking what one may do)."""
    if _PAST_ASKED.search(text) is None or looks_ahead(text):
        # "Did I ever tell you where we're going in October?": the trip is to come, and the
        # October gone named every day of it (a probe)
        return []
    days: list[date] = []
    # "in early June last year": the year before this one, whatever the month
    before = today.year - 1 if _LAST_YEAR.search(text) else None
    for found in _MONTH_ASKED.finditer(text):
        if not _names_a_month(found):
            continue
        month = MONTHS[found.group("month").lower()[:3]]
        given = found.group("year")
        # "last March" in March is a year ago; "in March" is this one's
        later = month >= today.month if found.group("last") else month > today.month
        year = int(given) if given else before or today.year - later
        first, last = _PARTS[(found.group("part") or found.group("of") or "").lower() or None]
        days += [
            d
            for d in (date(year, month, 1) + timedelta(days=i) for i in range(first - 1, last))
            if d.month == month
        ]
    return days


def _month_said(text: str, today: date) -> list[date]:
    """The days of the month a question asks what was said in ("What did we talk about in
    March?"): the last such month so far, or the one of the year given."""
    found = _SAID_IN_MONTH.search(text)
    if found is None:
        return []
    month = MONTHS[found.group(1).lower()[:3]]
    year = int(found.group(2)) if found.group(2) else today.year - (month > today.month)
    try:
        first = date(year, month, 1)
    except ValueError:
        return []
    return [d for d in (first + timedelta(days=i) for i in range(31)) if d.month == month]


def _names_a_month(found: re.Match[str]) -> bool:
    """Whether a `_MONTH_ASKED` match names a month: "May" and "March" only written with a
    capital ("what did I do in may" may be asking what one may do)."""
    name = found.group("month").rstrip(".")
    return name.lower() not in _WORDS_TOO or name[0].isupper()


# The words of a question asking what was done or went on, and nothing else, of the user or of
# one named after its verb ("What was Wen up to in April 2026?", a fourteenth blind probe's).
_WHAT_WAS_DONE = frozenset(
    """what did do does done doing i we was were get got up to been have had happen happened
    anything remind me tell us in during at towards toward around the user user's life going
    on with dealing""".split()
)
_NAMED_SUBJECT = re.compile(r"\b(did|was|were|has|had)\s+(?-i:[A-Z])[\w-]*(?:'s)?\b", re.I)


def asks_of_a_month_alone(text: str) -> bool:
    """Whether `text` asks what was done in a month (or a part of one) and nothing else:
    "What did I get up to last March?", "What did we do in early June?" (not "What did I do
    for myself in late April?")."""
    if _PAST_ASKED.search(text) is None:
        return False

    rest = _MONTH_ASKED.sub(lambda m: " " if _names_a_month(m) else m.group(0), text)
    if rest == text:
        return False
    rest = _NAMED_SUBJECT.sub(r"\1", rest)
    return set(re.findall(r"[a-z']+", rest.lower())) <= _WHAT_WAS_DONE


def only_dates(text: str) -> bool:
    """Whether `text` holds nothing but the dates written in it (and punctuation): "7 Jan
    2024" searched by its words found any memory holding a 7 or a 2024."""
    rest = without_written_dates(text)
    return rest != text and not any(ch.isalnum() for ch in rest)


def written_dates(text: str) -> list[str]:
    """The dates written out in `text` ("on 7 Jan 2024" gives "7 Jan 2024"), as written: what
    a query built from the text must keep for search to read them. Not one that names no day
    ("31 Feb 2025", "2025-13-45"): a recall's query dropped it without a word (a probe), and
    its words are all there is to search by."""
    return [m.group(0) for kind, m in _date_matches(text) if _days_of(kind, m, _ANY_YEAR, False)]


# A leap year's last day: which written dates name a day at all, 29 February too.
_ANY_YEAR = date(2024, 12, 31)


def without_written_dates(text: str) -> str:
    """`text` with its written dates blanked: what a query naming a day is searched by, by
    words and by meaning. "What did I buy on 3 March?" found "parking spot number 3" and "the
    2026 roadmap" by the date's digits, above what was bought that day."""
    rest = text
    for written in written_dates(text):
        rest = rest.replace(written, " ")
    return rest


# The act of telling, in a question about a day: "What did I tell you last week?", "What did
# we discuss on April 24?" ask for all that was said then, and its words name none of it; nor
# do those asking for what is planned then.
_SAID = (
    r"\b(?:(?:did|do|have|had)\s+(?:i|we|you)\s+(?:tell|told|say|said|talk|talked|discuss|"
    r"discussed|mention|mentioned|chat|chatted|share|shared|note|noted|save|saved|store|stored|"
    r"write down|log|logged)|(?:remind me (?:of )?what )?(?:i|we)\s+(?:told|said|mentioned|noted|"
    r"saved|stored|wrote down|logged))\b(?:\s+(?:you|me|us))?"
)
_TELLING = re.compile(_SAID, re.IGNORECASE)
# and asking what is planned: "What's coming up next week?", "Anything on for Friday?"
# and what was going on then: "What happened on March 17?" found the memories saying "March 31"
# first by its words, none of that day's in its top six (a probe)
_PLANS = re.compile(
    r"\b(?:coming up|happen(?:s|ed|ing)?|going on|went on|planned|scheduled|do (?:i|we) have|"
    r"(?:did|do) (?:i|we) (?:work on|get up to)|(?:was|were) (?:i|we) (?:doing|up to|working on))"
    r"\b",
    re.IGNORECASE,
)
# A month asked of what was said in it: "What did we talk about in March?" (a month alone is
# not read otherwise: "in 2017" or "in March" is more often when something happened).
_IN_MONTH = rf"\bin\s+{_MONTH}(?![a-z])(?:\s+(\d{{4}}))?"
_SAID_IN_MONTH = re.compile(_SAID + ".*?" + _IN_MONTH, re.I)


def searched_of_a_day(text: str, by_meaning: bool = False) -> str:
    """What a query naming a day is searched by, besides the day: without the phrases that
    count back to it ("last week", "3 days ago", "tomorrow"), the month a question asks what
    was said in ("in March"), the act of telling ("what did I tell you") and, unless searched
    `by_meaning`, the asking for what is planned ("coming up"). On REALTALK and MADial-Bench it
    moved one MADial question (R@10 0.666 -> 0.667); in a probe's store "What did I tell you
    last week?" found "physio is every other week" first, and the five memories saved that week
    at 16-25. By meaning, "coming up" says a plan is asked for: "any operations coming up"
    found "Cataract surgery scheduled for January" (cosine 0.30) only with it."""
    text = without_relative_days(text)
    if _SAID_IN_MONTH.search(text):
        text = re.sub(_IN_MONTH, " ", text, flags=re.IGNORECASE)
    text = _TELLING.sub(" ", text)
    return text if by_meaning else _PLANS.sub(" ", text)


def day_phrases(text: str, today: date) -> list[str]:
    """The days written in `text` as phrases a memory naming them holds ("12 march", "march
    12th", "12 of mar", "03 12"…): searched in place of the date's bare numbers, they find
    "Dentist appointment on March 12th" or "Flight on 2026-03-12" without finding "parking spot
    number 12"."""
    phrases: list[str] = []
    # Days to come are named in the memories of what is planned ("Dentist on May 20"); those
    # gone by are found by when memories were saved (`saved_on`).
    coming = [d for d in relative_days(text, today) if d > today]
    for day in dict.fromkeys([*_written_days(text, today), *coming]):
        month = MONTH_NAMES[day.month - 1].lower()
        for number in (str(day.day), _ordinal(day.day)):
            for name in dict.fromkeys((month, month[:3])):
                phrases += [f"{number} {name}", f"{name} {number}", f"{number} of {name}"]
        # Written in digits ("2026-04-15", "15.04.2026"): month and day side by side, the year
        # left out, since a day named without one may be a year off.
        phrases += [f"{day.month:02} {day.day:02}", f"{day.day:02} {day.month:02}"]
    # A day of this coming week by its name too ("Dentist on Saturday at 10" for "the day after
    # tomorrow"); not those of a whole week, whose names every plan holds.
    if 0 < len(coming) <= 2:
        phrases += [_WEEKDAY_NAMES[d.weekday()] for d in coming if (d - today).days < 7]
    return list(dict.fromkeys(phrases))


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def relative_days(text: str, today: date, weeks: bool = True) -> list[date]:
    """The days `text` names counting from today ("yesterday", "3 days ago", "last Friday",
    and with `weeks` "last week"; "on Friday" the last one, or the next one, today included, in
    a text that `looks_ahead`)."""
    days: list[date] = []
    ahead = looks_ahead(text)
    try:
        for phrase in _RELATIVE_RE.findall(text):
            days.append(today - timedelta(days=1 if phrase.lower() == "yesterday" else 2))
        for count, unit in _AGO.findall(text):
            n = int(count) if count.isdigit() else _COUNTS[count.lower()]
            days.append(today - timedelta(days=n * (7 if unit.lower() == "week" else 1)))
        for lead, weekday in _WEEKDAY.findall(text):
            number = WEEKDAYS[weekday.lower()]
            if ahead and lead.lower() == "on":
                days.append(today + timedelta(days=(number - today.weekday()) % 7))
            else:
                days.append(today - timedelta(days=(today.weekday() - number) % 7 or 7))
        for unit in _LAST_WEEK.findall(text) if weeks else ():
            monday = today - timedelta(days=today.weekday() + 7)
            first = 5 if unit.lower() == "weekend" else 0
            days += [monday + timedelta(days=i) for i in range(first, 7)]
        if weeks and _LAST_MONTH.search(text):
            last = today.replace(day=1) - timedelta(days=1)
            days += [last.replace(day=i) for i in range(1, last.day + 1)]
        for phrase in _TOMORROW.findall(text):
            days.append(today + timedelta(days=1 if phrase.lower() == "tomorrow" else 2))
        for unit in _NEXT_WEEK.findall(text):
            monday = today + timedelta(days=7 - today.weekday())
            first = 5 if unit.lower() == "weekend" else 0
            days += [monday + timedelta(days=i) for i in range(first, 7)]
        for unit in _THIS_WEEK.findall(text) if weeks else ():
            monday = today - timedelta(days=today.weekday())
            first = 5 if unit.lower() == "weekend" else 0
            week = [monday + timedelta(days=i) for i in range(first, 7)]
            # what is to come from today, what was so far up to it
            days += [d for d in week if (d >= today if ahead else d <= today)] or week
        for number in _ORDINAL_DAY.findall(text):
            days += _day_of_the_month(int(number), today, ahead)
        # "Anything coming up?": the week ahead; not "What's coming up in June?"
        if not days and _UPCOMING.search(text) and not _A_MONTH.search(text):
            days += [today + timedelta(days=i) for i in range(1, 8)]
    except OverflowError:  # before the year 1: no day to name
        pass
    return days


def _day_of_the_month(number: int, today: date, ahead: bool) -> list[date]:
    """The `number`th of this month, or of the next (ahead) or last month where this one's is
    not on that side of today."""
    month = today.replace(day=1)
    for _ in range(2):
        with suppress(ValueError):
            day = month.replace(day=number)
            if (day >= today) if ahead else (day <= today):
                return [day]
        month = (
            (month + timedelta(days=32)).replace(day=1)
            if ahead
            else ((month - timedelta(days=1)).replace(day=1))
        )
    return []


def written_day(day: date) -> str:
    """A day as a query may name it and `named_days` always reads it: "5 May 2026" (a
    lower-case "may 5" is the word "may" unless "on" comes before it)."""
    return f"{day.day} {MONTH_NAMES[day.month - 1]} {day.year}"  # not %B: it follows the locale


def without_relative_days(text: str) -> str:
    """`text` without the phrases `relative_days` reads counting back ("last Friday", "3 days
    ago"). A day to come keeps its name: a memory of what is planned names it ("Team dinner on
    Friday"), and was saved before that day."""
    ahead = looks_ahead(text)
    text = _WEEKDAY.sub(lambda m: m.group(0) if ahead and m.group(1).lower() == "on" else " ", text)
    # "on the 20th" stays where it looks ahead: a memory of what is planned says it so
    # ("Dinner on the 20th"); looking back, "What did I do on the 2nd?" was searched by the
    # meaning of "what did I do … 2nd", and three memories alike to that came first (a probe)
    patterns = (_RELATIVE_RE, _AGO, _LAST_WEEK, _LAST_MONTH, _TOMORROW, _NEXT_WEEK)
    for pattern in patterns if ahead else (*patterns, _ORDINAL_DAY):
        text = pattern.sub(" ", text)
    return text


def _written_days(text: str, today: date) -> list[date]:
    ahead = looks_ahead(text)
    return [d for kind, m in _date_matches(text) for d in _days_of(kind, m, today, ahead)]


def _days_of(kind: str, m: re.Match[str], today: date, ahead: bool) -> list[date]:
    """The days a written date names (none for "31 Feb 2025"; two for "03/04/2025", read day
    first and month first)."""
    if kind == "iso":
        return _valid(*(int(g) for g in m.groups()))
    if kind == "numeric":
        first, second, year = int(m.group(1)), int(m.group(3)), int(m.group(4))
        # day first, as most of the world writes; month first, as the US does
        return _valid(year, second, first) + _valid(year, first, second)
    day, month, written = _day_month_year(kind, m.groups())
    number = MONTHS[month.lower()[:3]]
    if written:
        year = int(written) if len(written) == 4 else 2000 + int(written)
        return _valid(year, number, int(day))
    return _yearless(number, int(day), today, ahead)


def _date_matches(text: str) -> Iterator[tuple[str, re.Match[str]]]:
    """Each date written in `text`, by the first form that reads it: a form's matches are
    blanked before the next is tried, so "7 Jan 23" is one date, not 7 January and 23 January."""
    rest = text
    forms = (("iso", _ISO), ("numeric", _NUMERIC), ("day_month", _DAY_MONTH))
    for kind, pattern in (*forms, ("month_day", _MONTH_DAY)):
        for m in pattern.finditer(rest):
            if kind in ("day_month", "month_day") and not _reads_as_month(kind, m, rest):
                continue
            yield kind, m
            rest = rest[: m.start()] + " " * (m.end() - m.start()) + rest[m.end() :]


def _day_month_year(kind: str, groups: tuple[str | None, ...]) -> tuple[str, str, str | None]:
    if kind == "day_month":
        day, _, month, year = groups
    else:
        month, day, _, year = groups
    assert day is not None and month is not None
    return day, month, year


def _reads_as_month(kind: str, m: re.Match[str], text: str) -> bool:
    """A month word that is also an everyday word ("may") counts only with a capital, a year,
    an ordinal ("2nd") or a word before it that introduces a date ("on", "of", "since")."""
    _, month, year = _day_month_year(kind, m.groups())
    if month.lower().rstrip(".") not in _WORDS_TOO or month[0].isupper() or year:
        return True
    ordinal = m.group(2) if kind == "day_month" else m.group(3)
    return bool(ordinal) or _DATE_LEAD.search(text, 0, m.start()) is not None


def _valid(year: int, month: int, day: int) -> list[date]:
    try:
        return [date(year, month, day)]
    except ValueError:  # 31.02, or a number that was no day
        return []


def _yearless(month: int, day: int, today: date, ahead: bool) -> list[date]:
    """The latest such day not after today, or `ahead` the first not before it (29 February:
    up to eight years either way)."""
    if ahead:
        years = range(today.year, min(today.year + _YEARS_LOOKED, 9999) + 1)
    else:
        years = range(today.year, max(today.year - _YEARS_LOOKED, 0), -1)
    for year in years:
        found = _valid(year, month, day)
        if found and (found[0] >= today if ahead else found[0] <= today):
            return found
    return []


# A memory counts as saved on a named day a day either side of it: what happened on a day is
# often told the day after, and a client may be in another time zone than the store's machine.
SLACK_DAYS = 1


def day_spans(days: tuple[date, ...], zone: tzinfo) -> list[tuple[float, float, str]]:
    """Each day (midnight to midnight in `zone`) as the epoch seconds a memory saved on it may
    carry (start inclusive, end exclusive, with the slack), and its ISO date."""
    spans = []
    for day in days:
        start = datetime(day.year, day.month, day.day, tzinfo=zone).timestamp()
        slack = SLACK_DAYS * DAY
        spans.append((start - slack, start + DAY + slack, day.isoformat()))
    return spans


def covering(spans: list[tuple[float, float, str]]) -> list[tuple[float, float]]:
    """The spans as few ranges as cover them (the seven days of "last week" overlap)."""
    out: list[tuple[float, float]] = []
    for start, end, _ in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def on_a_named_day(created_at: float, spans: list[tuple[float, float, str]]) -> bool:
    """Whether a memory was saved on one of the named days itself, not in the slack."""
    slack = SLACK_DAYS * DAY
    return any(a + slack <= created_at < b - slack for a, b, _ in spans)


def day_of(created_at: float, spans: list[tuple[float, float, str]]) -> str | None:
    """The named day nearest to a memory saved at `created_at`, among those it counts as saved
    on (of "last week", the day it was saved, not the day before)."""
    near = [(abs(created_at - (a + b) / 2), iso) for a, b, iso in spans if a <= created_at < b]
    return min(near)[1] if near else None
