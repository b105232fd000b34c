"""Which of the memories just shown a user's confirmation confirms, and what a correction of
one of them saves (`engram.services.activation`): pure readings of the message beside the
memories, no store."""

from __future__ import annotations

import re
from collections.abc import Sequence

from engram.core.fact_values import brought_up_to_date, holds_value, value_swapped
from engram.core.models import Memory
from engram.core.text import STOPWORDS, query_terms

# Words of a confirmation that name no memory: courtesy too ("That's right, thanks" touched
# nothing, as if "thanks" named what was confirmed; probe).
CONFIRMING = frozenset(
    """yes yep yup yeah still correct right exactly indeed confirmed true valid accurate same
    case holds nothing changed hasn't before that's it is as thanks thank thx ok okay great
    perfect cool good one her him them thats that this cheers ta matches ye yh aye spot
    bang dead nailed lol haha sadly""".split()
)

# A bare yes, and how sure it is as a confirmation of the memories just shown: below the
# confirmations that say what holds ("that's right", 0.85), as it may answer anything asked.
BARE_YES = re.compile(
    r"^\W*(?:yes|yep|yup|yeah|yea|ya|ye|yh|aye|right|true|indeed|mhm|uh-huh|yes it is|it is|"
    r"perfect|spot on|bang on|"
    r"exactly|correct)(?:\W+(?:thanks|thank you|thx|ty|cheers|ta))?\W*$",
    re.I,
)
BARE_YES_CONFIDENCE = 0.6


def corrected_value(message: str, shown: Sequence[Memory]) -> str | None:
    """What to save of a correction of a shown memory: that memory with the new value in
    place of the old ("the roof was replaced in 2018" of "it was 2018 not 2019"), or the
    message as said where the value is part of a longer one ("125/85, not 135"); None where
    it names no value a shown memory holds."""
    swap = value_swapped(message) if shown else None
    if swap is None or not any(holds_value(m.content, swap[0]) for m in shown):
        return None
    whole = re.search(rf"(?<![\w/.:-]){re.escape(swap[1])}(?![\w/:-])", message)
    updated = (brought_up_to_date(m.content, message) for m in shown) if whole else iter(())
    return next(filter(None, updated), message.strip())


def named_in(message: str) -> set[str]:
    """The words of a confirmation that name something: not its yes, thanks or "that's it"."""
    return {t for t in query_terms(message) if t not in CONFIRMING and t not in STOPWORDS}


def names_nothing(message: str) -> bool:
    return not named_in(message)


def confirmed(message: str, memories: Sequence[Memory]) -> list[str] | None:
    """The recent memories sharing a word with the confirmation (most shared first); all of
    them when it names nothing ("yes, that's right"); None when it names something none of them
    words ("Yes, still the same car"). Not one whose shared words another shares
    too, with more: shown "My manager is Sarah Chen" and the later "Tom is my manager now",
    "Correct, Tom is still my manager" confirmed both, the replaced fact too (a helper's
    probe); "Yes, still at Globex and still in Porto" confirms two memories, a word each."""
    words = named_in(message)
    if not words:
        return [m.id for m in memories]
    shared = [words & set(query_terms(m.content)) for m in memories]
    kept = [
        (len(own), i)
        for i, own in enumerate(shared)
        if own and not any(own < other for other in shared)
    ]
    if not kept:
        return None
    return [memories[i].id for _, i in sorted(kept, key=lambda k: (-k[0], k[1]))]
