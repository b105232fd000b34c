"""Relations and paginated graph reads."""

from __future__ import annotations

import pytest

from engram import Engram, FixedClock, NotFoundError, ValidationError
from engram.storage.protocol import Capability


def test_create_relation_and_read_back(mem: Engram) -> None:
    a, b = mem.save("cause"), mem.save("effect")
    rel = mem.create_relation(a.id, b.id, "causes", strength=0.8, metadata={"why": "test"})
    assert mem.relations(b.id) == [rel]
    assert mem.create_relation(a.id, b.id, "causes") == rel


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (("x", "y", "likes"), "relation_type"),
        # the Python API's own names: it named MCP's `from_memory_id`/`to_memory_id` (audit)
        (("x", "x", "related"), "to_id"),
        (("bad id", "y", "related"), "from_id"),
        (("x", "y", "related", 1.5), "strength"),
    ],
)
def test_bad_relations_are_refused(mem: Engram, args: tuple[object, ...], field: str) -> None:
    with pytest.raises(ValidationError) as err:
        mem.create_relation(*args)  # type: ignore[arg-type]
    assert err.value.field == field


def test_an_empty_list_of_types_is_refused_as_over_mcp(mem: Engram) -> None:
    """`related(types=[])` followed every type in Python and was refused over MCP (audit)."""
    a, b = mem.save("cause"), mem.save("effect")
    mem.create_relation(a.id, b.id, "causes")
    with pytest.raises(ValidationError) as err:
        mem.related(a.id, types=[])
    assert err.value.field == "types"
    assert [r.memory.id for r in mem.related(a.id, types=["causes"])] == [b.id]


def test_relation_to_a_missing_memory(mem: Engram) -> None:
    a = mem.save("a")
    with pytest.raises(NotFoundError):
        mem.create_relation(a.id, "ghost")


def test_a_relation_can_be_removed_and_its_memories_stay(mem: Engram) -> None:
    a, b, c = mem.save("cause"), mem.save("effect"), mem.save("side effect")
    wrong = mem.create_relation(a.id, b.id, "causes")
    kept = mem.create_relation(b.id, c.id, "related")
    assert mem.delete_relation(wrong.id) == wrong
    assert mem.relations(a.id) == [] and mem.relations(b.id) == [kept]
    assert [r.memory.id for r in mem.related(a.id, depth=3)] == []
    assert {m.id for m in mem.get_many([a.id, b.id, c.id])} == {a.id, b.id, c.id}
    with pytest.raises(NotFoundError, match=f"relation not found: {wrong.id}"):
        mem.delete_relation(wrong.id)
    with pytest.raises(ValidationError) as err:
        mem.delete_relation("no spaces allowed")
    assert err.value.field == "relation_id"


def test_read_graph_pages_through_the_store(mem: Engram) -> None:
    ms = [mem.save(f"m{i}") for i in range(25)]
    mem.create_relation(ms[0].id, ms[24].id)
    pages = []
    cursor = None
    while True:
        page = mem.read_graph(cursor=cursor, limit=10)
        pages.append(page)
        cursor = page.next_cursor
        if cursor is None:
            break
    assert [len(p.memories) for p in pages] == [10, 10, 5]
    assert [len(p.relations) for p in pages] == [1, 0, 1]
    assert [m.id for p in pages for m in p.memories] == [m.id for m in ms]


def test_read_graph_goes_on_when_the_cursor_memory_is_deleted(
    mem: Engram, store_url: str, clock: FixedClock
) -> None:
    """An MCP client holds the cursor between calls; gc or another client may delete that
    memory meanwhile: paging stopped ("cursor not found"), within one process at first, and
    always across processes (each `engram graph --cursor` is one), whose cursor carried no
    position."""
    ms = [mem.save(f"paging memory {i}") for i in range(7)]
    lasting = Capability.LASTING_POSITIONS in mem.app.context.store.capabilities
    first = mem.read_graph(limit=2)
    assert first.next_cursor is not None
    ident, mark, place = first.next_cursor.partition("@")  # its place, where lasting
    assert ident == ms[1].id and (mark, place.isdigit()) == (
        ("@", True) if lasting else ("", False)
    )
    mem.delete([ms[1].id])
    second = mem.read_graph(cursor=first.next_cursor, limit=2)
    assert [m.id for m in second.memories] == [ms[2].id, ms[3].id]
    assert second.next_cursor is not None
    with Engram.open(store_url, clock=clock) as other:  # another process, in effect
        other.delete([ms[3].id])
        if lasting:
            third = other.read_graph(cursor=second.next_cursor, limit=2)
            assert [m.id for m in third.memories] == [ms[4].id, ms[5].id]
        else:  # JSONL: each process numbers the memories afresh; refused, never skipped
            with pytest.raises(NotFoundError, match="cursor"):
                other.read_graph(cursor=second.next_cursor, limit=2)
        assert other.read_graph(cursor=ms[0].id, limit=1).memories[0].id == ms[2].id
        for place in ("x", "9999999999999999999"):  # not a number; beyond 64 bits (an overflow)
            with pytest.raises(ValidationError, match="cursor: must be the next_cursor"):
                other.read_graph(cursor=f"{ms[0].id}@{place}")


def test_a_picture_beyond_its_cap_shows_the_memories_still_in_use(
    mem: Engram, clock: FixedClock
) -> None:
    ms = [mem.save(f"note {i}") for i in range(8)]
    clock.advance(days=20)
    for i, uses in ((5, 3), (6, 1), (7, 2), (0, 4)):
        for _ in range(uses):
            mem.touch(ms[i].id)
    mem.archive([ms[0].id])  # the most used, but archived: after every live memory
    mem.create_relation(ms[5].id, ms[6].id)
    mem.create_relation(ms[5].id, ms[1].id)  # to a memory left out of the picture

    picture = mem.app.graph.snapshot(3)
    assert picture.total == 8
    assert [m.id for m in picture.memories] == [ms[5].id, ms[7].id, ms[6].id]
    assert [(r.from_id, r.to_id) for r in picture.relations] == [(ms[5].id, ms[6].id)]

    everything = mem.app.graph.snapshot(8)
    assert [m.id for m in everything.memories] == [m.id for m in ms]  # in save order
    assert len(everything.relations) == 2


def test_a_picture_shows_the_highest_scores_now_not_the_latest_forget_times(
    mem: Engram, clock: FixedClock
) -> None:
    """A memory used five times twenty days ago will be forgotten later than one saved
    yesterday, but scores lower now: the picture's one memory is the fresh one."""
    used = mem.save("staging password rotates monthly")
    for _ in range(5):
        mem.touch(used.id)
    clock.advance(days=19)
    fresh = mem.save("bought oat milk")
    clock.advance(days=1)
    assert mem.score(mem.get(fresh.id)) > mem.score(mem.get(used.id))
    assert [m.id for m in mem.app.graph.snapshot(1).memories] == [fresh.id]


def test_related_follows_relations_several_steps(mem: Engram, clock: FixedClock) -> None:
    idea, cause, effect, aside = (mem.save(t) for t in ("idea", "cause", "effect", "aside"))
    for a, b, kind in [
        (cause, idea, "causes"),
        (idea, effect, "causes"),
        (aside, effect, "supports"),
    ]:
        clock.advance(minutes=1)  # edges of equal depth come in the order they were made
        mem.create_relation(a.id, b.id, kind)
    found = mem.related(idea.id)
    assert [(r.memory.id, r.depth, r.reached_from) for r in found] == [
        (cause.id, 1, idea.id),
        (effect.id, 1, idea.id),
        (aside.id, 2, effect.id),
    ]
    assert found[2].relation.type == "supports" and found[2].memory == mem.get(aside.id)
    chain = mem.related(cause.id, depth=5, types=["causes"], direction="out")
    assert [(r.memory.content, r.depth) for r in chain] == [("idea", 1), ("effect", 2)]
    # the same filter as a generator (it was used up by the check, and then meant every type)
    assert mem.related(idea.id, types=(t for t in ["causes"])) == found[:2]
    assert mem.related(idea.id, depth=1, direction="in") == found[:1]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"depth": 0}, "depth"),
        ({"depth": 6}, "depth"),
        ({"types": ["likes"]}, "types"),
        ({"types": "causes"}, "types"),
        ({"types": 5}, "types"),  # a bare TypeError before
        ({"types": True}, "types"),
        ({"direction": "up"}, "direction"),
        ({"limit": 0}, "limit"),
    ],
)
def test_related_refuses_bad_arguments_by_name(
    mem: Engram, kwargs: dict[str, object], field: str
) -> None:
    m = mem.save("start")
    with pytest.raises(ValidationError) as err:
        mem.related(m.id, **kwargs)  # type: ignore[arg-type]
    assert err.value.field == field


def test_related_of_a_missing_memory(mem: Engram) -> None:
    with pytest.raises(NotFoundError):
        mem.related("ghost")
