"""How a memory's text divides into the passages embedded besides its whole text."""

from __future__ import annotations

import itertools

from engram.core.text import MAX_PASSAGES, WINDOW_PIECES, passages, statements


def test_a_single_statement_has_no_passages() -> None:
    assert passages("Prefers tea over coffee.") == []
    assert passages("Kevin: I love hiking in the hills.") == []


def test_each_sentence_of_three_words_or_more_is_a_passage() -> None:
    text = "We moved the launch. Ok. The demo is on Friday at noon!\nBring the slides too"
    assert passages(text) == [
        "We moved the launch.",
        "The demo is on Friday at noon!",
        "Bring the slides too",
    ]


def test_a_short_label_is_kept_on_every_passage() -> None:
    text = "Kevin: The weather was awful this week. I joined a basketball league on Tuesdays."
    assert passages(text) == [
        "Kevin: The weather was awful this week.",
        "Kevin: I joined a basketball league on Tuesdays.",
    ]


def test_a_colon_inside_a_sentence_is_not_a_label() -> None:
    text = "The plan we agreed on last week: ship it. Then measure how people use the export."
    assert passages(text)[0].startswith("The plan we agreed on last week: ship it.")


def test_a_long_memory_gives_at_most_sixteen_passages() -> None:
    text = " ".join(f"Fact number {i} is here." for i in range(40))
    found = passages(text)
    assert len(found) == MAX_PASSAGES
    assert found[0] == "Fact number 0 is here."


def test_statements_are_sentences_and_lines() -> None:
    assert statements("One. Two!  Three?\nfour\n\n") == ["One.", "Two!", "Three?", "four"]


def test_a_statement_longer_than_the_model_reads_is_cut_into_overlapping_windows() -> None:
    """The model reads 256 word pieces: a 300-word paragraph joined by semicolons had one
    vector, and a clause at its end (a peanut allergy) was never found by meaning."""
    text = "; ".join(f"clause {i} about topic number {i}" for i in range(60))
    text += "; she is allergic to peanuts"
    windows = passages(text)
    assert len(windows) == 4 and windows[0].startswith("clause 0 ")
    assert windows[-1].endswith("allergic to peanuts")
    assert all(len(w.split()) <= 120 for w in windows)
    for before, after in itertools.pairwise(windows):
        assert after.split()[0] in before.split()  # each starts inside the one before


def test_dense_words_make_shorter_windows_when_the_pieces_are_counted() -> None:
    """German, Polish or Turkish take 3-4 word pieces a word: a statement of 108 words was
    335 pieces, one passage, and the model never read its last third (audit). Counted by
    the embedder's pieces (here: four a word), each window holds about WINDOW_PIECES."""
    text = "; ".join(f"Erdnussallergie Notfallset Nummer {i}" for i in range(27))

    def four_a_word(piece: str) -> int:
        return 4 * len(piece.split())

    assert len(text.split()) == 108 and passages(text) == []  # by words, one passage
    windows = passages(text, four_a_word)
    assert len(windows) >= 3 and windows[-1].endswith("Nummer 26")
    assert all(four_a_word(w) <= WINDOW_PIECES for w in windows)
    for before, after in itertools.pairwise(windows):
        assert after.split()[0] in before.split()  # each starts inside the one before
    # Sparse enough, or short: the same as by words.
    assert passages(text, lambda piece: len(piece.split())) == passages(text) == []
    assert passages("A short statement. And another one here.", four_a_word) == [
        "A short statement.",
        "And another one here.",
    ]


def test_chinese_and_japanese_sentences_end_without_a_space() -> None:
    assert statements("我喜欢吃饭。你呢？好的！") == ["我喜欢吃饭。", "你呢？", "好的！"]
