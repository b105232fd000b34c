"""Multi-hop graph traversal, part of the storage contract: it runs on every backend."""

from __future__ import annotations

from datetime import timedelta

from tests.storage.test_contract import T0, mem, put

from engram.core.models import Direction, Relation, RelationType
from engram.storage.protocol import Hop, Store


def link(store: Store, a: str, b: str, kind: RelationType = "related", at: int = 0) -> Relation:
    """Edge a -> b made `at` minutes after T0 (the tie-breaker between equally short paths)."""
    return store.add_relation(
        Relation(
            id=f"{a}-{kind}-{b}",
            from_id=a,
            to_id=b,
            type=kind,
            strength=0.5,
            metadata={"why": f"{a}->{b}"},
            created_at=T0 + timedelta(minutes=at),
        )
    )


def walk(
    store: Store,
    start: str,
    depth: int = 5,
    types: tuple[str, ...] = (),
    direction: Direction = "both",
    limit: int = 100,
) -> list[tuple[str, int, str]]:
    hops = store.traverse(start, depth, types, direction, limit)
    return [(h.memory_id, h.depth, h.parent_id) for h in hops]


def nodes(store: Store, *ids: str) -> None:
    put(store, *(mem(i) for i in ids))


def test_a_chain_is_followed_to_the_depth_limit(store: Store) -> None:
    nodes(store, "a", "b", "c", "d")
    link(store, "a", "b", at=1)
    link(store, "b", "c", at=2)
    link(store, "c", "d", at=3)
    assert walk(store, "a", depth=1, direction="out") == [("b", 1, "a")]
    assert walk(store, "a", depth=2, direction="out") == [("b", 1, "a"), ("c", 2, "b")]
    assert walk(store, "a", depth=5, direction="out") == [
        ("b", 1, "a"),
        ("c", 2, "b"),
        ("d", 3, "c"),
    ]


def test_direction_out_in_and_both(store: Store) -> None:
    nodes(store, "a", "b", "c")
    link(store, "a", "b", at=1)
    link(store, "b", "c", at=2)
    assert walk(store, "b", direction="out") == [("c", 1, "b")]
    assert walk(store, "b", direction="in") == [("a", 1, "b")]
    assert walk(store, "b", direction="both") == [("a", 1, "b"), ("c", 1, "b")]
    assert walk(store, "c", direction="in") == [("b", 1, "c"), ("a", 2, "b")]
    assert walk(store, "c", direction="out") == []


def test_cycles_end_and_never_report_the_start_or_a_memory_twice(store: Store) -> None:
    nodes(store, "a", "b", "c", "d")
    link(store, "a", "b", at=1)
    link(store, "b", "c", at=2)
    link(store, "c", "a", at=3)  # a -> b -> c -> a
    link(store, "c", "d", at=4)
    assert walk(store, "a", direction="out") == [("b", 1, "a"), ("c", 2, "b"), ("d", 3, "c")]
    # Both ways, c is one edge from a (through c -> a), so d is two.
    assert walk(store, "a", direction="both") == [("b", 1, "a"), ("c", 1, "a"), ("d", 2, "c")]
    # A two-node cycle both ways, and a self-contained loop of every size up to the depth.
    link(store, "b", "a", at=5)
    hops = walk(store, "b", depth=5, direction="both")
    assert sorted(h[0] for h in hops) == ["a", "c", "d"]
    assert len({h[0] for h in hops}) == len(hops)


def test_type_filter_follows_only_those_edges(store: Store) -> None:
    nodes(store, "a", "b", "c", "d", "e")
    link(store, "a", "b", "causes", at=1)
    link(store, "a", "c", "supports", at=2)
    link(store, "b", "d", "causes", at=3)
    link(store, "c", "e", "causes", at=4)
    assert walk(store, "a", types=("causes",), direction="out") == [("b", 1, "a"), ("d", 2, "b")]
    assert walk(store, "a", types=("supports", "causes"), direction="out") == [
        ("b", 1, "a"),
        ("c", 1, "a"),
        ("d", 2, "b"),
        ("e", 2, "c"),
    ]
    assert walk(store, "a", types=("contradicts",)) == []


def test_each_memory_is_reached_by_the_earliest_edge_from_the_level_before(store: Store) -> None:
    nodes(store, "a", "b", "c", "d")
    link(store, "a", "b", at=1)
    link(store, "a", "c", at=2)
    link(store, "b", "d", at=9)
    link(store, "c", "d", at=5)  # older than b -> d: the diamond closes through c
    link(store, "d", "a", "supports", at=0)  # shorter way to d both ways, but not "out"
    hops = store.traverse("a", 3, (), "out", 10)
    assert [(h.memory_id, h.depth, h.parent_id) for h in hops] == [
        ("b", 1, "a"),
        ("c", 1, "a"),
        ("d", 2, "c"),
    ]
    assert hops[2].via == store.relations(["c"])[-1]  # the whole stored edge, metadata and all
    assert hops[2].via.id == "c-related-d" and hops[2].via.metadata == {"why": "c->d"}
    both = walk(store, "a", depth=3, direction="both")
    assert both[0] == ("d", 1, "a")  # d -> a is the oldest edge: d comes first, at depth 1


def test_hops_come_closest_first_then_by_edge_age_and_honour_the_limit(store: Store) -> None:
    nodes(store, "hub", "x1", "x2", "x3", "x4", "far")
    for i, target in enumerate(["x3", "x1", "x4", "x2"]):
        link(store, "hub", target, at=10 + i)
    link(store, "x3", "far", at=1)
    order = [h.memory_id for h in store.traverse("hub", 2, (), "out", 100)]
    assert order == ["x3", "x1", "x4", "x2", "far"]
    assert [h.memory_id for h in store.traverse("hub", 2, (), "out", 2)] == ["x3", "x1"]


def test_unknown_start_and_isolated_memory_have_no_hops(store: Store) -> None:
    nodes(store, "alone")
    assert store.traverse("ghost", 3, (), "both", 10) == []
    assert store.traverse("alone", 3, (), "both", 10) == []


def test_deleted_memories_and_their_edges_are_gone_from_traversal(store: Store) -> None:
    nodes(store, "a", "b", "c")
    link(store, "a", "b", at=1)
    link(store, "b", "c", at=2)
    store.delete(["b"])
    assert store.traverse("a", 5, (), "both", 10) == []


def test_a_wide_and_deep_graph_reports_every_memory_once(store: Store) -> None:
    # A 6 x 6 grid, edges right and down: many paths of equal length to each cell.
    ids = [f"g{r}{c}" for r in range(6) for c in range(6)]
    nodes(store, *ids)
    minute = 0
    for r in range(6):
        for c in range(6):
            for dr, dc in ((0, 1), (1, 0)):
                if r + dr < 6 and c + dc < 6:
                    minute += 1
                    link(store, f"g{r}{c}", f"g{r + dr}{c + dc}", at=minute)
    hops: list[Hop] = store.traverse("g00", 5, (), "out", 1000)
    by_id = {h.memory_id: h for h in hops}
    assert len(by_id) == len(hops)
    assert set(by_id) == {f"g{r}{c}" for r in range(6) for c in range(6) if 0 < r + c <= 5}
    for h in hops:
        r, c = int(h.memory_id[1]), int(h.memory_id[2])
        assert h.depth == r + c
        parent = by_id[h.parent_id].depth if h.parent_id != "g00" else 0
        assert parent == h.depth - 1 and h.via.to_id == h.memory_id
