"""The `engram` command line, end to end through click's CliRunner on real SQLite files.

The CLI runs on the wall clock, so "old" memories are made through the Python API with
created_at/last_used far enough in the past that the decay outcome does not depend on the
exact second the test runs.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
from click.testing import CliRunner, Result

from engram import Draft, Engram, FixedClock, Status
from engram.cli.common import short_ids
from engram.cli.main import cli
from engram.services.consolidation import ConsolidationService


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "cli.db"


def run(db: Path | None, *args: str, input: str | None = None, **env: str) -> Result:
    """Invoke the CLI in-process; `db=None` leaves the store to ENGRAM_STORAGE_PATH."""
    argv = ([] if db is None else ["--store", str(db)]) + list(args)
    # catch_exceptions=False: an unexpected exception (a traceback for the user) fails the test.
    return CliRunner().invoke(cli, argv, input=input, env=env, catch_exceptions=False)


def ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


def run_json(db: Path | None, *args: str, input: str | None = None) -> Any:
    result = ok(run(db, "--json", *args, input=input))
    return json.loads(result.stdout)  # exactly one JSON document, nothing else on stdout


def save(db: Path, content: str, *options: str) -> str:
    return str(run_json(db, "save", content, *options)["id"])


@pytest.fixture
def now() -> datetime:
    return datetime.now(UTC)


@pytest.fixture
def api(db: Path, now: datetime) -> Iterator[Engram]:
    """The Python API on the same file, with a clock pinned at (almost) the CLI's now."""
    with Engram.open(str(db), clock=FixedClock(now)) as engram:
        yield engram


# -- save and search ------------------------------------------------------------------------


def test_save_in_an_episode_lets_search_reach_the_next_turn(db: Path) -> None:
    plan = save(db, "Let's plan the kayak trip", "--episode", "chat-1")
    reply = save(db, "Sure, which weekend works?", "--episode", "chat-1")
    hits = {h["memory"]["id"]: h for h in run_json(db, "search", "kayak")["hits"]}
    assert hits[plan]["memory"]["episode"] == "chat-1"
    assert hits[reply]["memory"]["episode_seq"] == 1 and hits[reply]["why"]["context"] > 0
    assert "episode" in ok(run(db, "save", "--help")).stdout
    assert "chat-1 (#1)" in ok(run(db, "open", reply)).stdout  # `open` shows every field


def test_save_says_which_memory_it_is_like_replaces_and_why_its_strength(db: Path) -> None:
    """The MCP tool and the Python API report both; the CLI printed only the new id, and a
    probe found no word of the fact a save replaced without `--json`."""
    first = save(db, "The user likes dark mode in every editor")
    said = ok(
        run(
            db,
            "save",
            "Important: the user likes dark mode in every editor they use",
            ENGRAM_SAVE_SIMILAR_THRESHOLD="0.5",
        )
    ).stdout
    assert f"similar to {first} (similarity 0." in said
    assert "strength 1.3: important ('Important', +0.3)" in said
    vegetarian = save(db, "I'm vegetarian")
    news = ok(run(db, "save", "Update: I'm no longer vegetarian, I eat fish now")).stdout
    assert f"replaces {vegetarian} (similarity 0." in news
    assert f"similar to {vegetarian}" not in news


def test_save_json_says_what_the_save_did(db: Path) -> None:
    """The JSON held the memory alone: a script could not tell a repeat merged into a stored
    memory from a new one (probe)."""
    first = run_json(db, "save", "Lunch with Sam at Noma on Tuesday")
    assert (first["action"], first["duplicate_of"], first["similar"]) == ("saved", None, [])
    assert first["enrichment"]["entities"] == ["Sam", "Noma"]
    again = run_json(db, "save", "lunch with Sam at Noma on Tuesday!")
    assert again["id"] == first["id"] and again["content"] == first["content"]
    assert (again["action"], again["duplicate_of"]) == ("merged", first["id"])
    near = run(
        db,
        "--json",
        "save",
        "Having lunch with Sam at Noma this Tuesday",
        ENGRAM_SAVE_SIMILAR_THRESHOLD="0.5",
    )
    (similar,) = json.loads(ok(near).stdout)["similar"]
    assert similar["id"] == first["id"] and similar["similarity"] > 0.5


def test_save_then_search_finds_it_as_table_and_json(db: Path) -> None:
    result = ok(run(db, "save", "Prefers dark mode in every editor", "--tag", "ui"))
    assert result.stdout.startswith("Saved ")
    memory_id = result.stdout.split()[1]
    save(db, "The deploy window is Tuesday afternoon", "--tag", "deploy")

    table = ok(run(db, "search", "dark mode"))
    assert memory_id[:8] in table.stdout and "Prefers dark mode" in table.stdout
    assert "deploy window" not in table.stdout
    created = run_json(db, "open", memory_id)["memories"][0]["created_at"]
    assert datetime.fromisoformat(created).astimezone().date().isoformat() in table.stdout

    found = run_json(db, "search", "dark mode")
    assert found["count"] == 1
    hit = found["hits"][0]
    assert hit["memory"]["id"] == memory_id and hit["memory"]["tags"] == ["ui"]
    assert hit["reason"] == "match" and hit["score"] > 0.9


def test_global_options_may_follow_the_command(db: Path) -> None:
    """`engram search tea --json` said "No such option '--json'" (placed first, it worked)."""
    runner = CliRunner()
    saved = runner.invoke(cli, ["save", "Prefers green tea", "--store", str(db), "--json"])
    assert saved.exit_code == 0, saved.output
    memory_id = json.loads(saved.stdout)["id"]
    found = runner.invoke(cli, ["search", "tea", "--json", f"--store={db}"])
    assert found.exit_code == 0, found.output
    assert [h["memory"]["id"] for h in json.loads(found.stdout)["hits"]] == [memory_id]
    # After `--` nothing moves: the text "--json" is saved as given, and a table is printed.
    literal = ok(run(db, "save", "--", "--json"))
    assert literal.stdout.startswith("Saved ")
    assert run_json(db, "open", literal.stdout.split()[1])["memories"][0]["content"] == "--json"
    missing = runner.invoke(cli, ["stats", "--store"])
    assert missing.exit_code == 2 and "Option '--store' requires an argument" in missing.output


def test_save_options_and_content_from_stdin(db: Path) -> None:
    saved = run_json(
        db,
        "save",
        "-",
        "--tag",
        "python",
        "--entity",
        "ruff",
        "--source",
        "chat",
        "--context",
        "code review",
        "--strength",
        "1.5",
        input="Use ruff, not flake8.\nIt is faster.\n",
    )
    assert saved["content"] == "Use ruff, not flake8.\nIt is faster."
    assert saved["entities"] == ["ruff"] and saved["source"] == "chat"
    assert saved["context"] == "code review" and saved["strength"] == 1.5


def test_search_filters_by_tag_status_and_limit(db: Path) -> None:
    first = save(db, "alpha note", "--tag", "a")
    save(db, "beta note", "--tag", "b")
    ok(run(db, "delete", "--archive", first))
    assert [h["memory"]["content"] for h in run_json(db, "search", "--tag", "b")["hits"]] == [
        "beta note"
    ]
    hidden = [h["memory"]["id"] for h in run_json(db, "search", "alpha")["hits"]]
    assert first not in hidden  # archived is hidden by default
    assert run_json(db, "search", "alpha", "--status", "archived")["count"] == 1
    assert run_json(db, "search", "note", "--status", "all", "--limit", "1")["count"] == 1
    assert run_json(db, "search", "note", "--min-score", "5")["count"] == 0
    assert run_json(db, "search", "note", "--window-days", "1")["count"] == 1


def test_search_verbose_shows_why(db: Path) -> None:
    """The number column is the rank the hits were ordered by, with or without --verbose (the
    decay score shown before was out of order down the column, and read as the ranking: a
    probe); --verbose adds why, the decay score among it: a memory saved strong has score 2
    and rank 1 (the decay factor is capped)."""
    memory_id = save(db, "Prefers tea over coffee", "--tag", "drinks", "--strength", "2")
    plain = ok(run(db, "search", "tea"))
    verbose = ok(run(db, "search", "tea", "--verbose"))
    assert "1.000" in plain.stdout and "2.000" not in plain.stdout
    assert "1.000" in verbose.stdout and "decay 2" in verbose.stdout
    for label in ("text", "meaning", "decay", "rank", "match"):
        assert label in verbose.stdout
    assert "…" not in verbose.stdout  # no number cut short at 80 columns
    assert "review" not in plain.stdout
    assert memory_id[:8] in verbose.stdout and "match" in verbose.stdout


# The rest of a UUID, for ids made here that Engram would have made (`abbreviable`).
UUID_TAIL = "-4a1b-8c2d-9e3f-1234567890ab"


def test_ids_show_short_and_a_short_id_is_taken_as_git_takes_a_hash(db: Path) -> None:
    """Tables show ids as git shows hashes (8 characters) so content keeps the width; any
    command takes a unique start of an id, and says so when the start is not unique."""
    tea = save(db, "Prefers green tea in the morning before the standup with the team")
    table = ok(run(db, "search", "green tea", "--verbose", COLUMNS="80"))
    assert tea[:8] in table.stdout and tea not in table.stdout
    assert "Prefers green tea in the morning" in " ".join(table.stdout.split())
    touched = run_json(db, "touch", tea[:8])
    assert touched["memory"]["id"] == tea and touched["memory"]["use_count"] == 1
    one, two = (f"abcdef0{n}{UUID_TAIL}" for n in (1, 2))
    with Engram.open(str(db), embedding_model="none") as mem:  # two ids with one start
        mem.save_many([Draft(id=one, content="one"), Draft(id=two, content="two")])
    ambiguous = run(db, "touch", "abcdef0")
    assert ambiguous.exit_code == 1 and f"{one}, {two}" in ambiguous.stderr
    assert "not found" in run(db, "touch", "abc").stderr  # too short to stand for an id
    opened = json.loads(run(db, "--json", "open", tea[:6], "missing-id").stdout)
    assert [m["id"] for m in opened["memories"]] == [tea] and opened["missing"] == ["missing-id"]


@pytest.mark.parametrize(
    ("gone", "longer"), [("note-1", "note-10"), ("proj-alpha", "proj-alphabet")]
)
def test_a_whole_id_gone_is_not_read_as_the_start_of_a_longer_one(
    db: Path, gone: str, longer: str
) -> None:
    """Deleting note-1 a second time deleted note-10, and proj-alpha proj-alphabet (an update
    likewise overwrote it): the gone id was taken as a short id of the other. Only the ids
    Engram makes (UUIDs) are taken by their start; one chosen by hand is given whole."""
    with Engram.open(str(db), embedding_model="none") as mem:
        mem.save_many([Draft(id=gone, content="one"), Draft(id=longer, content="the other")])
        made = mem.save("a memory with an id Engram made").id
    assert gone in ok(run(db, "delete", gone)).stdout
    assert run_json(db, "delete", gone)["memory_ids"] == []
    refused = run(db, "update", gone, "--content", "overwritten")
    assert refused.exit_code != 0 and "not found" in refused.output
    assert run(db, "touch", longer[:-1]).exit_code != 0  # no start of a chosen id is one
    with Engram.open(str(db), embedding_model="none") as mem:
        assert mem.get(longer).content == "the other" and mem.get(longer).use_count == 0
    assert run_json(db, "touch", made[:8])["memory"]["id"] == made  # a start of a UUID is one


def test_search_without_results_and_rich_markup_is_shown_literally(db: Path) -> None:
    save(db, "Wrap code in [bold]tags[/bold] sparingly")
    assert "No memories found" in ok(run(db, "search", "nothing")).stdout
    assert "[bold]tags[/bold]" in ok(run(db, "search", "code")).stdout


# -- open, update, touch, observe, delete ---------------------------------------------------


def test_open_shows_every_field_and_reports_missing_ids(db: Path) -> None:
    memory_id = save(db, "Lives in Lisbon", "--tag", "home", "--entity", "Lisbon")
    shown = ok(run(db, "open", memory_id))
    for text in (memory_id, "Lives in Lisbon", "home", "Lisbon", "active", "use count"):
        assert text in shown.stdout

    both = run(db, "--json", "open", memory_id, "no-such-id")
    assert both.exit_code == 1
    assert "Error: memory not found: no-such-id" in both.stderr
    data = json.loads(both.stdout)
    assert [m["id"] for m in data["memories"]] == [memory_id]
    assert data["missing"] == ["no-such-id"]


def test_update_changes_only_given_fields(db: Path) -> None:
    memory_id = save(db, "Old text", "--tag", "x", "--source", "chat")
    updated = run_json(
        db,
        "update",
        memory_id,
        "--content",
        "New text",
        "--tag",
        "y",
        "--tag",
        "z",
        "--strength",
        "1.8",
    )
    assert updated["content"] == "New text" and updated["tags"] == ["y", "z"]
    with Engram.open(str(db)) as engram:
        m = engram.get(memory_id)
    assert (m.content, m.tags, m.strength, m.source) == ("New text", ("y", "z"), 1.8, "chat")
    assert m.use_count == 0  # editing is not using
    assert "New text" in ok(run(db, "update", memory_id, "--context", "moved")).stdout


def test_save_and_update_keep_a_memory_for_good_and_let_it_fade_again(db: Path) -> None:
    saved = ok(run(db, "save", "Blood type: A positive", "--keep"))
    assert "kept for good: gc never forgets it" in saved.stdout
    memory_id = saved.stdout.split()[1]
    with Engram.open(str(db)) as engram:
        assert engram.get(memory_id).meta == {"keep": True}
    assert run_json(db, "update", memory_id, "--no-keep")["meta"] == {}
    assert run_json(db, "update", memory_id, "--keep")["meta"] == {"keep": True}
    plain = ok(run(db, "save", "Had pizza for lunch"))
    assert "kept for good" not in plain.stdout
    vital = ok(run(db, "save", "Allergic to penicillin"))  # by its words, and said why
    assert "kept for good: gc never forgets it (safety ('Allergic'))" in vital.stdout
    assert "kept for good" not in ok(run(db, "save", "Allergic to cats", "--no-keep")).stdout


def test_update_clears_tags_and_entities(db: Path) -> None:
    """The MCP tool and the Python API could set them to none; the CLI could not (`--tag ''`
    is refused as a blank tag, and leaving it out changes nothing)."""
    memory_id = save(db, "Lunch with Dana at Globex", "--tag", "x", "--entity", "Acme")
    cleared = run_json(db, "update", memory_id, "--clear-tags", "--clear-entities")
    assert cleared["tags"] == [] and cleared["entities"] == []
    both = run(db, "update", memory_id, "--clear-tags", "--tag", "y")
    assert both.exit_code == 2 and "--clear-tags goes without --tag" in both.stderr


def test_update_clears_a_source_or_context_given_empty(db: Path) -> None:
    """`--source ""` said "give at least one field to change"; beside another option it was
    dropped without a word."""
    memory_id = save(db, "Standup moved to 10am", "--source", "standup", "--context", "team")
    cleared = run_json(db, "update", memory_id, "--source", "", "--strength", "1.2")
    assert (cleared["source"], cleared["context"], cleared["strength"]) == (None, "team", 1.2)
    assert run_json(db, "update", memory_id, "--context", "")["context"] is None


def test_a_search_over_every_status_shows_which_is_archived(db: Path) -> None:
    """`search --status all` listed archived and active memories alike."""
    old = save(db, "Old plan for the Atlas launch")
    save(db, "New plan for the Atlas launch")
    ok(run(db, "delete", old, "--archive"))
    every = ok(run(db, "search", "atlas", "--status", "all")).stdout
    assert "status" in every and "archived" in every and "active" in every
    assert "status" not in ok(run(db, "search", "atlas")).stdout


def test_touch_and_observe_reinforce(db: Path) -> None:
    memory_id = save(db, "Prefers short answers", "--tag", "style", "--tag", "preference")
    touched = run_json(db, "touch", memory_id)
    assert touched["memory"]["use_count"] == 1 and touched["new_score"] > touched["old_score"]
    assert "Touched" in ok(run(db, "touch", memory_id, "--boost")).stdout

    observed = run_json(db, "observe", memory_id, "--context-tag", "cooking")
    (entry,) = observed["results"]
    assert entry["cross_domain"] is True
    assert "cross-domain" in ok(run(db, "observe", memory_id, "--context-tag", "style")).stdout
    with Engram.open(str(db)) as engram:
        m = engram.get(memory_id)
    assert m.use_count == 4 and m.review_count == 2 and m.cross_domain_count == 1
    assert m.strength == pytest.approx(1.2)  # touch boost + cross-domain boost
    ok(run(db, "delete", "--archive", memory_id))
    assert "it was archived and is active again" in ok(run(db, "touch", memory_id)).stdout
    with Engram.open(str(db)) as engram:
        copy = engram.save_result(Draft(content="Prefers short, direct answers")).memory.id
        (done,) = engram.consolidate(mode="apply", memory_ids=[memory_id, copy]).merged
    said = ok(run(db, "touch", memory_id)).stdout
    assert f"{memory_id} was merged into {done.merged.id}: that memory took the use" in said


def test_delete_and_archive(db: Path) -> None:
    gone, kept, archived = (save(db, f"memory {i}") for i in range(3))
    deleted = run_json(db, "delete", gone)
    assert deleted == {"action": "deleted", "count": 1, "memory_ids": [gone], "left_behind": []}
    assert "Archived 1 memory" in ok(run(db, "delete", "--archive", archived)).stdout
    with Engram.open(str(db)) as engram:
        assert [m.id for m in engram.get_many([gone, kept, archived])] == [kept, archived]
        assert engram.get(archived).status == Status.ARCHIVED


def test_unarchive_brings_a_memory_back_into_search(db: Path) -> None:
    memory_id = save(db, "Standup moved to 10am")
    ok(run(db, "delete", "--archive", memory_id))
    assert run_json(db, "search", "standup")["count"] == 0
    back = run_json(db, "unarchive", memory_id[:8])
    assert back == {
        "action": "unarchived",
        "count": 1,
        "memory_ids": [memory_id],
        "left_behind": [],
    }
    assert run_json(db, "search", "standup")["hits"][0]["memory"]["id"] == memory_id
    # one not archived is left as it is, and said so (a probe: "Back in search", count 1)
    again = run_json(db, "unarchive", memory_id)
    assert (again["count"], again["memory_ids"]) == (0, [])
    told = ok(run(db, "unarchive", memory_id)).stdout
    assert "Not archived, left as they are" in told and "Back in search" not in told


def test_an_id_too_short_to_stand_for_one_says_so(db: Path) -> None:
    """A probe typed three characters of an id and read only "memory not found: 198"."""
    memory_id = save(db, "keep me")
    result = run(db, "open", memory_id[:3])
    assert result.exit_code == 1
    assert f"memory not found: {memory_id[:3]} (a short id needs 4 characters)" in result.stderr
    assert memory_id in ok(run(db, "open", memory_id[:4])).stdout


def test_archive_with_an_unknown_id_changes_nothing(db: Path) -> None:
    memory_id = save(db, "keep me")
    result = run(db, "--json", "delete", "--archive", memory_id, "missing-id")
    assert result.exit_code == 1
    assert "Error: memory not found: missing-id" in result.stderr
    with Engram.open(str(db)) as engram:
        assert engram.get(memory_id).status == Status.ACTIVE


def test_delete_skips_unknown_ids_and_lists_what_it_deleted(db: Path) -> None:
    memory_id = save(db, "delete me")
    result = run_json(db, "delete", memory_id, "missing-id")
    assert result == {"action": "deleted", "count": 1, "memory_ids": [memory_id], "left_behind": []}
    # Nothing to delete said "Deleted 0 memories: " and stopped mid-sentence.
    none = ok(run(db, "delete", memory_id, "missing-id")).stdout
    assert "Deleted 0 memories (no memory has the ids " in none and "missing-id)" in none
    # one mistyped id among several was not said (a probe)
    other = save(db, "delete me too")
    said = ok(run(db, "delete", other[:8], "nope-id")).stdout
    assert f"Deleted 1 memory: {other} (no memory has the id nope-id)" in said
    # an id too short to stand for another is skipped too, as any unknown id: it failed the
    # whole command, the known id left undeleted (a probe)
    third = save(db, "and me")
    said = ok(run(db, "delete", third, "abc")).stdout
    assert f"Deleted 1 memory: {third} (no memory has the id abc)" in said


# -- maintenance ----------------------------------------------------------------------------


def test_gc_dry_run_lists_then_apply_deletes(db: Path, api: Engram, now: datetime) -> None:
    long_ago = now - timedelta(days=200)
    old = api.save("Forgotten trivia", created_at=long_ago, last_used=long_ago)
    fresh = api.save("Fresh fact")

    dry = ok(run(db, "gc"))
    assert "Dry run: 1 memory would be deleted" in dry.stdout
    # a short id, as in every table (a whole one ran the table past 80 columns)
    assert old.id[:8] in dry.stdout and old.id not in dry.stdout
    assert "Forgotten trivia" in dry.stdout
    assert "marked important" not in dry.stdout
    assert api.stats().total == 2

    applied = run_json(db, "gc", "--apply")
    assert applied == {
        "dry_run": False,
        "archived": False,
        "count": 1,
        "memory_ids": [old.id],
        "has_more": False,
        "promoted": [],
        "promote_error": None,
    }
    assert [m.id for m in api.get_many([old.id, fresh.id])] == [fresh.id]
    assert run_json(db, "gc")["count"] == 0


def test_gc_dry_run_points_out_memories_marked_important(
    db: Path, api: Engram, now: datetime
) -> None:
    """Unused for long, a "Critical: …" memory fades as the trivia does, and the list gave
    nothing to tell it apart (a probe): its strength is shown, and what keeps it said."""
    long_ago = now - timedelta(days=400)
    api.save("Critical: never restart payments", strength=2.0, created_at=long_ago)
    api.save("Lunch was a tuna sandwich", created_at=long_ago)
    dry = ok(run(db, "gc")).stdout
    assert "Dry run: 2 memories would be deleted" in dry
    assert "1 of them is marked important" in dry and "engram update ID --keep" in dry


def test_gc_archive_and_limit(db: Path, api: Engram, now: datetime) -> None:
    ids = [api.save(f"old {i}", created_at=now - timedelta(days=200 + i)).id for i in range(3)]
    limited = run_json(db, "gc", "--limit", "2")
    assert limited["count"] == 2 and limited["has_more"] is True
    # a dry run changes nothing: running it again would list the same two
    assert "More memories are due: raise --limit" in ok(run(db, "gc", "--limit", "2")).stdout
    out = ok(run(db, "gc", "--apply", "--archive"))
    assert "Archived 3 memories" in out.stdout
    assert {m.status for m in api.get_many(ids)} == {Status.ARCHIVED}


def test_candidates_promote_and_review(db: Path, api: Engram, now: datetime) -> None:
    busy = api.save("Used all the time")
    for _ in range(5):
        api.touch(busy.id)
    nine_days = now - timedelta(days=9)  # score ≈ 0.23: inside the default danger zone
    fading = api.save("Fading but important", created_at=nine_days)

    promote = run_json(db, "candidates", "promote")
    assert [(c["memory"]["id"], c["reason"]) for c in promote["candidates"]] == [(busy.id, "usage")]
    review = run_json(db, "candidates", "review", "--limit", "5")
    assert [c["memory"]["id"] for c in review["candidates"]] == [fading.id]
    assert 0 < review["candidates"][0]["review_priority"] <= 1

    assert busy.id[:8] in ok(run(db, "candidates", "promote")).stdout
    assert "danger zone" in ok(run(db, "candidates", "review")).stdout
    api.delete([busy.id, fading.id])
    assert "No memory to review." in ok(run(db, "candidates", "review")).stdout
    assert "No memory is due for promotion." in ok(run(db, "candidates", "promote")).stdout


def test_relate_and_graph_pagination(db: Path) -> None:
    a, b, c = (save(db, f"node {i}") for i in range(3))
    relation = run_json(db, "relate", a, b, "--type", "supports", "--strength", "0.5")
    assert (relation["from_id"], relation["to_id"], relation["type"]) == (a, b, "supports")
    assert relation["strength"] == 0.5
    assert run_json(db, "relate", a, b, "--type", "supports")["id"] == relation["id"]
    assert f"{b} -[related]-> {c}" in ok(run(db, "relate", b, c)).stdout
    # The related table reads as the relations do, left to right: from c, "c <-[related]- b"
    # (the memory reached stood first: "b <-[related]- c", as if c related to b).
    rows = [
        " ".join(line.split())
        for line in ok(run(db, "related", c, COLUMNS="200")).stdout.splitlines()
    ]
    assert any(f"1 │ {c[:8]} │ <-[related]- │ {b[:8]} │" in row for row in rows), rows
    rows = [
        " ".join(line.split())
        for line in ok(run(db, "related", a, COLUMNS="200")).stdout.splitlines()
    ]
    assert any(f"1 │ {a[:8]} │ -[supports]-> │ {b[:8]} │" in row for row in rows), rows

    first = run_json(db, "graph", "--limit", "2")
    assert [m["id"] for m in first["memories"]] == [a, b]
    assert len(first["relations"]) == 2 and first["next_cursor"].startswith(f"{b}@")
    second = run_json(db, "graph", "--limit", "2", "--cursor", first["next_cursor"])
    assert [m["id"] for m in second["memories"]] == [c] and second["next_cursor"] is None
    table = ok(run(db, "graph", "--limit", "2"))
    # the hint repeats the store and the page size: a copied hint paged another store
    hint = f"engram --store {db} graph --limit 2 --cursor {first['next_cursor']}"
    assert hint in " ".join(table.stdout.split()) and "supports" in table.stdout


def test_the_graphs_next_page_hint_shows_no_password(postgres_url: str) -> None:
    """The hint repeated `--store` as typed, a PostgreSQL password with it (a probe); the
    test server trusts its socket, so the password given is not checked."""
    parts = urlsplit(postgres_url)
    where = parts.netloc.rpartition("@")[2]
    url = urlunsplit(parts._replace(netloc=f"{parts.username or 'postgres'}:s3cret-pw@{where}"))
    for text in ("first", "second"):
        ok(run(None, "--store", url, "save", text, ENGRAM_EMBEDDING_MODEL="none"))
    shown = ok(run(None, "--store", url, "graph", "--limit", "1", ENGRAM_EMBEDDING_MODEL="none"))
    assert "Next page: engram --store" in shown.stdout and ":***@" in shown.stdout
    assert "s3cret-pw" not in shown.output


def test_unrelate_removes_one_relation(db: Path) -> None:
    a, b = save(db, "cause"), save(db, "effect")
    relation = run_json(db, "relate", a, b, "--type", "causes")
    out = ok(run(db, "unrelate", relation["id"])).stdout
    assert f"Removed {a} -[causes]-> {b} (relation {relation['id']})" in " ".join(out.split())
    assert run_json(db, "related", a)["related"] == []
    assert {m["id"] for m in run_json(db, "graph")["memories"]} == {a, b}
    again = run(db, "unrelate", relation["id"])
    assert again.exit_code == 1
    assert again.stderr.strip() == f"Error: relation not found: {relation['id']}"


def test_relating_again_with_another_strength_says_it_was_not_applied(db: Path) -> None:
    a, b = save(db, "cause"), save(db, "effect")
    first = run_json(db, "relate", a, b, "--type", "supports")
    out = " ".join(
        ok(run(db, "relate", a, b, "--type", "supports", "--strength", "0.3")).stdout.split()
    )
    assert "(strength 1, relation" in out and "the strength 0.3 given was not applied" in out
    assert f"engram unrelate {first['id']}" in out
    c = save(db, "side effect")
    run_json(db, "relate", a, c, "--strength", "0.3")
    same = " ".join(ok(run(db, "relate", a, c)).stdout.split())
    assert "(strength 0.3," in same and "not applied" not in same  # no strength was asked


def test_stats(db: Path) -> None:
    save(db, "one")
    ok(run(db, "delete", "--archive", save(db, "two")))
    stats = run_json(db, "stats")
    assert stats["total"] == 2 and stats["location"] == str(db)
    assert stats["by_status"] == {"active": 1, "promoted": 0, "archived": 1}
    table = ok(run(db, "stats")).stdout
    assert "archived" in table and "power_law" in table


# -- settings and the store location --------------------------------------------------------


def test_config_shows_settings_sources_and_files(tmp_path: Path) -> None:
    result = ok(run(None, "config", ENGRAM_DECAY_BETA="0.7"))
    line = next(x for x in result.stdout.splitlines() if "ENGRAM_DECAY_BETA" in x)
    assert "0.7" in line and "environment" in line
    assert "ENGRAM_PL_ALPHA" in result.stdout and ".env" in result.stdout

    data = json.loads(ok(run(None, "--json", "config", ENGRAM_DECAY_BETA="0.7")).stdout)
    assert data["settings"]["decay_beta"] == {
        "env_var": "ENGRAM_DECAY_BETA",
        "value": 0.7,
        "source": "environment",
    }
    assert data["settings"]["pl_alpha"]["source"] == "default"
    files = {f["role"]: f["path"] for f in data["files"]}
    assert files["project config"] == str(tmp_path / ".env")
    assert files["user config"].endswith(os.path.join("engram", ".env"))
    assert files["default store"].endswith("engram.db")

    overridden = json.loads(ok(run(tmp_path / "x.db", "--json", "config")).stdout)
    assert overridden["settings"]["storage_path"]["source"] == "command line"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "postgresql://engram:s3cret-pw@db.example:5432/memory",
            "engram:***@db.example:5432/memory",
        ),
        # a password in the query string, or with characters URL parsing takes for the path
        ("postgresql://engram@db.example/memory?password=s3cret-pw", "memory?password=***"),
        ("postgresql://engram@db/m?sslmode=require&sslpassword=s3cret-pw", "sslpassword=***"),
        # libpq decodes a parameter's name: "pass%77ord" is "password" (it was shown whole)
        ("postgresql://engram@db/m?pass%77ord=s3cret-pw&sslmode=require", "pass%77ord=***&ssl"),
        ("postgresql://engram:s3cret#pw@db.example/memory", "engram:***@db.example/memory"),
        ("postgresql://engram:s3cret/pw@db.example/memory", "engram:***@db.example/memory"),
        ("postgresql://engram:s3cret#x?y@db.example/memory", "engram:***@db.example/memory"),
        # an "@" in the query is not the end of the password: host and database stay shown
        (
            "postgresql://engram:s3cret@db.example/memory?application_name=a@b",
            "engram:***@db.example/memory?application_name=a@b",
        ),
        # "=" in the password (base64 ends in "=="): it was taken for the query's, and the
        # whole URL printed
        ("postgresql://engram:s3cretZm9v==@db.example/memory", "engram:***@db.example/memory"),
        (
            "postgresql://engram:s3cret=x@db.example/memory?application_name=a@b",
            "engram:***@db.example/memory?application_name=a@b",
        ),
    ],
)
def test_config_never_prints_a_database_password(url: str, shown: str) -> None:
    for args in (("config",), ("--json", "config")):
        result = ok(run(None, *args, ENGRAM_STORAGE_PATH=url))
        assert "s3cret" not in result.stdout
        assert shown in result.stdout


def test_control_characters_in_memories_never_reach_the_terminal(db: Path) -> None:
    """A memory's text (saved over MCP by anyone the assistant reads) with escape sequences
    retitled and recoloured the user's terminal when listed; `[red]` is not markup either."""
    text = "title\x1b]0;HACKED\x07 osc \x1b[31mred [red]markup[/red] \u202eright-to-left"
    # (a tag cannot hold one: refused at save, tests/services/test_memories.py)
    saved = run_json(db, "save", text, "--source", "s\x1bq")
    assert saved["content"] == text  # stored as given
    for args in (("search", "osc"), ("open", saved["id"]), ("search",), ("graph",)):
        out = ok(run(db, *args)).stdout
        assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out, args
        assert "\u202e" not in out, args  # a bidi override reversed the rest of the row
        assert "\\x1b]0;HACKED" in out or "\\x1b" in out, args
    assert "[red]markup[/red]" in ok(run(db, "open", saved["id"])).stdout
    analysed = ok(run(db, "analyze", "Remember: the door code is \x1b[2J1234")).stdout
    assert "\x1b" not in analysed and "\\x1b[2J1234" in analysed


def test_config_never_prints_the_http_token() -> None:
    """The token that signs in to the HTTP server and the dashboard was printed in clear."""
    token = "supersecrettoken1234"
    for args in (("config",), ("--json", "config")):
        result = ok(run(None, *args, ENGRAM_HTTP_TOKEN=token))
        assert token not in result.stdout and "***" in result.stdout


def test_config_names_the_store_in_use_for_every_backend(tmp_path: Path) -> None:
    """A JSONL store was shown as the path "jsonl:/…" that does not exist, and a server's URL
    lost a slash; the seed's variables were reported as read from a .env file."""
    folder = tmp_path / "j1"
    ok(run(None, "--store", f"jsonl://{folder}", "save", "hello"))
    data = json.loads(ok(run(None, "--store", f"jsonl://{folder}", "--json", "config")).stdout)
    store = next(f for f in data["files"] if f["role"] == "store in use")
    assert (store["path"], store["exists"]) == (str(folder), True)
    url = "postgresql://u:pw@db.example:5432/m"
    data = json.loads(ok(run(None, "--json", "config", ENGRAM_STORAGE_PATH=url)).stdout)
    store = next(f for f in data["files"] if f["role"] == "store in use")
    assert (store["path"], store["exists"]) == ("postgresql://u:***@db.example:5432/m", None)
    seeded = json.loads(ok(run(None, "--json", "config", CORTEXGRAPH_PL_ALPHA="1.2")).stdout)
    assert seeded["settings"]["pl_alpha"]["source"] == "environment (CORTEXGRAPH_PL_ALPHA)"
    (tmp_path / ".env").write_text("ENGRAM_PL_ALPHA=2.5\n")  # the ENGRAM_ name wins
    both = json.loads(ok(run(None, "--json", "config", CORTEXGRAPH_PL_ALPHA="1.2")).stdout)
    assert both["settings"]["pl_alpha"] == {
        "env_var": "ENGRAM_PL_ALPHA",
        "value": 2.5,
        "source": ".env file",
    }


@pytest.mark.parametrize(
    "store", ["mysql://x/y", "jsonl://", "http://x", "jsonl://host/dir", "{tmp}"]
)
def test_config_fails_on_a_store_no_command_could_open(store: str, tmp_path: Path) -> None:
    """It showed such a location with exists "?" (or a folder as a SQLite store with exists
    "yes"), where every other command refuses it."""
    result = run(None, "config", ENGRAM_STORAGE_PATH=store.format(tmp=tmp_path))
    assert result.exit_code == 1 and "Error: ENGRAM_STORAGE_PATH" in result.stderr


def test_config_reads_dotenv_in_working_directory(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("ENGRAM_FORGET_THRESHOLD=0.07\nENGRAM_DECAY_BETA=0.6\n")
    data = json.loads(ok(run(None, "--json", "config")).stdout)
    assert data["settings"]["forget_threshold"]["value"] == 0.07
    assert data["settings"]["forget_threshold"]["source"] == ".env file"
    # the file gives the default value: still where it comes from (it said "default")
    assert data["settings"]["decay_beta"] == {
        "env_var": "ENGRAM_DECAY_BETA",
        "value": 0.6,
        "source": ".env file",
    }
    (tmp_path / ".env").write_text("CORTEXGRAPH_FORGET_THRESHOLD=0.08\n")  # the seed's name
    data = json.loads(ok(run(None, "--json", "config")).stdout)
    assert data["settings"]["forget_threshold"]["value"] == 0.08
    assert (
        data["settings"]["forget_threshold"]["source"] == ".env file (CORTEXGRAPH_FORGET_THRESHOLD)"
    )


def test_store_option_beats_environment(tmp_path: Path, db: Path) -> None:
    env_store = tmp_path / "env.db"
    ok(run(None, "save", "in the env store", ENGRAM_STORAGE_PATH=str(env_store)))
    ok(run(db, "save", "in the option store", ENGRAM_STORAGE_PATH=str(env_store)))
    assert run_json(db, "stats")["total"] == 1
    assert run_json(env_store, "stats")["total"] == 1
    missing = run(None, "stats")  # conftest's ENGRAM_STORAGE_PATH, where nothing was saved
    assert missing.exit_code == 1 and "there is no store at" in missing.stderr


# -- errors ---------------------------------------------------------------------------------

BAD_INPUT = [
    pytest.param(["save", "   "], "CONTENT", id="blank-content"),
    pytest.param(
        ["save", "x", *[a for i in range(51) for a in ("--tag", f"t{i}")]], "--tag", id="51-tags"
    ),
    pytest.param(["save", "x", "--strength", "3"], "strength", id="strength"),
    pytest.param(["search", "x", "--limit", "0"], "limit", id="limit-0"),
    pytest.param(["search", "--limit", "101"], "limit", id="limit-101"),
    pytest.param(["search", "--status", "deleted"], "status", id="status"),
    pytest.param(["search", "--window-days", "0"], "--window-days", id="window"),
    pytest.param(["open", "bad id!"], "IDS", id="open-bad-id"),
    pytest.param(["touch", "bad id!"], "MEMORY_ID", id="touch-bad-id"),
    pytest.param(["update", "bad id!", "--content", "x"], "MEMORY_ID", id="update-bad-id"),
    pytest.param(["update", "KNOWN"], "update", id="update-nothing"),
    pytest.param(["update", "KNOWN", "--content", " "], "--content", id="update-blank"),
    pytest.param(["delete", "bad id!"], "IDS", id="delete-bad-id"),
    pytest.param(["observe", "KNOWN", "--context-tag", " "], "--context-tag", id="observe-tag"),
    pytest.param(["relate", "KNOWN", "KNOWN"], "TO_ID", id="relate-self"),
    pytest.param(["relate", "KNOWN", "no-such-memory", "--type", "likes"], "--type", id="rel-type"),
    pytest.param(["unrelate", "bad id!"], "RELATION_ID", id="unrelate-bad-id"),
    pytest.param(["gc", "--limit", "0"], "limit", id="gc-limit"),
    pytest.param(["graph", "--limit", "1001"], "limit", id="graph-limit"),
    pytest.param(["graph", "--cursor", "no-such-id"], "cursor", id="graph-cursor"),
    pytest.param(["graph", "--html", "g.html", "--max-memories", "0"], "--max-memories", id="max"),
    # '' was the working folder: "Could not open file '.': Device or resource busy"
    pytest.param(["graph", "--html", ""], "--html: give a file name", id="html-blank"),
    # it was "plan not found: " and nothing after
    pytest.param(["consolidate", "apply", " "], "PLAN_ID: must name a plan", id="apply-blank"),
    pytest.param(["candidates", "review", "--limit", "0"], "limit", id="candidates-limit"),
    # the API's names were printed ("limit:", "agents:") where every other command says --limit
    pytest.param(["consolidate", "audit", "--limit", "0"], "--limit:", id="audit-limit"),
    pytest.param(["consolidate", "pipeline", "--agent", "Foo"], "--agent:", id="agent"),
    # the command's options, not the Python API's parameters (merged_content, auto_detect=true)
    pytest.param(
        ["promote"], "MEMORY_ID: give the id of the memory to promote, or --auto", id="promote"
    ),
    pytest.param(
        ["consolidate", "run", "--content", "x"],
        "--content: is the text of one merged memory: give it with --memory or one cluster id",
        id="consolidate-content",
    ),
    pytest.param(
        ["consolidate", "run", "--cohesion", "5"],
        "--cohesion: must be between 0 and 1",
        id="consolidate-cohesion",
    ),
    # Bytes that are not UTF-8 (a Latin-1 terminal, a file piped in) reach Python as lone
    # surrogates; they used to fail deep in the store with a traceback.
    pytest.param(["save", "caf\udce9 au lait"], "CONTENT", id="save-undecodable"),
    pytest.param(["save", "ok", "--tag", "\udcff"], "--tag", id="tag-undecodable"),
    pytest.param(["search", "caf\udce9"], "QUERY", id="search-undecodable"),
]


@pytest.mark.parametrize(("args", "field"), BAD_INPUT)
def test_bad_input_is_one_clean_error_and_changes_nothing(
    db: Path, args: list[str], field: str
) -> None:
    known = save(db, "the only memory", "--tag", "a")
    before = run_json(db, "graph")
    result = run(db, "--json", *[known if a == "KNOWN" else a for a in args])
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ")
    assert field in lines[0]
    assert run_json(db, "graph") == before


@pytest.mark.parametrize("command", [["stats"], ["config"], ["search", "x"], ["save", "x"]])
def test_bad_setting_names_the_variable(db: Path, command: list[str]) -> None:
    result = run(db, *command, ENGRAM_DECAY_BETA="abc")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: invalid setting ENGRAM_DECAY_BETA")
    assert "Traceback" not in result.output
    assert not db.exists()  # nothing was opened, let alone written


def test_bad_store_url_is_a_clean_error(tmp_path: Path) -> None:
    result = run(None, "--store", "ftp://example.com/x.db", "stats")
    assert result.exit_code == 1
    assert "Error: --store: unsupported store URL scheme 'ftp'" in result.stderr
    from_setting = run(None, "stats", ENGRAM_STORAGE_PATH="ftp://example.com/x.db")
    assert "Error: ENGRAM_STORAGE_PATH: unsupported store URL scheme" in from_setting.stderr


def test_the_dashboard_does_not_open_a_mistyped_store(tmp_path: Path) -> None:
    """It made the store and said "No memories yet" of it (a probe). In a process of its own,
    with a timeout: a dashboard that starts serves until stopped."""
    typo = tmp_path / "typo" / "x.db"
    done = subprocess.run(
        [sys.executable, "-m", "engram.cli.main", "--store", str(typo), "ui", "--port", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and f"there is no store at {typo}" in done.stderr
    assert not (tmp_path / "typo").exists()


@pytest.mark.parametrize("command", [["search", "anything"], ["stats"], ["export"], ["gc"]])
def test_a_mistyped_store_is_not_made_by_a_command_that_only_reads(
    tmp_path: Path, command: list[str]
) -> None:
    """`--store typo/x.db search …` made the folders and an empty store, and answered "No
    memories found": the user's memories looked lost. Only saving and imports make a store."""
    typo = tmp_path / "typo" / "deeper" / "x.db"
    result = run(typo, *command)
    assert result.exit_code == 1 and f"there is no store at {typo}" in result.stderr
    said = " ".join(result.stderr.split())  # every command that makes one (three were named)
    for maker in ("engram save", "import", "migrate", "demo", "vault import --apply", "serve"):
        assert f"`{maker}`" in said, maker
    assert not (tmp_path / "typo").exists()
    folder = tmp_path / "project"  # an existing folder that holds no JSONL store
    folder.mkdir()
    (folder / "README.md").write_text("not a store\n")
    result = run(None, "--store", f"jsonl://{folder}", *command)
    assert result.exit_code == 1 and "there is no store at" in result.stderr
    assert [p.name for p in folder.iterdir()] == ["README.md"]
    ok(run(typo, "save", "the first memory"))  # saving makes it
    assert run_json(typo, "stats")["total"] == 1


def test_a_store_of_the_other_kind_is_named(tmp_path: Path) -> None:
    """A JSONL folder given as a path was "unable to open database file"; a SQLite file given
    as jsonl:// was "File exists"."""
    folder = tmp_path / "notes"
    ok(run(None, "--store", f"jsonl://{folder}", "save", "in a JSONL store"))
    result = run(None, "--store", str(folder), "stats")
    assert result.exit_code == 1 and f"open it as jsonl://{folder}" in result.stderr
    ok(run(tmp_path / "a.db", "save", "in a SQLite store"))
    result = run(None, "--store", f"jsonl://{tmp_path / 'a.db'}", "stats")
    assert result.exit_code == 1 and "is a file, not a JSONL store's folder" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["no-such-command"],
        ["save"],
        ["search", "--limit", "many"],
        ["observe", "some-id"],  # --context-tag is required
        ["candidates", "later"],
        ["--bogus", "stats"],
    ],
)
def test_usage_errors_exit_2(db: Path, args: list[str]) -> None:
    result = run(db, *args)
    assert result.exit_code == 2
    assert "Usage:" in result.stderr and "Traceback" not in result.output


# -- demo -----------------------------------------------------------------------------------


def test_demo_prints_the_decay_table_and_recreates_its_store(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    first = ok(run(None, "demo"))
    for text in (
        "Decay score by simulated day",
        "day 30",
        "promotion candidates",
        "Review candidates",
        "gc --apply: deleted 2",
        "concise answers",
    ):
        assert text in first.stdout, text
    demo_db = tmp_path / "xdg-data" / "engram" / "demo.db"
    assert demo_db.exists()
    caplog.clear()
    again = json.loads(ok(run(None, "--json", "demo")).stdout)  # recreated: same outcome
    assert again["store"] == str(demo_db)
    assert again["remaining"] == 7 and again["gc"]["count"] == 2
    # its vector index went with it: no index of the old store found and rebuilt, no warning
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_the_demo_never_writes_into_the_users_vault(tmp_path: Path) -> None:
    """With auto-promotion on, the demo's gc promoted its memories into the user's vault: one
    more copy of each at every run, pointing at a store the next run deletes."""
    vault = tmp_path / "vault"
    vault.mkdir()
    env = {"ENGRAM_VAULT_PATH": str(vault), "ENGRAM_AUTO_PROMOTE": "true"}
    for _ in range(2):
        report = json.loads(ok(run(None, "--json", "demo", **env)).stdout)
        assert report["gc"]["count"] == 2
    assert list(vault.rglob("*")) == []


def test_demo_shows_used_memories_survive_and_unused_ones_fade(db: Path) -> None:
    report = json.loads(ok(run(db, "--json", "demo")).stdout)
    scores = {m["label"]: m["scores"] for m in report["memories"]}
    assert scores["concise answers"]["30"] > scores["concise answers"]["0"]
    assert scores["office Wi-Fi"]["30"] < report["forget_threshold"]
    forgotten = set(report["gc"]["memory_ids"])
    labels = {m["id"]: m["label"] for m in report["memories"]}
    assert {labels[i] for i in forgotten} == {"meeting moved", "office Wi-Fi"}
    promoted = {labels[c["memory"]["id"]] for c in report["promotion_candidates"]}
    assert "concise answers" in promoted
    assert report["review_candidates"]


def test_after_the_demo_the_store_is_as_the_demo_showed_it(db: Path) -> None:
    """docs/cli.md: look at the result with search, gc and candidates. The simulated month
    was fixed in the past, so by the real clock everything had faded: gc would have deleted
    all seven, and no promotion candidate was left."""
    ok(run(db, "--json", "demo"))
    assert run_json(db, "gc")["count"] == 0
    promoted = run_json(db, "candidates", "promote")
    assert any("concise" in c["memory"]["content"] for c in promoted["candidates"])


def test_demo_refuses_a_store_that_holds_memories(db: Path) -> None:
    save(db, "real data")
    result = run(db, "demo")
    assert result.exit_code == 1 and "refusing to run the demo" in result.stderr
    assert run_json(db, "stats")["total"] == 1


# -- the installed console script ------------------------------------------------------------


def engram_script() -> str:
    found = shutil.which("engram", path=str(Path(sys.executable).parent)) or shutil.which("engram")
    if found is None:
        pytest.fail("the `engram` console script is not installed (pip install -e .)")
    return found


def test_piped_output_is_utf8_whatever_the_locale(tmp_path: Path) -> None:
    """Windows writes piped output in its ANSI code page: `--json search | jq` and `export >
    file` ended with a UnicodeEncodeError traceback on any memory in another script. Emulated
    here with PYTHONIOENCODING."""
    script, store = engram_script(), str(tmp_path / "a.db")
    env = {**os.environ, "ENGRAM_EMBEDDING_MODEL": "none", "PYTHONIOENCODING": "cp1252"}

    def piped(*args: str) -> bytes:
        done = subprocess.run(
            [script, "--store", store, *args], capture_output=True, timeout=60, env=env
        )
        assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr
        return done.stdout

    piped("save", "中文 notes \u202e reversed")
    found = json.loads(piped("--json", "search", "notes").decode("utf-8"))
    assert found["hits"][0]["memory"]["content"] == "中文 notes \u202e reversed"
    line, _end = piped("export").decode("utf-8").splitlines()
    assert json.loads(line)["content"] == "中文 notes \u202e reversed"


def test_console_script_entry_point(tmp_path: Path) -> None:
    script = engram_script()
    env = {**os.environ, "ENGRAM_LOG_LEVEL": "DEBUG"}  # logs must not leak onto stdout
    helped = subprocess.run(
        [script, "--help"], capture_output=True, text=True, timeout=60, env=env, check=False
    )
    assert helped.returncode == 0 and "demo" in helped.stdout and "serve" in helped.stdout
    saved = subprocess.run(
        [script, "save", "the first memory"], capture_output=True, timeout=60, env=env, check=False
    )
    assert saved.returncode == 0, saved.stderr
    stats = subprocess.run(
        [script, "--json", "stats"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["location"] == os.environ["ENGRAM_STORAGE_PATH"]
    bad = subprocess.run(
        [script, "stats"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "ENGRAM_DECAY_BETA": "abc"},
    )
    assert bad.returncode == 1 and bad.stdout == ""
    assert bad.stderr.startswith("Error: invalid setting ENGRAM_DECAY_BETA")


def test_serve_starts_the_mcp_server_and_stops_at_end_of_input() -> None:
    served = subprocess.run(
        [engram_script(), "serve"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert served.returncode == 0, served.stderr
    assert served.stdout == ""


def test_consolidate_lists_previews_applies_and_undoes(db: Path) -> None:
    copies = {"ENGRAM_SAVE_DUPLICATES": "keep"}  # a repeat is kept as a copy, to merge later
    first = json.loads(ok(run(db, "--json", "save", "Prefers oolong tea", **copies)).stdout)["id"]
    second = json.loads(ok(run(db, "--json", "save", "prefers oolong tea!", **copies)).stdout)["id"]
    save(db, "The quarterly tax return is due in April")
    found = run_json(db, "consolidate", "clusters")
    (cluster,) = found["clusters"]
    assert sorted(cluster["member_ids"]) == sorted([first, second])
    title = ok(run(db, "consolidate", "clusters")).stdout.splitlines()[0]
    assert title.strip() == "1 cluster"  # it said "1 clusters"
    assert "Preview only" in ok(run(db, "consolidate", "run")).stdout
    applied = run_json(db, "consolidate", "run", "--apply", "--cluster", cluster["id"])
    merged = applied["merged"][0]["merged"]["id"]
    assert run_json(db, "consolidate", "clusters")["count"] == 0
    restored = run_json(db, "consolidate", "undo", merged)["restored_ids"]
    assert sorted(restored) == sorted([first, second])
    refused = run(db, "consolidate", "run", "--apply", "--cohesion", "2")
    assert refused.exit_code == 1 and "Error: --cohesion: " in refused.stderr


def test_ctrl_c_in_a_run_names_the_merges_already_made(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C in `consolidate run --apply` said only "Aborted!" after dozens of merges, whose
    ids were then found only in an export (a probe). Ctrl-C is raised in place of the second
    merge: a real signal cannot be timed to fall between two merges."""
    copies = {"ENGRAM_SAVE_DUPLICATES": "keep"}
    for text in (
        "Prefers oolong tea",
        "prefers oolong tea!",
        "Parks on level 3",
        "parks on level 3.",
    ):
        ok(run(db, "save", text, **copies))
    real = ConsolidationService.apply
    calls: list[int] = []

    def apply_then_interrupt(self: ConsolidationService, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) > 1:
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    monkeypatch.setattr(ConsolidationService, "apply", apply_then_interrupt)
    stopped = run(db, "consolidate", "run", "--apply")
    assert stopped.exit_code == 1 and "Aborted!" in stopped.stderr
    said = " ".join(stopped.stderr.split())
    assert "Stopped after 1 merge (undo one with `engram consolidate undo ID`):" in said
    monkeypatch.undo()
    (merged,) = [m for m in run_json(db, "graph")["memories"] if m["id"].startswith("merged-")]
    assert merged["id"] in said
    assert run_json(db, "consolidate", "undo", merged["id"])["restored_ids"]


def test_a_run_with_nothing_to_merge_points_to_the_clusters_left_for_review(db: Path) -> None:
    save(db, "The flight to Lisbon leaves at 9am")
    save(db, "Our Lisbon flight departs at 9am")
    said = ok(run(db, "consolidate", "run")).stdout
    assert "Nothing to merge" in said and "1 cluster in the review band" in said
    assert run_json(db, "consolidate", "run")["left_for_review"] == 1
    # declined by a person: it does not come back
    (cluster,) = run_json(db, "consolidate", "clusters")["clusters"]
    kept = ok(run(db, "consolidate", "keep-apart", "--cluster", cluster["id"])).stdout
    assert "Kept 2 memories apart (1 pair newly marked)" in kept
    assert run_json(db, "consolidate", "run")["left_for_review"] == 0
    assert "review band" not in ok(run(db, "consolidate", "run")).stdout
    refused = run(db, "consolidate", "keep-apart", "--memory", cluster["member_ids"][0])
    assert refused.exit_code == 1 and "Error: --memory: name at least two" in refused.stderr


def test_a_cluster_kept_apart_shows_its_members_to_name(db: Path) -> None:
    """A probe: a `keep` row showed id, size, cohesion and action, and nothing of what it
    grouped; its members were found only with --json."""
    hiked = json.loads(ok(run(db, "--json", "save", "We hiked in the Alps last summer")).stdout)
    skied = json.loads(
        ok(run(db, "--json", "save", "Skiing in the Alps is my favourite winter trip")).stdout
    )
    (cluster,) = run_json(db, "consolidate", "clusters", "--threshold", "0.4")["clusters"]
    assert cluster["action"] == "keep"
    assert sorted(cluster["member_ids"]) == sorted([hiked["id"], skied["id"]])
    listed = " ".join(ok(run(db, "consolidate", "clusters", "--threshold", "0.4")).stdout.split())
    assert "members: " + ", ".join(i[:8] for i in cluster["member_ids"]) in listed


def test_clusters_show_their_notes_and_a_merge_its_every_line(db: Path) -> None:
    """The clusters table hid why a cluster waits for review (Monday against Friday), showed
    a merged text's first line alone, and "apply: 1 cluster" titled an apply that merged
    none (a probe)."""
    save(db, "Lunch with Bob on Monday at noon")
    save(db, "Lunch with Bob on Friday at noon")
    listed = ok(run(db, "consolidate", "clusters")).stdout
    note = " ".join(listed.split())
    assert "where another says" in note and "'monday'" in note and "'friday'" in note
    applied = ok(run(db, "consolidate", "run", "--apply", "--cohesion", "0.5")).stdout
    assert "apply: 1 cluster, 0 merged" in applied
    (cluster,) = run_json(db, "consolidate", "clusters")["clusters"]
    shown = ok(run(db, "consolidate", "run", "--cluster", cluster["id"])).stdout
    assert "on Monday at noon" in shown and "on Friday at noon" in shown


def test_a_repeat_says_the_stored_strength_and_a_similar_memory_on_one_line(db: Path) -> None:
    """A repeat printed the new text's strength (1.2), not the stored memory's (1.3); and a
    merged memory listed as similar printed its lines raw, each at column 0 (a probe)."""
    first = save(db, "The user is allergic to peanuts", "--strength", "1.5")
    said = ok(run(db, "save", "the user is allergic to peanuts!")).stdout
    assert run_json(db, "open", first)["memories"][0]["strength"] == 1.5
    assert f"Already saved as {first}" in said
    assert "strength 1.5: the stored memory's, which a repeat never lowers" in said  # explained
    merged = save(db, "Sam's dog Biscuit is a golden retriever\nBiscuit is Sam's dog")
    wide = {"COLUMNS": "200"}  # no wrapping: each printed line is one line of the output
    similar = ok(run(db, "save", "Sam has a golden retriever called Biscuit", **wide)).stdout
    (line,) = [ln for ln in similar.splitlines() if merged in ln]
    assert line.endswith("golden retriever Biscuit is Sam's dog")


def test_a_named_merge_that_did_not_happen_exits_1(db: Path) -> None:
    """Thirty tags each: the merged memory would pass the limit of fifty. The preview says
    it will be skipped; the apply skips it and exits 1 (it exited 0, as if merged)."""
    tags = {n: [a for i in range(30) for a in ("--tag", f"{n}{i}")] for n in "ab"}
    a = save(db, "The billing API allows 500 requests per minute per key", *tags["a"])
    b = save(db, "The billing API allows 500 requests per minute for each key", *tags["b"])
    preview = ok(run(db, "consolidate", "run", "--memory", a, "--memory", b))
    assert "merged tags: has 60 entries; the limit is 50" in preview.stdout
    applied = run(db, "consolidate", "run", "--apply", "--memory", a, "--memory", b)
    assert applied.exit_code == 1 and "Skipped cluster-" in applied.stdout
    assert run_json(db, "stats")["total"] == 2


def test_saving_a_repeat_says_it_was_merged(db: Path) -> None:
    first = save(db, "Prefers dark mode", "--tag", "ui")
    again = ok(run(db, "save", "prefers dark mode!", "--tag", "editor"))
    assert f"Already saved as {first}: merged it" in again.stdout
    assert run_json(db, "open", first)["memories"][0]["tags"] == ["ui", "editor"]


def test_analyze_says_what_a_message_asks_of_the_memory(db: Path) -> None:
    saved = save(db, "Uses TypeScript for every frontend project")
    found = run_json(db, "analyze", "Remember: I prefer TypeScript over JavaScript")
    assert (found["intent"], found["content"]) == ("save", "I prefer TypeScript over JavaScript")
    confirm = run_json(db, "analyze", "yes, still using TypeScript", "--recent", saved)
    assert confirm["touch"] == [saved]
    # the start of an id, as every command takes (it gave [] without a word)
    short = run_json(db, "analyze", "yes, still using TypeScript", "--recent", saved[:8])
    assert short["touch"] == [saved]
    recall = ok(run(db, "analyze", "--recall", "What did I say about TypeScript last week?"))
    back_to_last_monday = datetime.now().astimezone().weekday() + 8  # this machine's days
    assert "search: TypeScript" in recall.output
    assert f"last {back_to_last_monday} days" in recall.output
    # without --recall too: it said only "intent: recall" (probe)
    asked = ok(run(db, "analyze", "What did I say about TypeScript last week?")).output
    assert "intent: recall" in asked and "search: TypeScript" in asked
    # a request to forget says which memories it names, and deletes none
    dropped = ok(run(db, "analyze", "Please forget what I said about TypeScript")).output
    assert "intent: forget" in dropped and f"forget: {saved}" in dropped
    assert "delete them once the user confirms" in dropped
    assert run_json(db, "open", saved)


def test_analyze_needs_no_store_unless_it_reads_memories(tmp_path: Path) -> None:
    """The rules read the message alone, yet `engram analyze` on a fresh install said "there
    is no store" (audit); it still makes none. --recent reads memories: that one needs it."""
    fresh = tmp_path / "none-yet" / "engram.db"
    found = run_json(fresh, "analyze", "Remember: I prefer TypeScript over JavaScript")
    assert (found["intent"], found["content"]) == ("save", "I prefer TypeScript over JavaScript")
    recall = run_json(fresh, "analyze", "--recall", "What did I say about TypeScript?")
    assert recall["queries"] == ["TypeScript?"]
    refused = run(fresh, "analyze", "yes, that one", "--recent", "abc")
    assert refused.exit_code == 1 and "there is no store" in refused.stderr
    assert not (tmp_path / "none-yet").exists()


def test_analyze_reads_the_store_as_the_mcp_tools_do(db: Path) -> None:
    """It read the message alone unless given --recent: "Is Lisa still vegetarian?" was none
    where the store knows Lisa, and a fact the store holds already was a save to make again,
    where the MCP tool it says it is answered recall, and touch (a helper's probe)."""
    ok(run(db, "save", "Lisa is vegetarian", "--entity", "Lisa"))
    allergy = save(db, "I'm allergic to peanuts")
    asked = run_json(db, "analyze", "Is Lisa still vegetarian?")
    assert asked["intent"] == "recall"
    known = run_json(db, "analyze", "I am allergic to peanuts.")
    assert (known["should_save"], known["touch"]) == (False, [allergy])


def test_the_pipeline_from_the_shell(db: Path) -> None:
    for text in ("Prefers tea over coffee", "prefers tea over coffee!"):
        ok(run(db, "save", text, ENGRAM_SAVE_DUPLICATES="keep"))
    plan = run_json(db, "consolidate", "pipeline", "--agent", "SemanticMerge")
    assert plan["dry_run"] and plan["summary"] == {"SemanticMerge": {"planned": 1}}
    shown = ok(run(db, "consolidate", "pipeline", "--agent", "semanticmerge"))
    assert "Dry run: apply this plan with `engram consolidate apply plan-" in shown.output
    # what each step would do and why, not counts alone (a helper's probe: nothing to judge)
    (why,) = [s["why"] for s in plan["steps"]]
    step = next(line for line in shown.output.splitlines() if line.startswith("step 0 ("))
    assert step.startswith("step 0 (SemanticMerge ") and step.endswith(f"): {why}") and why
    done = run_json(db, "consolidate", "apply", plan["plan_id"])
    assert done["summary"] == {"SemanticMerge": {"done": 1}}
    trail = ok(run(db, "consolidate", "audit", "--plan", plan["plan_id"]))
    assert "SemanticMerge" in trail.output and "done" in trail.output
    assert "why" in trail.output.splitlines()[2]  # a column of its own
    refused = run(db, "consolidate", "apply", plan["plan_id"])
    assert refused.exit_code != 0 and "was applied already" in refused.output


def test_a_dry_run_that_only_reports_says_there_is_nothing_to_apply(
    db: Path, now: datetime
) -> None:
    """A plan of reports alone (memories at risk) said "apply this plan with …": applying it
    changed nothing, and applying it again was refused (a CLI probe)."""
    with Engram.open(str(db), clock=FixedClock(now - timedelta(days=9))) as engram:
        engram.save("The spare key is under the blue flowerpot")  # in the danger zone now
    plan = run_json(db, "consolidate", "pipeline", "--agent", "DecayAnalyzer")
    assert [s["action"] for s in plan["steps"]] == ["at_risk"]
    shown = ok(run(db, "consolidate", "pipeline", "--agent", "DecayAnalyzer")).stdout
    assert "Dry run: nothing to apply, the plan only reports" in shown
    assert "apply this plan" not in shown


@pytest.mark.parametrize("hours", ["inf", "1e308", "3000000", "nan", "0", "-1", "1e-9", "0.01"])
def test_a_scheduled_pipeline_refuses_an_interval_it_cannot_sleep(db: Path, hours: str) -> None:
    """inf or 1e308 hours ran one pass, then failed in time.sleep with an OverflowError
    traceback; 1e-9 ran the agents back to back, hundreds of audit entries a second. The
    interval is checked before anything runs."""
    result = run(db, "consolidate", "pipeline", "--scheduled", "--interval-hours", hours)
    assert result.exit_code == 2 and "--interval-hours" in result.output
    assert "at least 0.0167 (a minute)" in result.output
    assert "Traceback" not in result.output


def test_short_ids_grow_only_where_two_ids_start_alike() -> None:
    ids = [f"abcdef{x}{UUID_TAIL}" for x in ("12", "5a", "13")] + [f"ffffffff{UUID_TAIL}"]
    assert short_ids(ids) == {
        f"abcdef12{UUID_TAIL}": "abcdef12",
        f"abcdef13{UUID_TAIL}": "abcdef13",
        f"abcdef5a{UUID_TAIL}": "abcdef5a",
        f"ffffffff{UUID_TAIL}": "ffffffff",
    }
    twins = [f"abcdef12{UUID_TAIL}", f"abcdef12{UUID_TAIL[:-1]}c"]
    assert short_ids(twins) == {t: t for t in twins}  # alike to their last character


def test_a_short_id_shown_is_one_that_resolves(db: Path) -> None:
    """An id chosen by hand is shown whole ("note-123" of note-12345678 found nothing); the
    ids Engram made are shown by their start, and that start is what `open` and `touch`
    take, however many chosen ids start alike (task-10 … task-13 hid the one it stood for)."""
    assert short_ids(["note-12345678", "abcdefgh1234"]) == {
        "note-12345678": "note-12345678",
        "abcdefgh1234": "abcdefgh1234",
    }
    with Engram.open(str(db), embedding_model="none") as mem:
        made = mem.save("the one").id
        prefix = made[:4]
        mem.save_many([Draft(id=f"{prefix}-{n}", content=f"task {n}") for n in range(10, 30)])
    shown = short_ids([made])[made]
    assert len(shown) == 8 and made.startswith(shown)
    assert run_json(db, "open", prefix)["memories"][0]["id"] == made
    assert run_json(db, "touch", shown)["memory"]["id"] == made


def test_a_table_marks_a_memory_with_more_lines_after_any_line_break(db: Path) -> None:
    """Cut at a carriage return or U+2028, the rest was hidden without the mark (only a \\n
    showed " …")."""
    for text in ("Deploy on Tuesday\rEXCEPT in December", "Rule A\u2028but not for B"):
        save(db, text)
    shown = ok(run(db, "search")).stdout
    assert "Deploy on Tuesday …" in shown and "Rule A …" in shown


def test_a_scheduled_pipeline_keeps_running_after_a_failed_run(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first failure (here another run holding the store) ended a schedule meant to run
    until Ctrl-C. The pause between runs is replaced so the test need not wait an interval."""
    ok(run(db, "save", "Prefers tea over coffee"))
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        if len(sleeps) == 2:
            raise KeyboardInterrupt  # Ctrl-C after the second run

    monkeypatch.setattr("engram.cli.consolidate.pause", sleep)
    with Engram.open(str(db)) as other, other.app.context.store.exclusive("pipeline"):
        result = CliRunner().invoke(
            cli, ["--store", str(db), "consolidate", "pipeline", "--scheduled"]
        )
    assert len(sleeps) == 2 and sleeps[0] == 24 * 3600
    assert result.stderr.count("already running") == 2 and "next run is in 24 h" in result.stderr


def test_a_scheduled_pipeline_prints_json_lines(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With --json each run printed an indented document after the last one: the output of
    two runs was no JSON at all. One line a run now."""
    ok(run(db, "save", "Prefers tea over coffee"))
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        if len(sleeps) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr("engram.cli.consolidate.pause", sleep)
    result = CliRunner().invoke(
        cli, ["--json", "--store", str(db), "consolidate", "pipeline", "--scheduled"]
    )
    runs = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(runs) == 2 and all(r["dry_run"] for r in runs)


def test_a_cluster_found_at_another_threshold_is_approved_with_that_threshold(db: Path) -> None:
    """`clusters --threshold` found a cluster that `run --cluster ID`, a new process that
    clusters at the default threshold, could never find again: no way to approve it."""
    copies = {"ENGRAM_SAVE_DUPLICATES": "keep"}
    ok(run(db, "save", "Alice works on the Atlas project", **copies))
    ok(run(db, "save", "Alice joined the Atlas team last month", **copies))
    assert run_json(db, "consolidate", "clusters")["count"] == 0  # not alike enough by default
    (cluster,) = run_json(db, "consolidate", "clusters", "--threshold", "0.75")["clusters"]
    refused = run(db, "consolidate", "run", "--apply", "--cluster", cluster["id"])
    assert refused.exit_code == 1 and "another similarity threshold" in refused.stderr
    applied = run_json(
        db, "consolidate", "run", "--apply", "--cluster", cluster["id"], "--threshold", "0.75"
    )
    assert len(applied["merged"]) == 1 and applied["skipped"] == {}


def test_memories_without_a_vector_are_reported_at_open(
    db: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Memories saved with embeddings off (or left by a killed process) were missed by
    meaning search without a word until someone thought of `engram embed --backfill`."""
    ok(run(db, "save", "Atlas ships in May", ENGRAM_EMBEDDING_MODEL="none"))
    with caplog.at_level(logging.WARNING, logger="engram"):
        ok(run(db, "search", "Atlas"))
    assert "1 memory has no vector yet" in caplog.text and "--backfill" in caplog.text
    ok(run(db, "embed", "--backfill"))
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="engram"):
        ok(run(db, "search", "Atlas"))
    assert "no vector" not in caplog.text


def test_serve_refuses_host_and_port_without_http(db: Path) -> None:
    """Without --http they were ignored: a stdio server ran, listening on no port, silently."""
    for option in (["--port", "18773"], ["--host", "0.0.0.0"]):
        refused = run(db, "serve", *option)
        assert refused.exit_code == 2 and "--host and --port go with --http" in refused.stderr


def test_commands_run_from_a_deleted_working_directory(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shell left in a folder deleted since has no working directory, hence no project
    `.env`: every command stopped with a bare "Error: [Errno 2] No such file or directory"."""
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    ok(run(db, "save", "Prefers tea"))
    assert run_json(db, "stats")["total"] == 1
    files = {f["role"]: f for f in run_json(db, "config")["files"]}
    assert files["project config"] == {
        "role": "project config",
        "path": "(no working directory)",
        "exists": False,
    }


def test_the_names_other_tools_give_a_command_point_to_engrams(db: Path) -> None:
    """A probe: `engram list`, `show` and `get` said only "No such command"."""
    for name, pointed in (("list", "engram search"), ("show", "engram open"), ("rm", "delete")):
        result = run(db, name)
        assert result.exit_code == 2, name
        assert pointed in result.output, name


def test_a_save_that_makes_a_new_store_says_so_once(tmp_path: Path) -> None:
    """A probe: `--store /nonexistent/dir/x.db save hi` made the folders and the store without
    a word, where a mistyped path should be seen at once."""
    db = tmp_path / "new" / "store.db"
    first = ok(run(db, "save", "hello there"))
    assert f"A new store: {db}" in first.stderr
    again = ok(run(db, "save", "hello again"))
    assert "A new store" not in again.stderr


def test_open_shows_its_times_in_the_zone_search_shows_the_day_in(tmp_path: Path) -> None:
    """A CLI probe in Kiritimati (UTC+14): search said "saved 2026-12-05", open said "created
    2026-12-04T22:56:48+00:00" of the same memory. A process of its own: the zone is read as
    the process starts."""
    script, store = engram_script(), str(tmp_path / "tz.db")
    env = {**os.environ, "ENGRAM_EMBEDDING_MODEL": "none", "TZ": "Pacific/Kiritimati"}

    def engram(*args: str) -> str:
        done = subprocess.run(
            [script, "--store", store, *args], capture_output=True, text=True, timeout=60, env=env
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    ident = json.loads(engram("--json", "save", "the time zone note"))["id"]
    assert "+14:00" in engram("open", ident)


def test_a_save_replacing_a_fact_found_by_its_words_names_it(db: Path) -> None:
    """The docs' own example printed "holds again: replaces <the old fact>, the news that had
    replaced it": a fact found by its words is not among the similar (a CLI probe)."""
    fact = save(db, "My manager is Sarah Lin")
    said = ok(run(db, "save", "I report to Tom Becker these days")).stdout
    assert f"replaces {fact}: My manager is Sarah Lin" in said
    assert "holds again" not in said


def test_a_fact_said_again_after_its_correction_says_it_holds_again(db: Path) -> None:
    """A CLI probe: the restated fact printed only "Already saved as …: merged it"."""
    fact = save(db, "Lisa is vegetarian")
    news = save(db, "Correction: Lisa is no longer vegetarian")
    with Engram.open(str(db)) as engram:
        if not engram.relations(fact):
            engram.create_relation(news, fact, "supersedes")
    said = ok(run(db, "save", "Lisa is vegetarian")).stdout
    assert f"Already saved as {fact}: merged it" in said
    assert f"holds again: replaces {news}" in said
