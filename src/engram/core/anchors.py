"""Times told by an event instead of a date: "about three weeks after I started planning a
river trip, what was I overwhelmed with?", "what did I order a month before moving to the
Pearl?", "what happened on the weekend before February 19?".

Such a question names no day until the event is found: the search looks the event up
(`Anchor.event`), and `anchored_days` counts from the day that memory gives it (`event_day`:
a day it names, or the day it was saved). What is asked
is the rest of the question (`Anchor.asked`): the event's own words would rank the event first,
which is the one memory the question is not about (docs/search.md, section 2b).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from engram.core.dates import looks_ahead, named_days
from engram.core.time_asked import of_the_past

_COUNTS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "a couple of": 2,
    "a few": 3,
}
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30}
_COUNT = r"a couple of|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten|\d{1,2}"
# The event: the words after "before" or "after", up to the end of the clause or the question
# asked beside it ("…after I changed units, what trip…", "…before the grandkids came?").
_EVENT = (
    r"(?P<event>[^,;?!.]+?)"
    r"(?=\s*(?:[,;?!.]|$|\s(?:what|who|whom|where|which|how|did|do|does|was|were|is)\b))"
)
_SPAN = re.compile(
    r"(?P<lead>\b(?:about|around|roughly|nearly|almost|just|some|over)\s+)?"
    rf"\b(?P<count>{_COUNT})\s+(?P<unit>day|week|month)s?\s+"
    rf"(?:or\s+so\s+)?(?P<side>before|after|later\s+than|prior\s+to)\s+{_EVENT}",
    re.IGNORECASE,
)
_NEXT = re.compile(
    rf"\b(?:on\s+|in\s+|during\s+)?the\s+(?P<unit>day|weekend|week|month)\s+"
    rf"(?P<side>before|after)\s+{_EVENT}",
    re.IGNORECASE,
)
# An event told by a pronoun alone ("a week after that") is the conversation's, not the
# store's: there is nothing to look up.
# "The month before last" is a day counted from today (`engram.core.dates`).
_NO_EVENT = frozenset("that this it then there them those these last next".split())
# Days to come, or what is to be done by then ("What should I pack a week before the move?"):
# the answer is a plan that names the event, saved at no time it tells.
_TO_COME = re.compile(
    r"\b(?:should|shall|need\s+to|have\s+to|has\s+to|must|remind\s+me\s+to|to\s+do)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Anchor:
    """A span of days told from an event: `offset` days from it (negative: before), and
    `spread` either side of that day; `weekend`: the Saturday and Sunday after the event's
    day (or before it, with a negative `offset`)."""

    event: str
    offset: int
    spread: int
    weekend: bool
    asked: str


def anchor(text: str) -> Anchor | None:
    """The event a question of the past counts days from, or None (no such phrase, an event
    told by a pronoun alone, a question of days to come, of what to do then, or of how things
    are: `engram.core.dates.of_the_past`)."""
    if looks_ahead(text) or _TO_COME.search(text):
        return None
    found = _SPAN.search(text)
    if found is not None:
        count = found.group("count").lower()
        n = int(count) if count.isdigit() else _COUNTS[" ".join(count.split())]
        unit = _UNIT_DAYS[found.group("unit").lower()]
        before = found.group("side").lower().split()[0] in ("before", "prior")
        days = n * unit
        # "about three weeks": a week either way is still about three weeks; "two days": a
        # day either side, what was told the next day included
        spread = max(1, round(days / 4)) if (found.group("lead") or unit > 1) else 1
        return _told(found, text, -days if before else days, spread, False)
    found = _NEXT.search(text)
    if found is not None:
        side = -1 if found.group("side").lower() == "before" else 1
        unit_name = found.group("unit").lower()
        if unit_name == "weekend":
            return _told(found, text, side, 0, True)
        half = _UNIT_DAYS[unit_name] // 2  # "the week after": its seven days, 1 to 7 after
        return _told(found, text, side * (half + 1), half, False)
    return None


def _told(
    found: re.Match[str], text: str, offset: int, spread: int, weekend: bool
) -> Anchor | None:
    event = found.group("event").strip()
    words = re.findall(r"[A-Za-z0-9']+", event)
    if not words or all(w.lower() in _NO_EVENT for w in words):
        return None
    asked = " ".join((text[: found.start()] + " " + text[found.end() :]).split()).strip(" ,")
    asked = re.sub(r"\s+([?!.])", r"\1", asked)
    if not of_the_past(asked):  # "What happens a month after the Notion trial?": a rule
        return None
    return Anchor(event, offset, spread, weekend, asked)


def anchored_days(told: Anchor, event_day: date) -> tuple[date, ...]:
    """The days `told` names, counted from the day the event's memory was saved."""
    if told.weekend:
        if told.offset < 0:  # the Saturday and Sunday before the event's day
            sunday = event_day - timedelta(days=(event_day.weekday() + 1) % 7 or 7)
            return (sunday - timedelta(days=1), sunday)
        saturday = event_day + timedelta(days=(5 - event_day.weekday()) % 7 or 7)
        return (saturday, saturday + timedelta(days=1))
    centre = event_day + timedelta(days=told.offset)
    return tuple(centre + timedelta(days=i) for i in range(-told.spread, told.spread + 1))


# How far before the day its memory was saved a day it names may be the event's: what happened
# is told within weeks ("We moved on March 3", saved on the 10th); a date further back is as
# often another one ("The wedding is on June 14" read as last June's).
TOLD_WITHIN_DAYS = 31
# ... and how far after it: a plan is saved up to a year ahead of its day.
PLANNED_WITHIN_DAYS = 366


def event_day(content: str, saved: date) -> date:
    """The day of the event a memory tells, saved on `saved`: the one day it names, where that
    is a plan ("Knee surgery scheduled for May 5", saved in February: May 5) or what was told
    soon after ("The grandkids arrived yesterday"); else the day it was saved. A question
    counting from "my knee surgery" looked at February (a probe)."""
    days = named_days(content, saved, weeks=False)
    if len(days) == 1 and (-TOLD_WITHIN_DAYS <= (days[0] - saved).days <= PLANNED_WITHIN_DAYS):
        return days[0]
    return saved
