"""A statement about the user that no rule names: the last reading of a message before "none".

The rules of `engram.core.intent` know kinds of facts by their words ("I'm allergic", "my
sister lives", "our office closes at"); on messages written after them they found between a
fifth and two thirds of the facts to keep (docs/activation.md): people state facts in more
words than rules can list. Most of those facts share a form instead: a short statement, not a
question, whose subject is the user or theirs ("I commute to work by train", "Our codebase is
mostly TypeScript"). This reads that form, less what marks such a message as something else: a
request or a wish ("I want", "I need", "can"), an opinion ("I think", "maybe"), the moment
("today", "right now", "again"), trouble with the work ("error", "fails", "keeps crashing"), the
conversation itself ("this", "it", "that"), or remembering, which rules of its own read. A
message found this way is a save with less confidence than a rule gives, for the assistant to
weigh: it is wrong more often ("I'm heading out for lunch").
"""

from __future__ import annotations

import re

from engram.core.message import OPENERS

STATEMENT_CONFIDENCE = 0.6
# A fact is said in a sentence or two; a longer message is a request, a paste or a story.
MIN_WORDS, MAX_WORDS = 4, 35

_ELSEWHERE = (
    # a request, a wish, an offer of help
    r"want|wants|wanna|gonna|need|needs|would like|'d like|have to|has to|had to|trying|try|"
    r"looking for|wonder|wondering|hope|hoping|wish|help|let me know|tell me|show me|should|"
    r"shall|could|would|can|might|"
    # an opinion or a doubt
    r"think|thought|guess|feel like|believe|suppose|not sure|don'?t know|no idea|confused|"
    r"curious|maybe|perhaps|question|questions|sure|dunno|"
    # the moment
    r"right now|today|tonight|tomorrow|this morning|this afternoon|yesterday|last night|"
    r"earlier|already|"
    r"at the moment|currently|again|just|still|sorry|got|getting|"
    # small talk
    r"fine|thanks?|lol|haha\w*|"
    # trouble with the work
    r"error|errors|bug|bugs|broken|broke|crash\w*|fail\w*|slow|loud|stuck|issues?|problems?|"
    r"wrong|not working|won'?t|keeps? \w+ing|throw\w*|hang\w*|freez\w*|exception|warning|"
    # the conversation itself ("the plan is below"), and remembering (rules of its own)
    r"this|that|it|these|those|below|above|attached|following|here|remember|recall|forget|"
    r"forgot"
)
_STATEMENT = re.compile(
    OPENERS
    # not "I'm bored", "I'm so tired": how the user is now, in a word or two
    + r"(?!i(?:'m| am)(?: \S+){1,2}\W*$)"
    + rf"(?=(?:(?!\b(?:{_ELSEWHERE})\b).)*$)"
    + r"(?P<subject>(?:i|we|my|our)\b(?:'\w+)?(?: [\w'-]+){0,2})",
    re.IGNORECASE,
)
# Code, markup or a formula: a paste to work on, not a fact.
_NOT_PROSE = re.compile(r"[`{}=;<>|\\]")


def statement_about_the_user(text: str) -> str | None:
    """The opening words of `text` (read by `engram.core.message.plain`) when it is a short
    statement about the user or theirs that nothing marks as anything else; else None."""
    words = len(text.split())
    if not MIN_WORDS <= words <= MAX_WORDS or "?" in text or _NOT_PROSE.search(text):
        return None
    found = _STATEMENT.match(text)
    return found.group("subject") if found else None
