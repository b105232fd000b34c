"""The rule that reads a misspelled query word as a word the store holds."""

from __future__ import annotations

from engram.core.spelling import edits_allowed, nearest_spellings, respellable


def test_one_edit_in_a_short_word_two_in_a_long_one_and_a_swap_is_one() -> None:
    assert (edits_allowed("kafak"), edits_allowed("postgress")) == (1, 2)
    assert nearest_spellings("kafak", ["kafka", "kale", "kaftan"]) == ["kafka"]  # a swap
    assert nearest_spellings("postgress", ["postgresql", "postal"]) == ["postgresql"]
    assert nearest_spellings("marathn", ["marathon", "marsh"]) == ["marathon"]
    assert nearest_spellings("grandkid", ["grandson", "grandfath"]) == []  # three edits


def test_the_nearest_are_kept_and_a_word_the_store_holds_is_read_as_itself() -> None:
    assert nearest_spellings("cello", ["cell", "cellos", "hello", "cello"]) == []
    assert nearest_spellings("colbret", ["colbert", "colbrat", "col"]) == ["colbert", "colbrat"]
    assert nearest_spellings("rotterdm", ["rotterdam", "rotterd"]) == ["rotterd", "rotterdam"]


def test_short_words_and_non_words_are_not_respelled() -> None:
    # "redis" is "redi" to the index: "red" is one edit from it, and no typo of it
    assert nearest_spellings("redi", ["red"]) == []
    assert nearest_spellings("cat", ["cart"]) == []
    assert not respellable("cat") and not respellable("v2.0") and respellable("kafak")
