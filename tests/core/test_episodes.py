"""Implicit episodes (`engram.core.episodes`): memories saved without an episode, within the
gap of each other, share one named after the first of them."""

from __future__ import annotations

import pytest

from engram.core.episodes import IMPLICIT_PREFIX, a_turn, implicit, saved_together

MINUTE = 60.0


def test_memories_saved_within_the_gap_of_the_last_share_the_first_ones_episode() -> None:
    saved = [("a", 0.0, None), ("b", 20 * MINUTE, None), ("c", 45 * MINUTE, None)]
    assert saved_together(saved, None, 30 * MINUTE) == ["auto:a", "auto:a", "auto:a"]


def test_a_longer_pause_starts_another_episode() -> None:
    saved = [("a", 0.0, None), ("b", 31 * MINUTE, None), ("c", 32 * MINUTE, None)]
    assert saved_together(saved, None, 30 * MINUTE) == ["auto:a", "auto:b", "auto:b"]


def test_a_given_episode_is_kept_and_does_not_break_the_chain() -> None:
    """Another client's conversation saved meanwhile is not this one's."""
    saved = [("a", 0.0, None), ("b", MINUTE, "chat-7"), ("c", 2 * MINUTE, None)]
    assert saved_together(saved, None, 30 * MINUTE) == ["auto:a", "chat-7", "auto:a"]


def test_the_first_joins_the_episode_saved_before_it_within_the_gap() -> None:
    before = (100.0, "auto:x")
    assert saved_together([("a", 100.0, None)], before, 30 * MINUTE) == ["auto:x"]
    assert saved_together([("a", 100.0 + 31 * MINUTE, None)], before, 30 * MINUTE) == ["auto:a"]


def test_only_engrams_own_names_are_implicit() -> None:
    assert implicit(IMPLICIT_PREFIX + "a1b2") and not implicit("chat-1") and not implicit(None)


@pytest.mark.parametrize(
    ("content", "turn"),
    [
        ("Lena: i got it!! i start on may 15th", True),
        ("Fahim Khan: I love Elgar", True),
        ("User: my knee hurts", True),
        ("assistant: Try icing it", True),
        ("Speaker 2: hello", True),
        ("elise: I'm just getting ready to go out", True),  # a name as typed
        ("Allergic to peanuts: never suggest recipes", False),  # a note's topic
        ("My sister: visiting in January", False),
        ("TODO: renew the passport", False),  # a note's kind, not a speaker
        ("Decision: PostgreSQL 16 for Atlas", False),
        ("Remember: Sofia is allergic to eggs", False),  # its weight, as activation.md asks
        ("Important: Marco is allergic to shellfish", False),
        ("Don't forget: the passport expires in May", False),
        ("Prefers concise answers", False),
        ("Meeting at 10:30 tomorrow", False),  # a colon inside, no label before it
        ("[2024-05-01 14:00] User: my knee hurts", True),  # a logged chat's time before it
        ("(1:56 pm on 8 May, 2023) Caroline: Hey Mel!", True),
        ("[2024-05-01] TODO: renew the passport", False),
    ],
)
def test_a_turn_of_a_chat_opens_with_its_speakers_label(content: str, turn: bool) -> None:
    assert a_turn(content) is turn
