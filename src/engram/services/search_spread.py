"""What a search adds around its direct matches: the words of the best ones searched again
(query expansion, `engram.core.expansion`), and credit passed to their episode neighbours and
related memories (`engram.core.ranking.spread`). Both read the store beyond the query's own
matches; docs/search.md, sections 1c and 2, say how they were tuned."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from engram.core.expansion import expansion_terms, feedback_words
from engram.core.meaning import Probe, meaning_matches
from engram.core.questions import asks_for_a_reply
from engram.core.ranking import Fused, episode_links, spread
from engram.embeddings.background import background
from engram.services.context import Context
from engram.services.search_reads import SearchReads
from engram.storage.protocol import Filter, Stub

# The strongest direct matches whose episode neighbours and related memories receive credit.
CONTEXT_SOURCES = 20
# Episode neighbours less alike than this (cosine of their whole-text vectors) pass no credit:
# most adjacent facts an assistant saved in one session, a tenth of REALTALK's adjacent turns;
# a dialogue's short reply ("Sure, which weekend works?", 0.16 from "Let's plan the kayak
# trip") still gets it. R@10 cannot tell 0.1, 0.15 and 0.2 apart; the results found by
# context alone fall from 34 % to 24 % (docs/search.md, section 2).
CONTEXT_MIN_COSINE = 0.15
# Next to a strong match less meaning makes a match: a reply says little on its own of what it
# answers ("slow. the city permits are a nightmare" to "how's the bakery stuff?"), and its
# neighbour's credit is at most the context weight of what that neighbour matched. A memory
# context credit reaches that no meaning matched counts its meaning from this z (where a match
# elsewhere needs ENGRAM_SEARCH_SEMANTIC_MIN_Z, 2; a named day's memories need 0). Chosen before
# it was run by the helper's probe that found it; docs/search.md, section 2.
NEAR_MIN_Z = 1.0
# Query expansion: how many of the matches' weightiest words are looked up in the index (the
# best of them by rarity are searched), and in how many memories a word is too common to search
# (counting stops there, so a common word costs no more than a rare one). On the conversational
# sets 100 finds what 1,000 does (bench/retrieval.py); on the 10K synthetic store, whose words
# are all common, it keeps expansion's cost bounded (docs/search.md, "Query expansion").
EXPANSION_CANDIDATES = 20
EXPANSION_COMMON_AT = 100
# Only matches this close to the best one lend their words: a weak match (a memory barely
# above the meaning floor) would otherwise steer the expansion away from what the query found.
EXPANSION_MIN_SHARE = 0.3
# ... and a match by meaning alone lends its words only if it stands this far above unrelated
# text: from one weak match ("zebra migration patterns" against a memory about a flight to
# Lisbon) the search went on to everything else that said "Lisbon".
EXPANSION_MIN_Z = 3.0
# ... or share words that say something with the query: not only words found in most of the
# store (`SearchService._say_little`), which seeded expansion with whichever matches tied first.
EXPANSION_MIN_TEXT = 0.01


def expansion_matches(
    ctx: Context,
    fused: dict[str, Fused],
    z: dict[str, float],
    terms: Sequence[str],
    where: Filter,
    limit: int,
    seen: SearchReads,
) -> list[Stub]:
    """Text matches of the words that weigh most in the best direct matches and are rare
    in the store (`engram.core.expansion`); none when expansion is off or nothing matched."""
    settings = ctx.settings
    if settings.search_expansion_weight <= 0 or not fused:
        return []
    best = sorted(fused, key=lambda i: (-fused[i].relevance, i))
    floor = EXPANSION_MIN_SHARE * fused[best[0]].relevance
    strong = [
        i
        for i in best[: settings.search_expansion_matches]
        if fused[i].relevance >= floor
        and (fused[i].text >= EXPANSION_MIN_TEXT or z.get(i, -np.inf) >= EXPANSION_MIN_Z)
    ]
    if not strong:
        return []
    texts = seen.texts(strong)  # their words alone: no whole records to build
    candidates = feedback_words(
        [(texts[i].content, fused[i].relevance) for i in strong if i in texts],
        exclude=set(terms),
        most=EXPANSION_CANDIDATES,
    )
    if not candidates:
        return []
    found = ctx.store.term_counts([c.word for c in candidates], EXPANSION_COMMON_AT)
    words = expansion_terms(
        candidates,
        found.counts,
        found.total,
        settings.search_expansion_terms,
        common_at=EXPANSION_COMMON_AT,
    )
    if not words:
        return []
    # Shallow: only the index's best `limit` are scored again (not twice as many): the same
    # R@1 and MRR, R@10 within a question, at half the re-scoring (docs/search.md, 1c).
    return ctx.store.text_search(words, where, limit, shallow=True)


def context_credit(ctx: Context, fused: dict[str, Fused], seen: SearchReads) -> dict[str, float]:
    """Credit for the episode neighbours and related memories of the strongest matches;
    the vectors it reads are kept in `seen`."""
    settings = ctx.settings
    if settings.search_context_weight <= 0 or not fused:
        return {}
    top = sorted(fused, key=lambda i: (-fused[i].relevance, i))[:CONTEXT_SOURCES]
    sources = set(top)
    links: list[tuple[str, str, float]] = []
    if settings.search_context_radius > 0:
        pairs = ctx.store.episode_neighbours(top, settings.search_context_radius)
        links += episode_links(pairs, _pair_vectors(ctx, pairs, seen), CONTEXT_MIN_COSINE)
    for r in ctx.store.relations(top):
        if r.type == "distinct_from":
            continue  # a person said these two are not the same fact: no credit between them
        if r.from_id in sources:
            links.append((r.from_id, r.to_id, r.strength))
        if r.to_id in sources:
            links.append((r.to_id, r.from_id, r.strength))
    relevance = {i: f.relevance for i, f in fused.items()}
    credit = spread(relevance, links, settings.search_context_weight)
    if settings.search_context_radius > 0:
        for ident, value in reply_credit(ctx, top, relevance, seen).items():
            credit[ident] = max(value, credit.get(ident, 0.0))
    return credit


def reply_credit(
    ctx: Context, top: Sequence[str], relevance: dict[str, float], seen: SearchReads
) -> dict[str, float]:
    """Credit for the memory saved right after each turn asking for a reply among the strongest
    matches (`asks_for_a_reply`), in its episode: `ENGRAM_SEARCH_REPLY_WEIGHT` × its relevance.
    The reply answers it without its words: "how did the interview go?" then "i got it!! i
    start may 15th" (docs/search.md, section 2). A match that tells is asked about in turn: the
    answer to the question saved right after it is its reply too ("I got my
    wisdom teeth out", "How many did they take?", "All four. I'm living on smoothies" answers
    what Ethan ate after his surgery)."""
    weight = ctx.settings.search_reply_weight
    if weight <= 0 or not top:
        return {}
    texts = seen.texts(top)
    asking = {i for i in top if i in texts and asks_for_a_reply(texts[i].content)}
    in_episodes = [i for i in top if i in texts and texts[i].episode is not None]
    pairs = ctx.store.episode_next(in_episodes) if in_episodes else []
    links = [(turn, after, 1.0) for turn, after in pairs if turn in asking]
    following = {after: turn for turn, after in pairs if turn not in asking}
    said = seen.texts(list(following))
    asked = [i for i, text in said.items() if asks_for_a_reply(text.content)]
    answers = ctx.store.episode_next(asked) if asked else []
    links += [(following[q], reply, 1.0) for q, reply in answers]
    return spread(relevance, links, weight)


def _pair_vectors(
    ctx: Context, pairs: Sequence[tuple[str, str]], seen: SearchReads
) -> dict[str, NDArray[np.float32]]:
    """Whole-text vectors of the memories in `pairs` (read through `seen`: meaning near a
    match and diversity need some of them again); none where meaning is off."""
    if not pairs or ctx.embedder is None or ctx.semantic is None:
        return {}
    return seen.whole(i for pair in pairs for i in pair)


def near_meaning(z: float, best_z: float, weight: float) -> float:
    """The part of meaning of a memory judged from `NEAR_MIN_Z` up: `weight` × its z above
    that bar against the best match's (`best_z`), at most `weight`."""
    return weight * min(1.0, (z - NEAR_MIN_Z) / max(best_z - NEAR_MIN_Z, 1.0))


def meant_near_matches(
    ctx: Context,
    ids: Sequence[str],
    probes: Sequence[Probe],
    fused: dict[str, Fused],
    best_z: float,
    seen: SearchReads,
) -> dict[str, Fused]:
    """Of the memories context credit reaches (`ids`) that no meaning matched, those whose
    meaning stands from `NEAR_MIN_Z` up, for the query and for themselves (`meaning_matches`):
    their fused relevance (0 where nothing else matched them) plus `semantic weight × (z −
    NEAR_MIN_Z) / (best_z − NEAR_MIN_Z)`, at most the weight (`best_z`: the best match's)."""
    embedder = ctx.semantic
    wanted = [i for i in ids if i not in fused or fused[i].cosine is None]
    if not wanted or not probes or embedder is None:
        return {}
    rows = seen.rows(wanted)  # every row: a passage may be what matches
    found = meaning_matches(rows, probes, background(embedder), NEAR_MIN_Z)
    weight = ctx.settings.search_semantic_weight
    out: dict[str, Fused] = {}
    for ident, match in found.items():
        meaning = near_meaning(match.z, best_z, weight)
        had = fused.get(ident)
        if had is None:
            out[ident] = Fused(meaning, 0.0, match.cosine)
        else:
            out[ident] = Fused(had.relevance + meaning, had.text, match.cosine, had.expansion)
    return out
