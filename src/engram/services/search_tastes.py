"""For a request for a suggestion, the user's tastes and constraints among its matches first
(`engram.core.tastes`; docs/search.md, section 1e). "Any ideas for a healthy dinner tonight?"
found "I don't like fish at all" 15th, below a packing list's "one nicer outfit for dinners":
a taste stated in passing shares no word with the request and little of its meaning."""

from __future__ import annotations

from collections.abc import Sequence

from engram.core.meaning import Probe, meaning_matches
from engram.core.ranking import Candidate
from engram.core.tastes import states_a_taste
from engram.embeddings.background import background
from engram.services.context import Context
from engram.services.search_reads import SearchReads
from engram.services.search_spread import NEAR_MIN_Z, near_meaning
from engram.storage.protocol import Stub

# The best matches read for a stated taste.
TASTE_POOL = 40
# How much a stated taste is lifted: relevance × (1 + TASTE_LIFT). Chosen among 0.3, 0.6 and
# 1.0 by the helper's probe that found it, on its own blind chats; on the two other sets of
# chats, which it did not look at, the preference questions' MRR went 0.279 → 0.471 and
# 0.310 → 0.522 (bench/data/user_assistant).
TASTE_LIFT = 0.6


def tastes_first(
    ctx: Context,
    found: list[tuple[Stub, Candidate]],
    probes: Sequence[Probe],
    best_z: float,
    seen: SearchReads,
) -> list[tuple[Stub, Candidate]]:
    """`found` with those of its best `TASTE_POOL` that state a taste lifted by `TASTE_LIFT`,
    each from the more of its relevance and its meaning judged from z 1 up, as a reply next
    to a match is (`near_meaning`: the request's words are not the taste's). None joins that
    nothing matched: "What should I name my boat?", about nothing stored, had listed "Mom's
    favourite dish is lasagna" (a probe), and joining added nothing on the chats."""
    embedder = ctx.semantic
    if embedder is None or not probes:
        return found
    best = [c.id for _, c in sorted(found, key=lambda f: -f[1].relevance)[:TASTE_POOL]]
    texts = seen.texts(best)
    tastes = {i for i in best if i in texts and states_a_taste(texts[i].content)}
    if not tastes:
        return found
    rows = seen.rows(tastes)
    meant = meaning_matches(rows, probes, background(embedder), NEAR_MIN_Z)
    weight = ctx.settings.search_semantic_weight
    out = []
    for stub, candidate in found:
        if candidate.id in tastes:
            match = meant.get(candidate.id)
            meaning = near_meaning(match.z, best_z, weight) if match is not None else 0.0
            lifted = max(candidate.relevance, meaning) * (1 + TASTE_LIFT)
            candidate = candidate._replace(relevance=lifted)
        out.append((stub, candidate))
    return out
