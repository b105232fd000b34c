"""Which time a question asks of: how things stand now ("where does she live now?"), the past
("what did I buy?"), or when something happened ("When did Siobhan move?"); and whether a
text says when. The days a query names are `core.dates`."""

from __future__ import annotations

import re

from engram.core.dates import WEEKDAYS
from engram.core.text import short_query

_PRESENT = re.compile(
    r"\b(?:now|currently|current|nowadays|these days|at the moment|right now|at present|"
    r"latest|still|any ?more|no longer)\b",
    re.IGNORECASE,
)


# The words that ask for the present and name nothing else, as "now" (a stopword) does: "where
# do I work these days" found "…work starts in May" by "days" first, the new job seventh (a
# probe); "What's my current diet?" found turns saying "currently" first (another).
_ASKS_NOW = re.compile(
    r"\b(?:currently|current|nowadays|these days|at the moment|right now|at present)\b",
    re.IGNORECASE,
)


def without_asking_now(text: str) -> str:
    """`text` without the words asking how things stand now, when it asks that
    (`asks_about_the_present`): what it is searched by as words."""
    return _ASKS_NOW.sub(" ", text) if asks_about_the_present(text) else text


# Said of the past: what is counted from an event is what happened then ("What happens a
# month after the Notion trial?", "Is it safe to fly a week after surgery?" ask of rules and
# plans: a probe found each lost its answer to what was saved near a day counted from nothing),
# and a question of a chat with an assistant in the past asks of the user's life
# (`engram.core.chat_roles`).
_PAST = re.compile(
    r"\b(?:did|was|were|had|went|came|got|took|made|said|told|bought|saw|met|left|began|"
    r"(?!(?:spe|inde|bre|procee|succee|excee|emb)ed\b)\w{3,}ed)\b",
    re.IGNORECASE,
)


def of_the_past(text: str) -> bool:
    """Whether `text` speaks in the past tense ("did", "was", "moved", "bought")."""
    return _PAST.search(text) is not None


def asks_about_the_present(text: str) -> bool:
    """Whether a query asks how things stand now ("where does she live now?", "what is he
    working on currently?"): of two memories about it, the later is likelier to hold."""
    # a long message narrates by "now" and "still": read so, MADial-Bench lost R@10 0.668 -> 0.657
    return short_query(text) and _PRESENT.search(text) is not None


# A question asking when something happened or will: "When did Siobhan move into her flat?",
# "What date is the wedding?", "What time does the gig start?".
_ASKS_WHEN = re.compile(
    r"^\W*when\b|\b(?:what|which) (?:date|day|time|year|month)\b", re.IGNORECASE
)
# A text saying when: a month by name ("may" and "march" only written so: they are words too),
# a day of the month ("the 12th"), a year, a clock time ("7pm", "9:30"), a weekday, or a day
# counted from the saying ("yesterday", "last week", "three days ago").
_SAYS_WHEN = re.compile(
    r"\b(?:january|february|april|june|july|august|september|october|november|december"
    r"|jan|feb|apr|jun|jul|aug|sept?|oct|nov|dec|(?-i:May|March))\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)\b|\b(?:19|20)\d\d\b"
    r"|\b\d{1,2}(?::\d\d)?\s?(?:am|pm)\b|\b\d{1,2}:\d\d\b"
    rf"|\b(?:{'|'.join(WEEKDAYS)}|yesterday|tomorrow|tonight|today)\b"
    r"|\b(?:last|next|this past)\s+(?:week|month|year|weekend|night)\b"
    r"|\b\w+\s+(?:days?|weeks?|months?|years?)\s+ago\b",
    re.IGNORECASE,
)


def asks_when(text: str) -> bool:
    """Whether a question asks when: its answer is a turn that says when ("1st of april. no
    joke"), which shares few words with it."""
    return _ASKS_WHEN.search(text) is not None


def says_when(text: str) -> bool:
    """Whether a text says when: a date, a day, a time, or a day counted from the saying."""
    return _SAYS_WHEN.search(text) is not None
