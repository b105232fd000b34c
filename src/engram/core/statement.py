"""A statement about the user that no rule names: the last reading of a message before "none".

The rules of `engram.core.intent` know kinds of facts by their words ("I'm allergic", "my
sister lives", "our office closes at"); on messages written after them they found between a
fifth and two thirds of the facts to keep (docs/activation.md): people state facts in more
words than rules can list. Most of those facts share a form instead: a short statement, not a
question, whose subject is the user or theirs ("I commute to work by train", "Our codebase is
mostly TypeScript"). This reads that form, less what marks such a message as something else: a
request or a wish ("I want", "I need", "can"), an opinion ("I think", "maybe"), the moment
("today", "right now", "again"), trouble with the work ("error", "fails", "keeps crashing"), work
narrated or code described ("I pushed the branch", "My function returns…"), the conversation
itself ("this", "it", "that"), or remembering, which rules of its own read. A
message found this way is a save with less confidence than a rule gives, for the assistant to
weigh: it is wrong more often ("I'm heading out for lunch").
"""

from __future__ import annotations

import re

from engram.core.message import OPENERS

STATEMENT_CONFIDENCE = 0.6
# A fact is said in a sentence or two; a longer message is a request, a paste or a story.
MIN_WORDS, MAX_WORDS = 4, 35

# Words of trouble with the work: a statement saying them tells a problem, not a fact
# (`engram.services.activation` reads such a message as a recall where a memory answers it).
TROUBLE = (
    r"\w*errors?|\w*exceptions?|bugs?|broken|broke|crash\w*|fail\w*|slow|loud|stuck|issues?|"
    r"problems?|wrong|not working|won'?t|keeps? \w+ing|throw\w*|hang\w*|freez\w*|warnings?|"
    r"traceback|stack ?trace|segfault\w*|time(?:d|s)? ?out|leak\w*|spikes?|undefined|null|"
    r"rejected|denied|refused|missing|unable|\d{3}s|status code|logs?"
)

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
    rf"{TROUBLE}|"
    # work narrated, or a thing of the code described: what a coding session is full of ("I
    # pushed the branch", "My function returns an empty list"), and what the code keeps
    r"added|merged|ran|renamed|pushed|pulled|deleted|removed|updated|changed|refactored|fixed|"
    r"created|wrote|committed|deployed|installed|tried|tested|built|reverted|bumped|cloned|"
    r"rebased|configured|implemented|edited|endpoints?|branch\w*|commits?|functions?|methods?|"
    r"components?|helpers?|modules?|variables?|loops?|quer(?:y|ies)|scripts?|api calls?|"
    r"responses?|(?<!pull )request(?:s|)|"
    # the conversation itself ("the plan is below"), and remembering (rules of its own)
    # ("that" as a relative pronoun is none of these: "a book club that meets on Thursdays", a
    # blind probe's fact read as nothing)
    r"this|that(?! \w+s\b)|it|these|those|below|above|attached|following|here|remember|recall|"
    r"forget|forgot"
)
# News often comes as a correction: "Actually, Lisa's birthday is September 5", "Actually we're
# in Denver now" (that one was none: an MCP probe).
_CORRECTING = r"(?:(?:actually|no|nope|correction|update|fyi)\W+)*"
# Nothing after the opening marks the statement as anything else (`_ELSEWHERE`).
_PLAIN_TO_THE_END = rf"(?=(?:(?!\b(?:{_ELSEWHERE})\b).)*$)"
_STATEMENT = re.compile(
    OPENERS
    + _CORRECTING
    # not "I'm bored", "I'm so tired": how the user is now, in a word or two
    + r"(?!i(?:'m| am)(?: \S+){1,2}\W*$)"
    + _PLAIN_TO_THE_END
    + r"(?P<subject>(?:i|we|my|our)\b(?:'\w+)?(?: [\w'-]+){0,2})",
    re.IGNORECASE,
)
# Code, markup or a formula: a paste to work on, not a fact.
NOT_PROSE = re.compile(r"[`{}=;<>|\\]")
# "I split the service", "We shipped the new flow": what the user just did, told in the past
# tense, is work narrated; a past that is part of a life has a date ("I graduated in 2015",
# "I sold my car last year").
_DID = re.compile(
    OPENERS + r"(?:i|we) (?:just |also |then |finally |recently )?"
    # a mind changed or a decision is news of a plan ("we changed our minds, we're staying at
    # the Memmo Alfama instead"), not work narrated
    r"(?!changed (?:my|our) minds?\b|decided\b)"
    r"(?:\w+ed|ran|wrote|rewrote|split|made|did|went|put|set|sent|took|gave|found|left|brought|"
    r"cut|hit|shut|threw|won|lost|paid|led|met|spent|drove|chose|ate|drank|fell|held|heard|knew|"
    r"let|shook|slept|spoke|taught|tore|wore|woke)\b",
    re.IGNORECASE,
)
_DATED = re.compile(
    r"\b(?:1[89]|20)\d\d\b|\bago\b|\bsince\b|\bwhen i was\b"
    r"|\blast (?:year|month|spring|summer|autumn|fall|winter)\b"
    # a habit begun or given up is part of a life too: "I stopped eating meat again"
    r"|\b(?:stopped|quit|gave up|started|took up)\s+\w+ing\b",
    re.IGNORECASE,
)


def statement_about_the_user(text: str) -> str | None:
    """The opening words of `text` (read by `engram.core.message.plain`) when it is a short
    statement about the user or theirs that nothing marks as anything else; else None."""
    if not _a_short_statement(text):
        return None
    found = _STATEMENT.match(text)
    if found is None or work_narrated(text):
        return None
    return found.group("subject")


def work_narrated(text: str) -> bool:
    """Whether `text` opens telling what the user just did, with no date that makes it part
    of a life: "I changed the port to 8080", "We bumped React to 18.3 this morning"."""
    return _DID.match(text) is not None and _DATED.search(text) is None


def statement_about(text: str, name: str) -> str | None:
    """`statement_about_the_user`, of someone or something named, as its subject: "Emma is 7
    now", "Lisa's birthday is September 5", "Max switched from violin to cello". The words
    that open it (the name and its verb), or None. Whether the name is one the user told
    about is the store's to say (`engram.services.activation`): "Taylor Swift released an
    album" has the same form."""
    if not _a_short_statement(text):
        return None
    subject = rf"(?P<subject>{re.escape(name)}(?:'s [\w'-]+)? [\w'-]+)"
    found = re.match(OPENERS + _CORRECTING + _PLAIN_TO_THE_END + subject, text, re.IGNORECASE)
    return None if found is None else found.group("subject")


def _a_short_statement(text: str) -> bool:
    words = len(text.split())
    # what opens it asks nothing: "Guess what? We sold the house!" (a blind probe's)
    said = _OPENING.sub("", text, count=1)
    return MIN_WORDS <= words <= MAX_WORDS and "?" not in said and not NOT_PROSE.search(text)


_OPENING = re.compile(OPENERS, re.IGNORECASE)
