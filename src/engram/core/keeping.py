"""What to keep of a message once it is to be saved: its words without the request to
remember, and whether it says that something changed (then it may correct an older memory)."""

from __future__ import annotations

import re

from engram.core.message import OPENERS, plain
from engram.core.text import statements

# A statement that something changed ("I moved from Berlin to Lisbon", "Actually I prefer tea
# now", "We switched Atlas to PostgreSQL", "I quit Siemens"): it may correct an older memory.
_CHANGE = re.compile(
    r"\b(?:moved|switched|changed|migrated|replaced|no longer|any ?more|instead|actually|quit|"
    r"stopped|sold|gave up)\b"
    r"|\bfrom \w+(?: \w+)? to\b|\bnow\W*$",
    re.IGNORECASE,
)


def says_a_change(text: str) -> bool:
    return _CHANGE.search(plain(text)) is not None


_LEAD = re.compile(
    OPENERS + r"(?:(?:can|could|would|will) you (?:please )?remember(?: that)?|remember(?: that)?|"
    r"(?:don'?t|do not|never) forget(?: that)?|keep in mind(?: that)?|"
    r"for future reference|note to self|note that|save this|heads up|"
    r"important|fyi)\s*[:,—-]?\s*",
    re.IGNORECASE,
)


_ASKED_AS_QUESTION = re.compile(r"^\W*(?:can|could|would|will) you\b", re.IGNORECASE)


def memory_content(message: str) -> str:
    """What to save of a message: without the request to remember, first letter capitalised;
    empty when the request is all there is ("Remember:")."""
    text = memory_words(message)
    return text[:1].upper() + text[1:]


def memory_words(message: str) -> str:
    """`memory_content` as the user wrote it, not capitalised: what names are read from ("note
    to self: buy milk" named "Buy" once its first letter was made a capital)."""
    asked = " ".join(message.split())
    lead = _LEAD.match(plain(asked))  # same positions: the user's apostrophes are kept
    text = asked[lead.end() :].strip() if lead else asked.strip()
    if text != asked and _ASKED_AS_QUESTION.match(asked):
        text = text.rstrip("?").rstrip()  # "can you remember that I'm vegan?": the fact
    # "Remember that I prefer TypeScript. What's the best linter for it?": the question that
    # follows the fact is for the assistant to answer, not to keep.
    pieces = statements(text)
    while len(pieces) > 1 and pieces[-1].endswith("?"):
        text = text[: text.rindex(pieces.pop())].rstrip()
    return text if any(c.isalnum() for c in text) else ""
