"""A thing of the user's moved to another day, time, date or amount: news that replaces the
fact holding the old one.

A sixth blind probe's users told most of their changes so ("theo's appointment got moved to
thurs the 21st" of "Theo's dentist appt is thursday 14th at 3:30", "he wants to switch the
handover to saturday mornings 10am" of "handover is sunday 6pm", "lab budget has been cut to
£3500" of "lab consumables budget for this year is £4200"), and none of ten such changes
superseded the fact it changed: the words of a value swapped (`engram.core.keeping`) are one
or two, and these say more. What they share is a thing named in both (the appointment, the
handover, the budget), a word that moves it, and a value of one kind in each that differs. A
day of a trip and a day of a visit are two things: without a thing both name, nothing is
replaced.
"""

from __future__ import annotations

import re

from engram.core.fact_values import MARKS, fact_terms
from engram.core.index_terms import index_term
from engram.core.text import STOPWORDS, WORD, unlabelled

# A word that moves a thing to a new value, the thing named just before it or between it and
# its "to": "theo's appointment got moved to", "switch the handover to", "budget has been cut
# to", "tutoring shifts changed".
_MOVED = re.compile(
    r"(?P<before>(?:[\w'-]+\s+){0,6})"
    r"(?P<verb>mov(?:ed|es|ing)|switch(?:ed|es|ing)?|chang(?:ed|es|ing)|cut(?! of\b)|bumped|raised|"
    r"lowered|increased|decreased|reduced|upped|dropped|pushed|shifted|rescheduled|postponed|"
    # "im down to 1 day a week for the firm" (a fourteenth blind probe's): only to a number
    r"brought forward|down(?=\s+to\s+(?:about |around |roughly )?\d))\b"
    r"(?P<after>[^.;!?]{0,40}?\b(?:to|until|till)\b)?",
    re.IGNORECASE,
)
# "instead" and "now" say a value is new, not which thing's: the thing is told by two words
# both name ("pickup now 26 Feb" of "booked movers: Britannia, pickup 24 Feb"), or by the old
# value named beside the new one ("end lease on 15 March instead 28 Feb").
_NEW_NOW = re.compile(r"\b(?:instead|now)\b", re.IGNORECASE)
# A value added beside the old one, not in its place: "Mia now also takes swimming lessons on
# Fridays" of "Mia has piano lessons on Wednesdays" (`bench/supersede_facts.py`'s trap).
_ADDED = re.compile(r"\b(?:also|too|as well|another|second|extra|additional)\b", re.IGNORECASE)
# ...but not "also" opening a turn, which turns to another thing: "also tax season is over so
# im down to 1 day a week" (a fourteenth blind probe's).
_OPENING_ALSO = re.compile(r"^\W*(?:(?:oh|and|ok|okay|so)\W+)*also\b", re.IGNORECASE)
_WEEKDAY = re.compile(
    r"\b(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|mon|tues?|weds?|thu(?:rs?)?|fri|sat|sun)\b",
    re.IGNORECASE,
)
# A month named, in full or cut short ("may" only before a day: "I may go" names none).
_MONTH_NAME = (
    r"(?:january|february|march|april|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec|may(?=\s+\d))\b"
)
# "the 21st", "21 March", "21 of March", and "March 21" / "May 4" (a probe's "flight changed:
# now departing May 4" of "Flying to Tokyo on May 3" read no day before).
_DAY_OF_MONTH = re.compile(
    rf"\b(?P<n>[0-3]?\d)(?:st|nd|rd|th)\b|\b(?P<m>[0-3]?\d)\s+(?:of\s+)?{_MONTH_NAME}"
    rf"|\b{_MONTH_NAME}\s+(?P<d>[0-3]?\d)\b(?![:.,]?\d)",
    re.IGNORECASE,
)
_TIME = re.compile(r"\b(?P<h>1[0-2]|0?\d)(?::(?P<min>\d\d))?\s?(?P<half>am|pm|a|p)\b", re.I)
_MONEY = re.compile(r"[$€£¥]\s?(?P<n>\d[\d,]*(?:\.\d+)?)(?P<k>k)?\b", re.IGNORECASE)
_MONTH = re.compile(rf"\b(?P<m>{_MONTH_NAME})", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.,:/$€£¥])\d[\d,]*(?:\.\d+)?(?![\d:/])")
# The number right after a move's "to": "to 16mg", "to 3M" (money has its own kind).
_NUMBER_AFTER_TO = re.compile(r"\s+(?:about |around |roughly )?(?P<n>\d[\d,]*(?:\.\d+)?)(?![\d:/])")


def _weekdays(text: str) -> set[str]:
    """The weekdays named, by their first three letters ("thurs", "Thursdays": "thu")."""
    return {found.group().lower()[:3] for found in _WEEKDAY.finditer(text)}


def _days_of_month(text: str) -> set[str]:
    return {found["n"] or found["m"] or found["d"] for found in _DAY_OF_MONTH.finditer(text)}


def _times(text: str) -> set[str]:
    return {f"{int(f['h'])}:{f['min'] or '00'}{f['half'][0].lower()}" for f in _TIME.finditer(text)}


def _money(text: str) -> set[str]:
    return {f["n"].replace(",", "") + (f["k"] or "").lower() for f in _MONEY.finditer(text)}


def _months(text: str) -> set[str]:
    return {found["m"].lower()[:3] for found in _MONTH.finditer(text)}


def _amounts_moved_to(text: str) -> set[str]:
    """The numbers a thing is moved to: "bumped biscuit up to 16mg", "upped the seed target to
    3M"; none where `text` moves nothing to a number."""
    after = (_NUMBER_AFTER_TO.match(text, move.end()) for move in _MOVED.finditer(text))
    return {found["n"].replace(",", "") for found in after if found is not None}


def _numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in _NUMBER.findall(text)}


_KINDS = (_weekdays, _days_of_month, _times, _money, _months)


def _values(text: str) -> set[str]:
    """The words of `text` that state a value of a kind read here, as the index holds them:
    no thing both texts name is one of them."""
    return {
        index_term(word.lower())
        for pattern in (_WEEKDAY, _DAY_OF_MONTH, _TIME, _MONEY, _MONTH)
        for found in pattern.finditer(text)
        for word in re.findall(r"\w+", found.group())
    }


def moves_a_value(text: str) -> bool:
    """Whether `text` may move a thing to a new value (`value_moved`, `old` unknown)."""
    if _MOVED.search(text) is None and _NEW_NOW.search(text) is None:
        return False
    return any(kind(text) for kind in _KINDS) or bool(_amounts_moved_to(text))


def value_moved(text: str, old: str) -> bool:
    """Whether `text` moves a thing `old` names to another value of a kind `old` holds: of one
    kind (a weekday, a day of the month, a time, an amount of money, a month), a value `old`
    does not hold, and a thing both name, moved (`_MOVED`) or said anew (`_NEW_NOW`)."""
    kinds = [kind for kind in _KINDS if kind(text) and kind(old) and not kind(text) <= kind(old)]
    # a number moved to, only by a verb that moves it: "now" and a number say it of anything
    # (REALTALK: "And now, I have to wake up at 7 am" superseded a turn about brisket)
    moved_to, held = _amounts_moved_to(text), _numbers(old)
    amount_moved = bool(moved_to) and bool(held) and not moved_to <= held
    if not (kinds or amount_moved) or _ADDED.search(_OPENING_ALSO.sub("", unlabelled(text))):
        return False
    values = _values(text) | _values(old)
    shared = (fact_terms(text) & fact_terms(old)) - values - _NUMBERS_AND_MARKS
    if not shared:
        return False
    for found in _MOVED.finditer(text):
        if not _to_a_value(text, found):
            continue
        # A day or a sum moved by a word near the move both name ("italian class is moving to
        # wednesdays" of "…beginner italian, tuesdays 7-9pm"); a bare number, which technical
        # notes hold everywhere, only with the thing moved itself (`_thing_moved`)
        near = fact_terms(found["before"] + " " + (found["after"] or ""))
        if kinds and near & shared:
            return True
        if kinds or not amount_moved:
            continue
        if _thing_moved(found) in shared:  # "bumped Node to 22" of "Node 18 LTS is required"
            return True
        unit = _unit_moved_to(text, found)  # "down to 1 day a week" of "…3 days a week"
        if unit and unit in _units(old) and near & shared:
            return True
    if not kinds or _NEW_NOW.search(text) is None:
        return False
    old_named = any(kind(text) & kind(old) for kind in kinds)
    return len(shared) >= 2 or old_named


# Words that name what of a thing a move changes, not the thing: "moved gym days to Tuesdays"
# moves the gym's days.
_WHAT_OF_IT = frozenset(index_term(w) for w in "day days time times date dates slot slots".split())
# The words that go with a verb of moving, not the thing: "bumped biscuit up to 16mg".
_PARTICLES = frozenset("up down back over out off forward".split())
# What may stand between a move's "to" and the value it moves to: "to the 21st", "to next
# Tuesday", "to about 3M".
_BEFORE_A_VALUE = re.compile(
    r"\s*(?:(?:the|next|this|on|at|about|around|roughly|early|late|mid)\s+)*", re.IGNORECASE
)
# A number and the word of its unit: "16mg", "1 day", "$400 a month" (a sum: no unit read).
_NUMBER_AND_UNIT = re.compile(r"(?<![\w.,:/$€£¥])\d[\d,]*(?:\.\d+)?\s?(?P<unit>[a-z]+)?", re.I)
_VALUE_STARTS = (_WEEKDAY, _DAY_OF_MONTH, _TIME, _MONEY, _MONTH, _NUMBER)


def _thing_moved(move: re.Match[str]) -> str | None:
    """The word that names the thing a move (`_MOVED`) moves, as the index holds it: the last of
    the words between its verb and its "to" ("raised SQLAlchemy pool_size to 20": size), or,
    with none there, the last before the verb ("student learning rate changed to 3e-5": rate).
    Any word near the move would do before, and "SQLAlchemy 2.0" was the fact the pool's new
    size replaced, "Retrained the student…" the learning rate's (a sixteenth blind probe's)."""
    after = move["after"].rsplit(None, 1)[0] if move["after"] else ""
    for words in (after, move["before"]):
        terms = [
            index_term(w.lower())
            for w in WORD.findall(words)
            if w.lower() not in STOPWORDS and w.lower() not in MARKS
        ]
        terms = [t for t in terms if t not in _NUMBERS_AND_MARKS and t not in _PARTICLES]
        while len(terms) > 1 and terms[-1] in _WHAT_OF_IT:
            terms.pop()
        if terms:
            return terms[-1]
    return None


def _unit_moved_to(text: str, move: re.Match[str]) -> str:
    """The unit of the number a move's "to" moves a thing to, as the index holds it: "mg" of
    "up to 16mg", "dai" of "down to 1 day a week"; "" for none ("to 20 and…")."""
    if not move["after"]:
        return ""
    found = _NUMBER_AND_UNIT.match(text, _value_at(text, move))
    unit = found["unit"] if found is not None and found["unit"] else ""
    return "" if unit.lower() in STOPWORDS else index_term(unit.lower())


def _units(text: str) -> set[str]:
    """The units of the numbers `text` holds (`_unit_moved_to`)."""
    return {
        index_term(f["unit"].lower())
        for f in _NUMBER_AND_UNIT.finditer(text)
        if f["unit"] and f["unit"].lower() not in STOPWORDS
    }


def _to_a_value(text: str, move: re.Match[str]) -> bool:
    """Whether a move's "to" is followed by a value (a day, a time, an amount…), or the move
    has none: "Dana is moving to the data platform team in April" moves Dana, not a date (it
    replaced "Dana covers auth reviews while Priya is on leave Feb 24 – Mar 7", a sixteenth
    blind probe's)."""
    if not move["after"]:
        return True
    at = _value_at(text, move)
    return any(pattern.match(text, at) is not None for pattern in _VALUE_STARTS)


def _value_at(text: str, move: re.Match[str]) -> int:
    """Where the value a move's "to" moves to would start (`_BEFORE_A_VALUE` passed over)."""
    found = _BEFORE_A_VALUE.match(text, move.end())
    return move.end() if found is None else found.end()


# Words both texts may share that name no thing: numbers, the words of a move, and chat's
# ("I just like watching a raw cut of meat…" shared "like" with a turn about the weather).
_NUMBERS_AND_MARKS = {
    index_term(w)
    for w in (
        "now instead same time place week next from moved move moving switched switch changed "
        "change cut bumped pushed shifted new old like just really get got going one also still "
        "think know want".split()
    )
} | {str(n) for n in range(0, 61)}
