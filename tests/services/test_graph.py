"""Relations and paginated graph reads."""

from __future__ import annotations

import pytest

from engram import Engram, NotFoundError, ValidationError


def test_create_relation_and_read_back(mem: Engram) -> None:
    a, b = mem.save("cause"), mem.save("effect")
    rel = mem.create_relation(a.id, b.id, "causes", strength=0.8, metadata={"why": "test"})
    assert mem.relations(b.id) == [rel]
    assert mem.create_relation(a.id, b.id, "causes") == rel


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (("x", "y", "likes"), "relation_type"),
        (("x", "x", "related"), "to_memory_id"),
        (("x", "y", "related", 1.5), "strength"),
    ],
)
def test_bad_relations_are_refused(mem: Engram, args: tuple[object, ...], field: str) -> None:
    with pytest.raises(ValidationError) as err:
        mem.create_relation(*args)  # type: ignore[arg-type]
    assert err.value.field == field


def test_relation_to_a_missing_memory(mem: Engram) -> None:
    a = mem.save("a")
    with pytest.raises(NotFoundError):
        mem.create_relation(a.id, "ghost")


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
