"""Query expansion from the best first matches (pseudo-relevance feedback).

A question and the memories that answer it often share no word: "What are Fahim's hobbies?"
against "I played some league of legends today". The best matches of the first pass (by text
and meaning together) usually do share words with those answers ("games", "league", "play"):
the words that weigh most in them, are rare in the store and occur beyond those matches are
searched again, and what they find is credited with part of the text relevance. This is the
relevance-model expansion of classic retrieval (Lavrenko and Croft; "RM3" in its usual form),
with the first pass's fused relevance as each match's weight.

Pure functions: the service reads the matches' texts and the words' document counts from the
store and runs the second text search.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

from engram.core.text import STOPWORDS, words

# A word in more than this share of the store's memories finds nothing in particular.
COMMON_SHARE = 0.5
MIN_LETTERS = 3  # shorter words ("ok", "lol", "yo") say nothing about a topic
# Nor do fillers of speech and vague words, beyond the query's stopwords: in a small store they
# are rare enough to be chosen ("now", "actually"), and searching them finds anything said in
# passing (docs/search.md, section 1c).
FILLERS = frozenset(
    """actually anyway anything everything guess i'm it's kind like lot lots maybe nothing now
    okay pretty quite really something stuff sure thank thanks that's thing things well what's
    wow yeah yes you're""".split()
)
# Function words the query's short stopword list leaves in (a query keeps them: "not", "all"
# can matter to its text match). A small store finds them rare, so a match's "every" led
# expansion to an unrelated memory with "every" in it ("I prefer dark mode in every editor" ->
# "Standup is at 9:30 every weekday"). Left out of expansion, R@1 and MRR rose on both
# development sets (docs/search.md, section 1c).
FUNCTION_WORDS = frozenset(
    """above after again all also any because been before being below between both down during
    each every few further her here hers herself him himself his into itself more most much
    must myself not off once only other others ours ourselves out over own same some such
    themselves through too under until up very while yours yourself""".split()
)


class FeedbackWord(NamedTuple):
    word: str
    weight: float  # the share of the matches' relevance it carries
    matches: int  # how many of the matches it occurs in


def feedback_words(
    matches: Sequence[tuple[str, float]], exclude: Collection[str], most: int
) -> list[FeedbackWord]:
    """The `most` words weighing most in the matches' texts, given as (text, weight): each
    text shares out its weight over its words (a word said twice counts twice), function words,
    fillers, short words, numbers and `exclude` (the query's own words) left out. Best
    first."""
    weights: dict[str, float] = {}
    seen_in: dict[str, int] = {}
    for text, weight in matches:
        kept = [
            w
            for w in words(text)
            if len(w) >= MIN_LETTERS
            and not w.isdigit()  # a value, not a topic: "item 107" led to every item 107
            and w not in STOPWORDS
            and w not in FILLERS
            and w not in FUNCTION_WORDS
            and w not in exclude
        ]
        if not kept or weight <= 0:
            continue
        share = weight / len(kept)
        for w in kept:
            weights[w] = weights.get(w, 0.0) + share
        for w in set(kept):
            seen_in[w] = seen_in.get(w, 0) + 1
    best = sorted(weights.items(), key=lambda item: (-item[1], item[0]))[:most]
    return [FeedbackWord(w, weight, seen_in[w]) for w, weight in best]


def expansion_terms(
    candidates: Sequence[FeedbackWord],
    document_counts: Mapping[str, int],
    total: int,
    count: int,
    common_at: int,
) -> list[str]:
    """The `count` candidates with the best weight × inverse document frequency: a word found
    in much of the store (a speaker's name on every one of their lines, "really") finds nothing
    in particular. Left out:

    - a word found in no memory beyond the matches it came from: it leads nowhere new, and
      searching it would only lift those matches by their own words (a match's one rare word
      then outweighs everything the query asked; measured in docs/search.md);
    - a word in `common_at` memories or more: it would cost the most to search and find the
      least; and one in more than `COMMON_SHARE` of a smaller store (every memory of a probe's
      60 said "probe record … of the garden inventory": expanded by those words, the query
      lifted every memory, and a code only one held ranked below others);
    - a word the store's index does not know (counted 0)."""
    scored = {
        c.word: c.weight * math.log(1.0 + total / (1.0 + document_counts[c.word]))
        for c in candidates
        if c.matches < document_counts.get(c.word, 0) < common_at
        and document_counts[c.word] <= COMMON_SHARE * total
    }
    return sorted(scored, key=lambda w: (-scored[w], w))[:count]
