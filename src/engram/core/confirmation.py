"""A confirmation that carries an exception: "Same as before, except I now prefer coffee",
"That's still the case for Berlin but not for the tea", "Nothing changed except I moved to
Lisbon". Read as a plain confirmation it reinforced the very memory the user corrected or left
out, and the news it gave was not kept.

Such a message is not a reinforce (`engram.core.intent`): what follows the exception is read
on its own, and when it states something ("I now prefer coffee", "I moved to Lisbon", "the
deadline moved to Friday") that is the save; when it only names what no longer holds ("for the
tea", "other than that") nothing new is said, and the answer is none: which memory still
holds cannot be told from the words, and touching the one the user excluded is worse than
touching none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram.core.change_words import says_a_change

# Words that set something apart from what is confirmed.
_APART = re.compile(
    r"\b(?:except(?: that| for)?|excepting|apart from(?: that)?|aside from(?: that)?|"
    r"other than(?: that)?|besides(?: that)?|but not|though not|not for|only now)\b"
    # "but", "though", "only" count when their clause says that something changed ("…, but I
    # drink coffee now"); "That's still the case, but thanks for checking" confirms.
    r"|\b(?P<but>but|though|although|however|only)\b",
    re.IGNORECASE,
)
_CLAUSE_LONGEST = 300  # characters read after "but" for a change: one clause, not a message
# How many "but"s are read for a change: an exception stands beside its confirmation, and a
# long message of "but"s was read 300 characters per "but".
_BUTS_READ = 8
_SENTENCE_END = re.compile(r"[.!?;]")
_SENTENCE_LONGEST = 1_000
# A clause that states something: a subject, then at least two more words ("I moved to
# Lisbon", "the deadline moved to Friday", "my manager: it's Priya now"); not "for the tea".
_STATES = re.compile(
    r"^(?:that )?(?:i|we|you|he|she|they|my|our|his|her|their|the|a|an|(?-i:[A-Z])[\w'-]*)\b"
    r"\S*(?: \S+){2,}",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Excepted:
    """The words that set something apart, and where what they set apart lies in the text."""

    words: str
    start: int
    end: int


def excepted(text: str, confirmation: re.Match[str]) -> Excepted | None:
    """The first exception the confirmation found in `text` carries, if any. What it sets
    apart runs to the end of the message, or, said before the confirmation ("Except that I
    moved, nothing changed"), up to it."""
    buts = 0
    for found in _APART.finditer(text):
        if confirmation.start() <= found.start() < confirmation.end():
            continue  # part of the confirmation's own words
        if found.group("but"):
            buts += 1
            if buts > _BUTS_READ:
                continue
            clause = text[found.end() : found.end() + _CLAUSE_LONGEST]
            end = _SENTENCE_END.search(clause)
            if not says_a_change(clause[: end.start()] if end else clause):
                continue
        stop = confirmation.start() if found.start() < confirmation.start() else len(text)
        return Excepted(found.group(), found.end(), max(found.end(), stop))
    return None


def first_sentence(part: str) -> str:
    """The first sentence of `part`, with its mark, within 1,000 characters: what an exception
    states is read from it ("except I moved to Lisbon. …"), and a long message is not read
    again whole."""
    head = part[:_SENTENCE_LONGEST]
    end = _SENTENCE_END.search(head)
    return head[: end.end()] if end else head


def states_something(part: str) -> bool:
    """`part` (one space between words) is a clause that states something, not a question:
    what a confirmation's exception says is news even where no rule names its kind."""
    return "?" not in part and _STATES.match(part) is not None
