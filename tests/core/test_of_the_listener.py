"""Which turns of a transcript tell only of their listener (`engram.core.text.of_the_listener`):
search lowers them, as what they tell is not their speaker's."""

from __future__ import annotations

import pytest

from engram.core.text import of_the_listener


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("Emi: you should sell your prints", True),
        ("Emi: how’s ur knee", True),
        ("Emi: you should come to the class with me", False),  # of the speaker too
        ("Emi: im selling mugs, you should come", False),  # texting's "im"
        ("Emi: the market is on sunday", False),  # of neither
        ("Assistant: you could try a foam roller", False),  # what the assistant said
        ("You prefer dark mode", False),  # a note without a speaker
    ],
)
def test_a_turn_of_the_listener_speaks_of_them_and_not_of_its_speaker(
    content: str, expected: bool
) -> None:
    assert of_the_listener(content) is expected
