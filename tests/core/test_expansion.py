"""Query expansion: which words of the best matches are searched again, and what they add."""

from __future__ import annotations

import math

import pytest

from engram.core.expansion import FeedbackWord, expansion_terms, feedback_words
from engram.core.ranking import fuse_matches


def test_each_match_shares_out_its_weight_over_its_words() -> None:
    found = feedback_words(
        [("Cello cello orchestra", 0.9), ("Orchestra tickets", 0.3)], exclude=(), most=10
    )
    assert {w.word: w.weight for w in found} == pytest.approx(
        {"cello": 0.6, "orchestra": 0.3 + 0.15, "tickets": 0.15}  # 0.9 / 3 per word said
    )
    assert {w.word: w.matches for w in found} == {"cello": 1, "orchestra": 2, "tickets": 1}


def test_query_words_function_words_fillers_and_short_words_are_not_candidates() -> None:
    """Fillers of speech ("yes", "actually", "now") are rare in a small store, so expansion
    chose them and found anything said in passing (audit)."""
    found = feedback_words(
        [("Kate: yes, she actually plays the cello in an orchestra now, ok?", 1.0)],
        exclude={"kate"},
        most=10,
    )
    assert [w.word for w in found] == ["cello", "orchestra", "plays"]  # ties: by name


def test_function_words_the_query_keeps_are_no_candidates() -> None:
    """A small store finds "every" rare: it led expansion from "I prefer dark mode in every
    editor" to "Standup is at 9:30 every weekday" (audit)."""
    found = feedback_words(
        [("I prefer dark mode in every editor, not only in some of them", 1.0)], (), most=10
    )
    assert [w.word for w in found] == ["dark", "editor", "mode", "prefer"]


def test_only_the_weightiest_candidates_are_kept_and_weightless_matches_add_nothing() -> None:
    found = feedback_words([("alpha alpha alpha beta", 1.0), ("gamma delta", 0.0)], (), most=1)
    assert found == [FeedbackWord("alpha", 0.75, 1)]


def word(name: str, weight: float, matches: int = 1) -> FeedbackWord:
    return FeedbackWord(name, weight, matches)


def test_rare_words_win_over_common_ones_of_the_same_weight() -> None:
    candidates = [word("kate", 0.5), word("orchestra", 0.3), word("cello", 0.3)]
    counts = {"kate": 900, "orchestra": 3, "cello": 2}
    assert expansion_terms(candidates, counts, 1000, 2, common_at=1000) == ["cello", "orchestra"]
    # weight still matters: a word weighing far more beats a somewhat rarer one
    found = expansion_terms([word("a1", 1.0), word("b1", 0.1)], {"a1": 20, "b1": 5}, 1000, 1, 100)
    assert found == ["a1"]


def test_a_word_found_only_in_the_matches_it_came_from_leads_nowhere() -> None:
    """Searching it would lift those matches by their own words, nothing new."""
    candidates = [word("pots", 1.0, matches=1), word("beds", 0.1, matches=3)]
    assert expansion_terms(candidates, {"pots": 1, "beds": 4}, 100, 5, 100) == ["beds"]
    assert expansion_terms(candidates, {"pots": 2, "beds": 3}, 100, 5, 100) == ["pots"]


def test_a_word_counted_at_the_common_mark_is_never_searched() -> None:
    candidates = [word("everywhere", 5.0), word("cello", 0.1)]
    counts = {"everywhere": 200, "cello": 2}
    assert expansion_terms(candidates, counts, 10_000, 2, common_at=200) == ["cello"]
    assert expansion_terms(candidates, counts, 10_000, 2, common_at=201) == ["everywhere", "cello"]


def test_a_word_the_index_does_not_know_is_never_searched() -> None:
    candidates = [word("zzz", 1.0, matches=0), word("cello", 0.1)]
    assert expansion_terms(candidates, {"zzz": 0, "cello": 2}, 10, 5, 100) == ["cello"]


def test_expansion_matches_add_a_bounded_share_of_text_relevance() -> None:
    lexical = {"named": 4.0, "other": 2.0}
    expanded = {"answer": 6.0, "other": 3.0}
    plain = fuse_matches(lexical, {}, None, 0.4, 2.0)
    fused = fuse_matches(lexical, {}, None, 0.4, 2.0, expanded, 0.6)
    assert "answer" not in plain
    # the memory found only by the expansion words: its share, normalised by the best item
    best = 1.0  # "named": 4/4 + nothing; "other": 0.5 + 0.6 * 0.5 = 0.8; "answer": 0.6
    assert fused["answer"].relevance == pytest.approx(0.6 / best)
    assert fused["answer"].text == 0.0 and fused["answer"].expansion == pytest.approx(0.6)
    assert fused["other"].text == pytest.approx(0.5)  # `why.text` stays the query's own
    assert fused["other"].relevance == pytest.approx(0.8)
    assert fused["named"].relevance == pytest.approx(1.0)
    # off: exactly the plain fusion
    assert fuse_matches(lexical, {}, None, 0.4, 2.0, expanded, 0.0) == plain


def test_idf_is_the_smoothed_log_ratio() -> None:
    """weight × log(1 + N / (1 + count)): two words whose weights just fail, then just manage,
    to offset the difference in their idf."""
    idf_rare = math.log(1 + 100 / (1 + 2))
    idf_common = math.log(1 + 100 / (1 + 50))
    enough = idf_rare / idf_common
    counts = {"rare": 2, "common": 50}
    short = [word("rare", 1.0), word("common", enough * 0.999)]
    assert expansion_terms(short, counts, 100, 1, 100) == ["rare"]
    over = [word("rare", 1.0), word("common", enough * 1.001)]
    assert expansion_terms(over, counts, 100, 1, 100) == ["common"]


def test_expansion_alone_never_counts_as_a_full_text_match() -> None:
    """No memory shares a word with the query: what the expansion words find gets at most the
    expansion weight of text relevance, not a normalised 1."""
    fused = fuse_matches({}, {}, None, 0.4, 2.0, {"a": 5.0, "b": 2.5}, 0.6)
    assert fused["a"].relevance == pytest.approx(0.6)
    assert fused["b"].relevance == pytest.approx(0.3)


def test_numbers_and_words_in_most_of_the_store_are_no_expansion() -> None:
    """A value is no topic ("item 107" led to every item 107), and a word in more than half
    of a small store finds nothing in particular (a probe's 60 memories each said "probe
    record … garden inventory"): searched, each lifted every memory."""
    from engram.core.expansion import COMMON_SHARE, expansion_terms, feedback_words

    found = feedback_words(
        [("Probe record about item 107 of the garden inventory", 1.0)], {"x"}, 10
    )
    assert "107" not in [w.word for w in found] and "garden" in [w.word for w in found]
    every = [w for w in found if w.word in ("garden", "inventory")]
    counts = {"garden": 60, "inventory": 20}
    assert expansion_terms(every, counts, 60, 5, common_at=100) == ["inventory"]
    assert counts["inventory"] <= COMMON_SHARE * 60 < counts["garden"]
