"""Query analysis shared by every backend: which words of a query are worth matching."""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)

# Function words that match almost every memory; dropping them keeps "what did I say about X"
# from turning into a scan of the whole store. Kept when a query has nothing else.
STOPWORDS = frozenset(
    """a an and are as at be but by did do does for from had has have how i in is it its me my
    of on or our she he so that the their them then there these they this to was we were what
    when where which who whom why will with you your about would could should can just
    than""".split()
)


def query_terms(query: str) -> list[str]:
    """Distinct lower-cased words of a query, stopwords removed unless nothing else remains."""
    words = [w.casefold().replace("’", "'") for w in _WORD.findall(query)]
    seen: dict[str, None] = {}
    for w in words:
        seen.setdefault(w, None)
    distinct = list(seen)
    content = [w for w in distinct if w not in STOPWORDS]
    return content or distinct


def leading_phrase(text: str, most: int = 32) -> str:
    """The first `most` words of a text, lower-cased, as one phrase: a text that repeats another
    (other case, punctuation or spacing between words) contains it, and a phrase match is far
    more selective than any of its words."""
    return " ".join(w.casefold().replace("’", "'") for w in _WORD.findall(text)[:most])
