"""Reinforcement: what touching or observing a memory does to its counters.

These are pure transitions (old memory, now) -> new memory; the store applies them inside one
write transaction so that concurrent clients never lose an increment.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from engram.core.models import MAX_COUNT, MAX_STRENGTH, Memory, Status
from engram.core.scoring import Policy, memory_score, review_priority
from engram.core.timeutil import to_epoch


@dataclass(frozen=True)
class Reinforcement:
    touch_boost: float = 0.1
    cross_domain_boost: float = 0.1
    cross_domain_threshold: float = 0.3
    auto_reinforce: bool = True


def tag_jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    left = {t.casefold() for t in a}
    right = {t.casefold() for t in b}
    union = left | right
    return len(left & right) / len(union) if union else 1.0


def is_cross_domain(
    rules: Reinforcement, memory_tags: Iterable[str], context: Iterable[str]
) -> bool:
    """Used in a context whose tags barely overlap the memory's own (the "Maslow effect")."""
    mine, theirs = list(memory_tags), list(context)
    if not mine or not theirs:
        return False
    return tag_jaccard(mine, theirs) < rules.cross_domain_threshold


def _boosted(strength: float, boost: float) -> float:
    """Rounded to 9 decimals: 1.1 + 0.1 is 1.2000000000000002 in binary, and a memory touched
    twice showed that strength to the user."""
    return min(MAX_STRENGTH, round(strength + boost, 9))


def _with_priority(policy: Policy, memory: Memory, now: datetime) -> Memory:
    current = memory_score(policy, memory, to_epoch(now))
    prio = float(review_priority(policy, current))
    return memory.model_copy(update={"review_priority": prio})


def touch(
    policy: Policy, rules: Reinforcement, memory: Memory, now: datetime, boost: bool
) -> Memory:
    """A use of the memory. Its last use never moves back: a client whose clock is behind
    another's moved it a day back, and its touch lowered the score it was meant to raise."""
    updated = memory.model_copy(
        update={
            "last_used": max(now, memory.last_used),
            "use_count": _plus_one(memory.use_count),
            "strength": _boosted(memory.strength, rules.touch_boost) if boost else memory.strength,
            **_back_in_use(memory),
        }
    )
    return _with_priority(policy, updated, now)


def _back_in_use(memory: Memory) -> dict[str, Status]:
    """A memory in use is not archived: it is active again, or promoted if it was written to
    the vault. A touch of an archived memory said its score rose, and it stayed out of search
    and was collected by the next gc (a probe)."""
    if memory.status != Status.ARCHIVED:
        return {}
    return {"status": Status.PROMOTED if memory.promoted_to else Status.ACTIVE}


def observe(
    policy: Policy,
    rules: Reinforcement,
    memory: Memory,
    now: datetime,
    context_tags: Iterable[str],
) -> tuple[Memory, bool]:
    """A memory was used in conversation: count a review, reinforce, reward cross-domain use.

    With `auto_reinforce` off, the review is recorded but use_count and last_used stay put, so
    observation alone does not slow decay.
    """
    cross = is_cross_domain(rules, memory.tags, context_tags)
    update: dict[str, object] = {
        "review_count": _plus_one(memory.review_count),
        "last_review_at": now if memory.last_review_at is None else max(now, memory.last_review_at),
    }
    if rules.auto_reinforce:
        update["last_used"] = max(now, memory.last_used)
        update["use_count"] = _plus_one(memory.use_count)
        update |= _back_in_use(memory)
    if cross:
        update["cross_domain_count"] = _plus_one(memory.cross_domain_count)
        update["strength"] = _boosted(memory.strength, rules.cross_domain_boost)
    return _with_priority(policy, memory.model_copy(update=update), now), cross


def _plus_one(count: int) -> int:
    """Counts stop at their limit (a 32-bit column on PostgreSQL): a memory imported at the
    limit was refused every touch there, and went past the documented maximum elsewhere."""
    return min(count + 1, MAX_COUNT)
