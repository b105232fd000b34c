"""The activation rules of what a message asks not to keep or to drop, and of the moment: a
refusal ("don't save this"), a request to forget what is kept, the conversation's "forget it",
stepping away. First among the rules (`engram.core.intent_rules`): a refusal wins over every
other reading, and what is kept no longer over a refusal."""

from __future__ import annotations

from engram.core.forget_request import FORGET_REQUEST, JUST_SHOWN_DROPPED, NO_LONGER_KEPT
from engram.core.intent_rule import Rule, rule
from engram.core.message import OPENERS, REQUEST_FRAME
from engram.core.refusal import REFUSAL

DROPPING_RULES: tuple[Rule, ...] = (
    # forget: what is kept, no longer ("I don't want you to remember my mortgage stuff
    # anymore, please delete it"): said as a refusal, but of what was kept before
    rule("forget", NO_LONGER_KEPT, 0.995),
    # none: the user says not to keep it, wherever in the message (`engram.core.refusal`).
    # "Don't save this: my SSN is …" matched "save this", and "Remember that I'm vegan, but
    # don't save my address: 12 Elm St" matched "remember that": each secret was saved.
    rule("none", REFUSAL, 0.99),
    # forget: asked to drop something kept, by what it is ("Forget what I said about the
    # car", "Please forget that I work at St. Mary's": `engram.core.forget_request`). Read as
    # a recall ("what I said"), it brought back the very memory the user set aside; read as
    # none, the assistant had nothing to go by. Below an explicit save ("Forget what I said
    # about the car; remember that I'm vegan" keeps the new fact).
    rule("forget", FORGET_REQUEST, 0.92),
    # forget: what was just shown or said ("forget that", "please forget this one", and
    # nothing more): the memories shown are the assistant's to name (`engram.services.
    # activation`); with none shown, what was just said is not to be kept
    rule("forget", JUST_SHOWN_DROPPED, 0.93),
    # none: the conversation's "forget it", "never mind that", "disregard this": nothing kept
    # is named
    rule(
        "none",
        OPENERS + rf"(?:{REQUEST_FRAME})?(?:forget|disregard|ignore|never ?mind) (?:about )?"
        r"(?:what|that|it|this|everything|all)\b",
        0.92,
    ),
    # none: the moment, not a fact: stepping away ("I'm heading out for lunch, back in an
    # hour", "brb") and mending what was just said ("sorry, I meant the other file"): a blind
    # probe found both saves at 0.60. Below every request.
    rule(
        "none",
        # one reading of the opening words for all: each is a pass over a message of marks
        OPENERS + r"(?:(?:i'?m|i am) (?:heading|stepping|popping|running|going) (?:out|off|away)\b"
        r"(?!\s+to\b)"
        r"|(?:i'?m|i am) (?:going|off) to (?:grab|get) (?:a |some )?(?:coffee|lunch|food|a bite|"
        r"tea|a snack)\b"
        r"|(?:i'?m )?(?:off for the (?:day|night)|logging off|signing off)\b"
        r"|i meant\b(?! to\b))"
        r"|\b(?:brb|be right back|back in (?:a|an|\d+) (?:sec|second|min|minute|hour|bit)s?)\b",
        0.7,
    ),
)
