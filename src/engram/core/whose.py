"""Whose fact a statement is: the user's own ("I …", "User lives in …"), someone of theirs
("My wife …", "Lisa's sister …") or someone it names first ("Clara moved to Toronto"). News
of one person is no news of another (`core.keeping`)."""

from __future__ import annotations

import re

from engram.core.aliases import of_someone_close
from engram.core.entities import extract_entities
from engram.core.index_terms import index_term
from engram.core.intent_words import KIN, RELATION
from engram.core.message import OPENING_WORDS
from engram.core.people_asked import one_word
from engram.core.text import WORD, unlabelled

# Who a statement is about, where it opens with them: the user ("I …"), or someone of theirs
# (`core.aliases.of_someone_close`: "My brother Tom …", "My wife …").
# ("User lives in Berlin", as an assistant writes the user's facts, is the user's too.)
_BY_THE_USER = re.compile(
    r"^\W*(?:i|i'm|i've|i'd|i'll|(?:the )?user(?!'s|’s))\b"
    # ...and an assistant's note of what the user did, without its subject: "Moved into 7
    # Harbour Lane today!" superseded "Mum is moving to Bristol" (a probe of such notes)
    r"|^\W*(?:moved|moving|sold|selling|bought|buying|switched|quit|joined|leased|booked|"
    r"started|signed up|dropped|raised|raising|upped|got|left)\s+"
    # of the user's own (not "Moved my dentist appointment to March 21", a thing moved)
    r"(?!(?:my|our|the|his|her|their)\b)(?-i:[a-z0-9£$€])",
    re.IGNORECASE,
)


def about_other_people(text: str, other: str) -> bool:
    """Whether one statement is the user's of themselves ("I switched from Android to iPhone")
    and the other is about someone else: someone of theirs ("My wife uses an Android phone")
    or someone it names first ("Clara moved to Toronto"). Neither is news of the other: a
    probe's news superseded the wife's phone, the brother's badminton, and the sister's city
    was listed first for "Where do I live now?"."""
    kin = (_kin(text), _kin(other))
    return (
        (by_the_user(text) and _of_someone_else(other))
        or (by_the_user(other) and _of_someone_else(text))
        or (_a_relative_of(text) != _a_relative_of(other) and not _one_kin(text, other))
        or (all(kin) and kin[0] != kin[1])
        or _kin_against_a_name(text, other)
        or _kin_against_a_name(other, text)
        or _named_apart(text, other)
    )


def _named_apart(text: str, other: str) -> bool:
    """Each statement opens with a name the other does not hold: "Jenna Liu left Cobalt
    Dynamics; Owen Blake is the new workspace admin" is no news of "Alex Morgan is the finance
    controller at Cobalt Dynamics", nor "Priya now says she would accept €95k" of "Chloe Martin
    wants £80k" (a seventeenth blind probe's false links)."""
    first, second = opening_name(text), opening_name(other)
    return (
        first != ""
        and second != ""
        and first != second
        and first not in names_in(other)
        and second not in names_in(text)
    )


def _kin_against_a_name(text: str, other: str) -> bool:
    """One of the user's people, unnamed, and someone named who is not said to be them: "My
    sister moved to Lisbon" is no news of "Alice moved to Berlin" (it superseded it, and
    search listed the sister's city first for "Where does Alice live?", a helper's probe);
    "My sister Alice moved to Lisbon" is."""
    if not _kin(text) or _kin(other) or _NAMED_THEN_DONE.match(unlabelled(other)) is None:
        return False
    name = opening_name(other)
    return name != "" and name not in names_in(text)


# Someone's relative, named by whose they are: "Lisa's sister …", "Priya's husband …" (kin,
# not "Maya's dentist appointment").
_RELATIVE_OF = re.compile(
    rf"^\W*(?-i:[A-Z])[\w-]*['’]s\s+(?:[\w-]+\s+)?{KIN}s?\b",
    re.IGNORECASE,
)


# Something of one of the user's people, or which of them: "My wife's new manager is Priya"
# is no news of "My manager is Sarah Lin", "My friend Tom moved to Denver" none of "My sister
# Ana lives in Montreal" (a probe's false links).
_KIN_OF_THE_USER = re.compile(
    rf"^{OPENING_WORDS}(?:my|our|(?:the\s+)?user['’]s)\s+(?P<kin>{KIN})(?P<theirs>['’]s\b"
    # a thing of theirs, not someone: "My sister's visit got pushed back" is news of "btw my
    # sister Ana is visiting next week" (a probe: it was taken for another person's)
    rf"(?P<thing>\s+(?!(?:new\s+|current\s+|old\s+|former\s+|best\s+)?{RELATION}s?\b))?)?",
    re.IGNORECASE,
)


def _one_kin(text: str, other: str) -> bool:
    """Whether one statement is of a thing of one of the user's people and the other of that
    person: "My sister's visit …" and "My sister Ana is visiting …"."""
    matched = [_KIN_OF_THE_USER.match(unlabelled(t)) for t in (text, other)]
    found = [f for f in matched if f is not None]
    if len(found) < 2:
        return False
    kin = {one_word(f["kin"]) for f in found}
    told = {"thing" if f["thing"] else "theirs" if f["theirs"] else "them" for f in found}
    return len(kin) == 1 and told == {"thing", "them"}


def _a_relative_of(text: str) -> bool:
    """Whether a statement opens with someone's relative: news of "Lisa's sister" is none of
    Lisa ("My wife Lisa is a teacher"), nor of the user's own sister (a probe's false links);
    or with something of one of the user's people ("My wife's new manager")."""
    said = unlabelled(text)
    kin = _KIN_OF_THE_USER.match(said)
    return _RELATIVE_OF.match(said) is not None or (kin is not None and bool(kin["theirs"]))


def _kin(text: str) -> str:
    """Which of the user's people a statement opens with ("my sister …" → "sister"; "Dad …",
    a parent called as by name, → "father"), or ""."""
    said = unlabelled(text)
    kin = _KIN_OF_THE_USER.match(said)
    if kin is not None:
        return "" if kin["theirs"] else one_word(kin["kin"])
    called = _CALLED_BY_KIN.match(said)
    return "" if called is None else one_word(called[1])


# A parent or grandparent, called as by name: "Dad quit smoking" was news of "Mom smokes ten
# a day" (a helper's probe); one word for each of them, however called (`one_word`).
_CALLED_BY_KIN = re.compile(r"^\W*(?-i:(Mom|Mum|Mama|Dad|Papa|Grandma|Nana|Grandpa))\b(?!['’]s)")


def by_the_user(text: str) -> bool:
    said = unlabelled(text)
    lead = _LEAD.match(said)
    return _BY_THE_USER.match(said) is not None or (
        lead is not None and _BY_THE_USER.match(said[lead.end() :]) is not None
    )


# A few words before what the user says of themselves: "reorg happened, I now report to Marcus
# Webb" (a twelfth blind probe's: read as no one's, it replaced nothing).
_LEAD = re.compile(r"^\W*(?:[\w'’-]+\s+){0,2}[\w'’-]+\s*[,;:]\s+")


# Who one of the user's people is, by name: "My new manager is Priya Shah" says whom the user
# reports to, a fact of the user's as much as "I report to Mike Chen" (taken for news of the
# manager, it was never linked: a probe).
_WHO_THEY_ARE = re.compile(
    r"^\W*(?:my|our|(?:the )?user['’]s)\s+(?:new\s+|current\s+)?[\w-]+\s+(?:is|are)\s+"
    r"(?:now\s+|actually\s+)?(?:(?:dr|mr|mrs|ms)\.?\s+)?(?-i:[A-Z])[\w-]*"
    r"(?:\s+(?-i:[A-Z])[\w-]*)?\W*(?:now)?\W*$",
    re.IGNORECASE,
)


# One of the user's people changing what the user takes or does: "my doctor switched me from
# warfarin to apixaban" is news of "I take warfarin" (an eleventh blind probe's: no link, the
# doctor's fact), as "I switched …" is.
_CHANGED_THE_USER = re.compile(
    r"\b(?:switched|moved|changed|transferred|put|taken|took)\s+(?:me|us)\s+"
    r"(?:(?:back\s+|over\s+)?(?:from|to|onto|on|off)|up|down)\b",
    re.IGNORECASE,
)


def _of_someone_else(text: str) -> bool:
    said = unlabelled(text)
    if _WHO_THEY_ARE.match(said) is not None or _CHANGED_THE_USER.search(said) is not None:
        return False
    return of_someone_close(said) or (
        opening_name(text) != "" and _NAMED_THEN_DONE.match(said) is not None
    )


# A statement that opens with someone's name and then what only a person does: "Clara moved
# to Toronto", "Lisa loves sushi". Not a capitalised common word, which the name reading may
# take for a name ("Daily standup moved to 10am", "Severe peanut allergy"), nor a thing's name
# with a verb of things too ("VS Code is my main IDE").
_NAMED_THEN_DONE = re.compile(
    r"^\W*(?:[A-Z][\w-]*\s+){0,2}[A-Z][\w-]*\s+(?:just\s+|now\s+|also\s+|still\s+)?"
    r"(?:lives|lived|works|worked|moved|married|got married|likes|liked|loves|loved|hates|"
    r"prefers|studies|studied|went|feels|thinks|says|said|told|started|joined|quit|left)\b"
)


def opening_name(text: str) -> str:
    """The name a statement opens with, as a term ("Dana is …" → "dana"; "Priya's mother …" →
    "priya": "Priya is no longer vegetarian" superseded "Priya's mother Lakshmi lives in
    Chennai", their one shared word taken for more than the name both open with), or ""."""
    first = WORD.search(unlabelled(text))
    if first is None:
        return ""
    word = re.sub(r"['’]s$", "", first.group().lower())
    return index_term(word) if index_term(word) in names_in(text) else ""


# Whose fact a statement opens with: "My son Leo …" (son), "Our manager …", "User's new
# manager …" (manager: read as "new", it was no one's, and no news of "User's manager at Lumina
# Health is Carla Reyes", a probe); and a statement naming the user's own ("Rosa is my new boss").
WHOSE = re.compile(
    r"^\W*(?:my|our|(?:the\s+)?user['’]s)\s+(?:(?:new|current|former|old)\s+)?(\w+)",
    re.IGNORECASE,
)
YOURS = re.compile(r"\b(?:my|our|user'?s)\b", re.IGNORECASE)


def names_in(text: str) -> set[str]:
    """The words of its names (`extract_entities`), at its start too: a name said at the
    start of both texts ("Max plays violin") is one thing named twice."""
    return {
        index_term(w.lower())
        for name in extract_entities(unlabelled(text))
        for w in WORD.findall(name)
    }
