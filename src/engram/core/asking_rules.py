"""The activation rules of a question about the user's people, by their role or a pronoun:
read among the recalls (`engram.core.intent_rules`), from a fourth blind probe's carer and
manager, whose questions of "mum", "her GP" or "she" were none."""

from __future__ import annotations

from engram.core.intent_rule import Rule, rule
from engram.core.message import OPENERS
from engram.core.questions import ADVICE

ASKING_RULES: tuple[Rule, ...] = (
    # A question about the user's people, by their role or a pronoun: "what time does mum take
    # the apixaban?", "who takes mum on sundays", "what's her GP's name?", "how much donepezil
    # is she on now?" (a fourth blind probe's, each none); not advice ("What should I get my
    # mum for her birthday?"), nor of someone else's ("How many siblings did Queen Victoria
    # have?", "Who was Napoleon's wife?": whether the store knows them is the service's to
    # say). The mark is read first, so the rule reads a message once.
    rule(
        "recall",
        rf"^(?=.*\?\s*$)(?!.*\b(?:{ADVICE})\b){OPENERS}(?:what|which|where|when|who|whose|how)"
        r"(?:'?s|'re)?\b[^.!?]*?(?<!'s )\b(?:mum|mom|dad|mother|father|wife|husband|partner|"
        r"girlfriend|boyfriend|son|daughter|brother|sister|grandma|grandpa|grandmother|"
        r"grandfather|aunt|uncle|baby|gp|physio|doctor|dentist|vet|he|she|his|her|him)\b",
        0.7,
    ),
)
