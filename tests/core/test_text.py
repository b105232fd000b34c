"""How a memory's text divides into the passages embedded besides its whole text."""

from __future__ import annotations

import itertools

import pytest

from engram.core.text import (
    MAX_PASSAGES,
    WINDOW_PIECES,
    passages,
    speaker_label,
    statements,
    unlabelled,
    without_kind_label,
    without_topic_label,
)


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


@pytest.mark.parametrize(
    ("line", "label", "said"),
    [
        ("[2024-05-01 14:00] User: I ran the 10K", "User", "I ran the 10K"),
        ("(1:56 pm on 8 May, 2023) Caroline: Hey Mel!", "Caroline", "Hey Mel!"),
        ("2024-05-01 14:00 | Assistant: Sure", "Assistant", "Sure"),
        ("2024-05-01T14:00:00 - Fahim Khan: ok", "Fahim Khan", "ok"),
        ("09:41 Emi: hi there", "Emi", "hi there"),
        ("[Session 3] Kevin: I like tea.", "Kevin", "I like tea."),
        ("User (2024-05-01): my knee hurts", "User", "my knee hurts"),
        ("Caroline [10:02 PM]: yo", "Caroline", "yo"),
        ("Kevin: no lead-in", "Kevin", "no lead-in"),
        ("**User**: my knee hurts", "User", "my knee hurts"),  # markdown
        ("> Kevin: quoted", "Kevin", "quoted"),
        ("Caroline said: Hey Mel!", "Caroline", "Hey Mel!"),  # a turn told
        ("[2024-05-01 14:00] **Assistant** replied: Sure", "Assistant", "Sure"),
    ],
)
def test_a_label_is_read_behind_the_time_a_transcript_opens_with(
    line: str, label: str, said: str
) -> None:
    """Logged chats open with when a line was said: "[2024-05-01 14:00] User: …" had no label
    ("[2024-05-01 14" ends at the first colon, which no space follows), so a chat with an
    assistant saved so was searched as notes of no speaker. Marks around the label and the
    verb of a turn told are no part of the speaker's name ("**User**" was no user)."""
    assert speaker_label(line) == label
    assert unlabelled(line) == said


@pytest.mark.parametrize(
    "line",
    ["Meeting at 14:00: Bob brings the slides", "10:30: standup moved", "Ratio 3:2 is fine"],
)
def test_a_time_is_no_label(line: str) -> None:
    assert speaker_label(line) == ""
    assert unlabelled(line) == line


def test_marks_alone_are_no_label() -> None:
    assert speaker_label("***: not a speaker") == ""
    assert unlabelled("***: not a speaker") == "***: not a speaker"


def test_a_notes_kind_is_read_behind_a_date_too() -> None:
    assert without_kind_label("[2024-05-01] TODO: renew the passport").strip() == (
        "renew the passport"
    )
    assert without_kind_label("2024-05-01 Decision: RQ").strip() == "RQ"


def test_a_label_of_what_a_note_is_about_is_read_as_its_topic() -> None:
    """Several words not all capitalised name no speaker: the note's topic, as a tag would."""
    assert without_topic_label("Thesis topic: RNA-seq of fin regeneration") == (
        "RNA-seq of fin regeneration"
    )
    assert without_topic_label("TODO: renew the passport").strip() == "renew the passport"
    for said in ("Fahim Khan: my thesis is done", "Kate: thesis topic chosen", "no label here"):
        assert without_topic_label(said) == said  # a speaker's name, or no label


def test_passages_carry_the_label_without_the_time() -> None:
    text = "[2024-05-01 14:00] User: I ran the 10K today. It was great fun for me."
    assert passages(text) == ["User: I ran the 10K today.", "User: It was great fun for me."]


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
