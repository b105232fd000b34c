"""How a user's message is read before any rule looks at it: one space between words, plain
apostrophes, and the words that may open it before what it says."""

from __future__ import annotations

# Words that may open a message before what it asks ("Hey, remember that …", "So you remember
# my dog?"): one list for every rule that reads a message's start.
OPENERS = r"^\W*(?:(?:please|also|ok|okay|and|oh|but|hey|hi|btw|by the way|just|so)\W+)*"

# Typographic apostrophes (phones and macOS type them): every rule spells the plain one.
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})


def plain(message: str) -> str:
    """The message as the rules read it: one space between words, plain apostrophes. Each
    replacement is one character for one, so a position in it is one in the spaced message."""
    return " ".join(message.split()).translate(_APOSTROPHES)
