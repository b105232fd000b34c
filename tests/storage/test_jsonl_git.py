"""A JSONL store kept in git, cloned twice, written on both clones and merged: what one clone
changed alone survives the merge, or git stops at a conflict; nothing is undone without a word.
Real clones and real merges, by the git command."""

from __future__ import annotations

import json
import logging
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from tests.storage.test_jsonl import T0, bump, lines, mem, put

from engram.core.models import Memory, Relation
from engram.core.scoring import Policy, ScheduleArrays, schedule_arrays
from engram.errors import StoreError
from engram.storage.jsonl import JSONLStore
from engram.storage.protocol import ScheduleInputs

FILES = ("memories.jsonl", "relations.jsonl", "vectors.jsonl")


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """git in `repo`, reading no configuration but the repository's own."""
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
    }
    return subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=check
    )


def configure(repo: Path) -> None:
    git(repo, "config", "user.name", "Engram Test")
    git(repo, "config", "user.email", "test@example.invalid")


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def share(store: Path, tmp: Path) -> tuple[Path, Path]:
    """`store` committed in a repository of its own, and two clones of it."""
    git(store, "init", "-q", "-b", "main")
    configure(store)
    commit(store, "the common version")
    clones = []
    for name in ("a", "b"):
        git(tmp, "clone", "-q", str(store), name)
        configure(tmp / name)
        clones.append(tmp / name)
    return clones[0], clones[1]


def clones_holding(tmp: Path, *memories: Memory) -> tuple[Path, Path]:
    """A store holding `memories`, shared as two clones (`share`)."""
    store = tmp / "store"
    s = JSONLStore(store)
    put(s, *memories)
    s.close()
    return share(store, tmp)


def merge(into: Path, other: Path) -> bool:
    """Merge `other`'s main into `into`'s; whether git did it without a conflict."""
    git(into, "fetch", "-q", str(other), "main")
    return git(into, "merge", "-q", "--no-edit", "FETCH_HEAD", check=False).returncode == 0


def added_and_removed(repo: Path, name: str) -> tuple[int, int]:
    """Lines the last commit added to and removed from the file `name`."""
    stat = git(repo, "diff", "--numstat", "HEAD~1", "HEAD", "--", name).stdout.split()
    return (int(stat[0]), int(stat[1])) if stat else (0, 0)


def other_settings(cols: ScheduleInputs) -> ScheduleArrays:
    """Schedules under decay settings other than the ones the memories were saved with."""
    policy = Policy(forget_threshold=0.1)
    return schedule_arrays(
        policy, cols.use_count, cols.strength, cols.last_used, cols.created_at, cols.active
    )


def vector(value: float) -> np.ndarray:
    return np.full(4, value, dtype=np.float32)


def edge(ident: str, from_id: str, to_id: str, strength: float = 0.5) -> Relation:
    return Relation(
        id=ident, from_id=from_id, to_id=to_id, type="related", strength=strength, created_at=T0
    )


# -- a whole-file rewrite moves no line --------------------------------------------------------


def test_a_compaction_only_removes_lines_and_merges_with_the_other_clones_writes(
    tmp_path: Path,
) -> None:
    """Written in saving order, a compaction moved every line of a memory changed since it was
    saved; merged with the other clone's appends, git then put a stale line of a memory after
    the other clone's newer one (or conflicted, and keeping both sides let it): a touch made on
    one side only was undone. In place, it is only removed lines, and git merges it."""
    store = tmp_path / "store"
    s = JSONLStore(store, vector_model=("m", 4))
    put(s, mem("a", "apples"), mem("b", "bananas"), mem("c", "cherries"))
    s.put_vectors([(i, vector(0.5)) for i in "abc"], "m")
    s.add_relation(edge("ab", "a", "b"))
    s.add_relation(edge("bc", "b", "c"))
    s.modify(["a"], bump)  # a's current line now comes after b's and c's
    s.delete(["c"])  # tombstones last in every file
    s.close()
    one, other = share(store, tmp_path)

    s = JSONLStore(one, vector_model=("m", 4))
    assert [m.id for m in s.page(None, 10)] == ["a", "b"]
    s.compact()
    # a's current line stays after b's: a touched memory now comes after those saved after
    # it and not changed since, in saving order (docs/storage.md, Upkeep).
    assert [m.id for m in s.page(None, 10)] == ["b", "a"]
    s.close()
    commit(one, "compact")
    for name in FILES:  # only removals: no line written anew, none moved
        added, removed = added_and_removed(one, name)
        assert added == 0 and removed > 0, name
    assert lines(one / "memories.jsonl")[-1] == {"id": "c", "_deleted": True}

    s = JSONLStore(other, vector_model=("m", 4))
    s.modify(["b"], bump)
    s.add_relation(edge("ba", "b", "a"))
    s.put_vectors([("a", vector(0.25))], "m")
    s.close()
    commit(other, "touch b, link b to a, embed a again")

    assert merge(other, one)
    merged = JSONLStore(other, vector_model=("m", 4))
    assert {m.id: m.use_count for m in merged.page(None, 10)} == {"a": 1, "b": 1}
    assert sorted(r.id for r in merged.relations(["a", "b"])) == ["ab", "ba"]
    assert merged.get_many(["c"]) == []
    found = merged.get_vectors(["a"], "m")["a"]
    assert np.allclose(found, 0.25)
    merged.close()


def test_a_reschedule_changes_lines_in_place_and_merges_with_the_other_clones_touch(
    tmp_path: Path,
) -> None:
    """After a change of decay settings every memory's line is written again with its new
    schedule. Written in saving order without the older lines, b's line was replaced and a's
    moved: merged with the other clone's touch of b, git conflicted over the whole file. In
    place, it changes only the memories' current lines, and a touch appended elsewhere wins."""
    store = tmp_path / "store"
    s = JSONLStore(store)
    put(s, mem("a"), mem("b"), mem("c"))
    s.modify(["a"], bump)
    s.delete(["c"])
    s.close()
    one, other = share(store, tmp_path)

    s = JSONLStore(one)
    assert s.reschedule_all(other_settings, "other settings") == 2
    s.close()
    commit(one, "reschedule")
    assert added_and_removed(one, "memories.jsonl") == (2, 2)  # a's and b's current lines

    s = JSONLStore(other)
    s.modify(["b"], bump)
    s.close()
    commit(other, "touch b")

    assert merge(other, one)
    merged = JSONLStore(other)
    assert {m.id: m.use_count for m in merged.page(None, 10)} == {"a": 1, "b": 1}
    merged.close()


@pytest.mark.parametrize("rewrite", ["compaction", "reschedule"])
def test_a_rewrite_at_the_end_conflicts_and_the_documented_order_resolves_it(
    tmp_path: Path, rewrite: str
) -> None:
    """A clone that wrote since its last pull may compact away the line that was last when the
    clones parted, and a reschedule changes that line when it is a memory's: git then conflicts
    at the end of the file, the other side's half repeating lines of the common version, and
    kept after the rewritten lines they would undo a change. Resolved as docs/storage.md says
    (the common version's lines, then the rewriting side's, then the other side's), both
    sides' changes stay."""
    one, other = clones_holding(tmp_path, mem("a"), mem("b"))
    s = JSONLStore(one)
    if rewrite == "compaction":
        s.modify(["b"], bump)  # b's line, last in the common version, is superseded
        s.compact()
    else:
        s.reschedule_all(other_settings, "other settings")
    s.close()
    commit(one, rewrite)
    touched = "a" if rewrite == "compaction" else "b"
    s = JSONLStore(other)
    s.modify([touched], bump)
    s.close()
    commit(other, f"touch {touched}")

    assert not merge(other, one)
    base, ours, theirs = (
        git(other, "show", f":{stage}:memories.jsonl").stdout.splitlines() for stage in (1, 2, 3)
    )
    resolved = list(dict.fromkeys([*base, *theirs, *ours]))  # theirs: the rewriting side
    (other / "memories.jsonl").write_text("\n".join(resolved) + "\n")
    merged = JSONLStore(other)
    counts = {m.id: m.use_count for m in merged.page(None, 10)}
    assert counts == ({"a": 1, "b": 1} if rewrite == "compaction" else {"a": 0, "b": 1})
    merged.close()


# -- deletions ------------------------------------------------------------------------------


def test_a_deletion_compacted_on_one_clone_and_a_touch_on_the_other_conflict(
    tmp_path: Path,
) -> None:
    """A compaction dropped tombstones with the lines they deleted: merged with a touch of the
    memory on the other clone, git saw one side remove a line and the other append one, merged
    without a conflict, and the deleted memory was back. The tombstone stays now: both sides
    appended, git stops, and so does the store until the merge is resolved."""
    one, other = clones_holding(tmp_path, mem("x"), mem("a"))
    s = JSONLStore(one)
    s.delete(["x"])
    s.compact()
    s.close()
    commit(one, "delete x, compact")
    assert [line["id"] for line in lines(one / "memories.jsonl")] == ["a", "x"]
    s = JSONLStore(other)
    s.modify(["x"], bump)
    s.close()
    commit(other, "touch x")

    assert not merge(other, one)
    with pytest.raises(StoreError, match=r"memories\.jsonl line \d+ is a git conflict marker"):
        JSONLStore(other)
    text = (other / "memories.jsonl").read_text().splitlines()
    # Resolved with the deletion last: the memory stays deleted.
    kept = [x for x in text if not x.startswith(("<<<<<<<", "=======", ">>>>>>>"))]
    kept.sort(key=lambda x: '"_deleted"' in x)
    (other / "memories.jsonl").write_text("\n".join(kept) + "\n")
    merged = JSONLStore(other)
    assert [m.id for m in merged.page(None, 10)] == ["a"]
    merged.close()


# -- the same relation created on both clones ------------------------------------------------


@pytest.mark.parametrize("deleted", ["from-one", "from-other"])
def test_the_same_relation_created_on_both_clones_is_one_edge_either_id_deletes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, deleted: str
) -> None:
    """Each clone linked a to b as "related", under its own id; merged, the index kept the
    first line and ignored the second (one edge per from, to and type), whose id then named
    nothing: deleting by it did nothing while the edge stayed. The last line of an edge wins,
    as the last line of an id does, the earlier id is reported and names the same edge, and
    deleting by either id removes it for good."""
    one, other = clones_holding(tmp_path, mem("a"), mem("b"))
    for clone, ident, strength in ((one, "from-one", 0.3), (other, "from-other", 0.9)):
        s = JSONLStore(clone)
        s.add_relation(edge(ident, "a", "b", strength))
        s.close()
        commit(clone, f"link a to b as {ident}")

    assert not merge(other, one)  # both appended a line
    ours = git(other, "show", ":2:relations.jsonl").stdout
    theirs = git(other, "show", ":3:relations.jsonl").stdout
    (other / "relations.jsonl").write_text(theirs + ours)  # both sides, this one's last
    with caplog.at_level(logging.WARNING, logger="engram"):
        merged = JSONLStore(other)
    assert [(r.id, r.strength) for r in merged.relations(["a"])] == [("from-other", 0.9)]
    assert "'from-one' and 'from-other' are the same edge" in caplog.text
    removed = merged.delete_relation(deleted)
    assert removed is not None and removed.id == "from-other"
    assert merged.relations(["a", "b"]) == []
    assert merged.delete_relation("from-one") is None
    assert merged.delete_relation("from-other") is None
    merged.close()
    (other / ".index.db").unlink()  # read from the files alone
    fresh = JSONLStore(other)
    assert fresh.relations(["a", "b"]) == []
    fresh.compact()
    assert all(x.get("_deleted") is True for x in lines(other / "relations.jsonl"))
    fresh.close()


def test_an_edge_appended_again_under_another_id_replaces_it_for_a_running_client(
    tmp_path: Path,
) -> None:
    """A client that has the store open reads the repeated edge as a fresh load does: the last
    line wins in both."""
    folder = tmp_path / "store"
    running = JSONLStore(folder)
    put(running, mem("a"), mem("b"))
    running.add_relation(edge("first", "a", "b", 0.3))
    line = json.dumps({**lines(folder / "relations.jsonl")[0], "id": "second", "strength": 0.9})
    with (folder / "relations.jsonl").open("a") as f:
        f.write(line + "\n")
    assert [(r.id, r.strength) for r in running.relations(["a"])] == [("second", 0.9)]
    running.close()
    (folder / ".index.db").unlink()
    fresh = JSONLStore(folder)
    assert [(r.id, r.strength) for r in fresh.relations(["a"])] == [("second", 0.9)]
    assert fresh.stats().files[1].dead == 1  # the first line, which a compaction drops
    fresh.compact()
    assert [x["id"] for x in lines(folder / "relations.jsonl")] == ["second"]
    fresh.close()


def test_a_command_that_changes_nothing_writes_no_line(tmp_path: Path) -> None:
    """`unarchive` of an active memory, `update` with the tags it has, `archive` of an
    archived one each appended a copy of the memory's line: git noise on one clone, and
    merged after the other clone's touch, the copy came last and undid it (a probe)."""
    from engram import Engram

    with Engram.open(f"jsonl://{tmp_path / 'store'}") as mem:
        kept = mem.save("Prefers tea over coffee", tags=["drinks"])
        gone = mem.save("Old laptop password hint")
        mem.archive([gone.id])
        before = (tmp_path / "store" / "memories.jsonl").read_bytes()
        mem.unarchive([kept.id])  # not archived: left as it is
        mem.update(kept.id, tags=["drinks"])
        mem.archive([gone.id])
        assert (tmp_path / "store" / "memories.jsonl").read_bytes() == before
        mem.update(kept.id, tags=["drinks", "morning"])  # a real change still writes
        assert len(lines(tmp_path / "store" / "memories.jsonl")) == len(before.splitlines()) + 1
