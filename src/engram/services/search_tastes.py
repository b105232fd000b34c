"""For a request for a suggestion, the user's tastes and constraints among its matches first
(`engram.core.tastes`; docs/search.md, section 1e). "Any ideas for a healthy dinner tonight?"
found "I don't like fish at all" 15th, below a packing list's "one nicer outfit for dinners":
a taste stated in passing shares no word with the request and little of its meaning."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engram.core.meaning import Probe, meaning_matches
from engram.core.ranking import Candidate
from engram.core.tastes import states_a_taste
from engram.embeddings.background import background_vectors
from engram.services.context import Context
from engram.services.search_spread import NEAR_MIN_Z, near_meaning
from engram.storage.protocol import Filter, Stub

# The best matches, and the vector neighbours, read for a stated taste.
TASTE_POOL = 40
# How much a stated taste is lifted: relevance × (1 + TASTE_LIFT). Chosen among 0.3, 0.6 and
# 1.0 by the helper's probe that found it, on its own blind chats; on the two other sets of
# chats, which it did not look at, the preference questions' MRR went 0.279 → 0.471 and
# 0.310 → 0.522 (bench/data/user_assistant).
TASTE_LIFT = 0.6


def tastes_first(
    ctx: Context,
    found: list[tuple[Stub, Candidate]],
    neighbours: Iterable[str],
    probes: Sequence[Probe],
    best_z: float,
    where: Filter,
) -> list[tuple[Stub, Candidate]]:
    """`found` with the memories stating a taste lifted by `TASTE_LIFT`: those among the best
    `TASTE_POOL` matches and the vector `neighbours`, the ones that match nothing else joining
    where their meaning stands from z 1 up, as a reply next to a match does (`NEAR_MIN_Z`:
    the request's words are not the taste's), `semantic weight × (z − 1) / (best z − 1)`."""
    embedder = ctx.semantic
    if embedder is None or not probes:
        return found
    by_id = {c.id: (s, c) for s, c in found}
    best = sorted(found, key=lambda f: -f[1].relevance)[:TASTE_POOL]
    ids = list(dict.fromkeys([*(c.id for _, c in best), *neighbours]))
    texts = ctx.store.texts(ids)
    tastes = [i for i in ids if i in texts and states_a_taste(texts[i].content)]
    if not tastes:
        return found
    rows = ctx.store.get_vectors(tastes, embedder.model_id, passages=True)
    meant = meaning_matches(rows, probes, background_vectors(embedder), NEAR_MIN_Z)
    weight = ctx.settings.search_semantic_weight
    joining = {s.id: s for s in ctx.store.stubs([i for i in tastes if i not in by_id], where)}
    for ident in tastes:
        match = meant.get(ident)
        meaning = near_meaning(match.z, best_z, weight) if match is not None else 0.0
        had = by_id.get(ident)
        if had is not None and max(had[1].relevance, meaning) > 0:
            stub, candidate = had
            lifted = max(candidate.relevance, meaning) * (1 + TASTE_LIFT)
            by_id[ident] = (stub, candidate._replace(relevance=lifted))
        elif had is None and match is not None and meaning > 0 and ident in joining:
            candidate = Candidate(
                ident, meaning * (1 + TASTE_LIFT), 0.0, 0.0, text=0.0, semantic=match.cosine
            )
            by_id[ident] = (joining[ident], candidate)
    return list(by_id.values())
