"""The Python API's own promises, beyond the services it calls: ids as people type them, times
in UTC whatever the clock's zone, the same error for a bad list as the services give."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from engram import (
    ConfigError,
    Draft,
    Engram,
    FixedClock,
    NotFoundError,
    StoreError,
    ValidationError,
)


def test_get_takes_the_unique_start_of_an_id(tmp_path: Path) -> None:
    """The docstring promised "or a unique start of one"; a short id raised NotFoundError."""
    with Engram.open(str(tmp_path / "x.db"), embedding_model="none") as mem:
        m = mem.save("alpha memory about cats")
        assert mem.get(m.id[:8]).id == m.id and mem.get(m.id).id == m.id
        with pytest.raises(NotFoundError):
            mem.get("ffffffff-no-such")


def test_every_method_taking_an_id_takes_its_unique_start(tmp_path: Path) -> None:
    """A probe: the CLI prints 8-character ids; `get` took one, while `touch`, `update` and
    `archive` said "memory not found" and `delete` deleted nothing, returning []."""
    with Engram.open(str(tmp_path / "x.db"), embedding_model="none") as mem:
        cats, dogs = mem.save("alpha memory about cats"), mem.save("beta memory about dogs")
        short, other = cats.id[:8], dogs.id[:8]
        assert mem.touch(short).memory_id == cats.id
        assert mem.update(short, content="alpha memory about kittens").id == cats.id
        assert [r.memory.id for r in mem.observe([short], ["pets"])] == [cats.id]
        relation = mem.create_relation(short, other, "related")
        assert (relation.from_id, relation.to_id) == (cats.id, dogs.id)
        assert [r.id for r in mem.relations(short)] == [relation.id]
        assert [m.id for m in mem.archive(short)] == [cats.id]
        assert [m.id for m in mem.unarchive([short])] == [cats.id]
        # reads too: get_many left a short id out, undo said "memory not found" (a probe)
        assert [m.id for m in mem.get_many([short, dogs.id, "ffff0000"])] == [cats.id, dogs.id]
        assert mem.delete(["ffff0000", short]) == [cats.id]  # one standing for none: left out
        with pytest.raises(NotFoundError):
            mem.touch(short)
        with pytest.raises(NotFoundError, match="4 characters"):
            mem.touch(other[:3])


def test_update_names_its_fields_and_a_field_it_has_not(tmp_path: Path) -> None:
    """`update(id, status=…)` was a TypeError naming `MemoryService.update()`, an internal
    class (a probe); the facade takes the service's parameters (`_takes_as`) and now checks
    them itself."""
    with Engram.open(str(tmp_path / "m.db"), embedding_model="none") as mem:
        m = mem.save("Atlas ships in May")
        with pytest.raises(TypeError, match=r"^Engram\.update\(\) got an unexpected keyword"):
            mem.update(m.id, status="archived")  # type: ignore[call-arg]
        # every method passing its arguments on to a service does the same
        with pytest.raises(TypeError, match=r"^Engram\.search\(\) got an unexpected keyword"):
            mem.search("Atlas", bogus=1)  # type: ignore[call-arg]
        changed = mem.update(m.id[:8], tags=["atlas"], strength=1.5)
        assert (changed.tags, changed.strength, changed.content) == (
            ("atlas",),
            1.5,
            "Atlas ships in May",
        )


def test_save_result_takes_a_text_as_save_does(tmp_path: Path) -> None:
    """`save_result("...")` failed with "drafts: must be a Draft, not str" (audit)."""
    with Engram.open(str(tmp_path / "x.db"), embedding_model="none") as mem:
        first = mem.save_result("Prefers tea over coffee")
        again = mem.save_result("prefers tea over coffee!")
        assert first.action == "saved" and first.memory.content == "Prefers tea over coffee"
        assert again.action == "merged" and again.duplicate_of == first.memory.id


def test_open_called_on_a_handle_with_ids_points_to_get_many(tmp_path: Path) -> None:
    """`mem.open([id])` (as `engram open ID` reads memories) reached the class method that
    opens a store, and said only "must be a path or a URL string"."""
    with Engram.open(str(tmp_path / "a.db")) as mem:
        m = mem.save("Standup is at 9:30")
        with pytest.raises(ValidationError, match=r"get_many\(ids\)") as err:
            mem.open([m.id])
        assert err.value.field == "path_or_url"
        assert [x.id for x in mem.get_many([m.id])] == [m.id]


def test_a_store_named_twice_is_refused_not_half_ignored(tmp_path: Path) -> None:
    """`Engram.open("/a.db", storage_path="/b.db")` opened /a.db and said nothing of /b.db
    (an API probe); the same place named twice is no conflict."""
    first, second = tmp_path / "a.db", tmp_path / "b.db"
    with pytest.raises(ConfigError, match="named twice") as err:
        Engram.open(first, storage_path=str(second))
    assert str(first) in str(err.value) and str(second) in str(err.value)
    assert not first.exists() and not second.exists()
    secret = "postgresql://me:hunter2@localhost/db"
    with pytest.raises(ConfigError, match="named twice") as err:
        Engram.open(first, storage_path=secret)
    assert "hunter2" not in str(err.value)
    with Engram.open(first, storage_path=str(first), embedding_model="none") as mem:
        assert mem.stats().total == 0


def test_times_come_back_in_utc_whatever_the_clocks_zone(tmp_path: Path) -> None:
    """`save` and `touch` answered in the clock's zone and `get` in UTC: one Memory from
    `touch` held a UTC created_at and a +05:00 last_used."""
    clock = FixedClock(datetime(2024, 3, 1, 12, 0, tzinfo=timezone(timedelta(hours=5))))
    with Engram.open(str(tmp_path / "x.db"), clock=clock, embedding_model="none") as mem:
        saved = mem.save("first memory")
        clock.advance(hours=1)
        touched = mem.touch(saved.id).memory
        for moment in (saved.created_at, saved.last_used, touched.last_used):
            assert moment.tzinfo == UTC
        assert saved.created_at == datetime(2024, 3, 1, 7, 0, tzinfo=UTC)
        assert mem.get(saved.id).last_used == touched.last_used


@pytest.mark.parametrize("bad", [None, 5])
def test_delete_and_archive_refuse_what_is_no_list_of_ids(tmp_path: Path, bad: object) -> None:
    """They raised a bare TypeError from `list(None)`, where get_many names memory_ids."""
    with Engram.open(str(tmp_path / "x.db"), embedding_model="none") as mem:
        for method in (mem.delete, mem.archive):
            with pytest.raises(ValidationError, match="memory_ids"):
                method(bad)  # type: ignore[arg-type]


def test_delete_takes_any_collection_of_ids(tmp_path: Path) -> None:
    """A set, a generator or a dict's keys worked before the check for a bad list; they
    still do."""
    with Engram.open(str(tmp_path / "x.db"), embedding_model="none") as mem:
        a, b, c = (mem.save(text) for text in ("alpha one", "beta two", "gamma three"))
        assert mem.delete({a.id}) == [a.id]
        assert mem.delete(m.id for m in [b]) == [b.id]
        assert mem.delete({c.id: 1}.keys()) == [c.id]


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda mem, m: mem.save("x", tags=5), "tags"),
        (lambda mem, m: mem.save("x", tags={"a": 1}), "tags"),
        (lambda mem, m: mem.search(tags=5), "tags"),
        (lambda mem, m: mem.search(status=5), "status"),
        (lambda mem, m: mem.update(m.id, tags=5), "tags"),
        (lambda mem, m: mem.get_many(5), "memory_ids"),
        (lambda mem, m: mem.save("x", strength=10**400), "strength"),
        (lambda mem, m: mem.update(m.id, strength=10**400), "strength"),
        (lambda mem, m: mem.search("x", window_days=10**400), "window_days"),
        (lambda mem, m: mem.search("x", min_score=-(10**400)), "min_score"),
        (lambda mem, m: mem.search_unified("x", ltm_weight=10**400), "ltm_weight"),
        (lambda mem, m: mem.run_pipeline(5), "agents"),
        (lambda mem, m: mem.score(None), "memory"),
        (lambda mem, m: mem.score(m.id), "memory"),
        (lambda mem, m: mem.backup(None), "repo"),
        (lambda mem, m: mem.import_export(None), "path"),
        (lambda mem, m: mem.import_cortexgraph(5), "directory"),
        (lambda mem, m: mem.save_many(None), "drafts"),
    ],
)
def test_a_value_of_the_wrong_kind_is_a_validation_error_naming_the_field(
    tmp_path: Path, call: object, field: str
) -> None:
    """Each raised a bare TypeError or OverflowError (or, for a dict of tags, saved its keys):
    the Python API names the field as the MCP tools and the CLI do."""
    with Engram.open(str(tmp_path / "x.db"), embedding_model="none") as mem:
        m = mem.save("a memory to change")
        with pytest.raises(ValidationError, match=field):
            call(mem, m)  # type: ignore[operator]
        assert [x.memory.id for x in mem.search(status="all")] == [m.id]


def test_ids_may_come_from_a_generator_and_blank_context_is_none(tmp_path: Path) -> None:
    with Engram.open(str(tmp_path / "x.db"), embedding_model="none") as mem:
        m = mem.save("with a blank context", context="   ", source=" ")
        assert (m.context, m.source) == (None, None)
        assert [x.id for x in mem.get_many(i for i in [m.id])] == [m.id]


def test_delete_and_archive_refuse_a_mapping_as_get_many_does(tmp_path: Path) -> None:
    """`delete({id: ...})` deleted the dict's keys; `get_many` of the same refused it."""
    with Engram.open(str(tmp_path / "s.db"), embedding_model="none") as mem:
        kept = mem.save("a fact worth keeping")
        for method in (mem.delete, mem.archive, mem.get_many):
            with pytest.raises(ValidationError, match="memory_ids"):
                method({kept.id: True})  # type: ignore[arg-type]
        assert mem.get(kept.id).status.value == "active"


def test_paths_the_file_system_refuses_are_errors_naming_the_argument(tmp_path: Path) -> None:
    """A name longer than the file system allows was a bare OSError from four methods; a
    backup folder whose name is not UTF-8 made a repository, then failed decoding git's
    answer (the repository left empty); `migrate_from(None)` looked for a store "None"."""
    long = str(tmp_path / ("n" * 300))
    with pytest.raises(StoreError, match="cannot open the store"):
        Engram.open(long + ".db", embedding_model="none")
    with Engram.open(str(tmp_path / "s.db"), embedding_model="none") as mem:
        mem.save("alpha note")
        for call, field in (
            (lambda: mem.import_cortexgraph(long), "directory"),
            (lambda: mem.migrate_from(long + ".db"), "source"),
            (lambda: mem.backup(long), "repo"),
            (lambda: mem.migrate_from(None), "source"),  # type: ignore[arg-type]
        ):
            with pytest.raises(ValidationError) as err:
                call()
            assert err.value.field == field
        latin = os.fsdecode(bytes(tmp_path) + b"/backup-\xff")  # not UTF-8: a surrogate
        done = mem.backup(latin)
        assert done.committed and done.memories == 1


def test_a_hit_prints_as_one_readable_line(tmp_path: Path) -> None:
    """The README printed `hit.memory.content, hit.rank, hit.why`: a wall of full-precision
    numbers and `None`s (a probe). `print(hit)` gives the rank, the text and why."""
    with Engram.open(str(tmp_path / "x.db")) as mem:
        mem.save("Decided on PostgreSQL 16 for Atlas", tags=["decision", "atlas"])
        (hit,) = mem.search("which database did we pick")
        line = str(hit)
        assert line.startswith("1.00  Decided on PostgreSQL 16 for Atlas  (match: text 1, ")
        assert line.endswith(", decay 1)") and "meaning 0." in line and "None" not in line
        long = mem.save("word " * 40)
        (shown,) = [h for h in mem.search("word") if h.memory.id == long.id]
        assert "…" in str(shown) and len(str(shown)) < 160


LOGGING_PROGRAM = """
import logging, sys
from engram import Engram
logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(levelname)s %(message)s")
logging.getLogger("engram").setLevel(logging.ERROR)
with Engram.open(sys.argv[1], embedding_model="none", log_level="DEBUG") as mem:
    mem.save("a note")
engram = logging.getLogger("engram")
print("level", logging.getLevelName(engram.level), "handlers", len(engram.handlers))
logging.getLogger("engram.test").error("once")
"""


def test_a_program_keeps_its_own_logging(tmp_path: Path) -> None:
    """`Engram.open` added a handler of its own beside the program's (every warning printed
    twice) and set the `engram` logger's level over the one the program gave it (a probe)."""
    done = subprocess.run(
        [sys.executable, "-c", LOGGING_PROGRAM, str(tmp_path / "x.db")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "level ERROR handlers 0" in done.stdout
    assert done.stdout.count("ERROR once") == 1 and "once" not in done.stderr


def test_a_type_checker_refuses_a_name_the_package_does_not_export(tmp_path: Path) -> None:
    """The public names load on first use (a module `__getattr__`), and mypy --strict took
    `from engram import Nonsense` as Any, which then failed when run (a library probe). Checked
    with the project's own settings and cache, which `tasks.py test` has just filled."""
    from mypy import api

    app = tmp_path / "app.py"
    app.write_text(
        "from engram import Draft, Engram, Nonsense\n"
        "def first(mem: Engram, draft: Draft) -> str:\n"
        "    return mem.save_result(draft).memory.id\n"
    )
    root = Path(__file__).resolve().parent.parent
    out, _, status = api.run(["--cache-dir", str(root / ".mypy_cache"), str(app)])
    assert status == 1, out
    assert out.count("error:") == 1 and 'Module "engram" has no attribute "Nonsense"' in out


def test_get_many_reads_any_number_of_ids_in_order(tmp_path: Path) -> None:
    """A probe's 150 ids were refused ("the limit is 100"), a limit only the MCP docs named."""
    with Engram.open(str(tmp_path / "x.db"), embedding_model="none") as mem:
        ids = [m.id for m in mem.save_many([Draft(f"note number {i}") for i in range(150)])]
        wanted = [*reversed(ids), "ffffffff-0000-0000-0000-000000000000", ids[0][:8]]
        assert [m.id for m in mem.get_many(wanted)] == list(reversed(ids))
        with pytest.raises(ValidationError, match="the limit is 100"):
            mem.delete(ids)


def test_a_handle_dropped_open_warns_as_an_unclosed_file_does(tmp_path: Path) -> None:
    """A library probe: handles never closed kept 5 descriptors and a thread each, unsaid."""
    import gc

    mem = Engram.open(str(tmp_path / "x.db"), embedding_model="none")
    app = mem.app
    with pytest.warns(ResourceWarning, match=r"x\.db was not closed: call close\(\)"):
        del mem
        gc.collect()
    app.close()
    with Engram.open(str(tmp_path / "x.db"), embedding_model="none") as closed:
        closed.save("a note")
    del closed
    gc.collect()  # closed: no warning (the suite turns warnings into errors)
