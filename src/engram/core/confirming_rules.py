"""The activation rules of a confirmation: the user says that what was remembered still holds
("Yes, still vegetarian", "That's right", "nothing's changed"). Read after the recalls and
before the saves (`engram.core.intent_rules`)."""

from __future__ import annotations

from engram.core.intent_rule import Rule, rule

# What is yet to do, said with "still": news, not a confirmation ("Right, I still need to book
# the restaurant" reinforced what was shown: an MCP probe).
_STILL_TO_DO = (
    r"need|needs|have to|has to|got to|gotta|want to|wants to|must|can'?t|cannot|don'?t|"
    r"doesn'?t|haven'?t|hasn'?t|didn'?t|owe|owes"
)
_STILL_SO = rf"\bstill\b(?!\s+(?:{_STILL_TO_DO})\b)"


CONFIRMING_RULES: tuple[Rule, ...] = (
    # reinforce: the user confirms what was remembered
    rule(
        "reinforce",
        rf"^\W*(?:yes|yep|yup|yeah|ye|aye|correct|exactly|right|indeed|confirmed)\b.*{_STILL_SO}",
        0.95,
    ),
    rule("reinforce", r"\bstill (?:true|valid|accurate|the case|holds|the plan|correct)\b", 0.9),
    rule("reinforce", r"^\W*still holds\b|\bthat'?s still\b", 0.9),
    rule(
        "reinforce",
        r"\bnothing(?:'s| has)? changed\b|\bhasn'?t changed\b|\bsame as before\b",
        0.9,
    ),
    rule(
        "reinforce",
        r"^\W*(?:yes|yep|yup|yeah|yea|ya|ye|yh|aye)\b[,.!\s]*"
        r"(?:that'?s (?:right|correct|it|the one)|exactly)\b",
        0.85,
    ),
    rule(
        "reinforce",
        # after thanks too: "Thanks, that's right!" was no confirmation, "That's right,
        # thanks" was (probe)
        # and with a yes and the name confirmed before it, "that's her", "that's the one", a
        # thanks after it ("yep priya, that's her", "thats right thanks": a blind probe's, none)
        # the value confirmed repeated before it: "yes twice a day, thats right" (a fourth
        # blind probe's, none)
        r"^\W*(?:(?:thanks|thank you|ok|okay|great|perfect|yes|yep|yup|yeah|yea|ya)\b[,.!\s]+)?"
        r"(?:[\w'-]+[,.!]?\s+){0,4}(?:that'?s (?:right|correct|the one|him|her|them)|correct|"
        r"confirmed|exactly)\b(?:[,.!:—-]|\s*$|\s+(?:thanks|thank you|thx|ty|cheers|ta)\b)",
        0.85,
    ),
    # not "still waiting / thinking / working on it" either: how it goes, not a confirmation
    rule(
        "reinforce",
        r"\b(?:i|we)(?:'m|'re| am| are)? still "
        r"(?!(?:not|waiting|thinking|working|trying|looking|wondering|deciding|getting|seeing|"
        rf"having|stuck|struggling|{_STILL_TO_DO})\b)\w+",
        0.8,
    ),
    rule(
        "reinforce",
        # in its first sentence: "right so i own 3 rental flats in cardiff. … in the same block"
        # is news (a ninth blind probe's, read as a confirmation)
        rf"^\W*(?:yes|yep|yup|ya|ye|aye|right|still)\b[^?.!]*(?:{_STILL_SO}|\b(?:it is|same)\b)",
        0.8,
    ),
    # the value, then the word that it holds: "yes Rua dos Remédios, thats it", "20th march,
    # right. thanks" (a sixth blind probe's: saved as new memories, and none)
    rule(
        "reinforce",
        r"^\W*(?:yes|yep|yup|yeah|ya|ye|aye|right)\b[,.!\s]+(?:[\w'-]+[,.!]?\s+){0,4}"
        r"that'?s (?:it|him|her|them|the one)\b"
        r"|^\W*[\w'-]+(?:\s+[\w'-]+){0,3}\s*[,.]\s*(?:right|correct|yes|yep|yeah|ye|aye)[^\w?]*"
        r"(?:(?:thanks|thank you|thx|ty|cheers|ta)[^\w?]*)?$",
        0.8,
    ),
    # an idiom of approval, and nothing asked: "spot on ta", "bang on, cheers" (a ninth blind
    # probe's, none)
    rule("reinforce", r"^\W*(?:spot on|bang on|dead right|nailed it|on the money)\b[^?]*$", 0.85),
    # what was shown agrees with what the user has: "yes thanks, that matches" (a fifth blind
    # probe's, none)
    rule(
        "reinforce",
        r"^\W*(?:(?:yes|yep|yup|yeah|ya|ok|okay)\b[,.!\s]*)?(?:(?:thanks|thank you|thx|cheers|ta)"
        r"\b[,.!\s]*)?(?:that|it|this) (?:matches|checks out|sounds right|lines up)\b",
        0.85,
    ),
    # a yes and the value it confirms, and thanks or nothing after: "yes 9 april, thx", "Yes,
    # Alfie. Thank you.", "Sorry, yes. Wednesday. Silly me." (a seventh blind probe's: saved as
    # new memories, or none); not a statement ("yes, I'm vegan") nor a yes to an offer
    rule(
        "reinforce",
        r"^\W*(?:(?:sorry|oh|ah)\W+)?(?:yes|yep|yup|yeah|ya|ye|aye|right|correct)\b[,.!\s]+"
        r"(?!(?:please|pls|sounds|go|do|let'?s|and|i|i'm|im|we|we're|my|our|but|no|not|book|send|"
        r"add|make|sure|ok|okay|fine|that|this|it)\b)[\w'-]+(?:[,.\s]+[\w'-]+){0,3}[,.!]?"
        r"(?:\s*(?:thx|thanks|thank you|ty|cheers|ta|silly me|my bad|my mistake)\b)?[\s.,!]*$",
        0.75,
    ),
    # a yes, the value it confirms, and a word of approval: "yes penicillin, good" (a fourth
    # blind probe's, none)
    rule(
        "reinforce",
        # (not an answer to an offer: "yes please, sounds good")
        r"^\W*(?:yes|yep|yup|yeah|yea|ya|ye|aye|right|correct)\b[,\s]+"
        r"(?!(?:please|sounds|go|do|let'?s|and)\b)[\w'-]+(?:[,.\s]+[\w'-]+){0,3}(?:[,.!]\s*|\s+)"
        r"(?:good|great|perfect|correct|right|exactly)\W*$",
        0.8,
    ),
    rule(
        "reinforce",
        r"^\W*still (?:prefer|using|on|in|at|like|love|work|live|allergic|vegan|vegetarian|"
        r"married|taking|eating|drinking|driving|no [\w'-]+ for me)\b",
        0.8,
    ),
)
