"""Keeping alike memories apart, on every backend: a review-band cluster a person declined
stops coming back, a third memory still clusters with the one it is closest to, and a merge
carries the mark to the merged memory."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engram import Engram, FixedClock
from engram.errors import NotFoundError, ValidationError

FLIGHT = (
    "The flight to Lisbon leaves at 9am on Friday",
    "Our flight to Lisbon departs at 9am on Friday",
)
TEA = ("Prefers tea over coffee", "Prefers green tea over coffee")
TEA_AGAIN = "Prefers tea over coffee in the morning"
OTHERS = (
    "Uses Neovim with the LazyVim distribution",
    "The quarterly tax return is due in April",
    "Our dog needs a vet appointment next week",
)


@pytest.fixture
def mem(store_url: str, clock: FixedClock) -> Iterator[Engram]:
    with Engram.open(store_url, clock=clock, save_duplicates="keep") as engram:
        yield engram


def save_all(mem: Engram, texts: tuple[str, ...]) -> list[str]:
    return [mem.save(text).id for text in texts]


def together(mem: Engram, a: str, b: str) -> bool:
    return any(a in c.member_ids and b in c.member_ids for c in mem.clusters().clusters)


def test_a_declined_review_cluster_does_not_come_back(mem: Engram) -> None:
    leaves, departs = save_all(mem, FLIGHT)
    save_all(mem, OTHERS)
    (cluster,) = mem.clusters().clusters
    assert cluster.action == "review" and set(cluster.member_ids) == {leaves, departs}

    done = mem.keep_apart(cluster_ids=[cluster.id])
    assert (done.memory_ids, done.marked, done.already) == (sorted([leaves, departs]), 1, 0)
    assert mem.clusters().clusters == []
    assert mem.consolidate(cohesion_threshold=0.75).left_for_review == 0
    (mark,) = [r for r in mem.relations(leaves) if r.type == "distinct_from"]
    assert {mark.from_id, mark.to_id} == {leaves, departs}

    # named for a merge, they say they were marked (the merge said nothing of it: a probe)
    named = mem.consolidate(auto_detect=False, memory_ids=[leaves, departs]).clusters[0]
    assert (named.note or "").startswith("merged because named: two of them were marked")
    # marking again changes nothing; deleting the relation undoes the mark
    again = mem.keep_apart(memory_ids=[departs, leaves])
    assert (again.marked, again.already) == (0, 1)
    mem.delete_relation(mark.id)
    assert together(mem, leaves, departs)


def test_a_third_memory_joins_the_one_it_is_closer_to(mem: Engram) -> None:
    tea, green = save_all(mem, TEA)
    save_all(mem, OTHERS)
    mem.keep_apart(memory_ids=[tea, green])
    assert mem.clusters().clusters == []
    (again,) = save_all(mem, (TEA_AGAIN,))
    (cluster,) = mem.clusters().clusters  # without the mark, one cluster of all three
    assert again in cluster.member_ids and len(cluster.member_ids) == 2
    kept_out = green if tea in cluster.member_ids else tea

    # the merged memory inherits the mark: it does not cluster with the one kept out
    merged = mem.consolidate(mode="apply", cluster_ids=[cluster.id]).merged[0].merged
    assert any(
        r.type == "distinct_from" and {r.from_id, r.to_id} == {merged.id, kept_out}
        for r in mem.relations(merged.id)
    )
    assert not together(mem, merged.id, kept_out)


def test_keeping_apart_names_what_is_wrong(mem: Engram) -> None:
    (one,) = save_all(mem, FLIGHT[:1])
    with pytest.raises(ValidationError, match="memory_ids"):
        mem.keep_apart(memory_ids=[one, one])
    with pytest.raises(ValidationError, match="one of them"):
        mem.keep_apart()
    with pytest.raises(NotFoundError, match="nope"):
        mem.keep_apart(memory_ids=[one, "nope"])
    with pytest.raises(ValidationError, match="cluster_ids"):
        mem.keep_apart(cluster_ids=["cluster-0000000000000000"])
    assert mem.relations(one) == []


def test_archived_memories_are_not_kept_apart(mem: Engram) -> None:
    """Two archived originals were "marked": they are never clustered (an MCP probe)."""
    one, other = save_all(mem, FLIGHT)
    mem.archive([one])
    with pytest.raises(ValidationError, match=r"memory_ids: .* is archived: .*unarchive it first"):
        mem.keep_apart(memory_ids=[one, other])
