"""Ranking: relevance first, decay second, review candidates blended in."""

from __future__ import annotations

from engram.core.ranking import Candidate, interleave, rank
from engram.core.text import query_terms


def cand(ident: str, rel: float, score: float, prio: float = 0.0) -> Candidate:
    return Candidate(id=ident, relevance=rel, score=score, review_priority=prio)


def test_a_clearly_better_old_match_beats_a_weak_fresh_one() -> None:
    hits = rank([cand("old-exact", 10.0, 0.01), cand("fresh-weak", 5.0, 1.0)], 2, 0.3, 0.0)
    assert [h.id for h in hits] == ["old-exact", "fresh-weak"]


def test_decay_breaks_ties_between_equally_relevant_matches() -> None:
    hits = rank([cand("stale", 3.0, 0.1), cand("fresh", 3.0, 0.9)], 2, 0.3, 0.0)
    assert [h.id for h in hits] == ["fresh", "stale"]


def test_review_candidates_take_their_share_of_slots() -> None:
    matches = [cand(f"m{i}", 10.0 - i, 1.0) for i in range(10)]
    reviews = [cand(f"r{i}", 0.5, 0.25, prio=0.9 - i / 10) for i in range(5)]
    hits = rank(matches + reviews, 10, 0.3, 0.3)
    assert [h.reason for h in hits].count("review") == 3
    assert [h.id for h in hits][:3] == ["m0", "m1", "r0"]


def test_unused_review_slots_go_back_to_matches() -> None:
    hits = rank([cand(f"m{i}", 10.0 - i, 1.0) for i in range(12)], 10, 0.3, 0.3)
    assert len(hits) == 10 and all(h.reason == "match" for h in hits)


def test_why_explains_the_rank() -> None:
    (hit,) = rank([cand("a", 4.0, 0.5, 0.2)], 1, 0.3, 0.0)
    assert hit.why.text == 1.0 and hit.why.decay == 0.5 and hit.why.review == 0.2
    assert hit.why.rank == 1.0 * (0.7 + 0.3 * 0.5)


def test_interleave_pattern() -> None:
    ps = rank([cand(f"p{i}", 9 - i, 1.0) for i in range(4)], 4, 0.0, 0.0)
    rs = rank([cand(f"r{i}", 1, 1.0) for i in range(2)], 2, 0.0, 0.0)
    assert [h.id for h in interleave(ps, rs, 0.3)] == ["p0", "p1", "r0", "p2", "p3", "r1"]


def test_query_terms_drop_stopwords_unless_nothing_else() -> None:
    assert query_terms("What did I say about TypeScript?") == ["say", "typescript"]
    assert query_terms("what is it") == ["what", "is", "it"]
    assert query_terms("?!") == []
