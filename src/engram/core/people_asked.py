"""Which one of the user's people a question asks of, and whether a memory speaks of others of
them only: "what's my brother's name?" found "my mom's name is Helen and she lives in Leeds" by
meaning alone, and "who is my dentist?" found it too, where no brother and no dentist was
stored (a twelfth blind probe's). People are alike in meaning to each other; what tells them
apart is the word for who they are to the user.

One person has several words ("mom", "mum", "mother"; "boss", "manager"), and some words are
many people ("my kids" are the son and the daughter; "my partner" the husband): a memory of
any of them is of the one asked.
"""

from __future__ import annotations

import re

from engram.core.aliases import ASKED, THEIR
from engram.core.intent_words import RELATION
from engram.core.text import speaker_label

# The user's people as a question or a memory names them: "my brother", "our landlord", "my
# older sister", "User's manager" (as an assistant writes), "I have a cat named Miso"; with "'s"
# and another of them after it ("my wife's mom") it is someone else's person, and nothing is
# told apart.
_MINE = re.compile(
    rf"(?:\b{THEIR}|\bi\s*(?:have|['’]ve)(?:\s+got)?\s+(?:a|an|one|two|three|four|\d+)\s+"
    r"(?:[\w-]+\s+)?)"
    rf"(?P<who>{ASKED})s?\b(?P<theirs>['’]s\s+(?:[\w-]+\s+)?(?:{RELATION})s?\b)?",
    re.IGNORECASE,
)

# The words for one person, one word each ("mom", "mum", "mother": "mother").
_ONE_WORD = {
    **dict.fromkeys(("mom", "mum", "mother", "mama"), "mother"),
    **dict.fromkeys(("dad", "father", "papa"), "father"),
    **dict.fromkeys(("grandma", "grandmother", "nana"), "grandmother"),
    **dict.fromkeys(("grandpa", "grandfather"), "grandfather"),
    **dict.fromkeys(("boss", "manager"), "manager"),
    **dict.fromkeys(("colleague", "coworker", "co-worker", "teammate", "team mate"), "colleague"),
    **dict.fromkeys(("neighbor", "neighbour"), "neighbour"),
    **dict.fromkeys(("dog", "puppy"), "dog"),
    **dict.fromkeys(("cat", "kitten"), "cat"),
    **dict.fromkeys(("kid", "children"), "children"),
    **dict.fromkeys(("grandkid", "grandchildren"), "grandchildren"),
    **dict.fromkeys(("fiance", "fiancé", "fiancee", "fiancée"), "fiance"),
    **dict.fromkeys(("partner", "spouse"), "partner"),
    **dict.fromkeys(("roommate", "flatmate"), "roommate"),
    "sibling": "siblings",
    "grandparent": "grandparents",
    "parent": "parents",
}

# The words for several people, and the people each may be.
_MANY = {
    "children": frozenset({"son", "daughter", "baby"}),
    "parents": frozenset({"mother", "father"}),
    "siblings": frozenset({"brother", "sister"}),
    "grandparents": frozenset({"grandmother", "grandfather"}),
    "grandchildren": frozenset({"grandson", "granddaughter"}),
    "partner": frozenset({"wife", "husband", "girlfriend", "boyfriend", "fiance"}),
    "in-laws": frozenset({"mother", "father"}),
    "friend": frozenset({"roommate"}),
}


def one_word(word: str) -> str:
    """The one word for the person `word` names ("mum", "moms": "mother"); `word` itself,
    lowered, where it has no other."""
    said = re.sub(r"\s+", " ", word.lower())
    return _ONE_WORD.get(said) or _ONE_WORD.get(said.removesuffix("s")) or said


def people_named(text: str) -> frozenset[str] | None:
    """The user's people `text` names, one word for each ("mother" for "my mum"); None where
    it names someone's person ("my wife's mom") or is a speaker's turn ("Ana: my mom…" is
    Ana's mother), which says nothing of the user's."""
    if speaker_label(text):
        return None
    found: set[str] = set()
    for m in _MINE.finditer(text):
        if m["theirs"]:
            return None
        found.add(one_word(m["who"]))
    return frozenset(found)


def asked_of(query: str) -> str | None:
    """The one person of the user's a question asks of ("what's my brother's name?":
    "brother"), or None where it names none, several, or someone's person."""
    named = people_named(query)
    return next(iter(named)) if named is not None and len(named) == 1 else None


def of_others_only(asked: str, memory: str) -> bool:
    """Whether `memory` names the user's people and none of them may be `asked`."""
    named = people_named(memory)
    if not named:
        return False
    return not any(_may_be(asked, person) for person in named)


def _may_be(asked: str, person: str) -> bool:
    return (
        asked == person
        or person in _MANY.get(asked, frozenset())
        or asked in _MANY.get(person, frozenset())
    )
