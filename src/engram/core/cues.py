"""Cues: the words of the turn before that a turn of a conversation answers without saying them.

A reply rarely repeats its question: "How did Owen's driving test go?" is answered by "He
passed! Second try", which shares no word with "When did Owen get his licence?". Memory works
by the context a thing was learnt in (encoding specificity): the question is part of how its
answer is found again. So a memory saved right after a turn that asks keeps the words of the
asking sentences as its cues, which the full-text index searches as a field of their own
(weighted as the memory's own words: more, and a reply with the cue "cookbook" came before the
turn naming the cookbook). A reply that speaks of someone only by a pronoun ("She's an urban
planner") keeps the names the turn before said too.

Measured against the same stores without cues: docs/search.md, section 1g.
"""

from __future__ import annotations

import re

from engram.core.entities import extract_entities
from engram.core.models import MAX_CUES
from engram.core.questions import only_asks, told_then_asked
from engram.core.text import query_terms, speaker_label, statements, unlabelled, words

# Words this short are seldom what a question is about ("go", "do", "it") and match much.
_SHORTEST = 3
# A question pointing back at what its sentence told before it ("…, are you ready for that?").
_POINTS_BACK = re.compile(r"\b(?:that|this|it|those|these|them|there)\b", re.IGNORECASE)
# ... or naming fewer words than this of its own ("…, what do you think?").
_STANDS_ALONE = 2
# A turn speaking of someone it does not name.
_SPEAKS_OF_SOMEONE = re.compile(
    r"\b(?:he|she|him|her|his|hers|they|them|their|theirs)\b", re.IGNORECASE
)


def cues(before: str, turn: str) -> tuple[str, ...]:
    """The cues of `turn`, said right after `before` in one conversation: the words of what
    `before` asks when another speaker asked it (a speaker's own question is no answer's
    context), and the names `before` said when `turn` speaks of someone by a pronoun; never a
    word `turn` holds or a speaker's name (every turn of theirs has it). At most MAX_CUES."""
    asked_by, said_by = speaker_label(before), speaker_label(turn)
    asker, text = unlabelled(before), unlabelled(turn)
    found: list[str] = []
    if not said_by or asked_by.lower() != said_by.lower():
        found += [w for piece in _asking(asker) for w in query_terms(piece) if len(w) >= _SHORTEST]
    if _SPEAKS_OF_SOMEONE.search(text):
        found += extract_entities(asker)
    if not found:  # most turns: nothing asked, no one unnamed (a save reads every pair)
        return ()
    held = set(words(turn)) | {asked_by.lower(), said_by.lower()}
    distinct: dict[str, str] = {}
    for cue in found:  # once each, a name with its capitals
        key = cue.lower()
        if key not in distinct or distinct[key].islower():
            distinct[key] = cue
    kept = [cue for key, cue in distinct.items() if not set(words(key)) <= held]
    return tuple(kept[:MAX_CUES])


def _asking(text: str) -> list[str]:
    """What the sentences of `text` ask: those ending in "?" (`_asked_in`), or all of it when
    it is a short question without its mark ("how's amira")."""
    marked = "?" in text or "？" in text
    asking = [p for p in statements(text) if p.endswith(("?", "？"))] if marked else []
    if asking:
        return [_asked_in(p) for p in asking]
    return [text] if only_asks(text) else []


def _asked_in(sentence: str) -> str:
    """Of a sentence that tells before it asks, the question: "Noor doesn't eat pork for
    religious reasons, is Portuguese food going to be hard?" gave the reply "Noor" and "pork",
    and the reply came before the turn telling it. The whole sentence where the question points
    back at what was told ("…, are you ready for that?") or names too little to stand alone
    ("…, what do you think?")."""
    question = told_then_asked(sentence)
    if question is None or _POINTS_BACK.search(question):
        return sentence
    named = [w for w in query_terms(question) if len(w) >= _SHORTEST]
    return question if len(named) >= _STANDS_ALONE else sentence
