"""Ranking: relevance first, decay second, review candidates blended in."""

from __future__ import annotations

import numpy as np
import pytest

from engram.core.meaning import Background, Calibration
from engram.core.ranking import (
    REVIEW_MIN_RELEVANCE,
    Candidate,
    diversify,
    episode_links,
    fuse_matches,
    interleave,
    moved_down,
    rank,
    spread,
    word_coverage,
)
from engram.core.text import leading_phrase, query_terms


def cand(ident: str, rel: float, score: float, prio: float = 0.0) -> Candidate:
    return Candidate(id=ident, relevance=rel, score=score, review_priority=prio)


def test_a_clearly_better_old_match_beats_a_weak_fresh_one() -> None:
    hits = rank([cand("old-exact", 10.0, 0.01), cand("fresh-weak", 5.0, 1.0)], 2, 0.3, 0.0)
    assert [h.id for h in hits] == ["old-exact", "fresh-weak"]


def test_much_use_lifts_a_match_no_more_than_full_strength_does() -> None:
    """Decay moves a result by at most the factor (1 − w): a score above 1 (a memory used
    often, or saved strong) counts as 1, so a weaker match used a lot does not pass a better
    one at full strength."""
    hits = rank([cand("exact", 10.0, 1.0), cand("used-a-lot", 8.0, 3.0)], 2, 0.3, 0.0)
    assert [h.id for h in hits] == ["exact", "used-a-lot"]
    assert hits[1].why.rank == pytest.approx(0.8)  # relevance 8/10, decay factor capped at 1


def test_decay_breaks_ties_between_equally_relevant_matches() -> None:
    hits = rank([cand("stale", 3.0, 0.1), cand("fresh", 3.0, 0.9)], 2, 0.3, 0.0)
    assert [h.id for h in hits] == ["fresh", "stale"]


def test_review_candidates_take_their_share_of_slots() -> None:
    matches = [cand(f"m{i}", 10.0 - i / 4, 1.0) for i in range(10)]
    reviews = [cand(f"r{i}", 7.5, 0.25, prio=0.9 - i / 10) for i in range(5)]
    hits = rank(matches + reviews, 10, 0.3, 0.3)
    assert [h.reason for h in hits].count("review") == 3
    assert [h.id for h in hits][:3] == ["m0", "m1", "r0"]


def test_review_slots_need_a_relevant_match_not_just_a_shared_word() -> None:
    matches = [cand(f"m{i}", 10.0 - i / 2, 1.0) for i in range(10)]
    weak = [cand(f"r{i}", 10.0 * REVIEW_MIN_RELEVANCE - 0.1, 0.25, prio=0.9) for i in range(3)]
    hits = rank(matches + weak, 10, 0.3, 0.3)
    assert all(h.reason == "match" for h in hits)


def test_a_replaced_fact_takes_no_review_slot() -> None:
    """A fact news superseded is nothing to keep alive: it stays a match, not a review."""
    matches = [cand(f"m{i}", 10.0 - i / 4, 1.0) for i in range(10)]
    replaced = [cand(f"r{i}", 7.5, 0.25, prio=0.9)._replace(superseded_by="news") for i in range(3)]
    hits = rank(matches + replaced, 10, 0.3, 0.3)
    assert all(h.reason == "match" for h in hits)
    assert [h.id for h in hits] == [f"m{i}" for i in range(10)]


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


def test_query_terms_drop_pronouns_and_the_user_an_assistant_asks_about() -> None:
    assert query_terms("what do we know about his kids") == ["know", "kids"]
    assert query_terms("food the user can't eat") == ["food", "can't", "eat"]
    assert query_terms("the user's favourite TV show") == ["favourite", "tv", "show"]
    assert query_terms("user") == ["user"]  # nothing else to search
    # "now" asks how things stand, it names nothing: "Where do I work now?" found "eats fish
    # now" and "physio is now every other week" by it (a probe)
    assert query_terms("Where do I work now?") == ["work"]


def test_a_possessive_is_searched_as_its_word() -> None:
    """ "wife's" is the phrase "wife s" to the index: "My wife is Maya" does not hold it."""
    assert query_terms("What's my wife's name?") == ["wife", "name"]
    assert query_terms("Kate’s hobbies") == ["kate", "hobbies"]  # a typographic apostrophe
    assert query_terms("it's") == ["it"]


def test_query_terms_drop_stopwords_unless_nothing_else() -> None:
    assert query_terms("What did I say about TypeScript?") == ["say", "typescript"]
    # "one" is "on" to the index's stemmer: it matched every memory saying "on"
    assert query_terms("the off-by-one error") == ["off", "error"]
    # quantifiers name nothing: "both" matched "both car seats?" for a question of a game
    assert query_terms("What game do Mike and Dana both play?") == ["game", "mike", "dana", "play"]
    assert query_terms("all my trips") == ["trips"]
    assert query_terms("what is it") == ["what", "is", "it"]
    assert query_terms("?!") == []


def test_calibration_turns_a_cosine_into_standard_deviations_above_unrelated_text() -> None:
    sentences = np.array([[0.0], [0.1], [0.2]], dtype=np.float32)  # cosines 0, 0.1, 0.2
    calibration = Background(sentences).calibration(np.array([1.0], dtype=np.float32))
    # The population standard deviation of 0, 0.1, 0.2: sqrt(0.02 / 3).
    assert calibration.mean == pytest.approx(0.1)
    assert calibration.spread == pytest.approx(0.0816497, rel=1e-5)
    assert calibration.z(0.3) == pytest.approx(0.2 / 0.0816497, rel=1e-5)  # z ≈ 2.45


def test_meaning_alone_matches_only_clearly_above_unrelated_text() -> None:
    calibration = Calibration(mean=0.1, spread=0.05)  # cosine 0.2 is z = 2
    fused = fuse_matches({}, {"close": 0.4, "edge": 0.19, "far": 0.15}, calibration, 0.5, 2.0)
    assert set(fused) == {"close"}
    assert fused["close"].relevance == pytest.approx(0.5)  # the best meaning match scores 1


def test_a_best_meaning_match_barely_above_the_floor_counts_in_part() -> None:
    calibration = Calibration(mean=0.1, spread=0.05)  # cosine 0.2 is z = 2
    # z 2.5: half a span above the floor, beside a text match that holds half the query
    fused = fuse_matches({"worded": 3.0}, {"meant": 0.225}, calibration, 0.4, 2.0, text_scale=0.5)
    assert fused["meant"].relevance == pytest.approx(0.4 * 0.5)
    assert fused["worded"].relevance == pytest.approx(0.6 * 0.5)
    # far above it, the best meaning match counts in full
    fused = fuse_matches({}, {"meant": 0.4, "less": 0.3}, calibration, 0.4, 2.0)
    assert fused["meant"].relevance == pytest.approx(0.4)
    assert fused["less"].relevance == pytest.approx(0.4 * 2 / 4)


def test_without_calibration_text_alone_decides() -> None:
    fused = fuse_matches({"a": 4.0, "b": 2.0}, {"a": 0.9, "c": 0.9}, None, 0.5, 2.0)
    assert {k: f.relevance for k, f in fused.items()} == {"a": 1.0, "b": 0.5}


def test_spread_credits_neighbours_by_their_strongest_linked_match() -> None:
    relevance = {"match": 1.0, "weak": 0.2}
    links = [("match", "next", 1.0), ("weak", "next", 1.0), ("match", "related", 0.5)]
    credit = spread(relevance, links, 0.3)
    assert credit == pytest.approx({"next": 0.3, "related": 0.15})


def test_episode_links_join_only_neighbours_alike_in_meaning() -> None:
    vectors = {"q": unit(1, 0), "a": unit(1, 1), "far": unit(0, 1)}
    pairs = [("q", "a"), ("q", "far"), ("q", "pending"), ("pending", "far")]
    links = episode_links(pairs, vectors, 0.5)
    # cos(q, a) 0.71 passes, cos(q, far) 0 does not; without a vector nothing tells: kept
    assert links == [("q", "a", 1.0), ("q", "pending", 1.0), ("pending", "far", 1.0)]
    assert episode_links(pairs, {}, 0.5) == [(a, b, 1.0) for a, b in pairs]


def test_spread_passes_no_credit_on_from_credit_and_only_along_links() -> None:
    credit = spread({"a": 1.0}, [("a", "b", 1.0), ("b", "c", 1.0)], 0.3)
    assert set(credit) == {"b"}  # c is linked to b, whose relevance is only credit
    assert spread({"a": 1.0}, [("a", "b", 1.0)], 0.0) == {}


def unit(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_diversify_takes_other_evidence_before_a_paraphrase_of_a_taken_result() -> None:
    vectors = {"a": unit(1, 0), "a2": unit(1, 0.6), "b": unit(0, 1)}
    values = {"a": 1.0, "a2": 0.9, "b": 0.6}
    assert diversify(["a", "a2", "b"], values, vectors, 0.0, 10) == ["a", "a2", "b"]
    assert diversify(["a", "a2", "b"], values, vectors, 0.5, 10) == ["a", "b", "a2"]


def test_a_hit_diversity_moved_down_says_how_alike_it_is_to_one_above() -> None:
    """ "I moved to Lisbon" listed below an unrelated hit of lower rank, for being like "I
    live in Berlin" above it, says so: a reader saw the order contradict the ranks."""
    vectors = {"berlin": unit(1, 0), "lisbon": unit(1, 0.6), "dog": unit(0, 1)}
    found = [cand("berlin", 1.0, 1.0), cand("lisbon", 0.9, 1.0), cand("dog", 0.6, 1.0)]
    hits = rank(found, 3, 0.0, 0.0, diversity=0.5, vectors=vectors)
    assert [h.id for h in hits] == ["berlin", "dog", "lisbon"]
    assert [h.why.alike for h in hits] == [None, None, pytest.approx(float(unit(1, 0.6)[0]))]
    assert all(h.why.alike is None for h in rank(found, 3, 0.0, 0.0, vectors=vectors))
    # moved down a little for a little likeness (0.45 here): a nudge between near-equal ranks,
    # nothing the reader needs told
    faint = {"a": unit(1, 0, 0), "b": unit(0.45, 0, 0.893), "c": unit(0, 1, 0)}
    close = [cand("a", 1.0, 1.0), cand("b", 0.99, 1.0), cand("c", 0.98, 1.0)]
    nudged = rank(close, 3, 0.0, 0.0, diversity=0.5, vectors=faint)
    assert [h.id for h in nudged][-1] == "b" and all(h.why.alike is None for h in nudged)


def test_near_copies_go_last_and_items_without_vectors_are_never_penalised() -> None:
    vectors = {"a": unit(1, 0), "copy": unit(1, 0.01), "b": unit(0.6, 1)}
    values = {"a": 1.0, "copy": 0.99, "b": 0.1, "novec": 0.05}
    order = diversify(["a", "copy", "b", "novec"], values, vectors, 0.01, 10)
    assert order == ["a", "b", "novec", "copy"]
    assert diversify(["a", "copy", "tail"], values | {"tail": 0}, vectors, 0.5, 2)[-1] == "tail"
    # near-copies by meaning that say different things are no copies ("to Tokyo on June 12",
    # "from Tokyo on June 26"): only the cosine penalty moves them
    asked: list[tuple[str, str]] = []

    def distinct(item: str, taken: str) -> bool:
        asked.append((item, taken))
        return True

    order = diversify(["a", "copy", "b", "novec"], values, vectors, 0.01, 10, distinct)
    assert order == ["a", "copy", "b", "novec"] and asked == [("copy", "a")]


def test_leading_phrase_is_the_first_words_in_lower_case() -> None:
    assert leading_phrase("Prefers TEA, over coffee!") == "prefers tea over coffee"
    assert leading_phrase("one two three", most=2) == "one two"
    assert leading_phrase("?!") == ""


def test_review_slots_reach_only_just_below_the_list() -> None:
    """A fading memory ranked far down (here 25th of 30) is not pulled into the top 10."""
    matches = [cand(f"m{i}", 10.0 - i / 20, 1.0) for i in range(24)]
    deep = cand("r", 8.0, 0.25, prio=0.9)
    hits = rank([*matches, deep], 10, 0.3, 0.3)
    assert all(h.reason == "match" for h in hits)


def test_the_forms_of_one_word_score_as_one_word() -> None:
    """Columns 0 and 2 are "buy" and "bought": a memory holding each once scores as one holding
    either twice, at the commoner form's idf (1, not 2), not as two words."""
    from engram.core.ranking import bm25_scores

    idf = [2.0, 3.0, 1.0]
    tf = np.array([[1.0, 0.0, 1.0], [2.0, 0.0, 0.0], [0.0, 1.0, 1.0]])
    grouped = bm25_scores(idf, tf, [[0, 2]])
    assert grouped[0] == pytest.approx(bm25_scores([1.0], np.array([[2.0]]))[0])
    assert grouped[0] == pytest.approx(grouped[1])  # each form once: one form twice
    assert grouped[2] == pytest.approx(bm25_scores([3.0, 1.0], np.array([[1.0, 1.0]]))[0])
    assert bm25_scores(idf, tf)[0] > grouped[0]  # counted as two words


def test_news_of_a_better_match_is_as_relevant_as_it_and_the_latest_leads() -> None:
    """As of now: "moved to Lisbon" (later, like "lives in Berlin") takes Berlin's relevance
    and, saved later, ranks above it; a later match about something else keeps its own."""
    from engram.core.ranking import SUCCESSOR_COSINE, as_of_now

    berlin, lisbon, other = np.eye(3, dtype=np.float32)
    lisbon = (berlin + lisbon) / np.linalg.norm(berlin + lisbon)  # cosine 0.71 with berlin
    assert float(berlin @ lisbon) >= SUCCESSOR_COSINE
    relevance = {"berlin": 1.0, "lisbon": 0.3, "oat milk": 0.2}
    saved = {"berlin": 0.0, "lisbon": 50.0, "oat milk": 100.0}
    vectors = {"berlin": berlin, "lisbon": lisbon, "oat milk": other}
    now = as_of_now(relevance, saved, vectors, weight=0.5)
    assert now["berlin"] == pytest.approx(1.0)  # the first saved: not lifted
    assert now["lisbon"] == pytest.approx(1.0 * 1.25)  # Berlin's relevance, half the lift
    assert now["oat milk"] == pytest.approx(0.2 * 1.5)  # its own relevance, all the lift
    same_time = as_of_now(relevance, dict.fromkeys(saved, 7.0), vectors, 0.5)
    assert same_time == relevance  # neither is news of the other, none is later
    unlike = as_of_now(relevance, saved, {"berlin": berlin, "lisbon": other}, weight=0.5)
    assert unlike["lisbon"] == pytest.approx(0.3 * 1.25)


def test_news_must_answer_the_query_nearly_as_well_as_what_it_replaces() -> None:
    """ "Sister Clara went vegetarian" resembles "User has been vegetarian since 2019" as much as
    true news does, but answers "is the user still vegetarian?" far worse (0.51 against 0.88)."""
    from engram.core.ranking import SUCCESSOR_MEANING, as_of_now

    user, sister = np.eye(2, dtype=np.float32)
    sister = (user + sister) / np.linalg.norm(user + sister)
    relevance, saved = {"user": 1.0, "sister": 0.6}, {"user": 0.0, "sister": 10.0}
    vectors = {"user": user, "sister": sister}
    weak = as_of_now(relevance, saved, vectors, 0.2, meaning={"user": 0.88, "sister": 0.51})
    assert weak["sister"] == pytest.approx(0.6 * 1.2) and weak["sister"] < weak["user"]
    close = 0.88 * SUCCESSOR_MEANING
    strong = as_of_now(relevance, saved, vectors, 0.2, meaning={"user": 0.88, "sister": close})
    assert strong["sister"] == pytest.approx(1.0 * 1.2)  # news: the fact's relevance, lifted
    unmatched = as_of_now(relevance, saved, vectors, 0.2, meaning={"user": 0.88})
    assert unmatched["sister"] == pytest.approx(0.6 * 1.2)  # not a match by meaning at all


def test_news_must_stand_out_from_the_matches_alike_to_what_it_replaces() -> None:
    """Memories about one person resemble each other by the name alone, and each answered
    "Where does Maya work these days?" nearly as well as her job did (0.575 against 0.678):
    the latest of them, her diet, was listed first. News must stand out from those others."""
    from engram.core.ranking import SUCCESSOR_LEAD, as_of_now

    base = np.full(4, 0.5, dtype=np.float32)
    ids = ["job", "kids", "dentist", "vegan"]
    vectors = {}
    for n, i in enumerate(ids):  # all alike to each other (0.5 cosine: the name)
        v = base.copy()
        v[n] += 0.5
        vectors[i] = v / np.linalg.norm(v)
    relevance = {"job": 1.0, "kids": 0.3, "dentist": 0.3, "vegan": 0.3}
    saved = {"job": 0.0, "kids": 1.0, "dentist": 2.0, "vegan": 3.0}
    meaning = {"job": 0.678, "kids": 0.545, "dentist": 0.567, "vegan": 0.575}
    now = as_of_now(relevance, saved, vectors, 0.2, meaning=meaning)
    assert max(now, key=lambda i: now[i]) == "job" and now["vegan"] == pytest.approx(0.3 * 1.2)
    # as far above the others as half the job's lead: news, as relevant as the job
    crowd = 0.556  # the median of kids and dentist
    meaning["vegan"] = crowd + SUCCESSOR_LEAD * (0.678 - crowd) + 0.001
    lifted = as_of_now(relevance, saved, vectors, 0.2, meaning=meaning)
    assert lifted["vegan"] == pytest.approx(1.0 * 1.2)


def test_facts_replaced_and_known_news_take_no_relevance_by_resemblance() -> None:
    """A replaced fact (its news known) neither takes nor passes on relevance by resemblance,
    and news known to be of another memory takes none: "Maya's manager is Sam" (replaced)
    and "Maya now lives in Denver" (news of her move) each took her old job's relevance for
    "Where does Maya work these days?" and came first (a probe)."""
    from engram.core.ranking import as_of_now

    job, manager = np.eye(2, dtype=np.float32)
    manager = (job + manager) / np.linalg.norm(job + manager)
    relevance, saved = {"job": 1.0, "manager": 0.3}, {"job": 0.0, "manager": 10.0}
    vectors = {"job": job, "manager": manager}
    assert as_of_now(relevance, saved, vectors, 0.0)["manager"] == pytest.approx(1.0)
    for kept_out in ({"superseded": {"manager"}}, {"news": {"manager"}}):
        assert as_of_now(relevance, saved, vectors, 0.0, **kept_out)["manager"] == 0.3
    replaced = as_of_now(relevance, saved, vectors, 0.0, superseded={"job"})
    assert replaced["manager"] == 0.3  # nor does a replaced fact pass its relevance on


def test_how_alike_a_moved_hit_is_is_worked_out_only_for_the_hits_shown() -> None:
    """A search lists a third of the items it diversifies: the likeness of the others to those
    above them is not computed (a product with every item above each)."""
    vectors = {"a": unit(1, 0), "a2": unit(1, 0.6), "b": unit(0, 1), "a3": unit(1, 0.7)}
    values = {"a": 1.0, "b": 0.6, "a2": 0.9, "a3": 0.8}
    every = moved_down(["a", "b", "a2", "a3"], values, vectors)
    assert set(every) == {"a2", "a3"}
    assert moved_down(["a", "b", "a2", "a3"], values, vectors, {"a", "b", "a2"}) == {
        "a2": every["a2"]
    }


def test_word_coverage_is_the_share_of_the_query_word_weight_a_text_holds() -> None:
    # the rare words weigh most: holding the common name and "up" is a tenth of the question
    idf = [0.5, 4.0, 4.5, 0.5, 0.5]
    assert word_coverage(idf, [True, False, False, True, False]) == pytest.approx(0.1)
    assert word_coverage(idf, [True, True, True, True, True]) == pytest.approx(1.0)
    assert word_coverage(idf, [False] * 5) == 0.0
    assert word_coverage([], []) == 1.0  # a query of no weight is covered by anything
