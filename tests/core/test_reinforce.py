"""Touch and observe transitions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engram.core.models import Memory
from engram.core.reinforce import Reinforcement, is_cross_domain, observe, tag_jaccard, touch
from engram.core.scoring import Policy

T0 = datetime(2026, 1, 1, tzinfo=UTC)
LATER = T0 + timedelta(days=2)
POLICY = Policy()
RULES = Reinforcement()


def mem(
    strength: float = 1.0, tags: tuple[str, ...] = ("security", "jwt", "preferences")
) -> Memory:
    return Memory(id="a", content="x", tags=tags, created_at=T0, last_used=T0, strength=strength)


def test_touch_sets_last_used_and_counts_a_use() -> None:
    new = touch(POLICY, RULES, mem(), LATER, boost=False)
    assert (new.last_used, new.use_count, new.strength) == (LATER, 1, 1.0)


def test_touch_with_boost_adds_strength_capped_at_two() -> None:
    assert touch(POLICY, RULES, mem(), LATER, boost=True).strength == pytest.approx(1.1)
    assert touch(POLICY, RULES, mem(strength=1.95), LATER, boost=True).strength == 2.0


def test_a_boosted_strength_is_the_decimal_the_user_expects() -> None:
    """1.1 + 0.1 is 1.2000000000000002 in binary: a memory touched twice showed that."""
    twice = touch(POLICY, RULES, mem(strength=1.1), LATER, boost=True)
    assert twice.strength == 1.2 and repr(twice.strength) == "1.2"


def test_jaccard() -> None:
    assert tag_jaccard(["a", "b"], ["b", "c"]) == pytest.approx(1 / 3)
    assert tag_jaccard(["A"], ["a"]) == 1.0


def test_cross_domain_needs_tags_on_both_sides() -> None:
    assert not is_cross_domain(RULES, [], ["api"])
    assert not is_cross_domain(RULES, ["api"], [])
    assert is_cross_domain(RULES, ["security", "jwt", "preferences"], ["api", "auth", "backend"])


def test_observe_in_another_domain_reinforces_and_boosts() -> None:
    new, cross = observe(POLICY, RULES, mem(), LATER, ["api", "auth", "backend"])
    assert cross
    assert new.use_count == 1 and new.review_count == 1 and new.cross_domain_count == 1
    assert new.last_used == LATER and new.last_review_at == LATER
    assert new.strength == pytest.approx(1.1)


def test_observe_in_the_same_domain_does_not_boost() -> None:
    new, cross = observe(POLICY, RULES, mem(), LATER, ["security", "jwt"])
    assert not cross and new.strength == 1.0 and new.cross_domain_count == 0
    assert new.use_count == 1


def test_observe_without_auto_reinforce_only_records_the_review() -> None:
    rules = Reinforcement(auto_reinforce=False)
    new, _ = observe(POLICY, rules, mem(), LATER, ["security"])
    assert new.use_count == 0 and new.last_used == T0 and new.review_count == 1


def test_observe_updates_review_priority() -> None:
    old = mem().model_copy(update={"review_priority": 0.9})
    new, _ = observe(POLICY, RULES, old, LATER, ["security"])
    assert new.review_priority == 0.0  # just reinforced: far above the danger zone


def test_a_use_from_a_clock_behind_never_moves_the_last_use_back() -> None:
    """Two clients, one clock a day slow: its touch set last_used a day back (before the
    memory was even created, at times), lowering the score it reported as raised."""
    seen = observe(POLICY, RULES, touch(POLICY, RULES, mem(), LATER, boost=False), LATER, ())[0]
    behind = LATER - timedelta(days=1)
    touched = touch(POLICY, RULES, seen, behind, boost=False)
    assert touched.last_used == LATER and touched.use_count == 3
    observed, _ = observe(POLICY, RULES, seen, behind, ())
    assert observed.last_used == LATER and observed.last_review_at == LATER
