"""What a user's message asks of the memory: to keep something (save), to bring something back
(recall), to confirm something already kept (reinforce), to drop something kept (forget), or
nothing; and how important a memory is by the words that mark importance.

Rules, not a model: each is a phrase pattern with a weight, the strongest match decides, and
the phrase that matched is returned so an assistant (and a user) can see why. Measured on the
labelled messages in tests/fixtures/activation/messages.tsv, and on messages-heldout.tsv,
written after the rules and never used to change them (docs/activation.md). What a recall
request searches for is `engram.core.recall`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from engram.core.confirmation import Excepted, excepted, first_sentence, states_something
from engram.core.intent_rule import Intent, Rule
from engram.core.intent_rules import RULES
from engram.core.message import (
    asked,
    flattened,
    masked,
    plain,
    readable,
    without_tail,
)
from engram.core.questions import (
    ASKED_TO_SAVE,
    asked_about,
    asked_then_told,
    asks_for_help,
    is_plain_question,
    question_follows,
    told_before_asking,
)
from engram.core.specifics import SPECIFICS_CONFIDENCE, fact_beside_a_request, fact_in_specifics
from engram.core.statement import STATEMENT_CONFIDENCE, statement_about_the_user


@dataclass(frozen=True)
class Analysis:
    intent: Intent
    confidence: float
    phrase: str | None  # the words that decided it
    tags: tuple[str, ...] = field(default=())
    # The part of the message, as written, that a save is about when it is not the whole
    # message: what a confirmation's exception says ("Same as before, except I now prefer
    # coffee" saves "I now prefer coffee").
    about: str | None = None


def classify(message: str) -> Analysis:
    """The message's intent: the strongest rule that matches (ties go to the earlier rule:
    recall before reinforce before save), else a fact told in specifics, or none."""
    found = classify_by_rules(message)
    if found.intent != "none" or found.phrase is not None:
        return found
    return told_in_specifics(message) or found


def classify_by_rules(message: str) -> Analysis:
    """`classify` without the last reading (`told_in_specifics`): what the rules and the
    statement of the user read. The store may read more in a message they leave as none (a
    name it holds, a fact it replaces), more surely than the message's form alone. A question
    with a reason after it is read as the question too, for a recall: "hey what's my shift
    pattern now? want to book a haircut" (a sixth blind probe's: none)."""
    found = _classify(message, confirming=True)
    refused = found.intent == "none" and found.phrase is not None  # "don't save this"
    if found.intent not in ("none", "recall") or refused:
        return found
    question = asked_then_told(without_tail(masked(plain(message))))
    if question is None:
        return found
    again = found if found.intent == "recall" else _classify(question, confirming=True)
    if again.intent != "recall":
        return found
    # what is searched is the question, as written: not the haircut
    return replace(again, about=" ".join(message.split())[: len(question)])


def told_in_specifics(message: str) -> Analysis | None:
    """A save of a fact told in specifics (`engram.core.specifics`), or None; of the part
    told before a question, where one follows it (the question is the assistant's to answer,
    the fact memory's to keep)."""
    typed = without_tail(masked(plain(message)))
    read = asked(typed)
    # beside a request for work: read as typed, no question mark put back
    beside = fact_beside_a_request(typed)
    if beside is None:
        whole = fact_in_specifics(read)
        if whole is not None:
            return Analysis("save", SPECIFICS_CONFIDENCE, whole)
        before = told_before_asking(read)
        kinds = fact_in_specifics(before) if before else None
        if before is None or kinds is None:
            return None
        beside = kinds, before
    kinds, told = beside
    # the rules' text is the spaced message, one character for one: the part as written
    spaced = " ".join(message.split())
    at = read.find(told)
    about = spaced[at : at + len(told)] if at >= 0 else told
    return Analysis("save", SPECIFICS_CONFIDENCE, kinds, about=about)


def _read(message: str) -> str:
    """The message as the rules read it: links masked, a chat's tail off, a question's mark
    put back."""
    return asked(without_tail(masked(plain(message))))


def _classify(message: str, *, confirming: bool) -> Analysis:
    """`classify`; a confirmation's exception is read only when `confirming` (what an
    exception says is read with it off: "except except except…" is read once)."""
    spaced = " ".join(message.split())
    # The phrase is cut from `spaced`: the user's apostrophes. Links are masked before any
    # rule reads the text: "https://dana.dev/about?x=1" asks nothing.
    text = _read(message)
    best: tuple[float, Rule, re.Match[str]] | None = None
    other: tuple[float, Rule, re.Match[str]] | None = None  # the best that is not a save
    dropped: tuple[float, Rule, re.Match[str]] | None = None  # the best request to forget
    tags: list[str] = []
    for rule in RULES:
        found = rule.search(text)
        if found is None or (rule.intent == "reinforce" and asked_about(text, found)):
            # "Is that still true?" asks; it confirms nothing (it reinforced what was shown).
            continue
        if rule.tag and rule.intent == "save" and rule.tag not in tags:
            tags.append(rule.tag)
        if best is None or rule.weight > best[0]:
            best = (rule.weight, rule, found)
        if rule.intent != "save" and (other is None or rule.weight > other[0]):
            other = (rule.weight, rule, found)
        if rule.intent == "forget" and (dropped is None or rule.weight > dropped[0]):
            dropped = (rule.weight, rule, found)
    if best is not None and best[1].intent == "none" and dropped is not None:
        # "forget my stipend info, that's private": a refusal too, but both ask not to keep
        # it, and the request names what is kept (a blind probe: none at 0.99, the stipend
        # kept)
        best = dropped
    if (
        best is not None
        and best[1].intent == "save"
        and best[0] < ASKED_TO_SAVE
        and asks_for_help(text, best[1].tag, best[2])
    ):
        # "I always forget semicolons, any tips?": a question about the message's subject, not
        # something to keep; only an explicit request (remember, note) saves a question. What
        # else it matched stands ("What's my favourite restaurant?" is a recall).
        best, tags = other, []
    if best is not None and best[1].intent == "save" and question_follows(text, best[2]):
        # "For future reference, what's the best way to do this?": the words that ask to keep
        # something are followed by a question of its own, and nothing is said to keep.
        best, tags = other, []
    if best is None:
        # No rule names it: a short statement about the user may still be worth keeping.
        subject = statement_about_the_user(text)
        if subject is not None:
            return Analysis("save", STATEMENT_CONFIDENCE, subject)
        return Analysis("none", 0.9 if is_plain_question(text) else 0.7, None)
    weight, rule, found = best
    if rule.intent == "none":  # told not to keep it
        return Analysis("none", weight, spaced[found.start() : found.end()].strip())
    if rule.intent == "reinforce" and confirming:
        apart = excepted(text, found)
        if apart is not None:  # "Same as before, except I now prefer coffee"
            return _what_changed(message, spaced, apart)
    return Analysis(
        rule.intent,
        weight,
        spaced[found.start() : found.end()].strip(),
        tuple(tags) if rule.intent == "save" else (),
    )


def _what_changed(message: str, spaced: str, apart: Excepted) -> Analysis:
    """A confirmation with an exception (`engram.core.confirmation`) confirms nothing plainly:
    what the exception states is a save, about that part alone; if it states nothing ("but
    not for the tea"), the answer is none."""
    start, end = apart.start, apart.end
    while start < end and spaced[start] == " ":
        start += 1
    while end > start and spaced[end - 1] in " ,;:—–-":
        end -= 1
    part = spaced[start:end]
    if not part:
        return Analysis("none", 0.8, apart.words)
    _, at = flattened(readable(message))  # its positions are those of `spaced`
    about = message[at[start] : at[end - 1] + 1]
    # What it states is read from its first sentence: a long message is not read twice.
    said = _classify(first_sentence(part), confirming=False)
    if said.intent == "save":
        return Analysis("save", said.confidence, said.phrase, said.tags, about)
    if states_something(first_sentence(part)):
        return Analysis("save", STATEMENT_CONFIDENCE, apart.words, (), about)
    return Analysis("none", 0.8, apart.words)
