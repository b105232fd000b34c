"""The activation rules of a question about the user's people, by their role or a pronoun,
and of a request that needs what the user likes: read among the recalls
(`engram.core.intent_rules`), from a fourth blind probe's carer and manager, whose questions of
"mum", "her GP" or "she" were none, and an eighth's reader ("Can you recommend me a novel like
the ones my favourite author writes?")."""

from __future__ import annotations

from engram.core.intent_rule import Rule, rule
from engram.core.message import OPENERS
from engram.core.questions import ADVICE

_THEIR_USUAL = r"\b(?:my|our) (?:favou?rite|usual|go-to|regular)\b"

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
    # A question or a request that needs what the user likes best or has as usual: "Can you
    # recommend me a novel like the ones my favourite author writes?", "order my usual";
    # not the liking told ("My favourite author is Louise Penny": a save).
    rule(
        "recall",
        rf"^(?=.*\?\s*$){OPENERS}(?:what|which|any|how|where|who|is|are|do|does)\b[^.!?]*?"
        rf"{_THEIR_USUAL}|{OPENERS}(?:(?:can|could|would|will) (?:you|u)|recommend|suggest|play|"
        rf"order|book|find|get|make|cook|put on)\b[^.!?]*?{_THEIR_USUAL}",
        0.7,
    ),
)
