"""What a review note says two alike memories disagree on."""

from __future__ import annotations

from engram.core.merge import disagreement


def test_a_number_in_words_or_in_digits_and_a_time_with_its_am_are_one() -> None:
    """A probe's notes: "they hold different numbers" of "3-year-old" and "three years old",
    and "one says '30am' where another says '30'" of "9:30am" and "9:30 am"."""
    assert disagreement(["My son Leo is a 3-year-old.", "My son Leo is three years old."]) is None
    assert disagreement(["Standup is at 9:30am.", "Standup is at 9:30 am."]) is None
    assert disagreement(["Standup is at 9:30am every weekday.", "Daily standup at 9:30 am."]) == (
        "one says 'weekday' where another says 'daily'"
    )
    assert disagreement(["I have two cats", "I have three cats"]) == "they hold different numbers"
    assert (
        disagreement(["Meet at 8 a.m.", "Meet at 8 p.m."])
        == "one says 'a.m' where another says 'p.m'"
    )
