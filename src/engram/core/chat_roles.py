"""Whose turns a question asks of, in a chat saved turn by turn between a user and an assistant
("User: …", "Assistant: …"). Each side's turns echo the other's: the assistant's answers repeat
the user's facts ("A reorder of 96 candles, double the first order of 48…"), and the user's
asks name what the answer was for ("Can you suggest a dessert for Marcus's birthday?").
By words and meaning the echo ranks above the turn asked for, so a search lowers the side a
question does not ask of (`engram.services.speakers`; docs/search.md, section 1d). Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram.core.text import ASSISTANT_LABELS, SECOND_PERSON, USER_LABELS
from engram.core.time_asked import asks_about_the_present, of_the_past

# A question asking for advice ("How should I treat my knee pain?") asks of the user's situation
# and of the advice given before alike: the assistant's turns keep at least this share (lowered
# to 0.3, a probe's 29 such questions fell from MRR 0.530 to 0.313; not lowered at all, the
# user-assistant chats' preferences lost: bench/data/user_assistant).
ADVICE_SHARE = 0.6

# "you" and its forms (`SECOND_PERSON`): a question saying it asks what the assistant said, or
# asks nothing of either side, unless it only tells or asks the assistant (`_TOLD_YOU`).
# The user telling the assistant ("What did I tell you about my sister?") or asking it ("Can you
# suggest gardening tools that would suit me?": what suits the user is in the user's turns).
_TOLD_YOU = re.compile(
    r"\b(?:tell|told|telling|remind(?:ed)?|(?:say|said|mention(?:ed)?|talk(?:ed)?) to|"
    r"shared? with|can|could|would|will)\s+you\b",
    re.IGNORECASE,
)
# The chat itself: "I'm checking our previous chat about the rotation sheet. Can you remind
# me what Admon does on Sundays?" asks what either said, as LongMemEval's questions of the
# assistant open; so does a plea to recall ("Can you remind me which chart the exam uses?").
_THE_CHAT = re.compile(
    r"\b(?:(?:our|the|that|this|an?|my)\s+(?:\w+\s+)?(?:chat|conversation|discussion)s?"
    r"|we\s+(?:discussed|talked|chatted|spoke|went\s+over)|came\s+up|remind\s+me"
    r"|(?:do|did)\s+you\s+(?:still\s+)?(?:know|remember|recall))\b",
    re.IGNORECASE,
)
# Advice given, asked of without a "you": "What was the adhesive recommended for my zellige?"
# (the assistant's answer fell from 3rd to 10th when such a question named the user: a second
# probe's own chats), "What was the recommendation for my laptop?", "the recipe".
_ADVISED = re.compile(
    r"\b(?:recommended|suggested|advised|proposed|prescribed|recommendations?|suggestions?|"
    r"advice|tips?|recipes?)\b",
    re.IGNORECASE,
)
# Advice asked for: "Should I ice my knee?", "How do I stop my beagle pulling?", "What's a
# good harness for my dog?".
_ASKS_ADVICE = re.compile(
    r"\b(?:should (?:i|we)|(?:how|what|where|which) (?:\w+ )?(?:do|can|could) (?:i|we)|"
    r"(?:what's|what is|what are) (?:a |some )?good)\b",
    re.IGNORECASE,
)
# The user, or the user's household, in the first person, or as an assistant names them.
_WE_OR_I = re.compile(
    r"\b(?:i|i'm|i've|i'll|i'd|me|my|mine|we|we're|we've|we'll|we'd|us|our|ours|user|user's)\b",
    re.IGNORECASE,
)
# A question, by its mark or its first word: words alone ("Kyoto hostel") say nothing of whose
# turns they ask of.
_QUESTION = re.compile(
    r"\?\s*$|^\W*(?:what|what'?s|who|who'?s|whom|whose|where|where'?s|when|why|how|how'?s|which|"
    r"is|are|am|was|were|do|does|did|has|have|had|can|could|should|would|will|any)\b",
    re.IGNORECASE,
)
# What the assistant said, by its saying it: "What did you suggest for my knee?", "I remember
# you made me a marking rubric", "your tips", "What did the assistant suggest for dessert?".
# Not a request in the present ("What do you suggest for dinner?" asks of the user's tastes too).
_YOU_SAID = re.compile(
    r"\b(?:did\s+(?:you|u|(?:the\s+)?(?:assistant|ai|claude|chatgpt))\s+\w+"
    r"|(?:you|u|the\s+assistant)\s+(?:\w+ly\s+)?(?:said|suggested|recommended|told|gave|made|"
    r"mentioned|listed|described|explained|laid|proposed|provided|shared|wrote|put|came|walked|"
    r"advised|meant|called|named|picked|chose|thought|showed|taught|compared|used)"
    r"|your\s+(?:advice|suggestions?|recommendations?|tips))\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ChatRoles:
    """The side a question asks of (`named`, labels as `core.text` spells them), the side it
    does not (`lowered`), and the least share of their relevance the lowered side keeps."""

    named: frozenset[str]
    lowered: frozenset[str]
    least_share: float


def asks_of_the_user(query: str) -> float | None:
    """For a question asking of the user of a chat with an assistant, the least share of their
    relevance the assistant's turns keep: 0 ("What were my 10K times?": the other speakers'
    share holds) or `ADVICE_SHARE` (advice asked for). None where it asks what the assistant
    said ("What did you suggest for my knee?", "What was the adhesive recommended for my
    tiles?") or what was said in the chat ("our previous conversation", "remind me").

    A question in the first person plural ("What did we find under the floor?") asks of the
    user too, and so does one in no person that asks what happened or how things stand now
    ("How much does Mom weigh now?", "What did they find when the demo started?"): of 57
    questions in no person or "we" in three probes' chats, one asked of the assistant, and that
    by "came up". In a fifth probe's chats where the user asked the assistant things, taking
    every question in no person for the user's put the assistant's earlier answer to "How does
    a heat pump work?" and its like below the user's asking of it. Words that are no question
    and say neither I nor we ("Kyoto hostel") ask of neither."""
    said = _TOLD_YOU.sub(" ", query)
    if any(p.search(said) for p in (SECOND_PERSON, _ADVISED, _THE_CHAT)):
        return None
    share = ADVICE_SHARE if _ASKS_ADVICE.search(said) else 0.0
    if _WE_OR_I.search(said) is not None:
        return share
    # In no person: what happened, or how things stand now, is of the user's life; a question
    # in the present of how things are ("How does a heat pump work?") asks of knowledge, often
    # the assistant's answer to the same question asked before.
    if _QUESTION.search(query) and (of_the_past(said) or asks_about_the_present(query)):
        return share
    return None


def asks_of_the_assistant(query: str) -> bool:
    """Whether a question asks what the assistant said ("Which huts did you suggest on the
    Routeburn?"): the user's request, in the question's own words, ranked above the answer in
    all four probes' chats (a blind one: the answer first for 21 of 30 such questions, 28 with
    the user's turns lowered)."""
    said = _TOLD_YOU.sub(" ", _THE_CHAT.sub(" ", query))
    return _YOU_SAID.search(said) is not None


def chat_roles(query: str) -> ChatRoles | None:
    """Whose turns `query` asks of in a chat with an assistant; None where of neither alone."""
    if asks_of_the_assistant(query):
        return ChatRoles(ASSISTANT_LABELS, USER_LABELS, 0.0)
    share = asks_of_the_user(query)
    return None if share is None else ChatRoles(USER_LABELS, ASSISTANT_LABELS, share)
