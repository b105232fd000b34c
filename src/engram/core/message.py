"""How a user's message is read before any rule looks at it: one space between words, plain
apostrophes, and the words that may open it before what it says."""

from __future__ import annotations

import re

# Words that may open a message before what it asks ("Hey, remember that …", "So you remember
# my dog?"): one list for every rule that reads a message's start.
OPENERS = r"^\W*(?:(?:please|also|ok|okay|and|oh|but|hey|hi|btw|by the way|just|so)\W+)*"

# Typographic apostrophes (phones and macOS type them): every rule spells the plain one.
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})


# Web and email addresses: data, not words. A "?" in a link's query made "My website is
# https://dana.dev/about?x=1" a question, its parameters were names ("orgId"), and a word in a
# path ("…/critical-alerts") marked importance. Each alternative starts at a fixed prefix or at
# the start of a run of address characters, so a search reads a long message once.
_ADDRESS = re.compile(
    r"\b(?:https?|ftp)://[^\s<>\"'`]+|\bwww\.[^\s<>\"'`]+"
    r"|(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+",
    re.IGNORECASE,
)
# What ends the sentence after a link rather than the link: "see https://x.dev/a."
_AFTER_LINK = ".,;:!?)]}'\""


def masked(text: str) -> str:
    """`text` with every web and email address written over with "_", one for one: positions
    stay, no rule reads a link's "?", "=" or words, and no name is read from it."""

    def over(found: re.Match[str]) -> str:
        address = found.group()
        kept = address.rstrip(_AFTER_LINK)
        return "_" * len(kept) + address[len(kept) :]

    return _ADDRESS.sub(over, text)


def plain(message: str) -> str:
    """The message as the rules read it: one space between words, plain apostrophes. Each
    replacement is one character for one, so a position in it is one in the spaced message."""
    return " ".join(message.split()).translate(_APOSTROPHES)


# A message that opens as a question does: a question word, perhaps a few words ("how many
# kids", "which cloud region"), a verb and its subject ("what's my…", "where do we…", "when
# does Theo…"); a verb before its subject ("is my…", "did I…"); "who walks our dog". After a
# comma only what/where/when/how with its verb: ", who is my manager" is a relative clause.
_VERB = r"(?:is|are|was|were|do|does|did|have|has|had|am|can|could|should|would|will)"
_SUBJECT = r"(?:(?i:i|we|you|my|our|your|the|that|this|it)\b|(?-i:[A-Z])[\w-]*)"
_ASKS = re.compile(
    rf"{OPENERS}(?:(?:what|which|where|when|who|whose|how)(?:'s|'re|(?: [\w'-]+){{0,4}}? "
    rf"{_VERB}) {_SUBJECT}|{_VERB} (?:i|we|you|my|our)\b|who \w+s (?:\w+ )?(?:my|our|me)\b)"
    rf"|[,;:] (?:what|where|when|how)(?:'s| {_VERB}) {_SUBJECT}[^.!?,;:]*$",
    re.IGNORECASE,
)
# …or ends asking for ideas: "I always forget semicolons, any tips".
_ASKS_AT_END = re.compile(
    r"\bany (?:tips|ideas?|idea why|suggestions|advice|thoughts|recommendations)\W*$",
    re.IGNORECASE,
)


def asked(text: str) -> str:
    """`text`, with the "?" a chat message often leaves out when it opens as a question and
    ends without any mark: "what's my favourite color" asks, it is not a preference to keep,
    and the rules know a question by its "?". Positions in `text` stay the same."""
    if text.rstrip()[-1:] in ("?", ".", "!", ":", ";"):
        return text
    if not _ASKS.search(text) and not _ASKS_AT_END.search(text):
        return text
    return text.rstrip() + "?"


def not_after(*words: str) -> str:
    """Lookbehinds: what follows is not preceded by any of `words` and a space."""
    return "".join(f"(?<!{re.escape(w)} )" for w in words)


# "Not important: …", "isn't critical", "not that urgent": importance said not to apply.
NOT_SO = not_after(
    *("not", "n't", "n’t", "no", "never"),
    *(f"{n} {w}" for n in ("not", "n't", "n’t") for w in ("very", "that", "so", "too", "really")),
)
# "I can't remember my password", "I never remember my keys": a lapse, not a request.
NOT_ABLE = not_after(
    "can't",
    "cant",
    "cannot",
    "not",
    "never",
    "don't",
    "dont",
    "didn't",
    "couldn't",
    "won't",
    "hardly",
    "barely",
)
