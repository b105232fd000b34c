"""A recall request turned into a search: what to look for (`recall_query`) and how many days
back (`recall_window`). Whether a message is a recall request at all is `engram.core.intent`'s
call.
"""

from __future__ import annotations

import math
import re
from datetime import date

from engram.core.anchors import anchor
from engram.core.dates import (
    named_days,
    relative_days,
    without_relative_days,
    written_dates,
    written_day,
)
from engram.core.message import plain
from engram.core.questions import without_naming
from engram.core.text import STOPWORDS, words

_RECALL_LEAD = re.compile(
    r"^\W*(?:(?:can|could|would|do|did) you (?:still )?(?:remember|recall|remind me(?: of)?)|"
    r"remind me(?: of| about| what| how| when| where| which| who)?|recall|look up|"
    r"tell me what you (?:remember|know) about|what do you (?:know|remember) about|"
    r"what (?:did|have) (?:i|we) (?:say|said|tell you|told you|decide|agree|discuss)"
    r"(?: about| on| for)?|"
    # "Did I mention what my husband does?" searched "Did I what my husband does?" (a probe)
    r"(?:did|have|had) (?:i|we) (?:ever |already )?(?:mention(?:ed)?|tell you|told you|"
    r"say|said)(?: to you)?(?: about| that)?|"
    # asked for as a task: "Summarize everything I've told you about my health"
    r"(?:summari[sz]e|list|recap|go over|tell me) (?:everything|all|what) (?:i|we)(?:'ve| have)? "
    r"(?:told you|said|shared|mentioned)(?: about| on| regarding)?|"
    r"any idea|"
    # the user's lapse of memory: "i was trying to remember my dentists name", "I forgot,
    # which language…", "pull up everything you know about my mom" (a blind probe)
    r"(?:i|we)(?:'m| am| was| were)? (?:(?:just )?trying to|can'?t|cannot|couldn'?t|don'?t|"
    r"do not) (?:remember|recall)|(?:i|we) (?:forget|forgot)(?=\W+(?:what|where|who|when|"
    r"which|how|the name)\b)|"
    r"(?:(?:can|could|would|will) you )?(?:please )?(?:pull up|bring up|dig up|show me|give me)"
    r" (?:everything|anything|all|what) you (?:know|have|remember|'ve got|have got)"
    r"(?: about| on| of)?|"
    # a task that needs what was told before ("Book a table at my favorite restaurant")
    r"(?:(?:can|could|would|will) you )?(?:please )?"
    r"(?:book|order|buy|get me|find|play|put on|send|reserve|cook|make|call|text|"
    r"email|plan))\b[,:]?\s*",
    re.IGNORECASE,
)


_WINDOWS = (
    (re.compile(r"\b(?:today|this morning)\b", re.I), 1),
    (re.compile(r"\byesterday\b", re.I), 2),
    (re.compile(r"\b(?:last|this|past) week\b|\bfew days ago\b", re.I), 7),
    # "What did we talk about recently?": two weeks, where it searched the word (probe).
    (re.compile(r"\b(?:recently|lately|the other day)\b", re.I), 14),
    (re.compile(r"\b(?:last|this|past) month\b", re.I), 31),
    (re.compile(r"\b(?:last|this|past) year\b", re.I), 366),
)


# "3 days ago", "in the last 2 weeks", "the past 6 months": N units back.
_COUNTED_WINDOW = re.compile(
    # The whole number ("1.5 days ago" read as 5 days, "1,000 days ago" as 1 day).
    r"\b(?:(?:in )?the )?(?:(?:last|past) (?<![\d.,])(\d{1,4}(?:\.\d{1,2})?) "
    r"(day|week|month|year)s?|(?<![\d.,])(\d{1,4}(?:\.\d{1,2})?) (day|week|month|year)s? ago)\b",
    re.I,
)
_UNIT_DAYS = {"day": 1, "week": 7, "month": 31, "year": 366}
# "Where do I work these days?": now, not a window, and nothing to look for.
_NOWADAYS = re.compile(r"\b(?:these days|at the moment|right now)\b", re.I)


def recall_query(message: str, today: date | None = None) -> str:
    """A search query for a recall request: the message without the asking ("do you
    remember", "what did I tell you") and without when (that is `recall_window`), in its own
    words and order. Search reads a question better whole: "Where do I work?" cut to its
    content word, "work", found five memories about standup before the one naming the
    employer (a probe); over REALTALK's 451 questions read as recalls, R@10 0.593 cut, 0.601
    whole, 0.604 as asked (`bench/retrieval.py --as-recall`).
    Empty when it names nothing to look for ("What did we decide this month?"): a search
    without words then lists what was used in that window; the asking words ("decide this
    month") would match anything saying "this". The days the message names, given `today`,
    end the query written out in full ("5 May 2026"), which search always reads as days and
    lifts what was saved on them (`engram.core.dates`): as loose words ("may 5" without its
    "on", "3 days ago" dropped for the window) they named none."""
    if anchor(message) is not None:
        # Days counted from an event: search reads them whole ("…a month before moving to the
        # Pearl?" without its "before" counted from nothing)
        return " ".join(_RECALL_LEAD.sub("", plain(message), count=1).split())
    dates = written_dates(message)
    text = without_relative_days(message)  # `recall_window` has them
    for written in dates:  # with the word that leads it in ("on 5 May")
        text = re.sub(rf"(?:\b(?:on|in|since|from|by)\s+)?{re.escape(written)}", " ", text)
    text = _RECALL_LEAD.sub("", plain(text), count=1)
    text = _COUNTED_WINDOW.sub(" ", text)
    text = _NOWADAYS.sub(" ", text)
    for pattern, _ in _WINDOWS:
        text = pattern.sub(" ", text)
    # "What's my wife's name?": the answer names her ("My wife Lisa…"); the word "name" found
    # "My name is Daniel" and "a golden retriever named Biscuit" above her (a helper's probe).
    text = without_naming(text)
    text = _LAST_TIME.sub(" ", text)  # "time" alone is asked of: "What time does…"
    # "What birthdays do I need to remember?" searched "What birthdays do I need to?" (a probe)
    text = _MUST_REMEMBER.sub(" ", text)
    text = _TALKED_ABOUT.sub(" ", text)
    asked = _WORDS.sub(lambda w: " " if w[0].casefold() in _RECALL_NOISE else w[0], text)
    asked = _SPACE_BEFORE_MARK.sub(r"\1", " ".join(asked.split())).strip(" ,;:")
    # Nothing but function words left: "Do you remember what it was?" searched "what it was",
    # and "it" narrowed the window to memories saying "it".
    names_something = any(t not in _RECALL_NOISE and t not in STOPWORDS for t in words(asked))
    # The seven days of "last week" only when there is nothing else to look for: with words,
    # their digits would match any memory holding a 28 (`recall_window` narrows to that week
    # instead); without, a search of no words lists the window's freshest memories, this
    # week's before last week's.
    named = () if today is None else named_days(message, today, weeks=not names_something)
    days = dates if today is None else [written_day(d) for d in named]
    if not names_something:
        return " ".join(days)
    # The days before its question mark: the mark moves its meaning (without it, R@10 on the
    # questions above was 0.010 lower).
    body = asked.rstrip("?.!")
    return " ".join([body, *days]) + asked[len(body) :]


_LAST_TIME = re.compile(r"\b(?:the )?last time\b", re.IGNORECASE)
_MUST_REMEMBER = re.compile(
    r"\b(?:(?:do |should |must )?(?:i|we) )?(?:need to|have to|should|must|ought to|got to|gotta)"
    r"\s+(?:remember|recall|keep in mind|not forget)\b",
    re.IGNORECASE,
)
_WORDS = re.compile(r"[\w'’]+")
_SPACE_BEFORE_MARK = re.compile(r"\s+([?.!,;:])")


_RECALL_NOISE = frozenset(
    """again remember recall remind said say told tell mentioned mention decided decide agreed
    agree discussed discuss ever before last what's who's where's when's how's that's it's am
    whats whos wheres whens hows
    i'm any currently nowadays please""".split()
)
# Talking and knowing are the asking only when about something ("What did we talk about?",
# "what do I know about X"): "who do I talk to at okapi now?" was searched as "who do I to at
# okapi now?" (a blind probe's).
_TALKED_ABOUT = re.compile(r"\b(?:talk|talked|chat|chatted|know|knew)\s+(?=about\b)", re.I)


def recall_window(message: str, today: date) -> int | None:
    """Days back a recall request points to, if it says: to the start of the earliest day it
    names by counting back ("3 days ago" → 4: a memory saved three days and nine hours ago is
    in; "last week" → back to last week's Monday), else by its span ("this month" → 31)."""
    # A day to come ("what's on Friday?") is no window: what is planned was said before it.
    counted_back = [day for day in relative_days(message, today) if day < today]
    if counted_back:
        return (today - min(counted_back)).days + 1
    counted = _COUNTED_WINDOW.search(message)
    if counted is not None:
        number = counted.group(1) or counted.group(3)
        unit = (counted.group(2) or counted.group(4)).lower()
        return max(1, math.ceil(float(number) * _UNIT_DAYS[unit]))
    for pattern, days in _WINDOWS:
        if pattern.search(message):
            return days
    return None
