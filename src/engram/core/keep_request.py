"""What to keep of a message once it is to be saved: its words without the request to
remember, before or after the fact ("Remember that I'm vegan", "I'm vegan, please remember
that")."""

from __future__ import annotations

import re

from engram.core.message import (
    KEEP_FOR_LATER,
    KEEP_IN_MIND,
    OPENERS,
    OPENING_WORDS,
    REQUEST_FRAME,
    SAVE_THIS,
    flattened,
    readable,
    without_tail,
)
from engram.core.text import statements

# What asks to keep the fact, before it: the request ("remember that", "note to self"), what
# frames it as one (`REQUEST_FRAME`), and a sentence that
# drops something said before ("Forget what I said about the car. Remember that …": the
# request is what the message is about). The dropping sentence is cut at its first mark of
# punctuation after which a request follows; it cannot run past a sentence's end, so a long
# message is read once.
_DROPPED = (
    OPENERS
    + rf"(?:{REQUEST_FRAME})?(?:forget|disregard|ignore|never ?mind|scratch)\b"
    + r"[^.!?;]*?[.!?;,:—–-]\s*"
)
_REQUEST = (
    # "remember this:" and "remember this." ask and say nothing; "remember this restaurant"
    # says what to keep
    r"(?:remember(?: that| the following| (?:this|these)(?=\s*[:—–-]|\W*$))?|"
    r"(?:don'?t|do not|never) forget(?: that)?|keep in mind(?: that)?|"
    r"for future reference|note to self|note that|note(?=\s*:)|heads up|important|fyi|"
    rf"{KEEP_IN_MIND}|{KEEP_FOR_LATER}|{SAVE_THIS})"
)
_LEAD = re.compile(
    rf"(?:{_DROPPED})?{OPENING_WORDS}(?:{REQUEST_FRAME})?{_REQUEST}\s*[:,—-]?\s*",
    re.IGNORECASE,
)
# What opens a message before the fact without asking anything, and is no part of it: "Hi!
# I'm allergic to shellfish", "btw my sister Ana is visiting", "Scratch that, I don't work
# there anymore" were kept as said (an MCP probe). "So", "well", "oh" and "ok" only with
# their mark ("So far so good" is all one).
_SMALL_TALK = re.compile(
    r"(?:\W*(?:(?:(?:hi|hey|hello|hiya)(?: there)?|btw|by the way|fyi|anyway|anyways|ugh|"
    r"scratch that)\b"
    r"|(?:so|well|oh|ok|okay|also)(?=\s*[,!.:;—–]|\s+-))[\s,!.:;—–-]*)+",
    re.IGNORECASE,
)
# The request after the fact: "I'm vegan, please remember that.", "Our standup is at 9:30,
# keep that in mind". It starts after a mark of punctuation: "I like to remember that" is not
# one.
_TRAILING_REQUEST = re.compile(
    r"[.!?,;:—–-]\s*(?:(?:and|so|please|pls|oh|just)\W+)*"
    r"(?:(?:remember|note|save|store|(?:don'?t|do not|never) forget) (?:that|this|it)(?: down)?"
    r"|keep (?:that|this|it) in mind|(?:write|jot) (?:that|this|it) down)"
    # "…, so keep that in mind when I plan dinners" (a blind probe's save kept the request)
    r"(?:\s+(?:when|for|if|while|whenever|next time)\b[^.!?]*)?"
    r"(?:\W+(?:for me|for later|please|pls|thanks|thank you|ok|okay))*\W*$",
    re.IGNORECASE,
)
# What is left when the request said only "this": "Remember this.", "Remember this for later".
_SAID_OF_NOTHING = (
    r"(?:this|that|it|these|those|the following|all (?:of )?(?:this|that)|everything)"
)
_ASIDES = (
    r"(?:for (?:me|later|now|next time|the future)|please|too|as well|ok|okay|thanks|thank you)"
)
# "Keep that in mind for next time" leaves no pronoun, only asides. Each part starts with a
# word, never with the marks the one before may end with: two runs of marks side by side made
# a run of "!" take time growing with the square of its length (101 s for 49,000).
_NOTHING_SAID = re.compile(
    rf"\W*(?:(?:{_SAID_OF_NOTHING}|{_ASIDES})\b(?:\W+{_ASIDES}\b)*\W*)?$",
    re.IGNORECASE,
)
_ASKED_AS_QUESTION = re.compile(r"^\W*(?:can|could|would|will) you\b", re.IGNORECASE)
# What a cut leaves at the end of the kept text: "I'm vegan," of "I'm vegan, please remember
# that" (a sentence's own full stop stays).
_LEFT_AT_THE_END = " \t\n\r\f\v,;:—–-"
# A please or thanks a fact ends with, before its last mark.
_COURTESY = re.compile(
    r"(?:\s*,\s*(?:please|pls|plz|thanks|thank you|ty)"
    r"|(?<!\bnamed)(?<!\bcalled)(?<!\bsay)(?<!\band)(?<!\bor)\s+(?:please|pls|plz))(?=[.!]*$)",
    re.IGNORECASE,
)


def memory_content(message: str) -> str:
    """What to save of a message: without the request to remember, before or after the fact,
    and without a question that follows it; empty when the request is all there is
    ("Remember:", "Remember this."). Otherwise the user's own text: letters keep their case
    ("iPhone", "npm", "x = 0" were capitalised) and lines their breaks (a list was saved on
    one line); only the space around what is kept is taken away."""
    read = readable(message)
    flat, at = flattened(read)
    lead = _LEAD.match(flat) or _SMALL_TALK.match(flat)
    start = lead.end() if lead else 0
    end = len(flat)
    trailing = _TRAILING_REQUEST.search(flat, start)
    if trailing is not None:
        end = trailing.start() + (1 if trailing.group()[0] in ".!?" else 0)
    # the chat words it ends with, and a please or thanks: "i hate cilantro fyi", "I'm vegan
    # please" (of "Remember that I'm vegan please")
    end = min(end, len(_COURTESY.sub("", without_tail(flat[:end]))))
    if lead and _ASKED_AS_QUESTION.match(flat) and flat[start:end].endswith("?"):
        end -= 1  # "can you remember that I'm vegan?": the fact
    if end <= start or _NOTHING_SAID.match(flat, start, end):
        return ""
    begin, stop = at[start], at[end - 1] + 1
    text, read = message[begin:stop], read[begin:stop]
    # "Remember that I prefer TypeScript. What's the best linter for it?": the question that
    # follows the fact is for the assistant to answer, not to keep.
    pieces = statements(read)
    cut = len(read)
    while len(pieces) > 1 and pieces[-1].endswith("?"):
        cut = read.rindex(pieces.pop(), 0, cut)
    text = text[:cut].strip().rstrip(_LEFT_AT_THE_END)
    return text if any(c.isalnum() for c in text) else ""
