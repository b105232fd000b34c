"""A request to forget something kept: "Forget what I said about the job", "Please forget that I
work at St. Mary's", "Delete what I told you about my ex". An MCP probe found each read as
nothing (or, "Delete what I told you…", as a recall), and no word of what to forget: the
assistant, told by the `use_memory` prompt to delete on request, had nothing to go by.

Not the conversation's "forget it", "never mind that" or "disregard this" (nothing kept is
named), nor work to do ("Delete the old config file", "Remove my card from the account"):
"delete", "remove" and "erase" ask of the memory only with what was said or kept.
"""

from __future__ import annotations

import re

from engram.core.message import OPENERS, REQUEST_FRAME, plain
from engram.core.text import statements

# What was told, said of the memory: "what I said", "what I told you", "everything you know".
_WHAT_WAS_TOLD = (
    r"(?:what|everything|anything|all) (?:(?:i|we) (?:said|told you|mentioned|shared|wrote|"
    r"just said|just told you)|you know|you have|you remember)"
)
_KEPT = r"(?:the|that|this|those|these|my) (?:memory|memories|note|notes|fact|facts)"
FORGET_REQUEST = (
    OPENERS
    + rf"(?:{REQUEST_FRAME})?"
    + r"(?:(?:forget|erase|delete|remove|drop) (?:about )?"
    + rf"(?:{_WHAT_WAS_TOLD}|{_KEPT}|everything about)"
    # "forget that I work at St. Mary's", "forget about my old address", "forget my address":
    # forget alone, before what it drops (not "forget it", nor "forget that, …")
    + r"|forget (?:that (?=[\w'])|about (?!it\b|this\b|that\b)|(?=(?:my|our) [\w'])))"
)
_ASKED = re.compile(FORGET_REQUEST, re.IGNORECASE)
# What follows the request before the topic: "about", "on", "regarding".
_LEAD_IN = re.compile(r"^\s*(?:about|on|regarding|concerning|of)\s+", re.IGNORECASE)
_AFTERWORDS = re.compile(
    r"(?:[,;.!]?\s*(?:please|pls|thanks|thank you|ok|okay|for me|from (?:your )?memory))*\W*$",
    re.IGNORECASE,
)


def asks_to_forget(message: str) -> bool:
    return _ASKED.search(plain(message)) is not None


def what_to_forget(message: str) -> str:
    """The words of what a request to forget names, to look it up by: "the job" of "Forget
    what I said about the job", "I work at St. Mary's" of "Please forget that I work at St.
    Mary's", "my address" of "forget my address"; "" when it names nothing ("Forget what I
    just said") or asks nothing."""
    said = plain(message)
    found = _ASKED.search(said)
    if found is None:
        return ""
    # what it drops is named in the sentence that asks (as `statements` cuts it: "St. Mary's"
    # is one)
    rest = next(iter(statements(said[found.end() :])), "")
    return _AFTERWORDS.sub("", _LEAD_IN.sub("", rest)).strip()
