"""A request for a suggestion, and a memory stating a taste or a constraint: "Any ideas for a
healthy dinner tonight?" is best answered knowing "I don't like fish at all", which shares no
word with it and little of its meaning (docs/search.md, section 1e)."""

from __future__ import annotations

import re

from engram.core.text import said_by_the_assistant, unlabelled

# Asking for something new: a suggestion, an idea, advice, help choosing; not a question of
# what was said ("What did you suggest for my knee?" recalls it).
_SUGGESTION = re.compile(
    r"\b(?:(?:can|could|would|will) you (?:please )?(?:suggest|recommend|give|help|plan|show|"
    r"find|make|write|come up|put together|think of|pick)|any (?:ideas?|suggestions?|"
    r"recommendations?|tips)|ideas? for|^\W*(?:please )?(?:suggest|recommend)|"
    r"you(?:'d| would)? (?:suggest|recommend)|what should (?:i|we)|"
    r"what (?:can|could) (?:i|we)|something (?:fun|good|nice)|"
    r"help me (?:plan|pick|choose|write|find|decide)|(?:what|which|where|when|how)(?: [\w']+){0,5} "
    r"should (?:i|we)|how (?:do|can|could) (?:i|we)|(?:i|we) could (?:make|cook|do|try|bring|add)|"
    r"any advice|what(?:'s| is) a (?:\w+ )?good)\b",
    re.IGNORECASE,
)
_RECALLED = re.compile(r"\b(?:did|have|had) you\b|\byou (?:suggested|recommended)\b", re.I)
# A taste or a constraint: what one likes or will not have, a diet, an allergy, a condition,
# a standing request ("please no emojis"); not of the moment ("I hate this error").
_TASTE = re.compile(
    r"\b(?:i|we)(?:'m| am|'re| are)? (?:really |absolutely |just |also |honestly |totally |"
    r"pretty |very |kind of |so |still |always |generally )*(?:love|like|prefer|enjoy|adore|hate|"
    r"dislike|loathe|detest|despise|can'?t stand|cannot stand|don'?t (?:like|eat|drink|want|"
    r"care for|do)|do not (?:like|eat|drink|want)|won'?t (?:eat|touch|do)|refuse|avoid|"
    r"would rather|'d rather|not (?:a fan|into|a \w+ person))\b"
    r"(?!\s+(?:this|it|these|those|that)\b)|"
    r"\bnot a fan\b|\b(?:allergic|allergy|allergies|intolerant|intolerance|celiac|coeliac|"
    r"diabetic|vegan|vegetarian|pescatarian|gluten-free|dairy-free|halal|kosher)\b|"
    r"\bplease (?:no|not|don'?t|keep|avoid|only)\b|\bno \w+(?: \w+)?,? (?:please|ever)\b|"
    r"\bnothing (?:too|with|more than|over|spicy|fancy|complicated)\b|"
    r"\b(?:can'?t|cannot|doesn'?t|don'?t|won'?t) (?:eat|drink|tolerate|handle|touch)\b|"
    r"\b(?:my|our) (?:top )?priority\b|\bfavou?rite\b",
    re.IGNORECASE,
)


def asks_for_a_suggestion(query: str) -> bool:
    """Whether `query` asks for a suggestion or advice ("Any ideas for dinner?", "What should
    I cook for six?"), not for what was suggested before."""
    return _RECALLED.search(query) is None and _SUGGESTION.search(query) is not None


def states_a_taste(content: str) -> bool:
    """Whether a memory states a taste or a constraint of its speaker's ("I don't like fish at
    all", "Ana is celiac", "no emojis please"); never the assistant's turn, whose "you love
    spicy food" only echoes the user."""
    if said_by_the_assistant(content):
        return False
    return _TASTE.search(unlabelled(content)) is not None
