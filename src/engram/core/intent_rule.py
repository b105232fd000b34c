"""One activation rule: a phrase pattern, the intent it reads and its weight, and how a rule
is written so that it stays linear in a message's length (`until`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from engram.core.message import outright

Intent = Literal["save", "recall", "reinforce", "forget", "none"]


@dataclass(frozen=True)
class Rule:
    intent: Intent
    pattern: re.Pattern[str]
    weight: float  # confidence when it matches
    tag: str | None = None  # a tag suggested by this kind of statement
    # The pattern ends in "no question mark until the end": it can only match after the
    # message's last "?", and is searched there alone (the whole text took cubic time).
    after_last_question: bool = False
    # Its words count only said outright: not denied or asked ("Nothing critical here", "Is
    # this critical?" were saves for the word "critical"; `engram.core.message.outright`).
    said_outright: bool = False

    def search(self, text: str) -> re.Match[str] | None:
        start = text.rfind("?") + 1 if self.after_last_question else 0
        if self.said_outright:
            return outright(self.pattern, text, start)
        return self.pattern.search(text, start)


def rule(
    intent: Intent,
    pattern: str,
    weight: float,
    tag: str | None = None,
    *,
    tail: bool = False,
    said_outright: bool = False,
) -> Rule:
    return Rule(intent, re.compile(pattern, re.IGNORECASE), weight, tag, tail, said_outright)


def until(start: str, gap: str, end: str) -> str:
    """`start`, then any `gap` characters, then `end` — where the gap never runs over another
    `start`. Written plainly (`start gap* end`), a failed `end` made the engine try again from
    every later `start` over the same text: quadratic time in the message's length (a second
    gap made it cubic: 14 s for 16,000 characters of prose). Tempered, each try stops at the
    next `start` and the whole search is linear; the match is the same except that it begins
    at the last `start` before `end` rather than the first."""
    return rf"{start}(?:(?!{start}){gap})*{end}"


# A gap that stays in one sentence ("3.12" and "e.g." are in one).
IN_ONE_SENTENCE = r"(?:[^?.!]|[.!](?=\w))"
