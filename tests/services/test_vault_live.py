"""The vault's index follows the vault by itself: a server watches it, and without a watcher
unified search catches up before it searches. Real files, real watching (inotify here)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import frontmatter
import pytest
from tests.ltm_support import open_with_vault, used, write_note
from tests.storage.test_read_only import unprivileged

from engram import Draft, Engram, FixedClock
from engram.errors import ConfigError, ValidationError
from engram.services import vault_watch
from engram.services.vault_watch import VaultWatcher
from engram.vault.render import CONFLICT_TAG

WATCH_SECONDS = 20  # a change must reach the index within this (debounce is half a second)


@pytest.fixture
def ltm(tmp_path: Path, clock: FixedClock) -> Iterator[tuple[Engram, Path]]:
    with open_with_vault(tmp_path, clock, vault_refresh_seconds=0) as opened:
        yield opened


def note_paths(mem: Engram, query: str) -> list[str]:
    return [h.path for h in mem.search_unified(query, stm_weight=0).hits if h.path]


def eventually(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WATCH_SECONDS
    while not check():
        assert time.monotonic() < deadline, f"not seen within {WATCH_SECONDS} s"
        time.sleep(0.1)


def test_unified_search_sees_notes_added_edited_and_deleted_without_index_ltm(
    ltm: tuple[Engram, Path],
) -> None:
    mem, vault = ltm
    note = write_note(vault, "Projects/harvest.md", "The kiwi harvest starts in May.\n")
    result = mem.search_unified("kiwi harvest", stm_weight=0)
    assert [h.path for h in result.hits] == ["Projects/harvest.md"] and result.vault == "up to date"
    note.write_text("The mango harvest starts in June.\n")
    assert note_paths(mem, "kiwi") == []
    assert note_paths(mem, "mango") == ["Projects/harvest.md"]
    note.unlink()
    assert note_paths(mem, "mango") == []


def test_a_watched_vault_is_indexed_as_it_changes(ltm: tuple[Engram, Path]) -> None:
    mem, vault = ltm
    write_note(vault, "old.md", "Written before the watcher started: papaya.\n")
    assert mem.app.ltm.watch()
    try:
        # It catches up first, then follows each change, with no search needed to trigger it.
        eventually(lambda: mem.app.ltm.status().notes_indexed == 1)
        new = write_note(vault, "Daily/new.md", "Written while watched: lychee.\n")
        eventually(
            lambda: mem.app.ltm.status().changed == 0 and mem.app.ltm.status().notes_indexed == 2
        )
        result = mem.search_unified("lychee", stm_weight=0)
        assert [h.path for h in result.hits] == ["Daily/new.md"] and result.vault == "watched"
        new.unlink()
        eventually(lambda: mem.app.ltm.status().notes_indexed == 1)
        write_note(vault, ".obsidian/workspace.md", "lychee settings")  # not a note
        time.sleep(1.5)
        assert note_paths(mem, "lychee") == []
    finally:
        mem.app.ltm.stop_watching()
    assert not mem.app.ltm.watching


def test_status_says_where_vault_and_index_disagree(ltm: tuple[Engram, Path]) -> None:
    mem, vault = ltm
    write_note(vault, "a.md", "alpha\n")
    mem.index_ltm()
    promoted = mem.promote(used(mem, "Prefers green tea in the morning").id)
    mem.index_ltm()
    status = mem.app.ltm.status()
    assert (status.notes_on_disk, status.notes_indexed, status.changed, status.removed) == (
        2,
        2,
        0,
        0,
    )
    assert status.orphaned == [] and not status.watching

    (vault / "a.md").unlink()
    write_note(vault, "b.md", "bravo\n")
    (hit,) = promoted.items
    assert hit.path is not None
    (vault / hit.path).unlink()
    status = mem.app.ltm.status()
    assert (status.notes_on_disk, status.changed, status.removed) == (1, 1, 2)
    assert status.orphaned == [hit.memory_id]
    mem.index_ltm()
    after = mem.app.ltm.status()
    assert (after.notes_indexed, after.changed, after.removed) == (1, 0, 0)
    assert after.orphaned == [hit.memory_id]  # still promoted, its note still gone


def test_the_refresh_setting_spaces_the_rescans(tmp_path: Path, clock: FixedClock) -> None:
    with open_with_vault(tmp_path, clock, vault_refresh_seconds=3600) as (mem, vault):
        write_note(vault, "first.md", "apricot\n")
        assert note_paths(mem, "apricot") == ["first.md"]  # the first search scans
        write_note(vault, "second.md", "apricot again\n")
        assert note_paths(mem, "apricot") == ["first.md"]  # not again within the hour
        mem.index_ltm()
        assert sorted(note_paths(mem, "apricot")) == ["first.md", "second.md"]


def test_a_promoted_memorys_note_follows_its_edits_and_keeps_the_users_text(
    ltm: tuple[Engram, Path],
) -> None:
    mem, vault = ltm
    memory = used(mem, "Atlas runs on PostgreSQL 15", tags=["atlas"])
    (item,) = mem.promote(memory.id).items
    assert item.path is not None
    note = vault / item.path
    # The user adds a frontmatter key and a section of their own in Obsidian.
    text = note.read_text().replace("---\n\n", "reviewed: by me\n---\n\n", 1)
    note.write_text(text + "\n## My notes\n\nAsk Dana about the upgrade.\n")

    mem.update(memory.id, content="Atlas runs on PostgreSQL 16", tags=["atlas", "database"])
    post = frontmatter.load(note)
    assert post.content.startswith("Atlas runs on PostgreSQL 16\n")
    assert "PostgreSQL 15" not in post.content and "Ask Dana about the upgrade." in post.content
    assert post["title"] == "Atlas runs on PostgreSQL 16" and post["tags"] == ["atlas", "database"]
    assert post["reviewed"] == "by me" and post["engram_id"] == memory.id
    assert note_paths(mem, "PostgreSQL 16") == [item.path]  # the index follows the note
    assert mem.app.ltm.status().conflicts == []


def test_a_repeat_saved_of_a_promoted_memory_updates_its_note(
    ltm: tuple[Engram, Path],
) -> None:
    """Saving the same words again merges the new tags, entities and strength into the
    memory; its note kept the old ones."""
    mem, vault = ltm
    memory = used(mem, "Atlas ships in May", tags=["work"])
    (item,) = mem.promote(memory.id).items
    assert item.path is not None
    result = mem.save_result(Draft(content="atlas ships in May!", tags=["release"], strength=1.8))
    assert (result.action, result.duplicate_of) == ("merged", memory.id)
    post = frontmatter.load(vault / item.path)
    assert post["tags"] == ["work", "release"] and post["strength"] == 1.8
    assert post.content.startswith("Atlas ships in May") and post.content.count("ships") == 1
    assert mem.app.ltm.status().conflicts == []


def test_a_note_edited_in_the_vault_and_in_engram_keeps_both_versions(
    ltm: tuple[Engram, Path],
) -> None:
    mem, vault = ltm
    memory = used(mem, "The standup is at 9:30")
    (item,) = mem.promote(memory.id).items
    assert item.path is not None
    note = vault / item.path
    note.write_text(note.read_text().replace("The standup is at 9:30", "The standup is at 9:45"))

    mem.update(memory.id, content="The standup is at 10:00")
    body = frontmatter.load(note).content
    assert body.index("10:00") < body.index(CONFLICT_TAG) < body.index("9:45")
    assert mem.app.ltm.status().conflicts == [item.path]
    # Settled by the user: the callout and the old version removed.
    note.write_text(note.read_text().split("\n\n> [!warning]")[0] + "\n")
    mem.index_ltm()
    assert mem.app.ltm.status().conflicts == []


def test_deleting_a_promoted_memory_says_its_note_stays(ltm: tuple[Engram, Path]) -> None:
    mem, vault = ltm
    memory = used(mem, "Prefers aisle seats on short flights")
    (item,) = mem.promote(memory.id).items
    assert item.path is not None
    assert mem.app.ltm.status().unclaimed == []
    done = mem.app.memories.remove([memory.id])
    assert done.left_behind == [f"{memory.id}: its note {item.path} stays in the vault"]
    assert (vault / item.path).exists()  # the user's file: never deleted by Engram
    # and `vault status` says the note names a memory that is gone (it said nothing; probe)
    assert mem.app.ltm.status().unclaimed == [item.path]


def test_vault_status_lists_notes_naming_a_memory_whose_note_is_another(
    ltm: tuple[Engram, Path],
) -> None:
    """A promotion killed after writing its note, then an edit of the memory and a promotion
    again, left the first note beside the memory's own for good, and nothing said so (a
    helper's probe). Notes naming a memory whose note is another are listed; not its own."""
    mem, vault = ltm
    kept = used(mem, "Alice prefers dark mode in every editor")
    other = used(mem, "Bob prefers light mode")
    text = f"---\nengram_id: {kept.id}\n---\nAlice prefers dark mode in every editor\n"
    write_note(vault, "Engram/alice-prefers-dark-mode-in-every-editor.md", text)  # left over
    mem.update(kept.id, content="Alice prefers light mode in every editor")
    (item,) = mem.promote(kept.id).items
    mem.promote(other.id)
    copy = (vault / str(item.path)).read_text(encoding="utf-8")
    write_note(vault, "Archive/alice copy.md", copy)  # a copy, by the user
    mem.index_ltm()
    status = mem.app.ltm.status()
    assert status.strays == [
        "Archive/alice copy.md",
        "Engram/alice-prefers-dark-mode-in-every-editor.md",
    ]


def test_a_promoted_memory_named_for_a_merge_is_refused_with_the_reason(
    ltm: tuple[Engram, Path],
) -> None:
    mem, _ = ltm
    promoted = used(mem, "Prefers aisle seats on short flights")
    mem.promote(promoted.id)
    other = mem.save("Likes aisle seats on short flights")
    with pytest.raises(
        ValidationError,
        match=r"is promoted \(its note in the vault names it\): only active memories are merged; "
        r"to keep one copy, update the promoted memory to say what the others add, and delete",
    ):  # it said "is promoted" and no more (probe), then nothing of what to do (a later probe)
        mem.consolidate(mode="apply", memory_ids=[promoted.id, other.id])


def test_a_renamed_note_takes_its_memorys_pointer_along(ltm: tuple[Engram, Path]) -> None:
    mem, vault = ltm
    memory = used(mem, "Prefers window seats on long flights")
    (item,) = mem.promote(memory.id).items
    assert item.path is not None
    other = used(mem, "Books flights on Tuesdays")
    mem.create_relation(other.id, memory.id)
    (linked,) = mem.promote(other.id).items  # its note links to the first one
    assert linked.path is not None and f"[[{item.path[:-3]}|" in (vault / linked.path).read_text()
    (vault / "Travel").mkdir()
    (vault / item.path).rename(vault / "Travel" / "seats.md")  # a file manager, not Obsidian
    # Not gone before the index sees the move either: status said "promote it again" (probe).
    assert mem.app.ltm.status().orphaned == []
    assert mem.index_ltm().moved == 1
    assert mem.get(memory.id).promoted_to == "Travel/seats.md"
    assert mem.app.ltm.status().orphaned == []
    assert "[[Travel/seats|" in (vault / linked.path).read_text()
    assert mem.app.ltm.show(linked.path).links == ["Travel/seats.md"]
    mem.update(memory.id, content="Prefers aisle seats on long flights")  # the note follows
    assert "aisle" in (vault / "Travel" / "seats.md").read_text()


def test_an_archived_memorys_note_follows_its_edits(ltm: tuple[Engram, Path]) -> None:
    """Archiving keeps the note, so the note follows an edit made meanwhile: it stayed as it
    was, and after `unarchive` the next edit took the stale text for the user's and marked a
    conflict nobody made; the tags changed while archived never reached the note (probe)."""
    mem, vault = ltm
    memory = used(mem, "Office wifi password rotates monthly", tags=["office"])
    (item,) = mem.promote(memory.id).items
    assert item.path is not None
    mem.archive(memory.id)
    mem.update(memory.id, content="Office wifi password rotates weekly", tags=["office", "it"])
    note = frontmatter.loads((vault / item.path).read_text())
    assert "weekly" in note.content and "monthly" not in note.content
    assert "it" in note["tags"]
    (back,) = mem.unarchive(memory.id)
    assert back.status.value == "promoted"
    mem.update(memory.id, content="Office wifi password rotates daily")
    text = (vault / item.path).read_text()
    assert "daily" in text and "weekly" not in text and CONFLICT_TAG not in text
    assert mem.app.ltm.status().conflicts == []


def test_a_note_renamed_while_its_memory_is_archived_is_followed(
    ltm: tuple[Engram, Path],
) -> None:
    """Only promoted memories followed their notes: one renamed while archived was lost, and
    after `unarchive` an update skipped it as gone and `promote` wrote a second note (probe)."""
    mem, vault = ltm
    memory = used(mem, "Atlas uses PostgreSQL 16")
    (item,) = mem.promote(memory.id).items
    assert item.path is not None
    mem.archive(memory.id)
    (vault / item.path).rename(vault / "DB choice.md")
    assert mem.index_ltm().moved == 1
    assert mem.get(memory.id).promoted_to == "DB choice.md"
    mem.unarchive(memory.id)
    mem.update(memory.id, content="Atlas uses PostgreSQL 17")
    assert "PostgreSQL 17" in (vault / "DB choice.md").read_text()
    (again,) = mem.promote(memory.id).items
    assert again.action == "already_promoted"
    claims = [p.name for p in vault.rglob("*.md") if memory.id in p.read_text()]
    assert claims == ["DB choice.md"]


def test_a_note_named_so_no_wikilink_can_hold_it_is_not_linked_to(
    ltm: tuple[Engram, Path],
) -> None:
    """A note renamed in a file manager to "Deploys #2.md": relating its memory wrote
    `[[Engram/Deploys #2|…]]` into the other note, which Obsidian reads as note "Deploys",
    heading "2" (probe). No wikilink can name it, so it is not linked to; links to notes a
    link can name are still written, from it too."""
    mem, vault = ltm
    a = used(mem, "Atlas uses PostgreSQL 16")
    b = used(mem, "Atlas deploys on Fridays")
    c = used(mem, "Atlas backups run nightly")
    paths = [mem.promote(m.id).items[0].path for m in (a, b, c)]
    assert all(paths)
    a_path, b_path, c_path = (vault / str(p) for p in paths)
    b_path.rename(b_path.with_name("Deploys #2.md"))
    mem.index_ltm()
    mem.create_relation(a.id, b.id)
    assert "Deploys" not in a_path.read_text()
    # The other way is a link that works: the renamed note links to a's.
    assert f"[[{paths[0][:-3]}|" in b_path.with_name("Deploys #2.md").read_text()
    mem.create_relation(a.id, c.id)
    assert f"[[{paths[2][:-3]}|" in a_path.read_text()
    assert f"[[{paths[0][:-3]}|" in c_path.read_text()
    d = used(mem, "Atlas restores are tested monthly")
    mem.create_relation(d.id, b.id)
    (item,) = mem.promote(d.id).items  # its Related section leaves the unlinkable note out
    assert item.path is not None and "Deploys" not in (vault / item.path).read_text()


def test_a_note_at_a_memorys_path_that_names_another_is_never_written_into(
    ltm: tuple[Engram, Path],
) -> None:
    """Where a promoted memory's note was is checked to be its note: the name freed by a
    deleted note went to the next memory promoted, and an update of the first wrote its text
    into the second's note, while `vault status` said nothing was orphaned and `promote` that
    there was nothing to do."""
    mem, vault = ltm
    first = used(mem, "Atlas deploy\nrun the migrations first")
    (item,) = mem.promote(first.id).items
    assert item.path is not None
    (vault / item.path).unlink()  # deleted in Obsidian
    second = used(mem, "Atlas deploy\nsmoke tests after each release")
    (taken,) = mem.promote(second.id).items
    assert taken.path == item.path  # the name is free again
    written = (vault / item.path).read_text()
    assert mem.app.ltm.status().orphaned == [first.id]
    mem.update(first.id, content="Atlas deploy\nrun the migrations first, always")
    assert (vault / item.path).read_text() == written  # the second's note, untouched
    (again,) = mem.promote(first.id).items
    assert again.action == "promoted" and again.path not in (None, item.path)


def test_a_users_note_under_a_renamed_notes_old_name_is_left_alone(
    ltm: tuple[Engram, Path],
) -> None:
    """Renamed in a file manager, and a note of the user's own made under the old name: the
    memory kept pointing at the old name (the note there was taken as still its own), and its
    next update wrote Engram's frontmatter and a conflict into the user's note."""
    mem, vault = ltm
    memory = used(mem, "Weekly review checklist")
    (item,) = mem.promote(memory.id).items
    assert item.path is not None
    (vault / item.path).rename(vault / "Archive-weekly-review.md")
    (vault / item.path).write_text("My own scratch note, nothing to do with Engram.\n")
    assert mem.index_ltm().moved == 1
    assert mem.get(memory.id).promoted_to == "Archive-weekly-review.md"
    mem.update(memory.id, content="Weekly review checklist, v2")
    assert (vault / item.path).read_text() == "My own scratch note, nothing to do with Engram.\n"
    assert "v2" in (vault / "Archive-weekly-review.md").read_text()


def test_unified_search_names_no_note_that_is_gone(ltm: tuple[Engram, Path]) -> None:
    """A promoted memory whose note was deleted came with the note's path, which `vault
    open` then could not find."""
    mem, vault = ltm
    memory = used(mem, "The Kubernetes cluster runs on Hetzner")
    (item,) = mem.promote(memory.id).items
    assert item.path is not None
    (hit,) = [h for h in mem.search_unified("kubernetes").hits if h.id == memory.id]
    assert hit.path == item.path
    (vault / item.path).unlink()
    (hit,) = [h for h in mem.search_unified("kubernetes").hits if h.id == memory.id]
    assert hit.path is None and mem.app.ltm.status().orphaned == [memory.id]


def test_relating_two_promoted_memories_links_their_notes(ltm: tuple[Engram, Path]) -> None:
    mem, vault = ltm
    a = used(mem, "Atlas runs on PostgreSQL 16")
    b = used(mem, "Atlas deploys on Fridays")
    paths = [mem.promote(m.id).items[0].path for m in (a, b)]
    assert all(paths)
    note_a, note_b = (vault / str(p) for p in paths)
    assert "[[" not in note_a.read_text()  # promoted apart, unrelated then
    mem.create_relation(a.id, b.id, "related")
    mem.create_relation(a.id, b.id, "related")  # again: no second link
    text_a, text_b = note_a.read_text(), note_b.read_text()
    assert text_a.count(f"[[{str(paths[1])[:-3]}|") == 1
    assert text_b.count(f"[[{str(paths[0])[:-3]}|") == 1
    assert "## Related" in text_a and "## Related" in text_b


def test_marked_notes_import_as_promoted_memories_with_their_links(
    ltm: tuple[Engram, Path],
) -> None:
    mem, vault = ltm
    write_note(
        vault,
        "Atlas.md",
        "---\nengram: memory\ntags: [work]\n---\nAtlas ships in May. See [[Dana]].\n",
    )
    write_note(vault, "Dana.md", "---\nengram: memory\nowner: me\n---\nDana leads Atlas.\n")
    write_note(vault, "Diary.md", "---\nmood: fine\n---\nNot for Engram.\n")

    dry = mem.import_vault()
    assert dry.mode == "dry run" and sorted(n.path for n in dry.notes) == ["Atlas.md", "Dana.md"]
    assert mem.stats().total == 0 and "engram_id" not in (vault / "Atlas.md").read_text()

    done = mem.import_vault(apply=True)
    assert done.count == 2 and done.relations == 1
    ids = {n.path: n.memory_id for n in done.notes}
    atlas = mem.get(str(ids["Atlas.md"]))
    assert atlas.status == "promoted" and atlas.promoted_to == "Atlas.md"
    assert atlas.content == "Atlas ships in May. See [[Dana]]." and atlas.tags == ("work",)
    post = frontmatter.load(vault / "Dana.md")
    assert post["engram_id"] == ids["Dana.md"] and post["owner"] == "me"
    # The id is the one line added: the link it came from made the relation, and no backlink
    # was appended to Dana.md (a "## Related" section the user never wrote; audit).
    assert (vault / "Dana.md").read_text() == (
        f"---\nengram: memory\nowner: me\nengram_id: {ids['Dana.md']}\n---\nDana leads Atlas.\n"
    )
    (relation,) = mem.relations(atlas.id)
    assert (relation.from_id, relation.to_id) == (atlas.id, ids["Dana.md"])
    assert mem.import_vault(apply=True).count == 0  # imported once
    # The memory and its note now move together.
    mem.update(str(ids["Dana.md"]), content="Dana leads Atlas and Borealis.")
    assert "Borealis" in (vault / "Dana.md").read_text()


def test_an_import_linking_to_a_note_of_a_deleted_memory_still_completes(
    ltm: tuple[Engram, Path],
) -> None:
    """Dana.md names a memory that no longer exists (deleted after its promotion): relating
    Atlas to it raised NotFoundError after Atlas was saved, promoted and given its id, so the
    import failed, and the next run found nothing left to import or relate."""
    mem, vault = ltm
    write_note(
        vault,
        "Atlas.md",
        "---\nengram: memory\n---\nAtlas ships in May. See [[Dana]] and [[Bo]].\n",
    )
    write_note(
        vault,
        "Dana.md",
        "---\nengram_id: 0b6f1234-dead-beef-0000-000000000000\n---\nDana leads Atlas.\n",
    )
    write_note(vault, "Bo.md", "---\nengram: memory\n---\nBo tests Atlas.\n")
    mem.index_ltm()  # the links of Atlas.md resolve to Dana.md through the index
    done = mem.import_vault(apply=True)
    assert done.count == 2 and done.relations == 1
    ids = {n.path: n.memory_id for n in done.notes}
    (relation,) = mem.relations(str(ids["Atlas.md"]))
    assert {relation.from_id, relation.to_id} == {ids["Atlas.md"], ids["Bo.md"]}


def test_an_imported_note_whose_body_was_blank_or_indented_is_no_conflict(
    ltm: tuple[Engram, Path],
) -> None:
    """The memory of an imported note is its body stripped (its title when the body is
    empty): the blank lines and indentation left in the note are not a vault edit, and the
    first update used to tag both notes #engram-conflict."""
    mem, vault = ltm
    write_note(vault, "empty-body.md", "---\nengram: memory\n---\n")
    write_note(vault, "spaced.md", "---\nengram: memory\n---\n\n\n   Indented text   \n\n")
    ids = {n.path: str(n.memory_id) for n in mem.import_vault(apply=True).notes}
    mem.update(ids["empty-body.md"], content="Now it has a body")
    mem.update(ids["spaced.md"], strength=1.5)
    mem.update(ids["spaced.md"], content="Indented text, edited in Engram")
    for path, text in (("empty-body.md", "Now it has a body"), ("spaced.md", "edited in Engram")):
        note = (vault / path).read_text()
        assert CONFLICT_TAG not in note and text in note, note
    assert mem.app.ltm.status().conflicts == []


def test_an_edit_made_while_the_watcher_catches_up_is_indexed(tmp_path: Path) -> None:
    """The catch-up ran before watching began: a note written while it read the vault was
    never reported, and stayed out of the index until some other file changed."""
    runs: list[int] = []

    def index_run() -> None:
        runs.append(1)
        if len(runs) == 1:  # a note saved in Obsidian while the catch-up reads the vault
            write_note(tmp_path, "during.md", "written during the catch-up")

    watcher = VaultWatcher(tmp_path, index_run)
    watcher.start()
    try:
        eventually(lambda: len(runs) >= 2)
    finally:
        watcher.stop()


def test_an_index_run_that_failed_is_tried_again(
    tmp_path: Path, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that found the store busy was never tried again: the note it missed stayed out of
    the index (no further change reports it), and unified search trusted the watcher."""
    monkeypatch.setattr(vault_watch, "RETRY_SECONDS", 0.5)
    with open_with_vault(tmp_path, clock, sqlite_busy_timeout=0.2) as (mem, vault):
        write_note(vault, "a.md", "The platypus lays eggs.\n")
        assert mem.app.ltm.watch()
        try:
            eventually(lambda: mem.app.ltm.status().notes_indexed == 1)
            blocker = sqlite3.connect(tmp_path / "ltm.db", isolation_level=None)
            blocker.execute("BEGIN EXCLUSIVE")
            write_note(vault, "b.md", "The echidna lays eggs too.\n")
            watcher = mem.app.ltm._watcher
            assert watcher is not None
            eventually(lambda: watcher.behind)  # the run for b.md found the store busy
            blocker.execute("COMMIT")
            blocker.close()
            eventually(lambda: mem.app.ltm.status().notes_indexed == 2)
            assert note_paths(mem, "echidna") == ["b.md"]
        finally:
            mem.app.ltm.stop_watching()


def test_a_vault_inside_a_hidden_folder_is_watched(tmp_path: Path, clock: FixedClock) -> None:
    """Hidden folders are skipped inside the vault (`.obsidian/`), not above it (`~/.notes`)."""
    hidden = tmp_path / ".notes"
    hidden.mkdir()
    with open_with_vault(hidden, clock, vault_refresh_seconds=3600) as (mem, vault):
        assert mem.app.ltm.watch()
        try:
            eventually(lambda: mem.app.ltm.watching)
            time.sleep(0.5)  # the catch-up run is done; from here only the watcher indexes
            write_note(vault, "plum.md", "Written while watched: plum.\n")
            eventually(lambda: mem.app.ltm.status().notes_indexed == 1)
            write_note(vault, ".obsidian/cache.md", "not a note")
            time.sleep(1.5)
            assert mem.app.ltm.status().notes_indexed == 1
        finally:
            mem.app.ltm.stop_watching()


UNREADABLE_CHILD = textwrap.dedent(
    """
    import json, sys
    from engram import Engram
    store, vault = sys.argv[1], sys.argv[2]
    with Engram.open(store, vault_path=vault, embedding_model="none") as mem:
        report = mem.index_ltm()
        hits = mem.search_unified("readable note").hits
        print(json.dumps({
            "problems": [(p.path, p.problem) for p in report.problems],
            "notes": report.notes,
            "hits": [h.path for h in hits],
        }))
    """
)


def test_a_note_that_cannot_be_read_is_reported_not_fatal(tmp_path: Path) -> None:
    """One note Engram may not read (its permissions, a sync client's lock) stopped indexing
    and every unified search with a PermissionError. Permissions are real: the child runs as
    `nobody` under root, which ignores them (tests/storage/test_read_only.py). Its working
    directory, pytest's, is private to root: looking for a `.env` there was a PermissionError
    at start-up too."""
    folder = Path(tempfile.mkdtemp(prefix="engram-unreadable-"))
    try:
        folder.chmod(0o777)
        vault = folder / "vault"
        write_note(vault, "notes/a.md", "A readable note about tea.\n")
        write_note(vault, "notes/b.md", "A secret note.\n")
        for p in [vault, *vault.rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
        (vault / "notes" / "b.md").chmod(0o000)
        done = subprocess.run(
            [sys.executable, "-c", UNREADABLE_CHILD, str(folder / "x.db"), str(vault)],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "XDG_DATA_HOME": str(folder), "XDG_CONFIG_HOME": str(folder)},
            **unprivileged(),  # type: ignore[arg-type]
        )
        assert done.returncode == 0, done.stderr
        out = json.loads(done.stdout)
        assert out["problems"] == [["notes/b.md", "cannot be read (Permission denied)"]]
        assert out["hits"] == ["notes/a.md"] and out["notes"] == 2
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=True)


def test_links_are_retargeted_only_in_notes_that_can_be_written_back_whole(
    ltm: tuple[Engram, Path],
) -> None:
    """Following a rename rewrote every note linking to it from the first 5 MB the index
    reads (a larger journal lost the rest) decoded with replacement characters (a Latin-1
    note's accents were lost for good)."""
    mem, vault = ltm
    memory = used(mem, "Atlas ships in May")
    (item,) = mem.promote(memory.id).items
    assert item.path is not None
    link = f"[[{item.path[:-3]}]]"
    big = vault / "journal.md"
    big.write_bytes(f"# Journal\nSee {link}.\n".encode() + b"day of notes\n" * 400_000)
    latin = vault / "latin.md"
    latin.write_bytes(f"Réunion au café, see {link}.\n".encode("latin-1"))
    crlf = vault / "windows.md"
    crlf.write_bytes(f"\ufeffFrom Windows, see {link}.\r\nSecond line.\r\n".encode())
    before = {p: p.read_bytes() for p in (big, latin)}
    (vault / item.path).rename(vault / "atlas-renamed.md")
    assert mem.index_ltm().moved == 1
    assert {p: p.read_bytes() for p in (big, latin)} == before  # left exactly as they were
    assert crlf.read_bytes() == (
        "\ufeffFrom Windows, see [[atlas-renamed]].\r\nSecond line.\r\n".encode()
    )  # followed, stored as it was: byte order mark and CRLF kept


def test_a_note_saved_with_crlf_line_ends_follows_its_memory_without_a_conflict(
    ltm: tuple[Engram, Path],
) -> None:
    """A promoted memory's note converted to CRLF (a Windows editor, git autocrlf): the next
    change of the memory saw an edited note and wrote both versions, tagged as a conflict."""
    mem, vault = ltm
    memory = used(mem, "Atlas ships in May", tags=["work"])
    (item,) = mem.promote(memory.id).items
    note = vault / str(item.path)
    note.write_bytes(note.read_bytes().replace(b"\n", b"\r\n"))
    mem.update(memory.id, tags=["work", "atlas"])
    mem.update(memory.id, content="Atlas ships in June")
    text = note.read_bytes()
    assert CONFLICT_TAG.encode() not in text and b"Atlas ships in June" in text
    assert b"Atlas ships in May" not in text and text.count(b"\n") == text.count(b"\r\n")


def test_a_note_renamed_to_a_name_new_notes_may_not_take_is_still_followed(
    ltm: tuple[Engram, Path],
) -> None:
    """Names with ':' or a Windows device name are refused for notes Engram creates, and the
    same rule refused reading or rewriting a note the user named so: it was listed, but
    `vault show` failed and the memory's changes never reached it."""
    mem, vault = ltm
    memory = used(mem, "Atlas plan: ship in May")
    (item,) = mem.promote(memory.id).items
    (vault / str(item.path)).rename(vault / "Atlas: plan.md")
    assert mem.index_ltm().moved == 1
    assert mem.app.ltm.show("Atlas: plan.md").engram_id == memory.id
    mem.update(memory.id, content="Atlas plan: ship in June")
    assert "ship in June" in (vault / "Atlas: plan.md").read_text()
    (again,) = mem.promote(memory.id).items  # its note is there: not written a second time
    assert again.action == "already_promoted" and sorted(p.name for p in vault.rglob("*.md")) == [
        "Atlas: plan.md"
    ]
    with pytest.raises(ValidationError, match="path"):
        mem.app.ltm.show("../outside.md")  # still confined to the vault


def test_a_marked_note_that_cannot_be_imported_is_skipped_and_the_rest_imported(
    ltm: tuple[Engram, Path],
) -> None:
    """One note over a limit (or one that could not take its id back) failed the whole
    import, after some memories were saved: every retry saved them again."""
    mem, vault = ltm
    write_note(vault, "good.md", "---\nengram: memory\n---\nAtlas ships in May.\n")
    write_note(vault, "long.md", "---\nengram: memory\n---\n" + "word " * 12_000 + "\n")
    (vault / "latin.md").write_bytes(
        "---\nengram: memory\n---\nRéunion au café.\n".encode("latin-1")
    )
    write_note(vault, "Aux.md", "---\nengram: memory\n---\nA device name on Windows only.\n")
    # too large to index whole (5 MB): it was left out without a word
    write_note(vault, "huge.md", "---\nengram: memory\n---\n" + "word " * 1_100_000 + "\n")
    write_note(vault, "huge-unmarked.md", "# Log\n" + "line " * 1_100_000 + "\n")
    dry = mem.import_vault()
    assert sorted(n.path for n in dry.notes) == ["Aux.md", "good.md"]
    assert sorted(dry.skipped) == ["huge.md", "latin.md", "long.md"]
    assert "content" in dry.skipped["long.md"] and "UTF-8" in dry.skipped["latin.md"]
    assert "larger than 5,000,000 bytes" in dry.skipped["huge.md"]
    done = mem.import_vault(apply=True)
    assert sorted(n.path for n in done.notes) == ["Aux.md", "good.md"]
    assert sorted(done.skipped) == ["huge.md", "latin.md", "long.md"]
    assert mem.import_vault(apply=True).count == 0 and mem.stats().total == 2  # no copies


def test_an_import_adds_the_id_and_leaves_the_rest_of_the_note_as_written(
    ltm: tuple[Engram, Path],
) -> None:
    """The frontmatter was read and dumped again: a comment went, a date became text, `yes`
    became `true`; a note with a byte order mark got a second frontmatter block in front."""
    mem, vault = ltm
    head = "---\n# my own comment\nengram: memory\ndate: 2024-01-05\nflag: yes\n---\n"
    write_note(vault, "dated.md", head + "Atlas ships in May.\n")
    (vault / "bom.md").write_bytes("\ufeff---\nengram: memory\ntags: [work]\n---\nBody.\n".encode())
    ids = {n.path: n.memory_id for n in mem.import_vault(apply=True).notes}
    assert (vault / "dated.md").read_text() == (
        head.replace("flag: yes\n", f"flag: yes\nengram_id: {ids['dated.md']}\n")
        + "Atlas ships in May.\n"
    )
    assert (vault / "bom.md").read_bytes() == (
        f"\ufeff---\nengram: memory\ntags: [work]\nengram_id: {ids['bom.md']}\n---\nBody.\n"
    ).encode()
    assert mem.get(str(ids["bom.md"])).tags == ("work",)
    mem.update(str(ids["bom.md"]), content="Body, edited in Engram.")
    assert CONFLICT_TAG not in (vault / "bom.md").read_text(encoding="utf-8-sig")
    # the file names a note of the user's: an edit added `title:` with the memory's whole
    # new text, and the note was listed by that sentence (a vault probe)
    mem.update(str(ids["dated.md"]), content="Atlas ships in June. See [[Dana]].")
    rewritten = (vault / "dated.md").read_text()
    assert "title:" not in rewritten and rewritten.endswith("Atlas ships in June. See [[Dana]].\n")
    assert mem.app.ltm.show("dated.md").title == "dated"


def test_a_vault_that_is_away_is_neither_emptied_nor_recreated(ltm: tuple[Engram, Path]) -> None:
    """A vault on a drive unmounted while a process runs looked empty: the next unified search
    dropped every note from the index, and a promotion created a stand-in vault folder."""
    mem, vault = ltm
    write_note(vault, "zebra.md", "Zebra crossing notes.\n")
    assert mem.index_ltm().notes == 1
    away = vault.with_name("vault-away")
    vault.rename(away)
    result = mem.search_unified("zebra crossing", stm_weight=0)
    assert result.vault == "unavailable" and [h.path for h in result.hits] == ["zebra.md"]
    with pytest.raises(ConfigError, match="not there now"):
        mem.promote(used(mem, "Written while the vault is away").id)
    assert not vault.exists()  # not recreated
    away.rename(vault)
    assert mem.search_unified("zebra crossing", stm_weight=0).vault == "up to date"
    assert mem.app.ltm.status().notes_indexed == 1


def test_the_search_that_finds_a_rename_names_the_note_where_it_is(
    ltm: tuple[Engram, Path],
) -> None:
    """Memories were searched before the vault was looked at: the search that noticed a
    rename (and moved the memory's note path) still returned the old path."""
    mem, vault = ltm
    memory = used(mem, "PostgreSQL replication setup for Atlas")
    (item,) = mem.promote(memory.id).items
    (vault / str(item.path)).rename(vault / "Engram" / "pg.md")
    (hit,) = mem.search_unified("PostgreSQL replication").hits[:1]
    assert hit.path == "Engram/pg.md" and (vault / hit.path).exists()


def test_frontmatter_that_one_line_cannot_extend_still_takes_the_id(
    ltm: tuple[Engram, Path],
) -> None:
    """An id line appended after a one-line `{...}` mapping made the YAML invalid (the note
    lost its marker, title and tags); one under an `engram_id:` with a value on the next
    lines became part of that value. Both notes reported imported."""
    mem, vault = ltm
    write_note(vault, "flow.md", "---\n{engram: memory, tags: [work]}\n---\nFlow style.\n")
    write_note(vault, "block.md", "---\nengram: memory\nengram_id:\n  - old\n---\nBlock.\n")
    ids = {n.path: n.memory_id for n in mem.import_vault(apply=True).notes}
    for path in ("flow.md", "block.md"):
        assert mem.app.ltm.show(path).engram_id == ids[path]
    assert mem.import_vault(apply=True).count == 0


def test_a_note_edited_during_its_import_does_not_take_the_id(
    ltm: tuple[Engram, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The note was read again just before its id was written: an edit made while the import
    ran got the id of a memory holding the old text. The edit is made to happen at that moment
    by wrapping the save."""
    mem, vault = ltm
    note = write_note(vault, "m.md", "---\nengram: memory\n---\nThe review is in March.\n")
    real_save_many = mem.app.vault_import.memories.save_many

    def save_then_edit(*args: object, **kwargs: object) -> object:
        saved = real_save_many(*args, **kwargs)  # type: ignore[arg-type]
        note.write_text("---\nengram: memory\n---\nThe review is in APRIL.\n")
        return saved

    monkeypatch.setattr(mem.app.vault_import.memories, "save_many", save_then_edit)
    done = mem.import_vault(apply=True)
    assert done.count == 0 and "changed while it was imported" in done.skipped["m.md"]
    assert "engram_id" not in note.read_text() and mem.stats().total == 0
    monkeypatch.undo()
    (imported,) = mem.import_vault(apply=True).notes  # the next run imports what it says now
    assert mem.get(str(imported.memory_id)).content == "The review is in APRIL."


@contextmanager
def watched_with_one_note(mem: Engram, vault: Path) -> Iterator[None]:
    """The vault holds zebra.md, a watcher runs and has caught up; stopped on the way out."""
    write_note(vault, "zebra.md", "Zebra crossing notes.\n")
    assert mem.app.ltm.watch()
    try:
        eventually(lambda: mem.app.ltm.status().notes_indexed == 1)
        yield
    finally:
        mem.app.ltm.stop_watching()


def test_a_watched_vault_that_goes_away_is_reported_unavailable(ltm: tuple[Engram, Path]) -> None:
    """With a watcher running, unified search never looked at the vault and said `watched`
    while the folder was gone."""
    mem, vault = ltm
    with watched_with_one_note(mem, vault):
        vault.rename(vault.with_name("vault-away"))
        result = mem.search_unified("zebra crossing", stm_weight=0)
        assert result.vault == "unavailable" and [h.path for h in result.hits] == ["zebra.md"]


def test_a_vault_folder_replaced_while_watched_is_watched_again(ltm: tuple[Engram, Path]) -> None:
    """A drive unmounted and mounted again is a new folder at the same path: the watcher of
    the old one never saw a change again, and nothing re-scanned while it ran."""
    mem, vault = ltm
    with watched_with_one_note(mem, vault):
        vault.rename(vault.with_name("vault-old"))
        vault.mkdir()
        write_note(vault, "okapi.md", "Okapi sightings.\n")
        eventually(lambda: note_paths(mem, "okapi sightings") == ["okapi.md"])
        assert mem.app.ltm.watching
        write_note(vault, "lemur.md", "Lemur sightings.\n")  # seen by the new watcher
        eventually(
            lambda: mem.app.ltm.status().notes_indexed == 2 and mem.app.ltm.status().changed == 0
        )


def test_links_follow_a_rename_into_long_named_notes_and_past_one_that_cannot_be_written(
    ltm: tuple[Engram, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A note named near the filesystem's 255 bytes could not be rewritten (its temporary
    file's name went past the limit): `index-ltm` stopped with "File name too long" after
    recording the move, and the next run left the link dangling (audit). One note that
    cannot be written (here made to fail as a note another program holds open on Windows
    would; as root on Linux every file is writable) no longer stops the others."""
    from engram.vault.writer import VaultFiles

    mem, vault = ltm
    memory = used(mem, "Atlas ships in May")
    (item,) = mem.promote(memory.id).items
    assert item.path is not None
    link = f"See [[{item.path[:-3]}]].\n"
    long_name = "Meeting notes " + "quarterly planning review " * 9
    long_note = write_note(vault, f"{long_name.strip()[:240]}.md", link)
    locked = write_note(vault, "locked.md", link)
    rewrite = VaultFiles.rewrite

    def held_open(self: VaultFiles, path: str, *args: object) -> bool:
        if path == "locked.md":
            raise PermissionError(13, "The process cannot access the file", path)
        return rewrite(self, path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(VaultFiles, "rewrite", held_open)
    (vault / item.path).rename(vault / "atlas-renamed.md")
    assert mem.index_ltm().moved == 1
    assert long_note.read_text() == "See [[atlas-renamed]].\n"
    assert locked.read_text() == link
    assert mem.get(memory.id).promoted_to == "atlas-renamed.md"


def test_a_note_renamed_onto_a_path_the_index_knew_is_followed(ltm: tuple[Engram, Path]) -> None:
    """Only a path new to the index counted as where a note arrived: a promoted note renamed
    over the user's stub (deleted in the same change), or two promoted notes swapping names,
    left their memories orphaned, their edits unwritten, and a second promotion wrote a
    second note (audit)."""
    mem, vault = ltm
    write_note(vault, "Atlas.md", "# Atlas\n\nstub, to fill in\n")
    atlas, alpha, beta = (
        used(mem, text) for text in ("Atlas deploys on Fridays", "Alpha on 8080", "Beta on 9090")
    )
    paths = {m.id: str(mem.promote(m.id).items[0].path) for m in (atlas, alpha, beta)}
    assert mem.index_ltm().notes == 4
    (vault / "Atlas.md").unlink()
    (vault / paths[atlas.id]).rename(vault / "Atlas.md")
    (vault / paths[alpha.id]).rename(vault / "swap.md")
    (vault / paths[beta.id]).rename(vault / paths[alpha.id])
    (vault / "swap.md").rename(vault / paths[beta.id])
    names = {m.id: Path(paths[m.id]).stem for m in (alpha, beta)}
    links = write_note(vault, "links.md", f"[[{names[alpha.id]}]], [[Engram/{names[beta.id]}]]\n")
    assert mem.index_ltm().moved == 3
    # Each link follows its note (one move after the other sent both to one note).
    assert links.read_text() == f"[[{names[beta.id]}]], [[Engram/{names[alpha.id]}]]\n"
    assert mem.get(atlas.id).promoted_to == "Atlas.md"
    assert mem.get(alpha.id).promoted_to == paths[beta.id]
    assert mem.get(beta.id).promoted_to == paths[alpha.id]
    assert mem.app.ltm.status().orphaned == []
    mem.update(atlas.id, content="Atlas deploys on Tuesdays")
    assert "Atlas deploys on Tuesdays" in (vault / "Atlas.md").read_text()
    assert mem.promote(atlas.id).items[0].action == "already_promoted"
    assert sorted(p.name for p in vault.rglob("*.md")) == sorted(
        ["Atlas.md", "links.md", *(Path(paths[m.id]).name for m in (alpha, beta))]
    )


def test_a_link_to_a_note_renamed_to_a_name_another_note_has_names_its_path(
    ltm: tuple[Engram, Path],
) -> None:
    """Renamed to Engram/Plan.md while the root Plan.md exists, a promoted note's bare links
    became "[[Plan]]", which Obsidian resolves to the root note (audit)."""
    mem, vault = ltm
    memory = used(mem, "Atlas deploys on Fridays")
    (item,) = mem.promote(memory.id).items
    assert item.path is not None
    write_note(vault, "Plan.md", "The root plan.\n")
    standup = write_note(vault, "standup.md", f"Remember [[{Path(item.path).stem}]].\n")
    (vault / item.path).rename(vault / "Engram" / "Plan.md")
    assert mem.index_ltm().moved == 1
    assert standup.read_text() == "Remember [[Engram/Plan]].\n"


def test_a_promoted_memorys_text_follows_the_links_retargeted_in_its_note(
    ltm: tuple[Engram, Path],
) -> None:
    """Retargeting rewrote the links in a promoted memory's note but not in the memory: its
    next change took the difference for the user's edit, wrote both versions into the note
    tagged as a conflict, and the memory kept the dead link (audit)."""
    mem, vault = ltm
    dana = used(mem, "Dana is the billing lead")
    (dana_note,) = mem.promote(dana.id).items
    plan = used(mem, f"Atlas ships in May; ask [[{Path(str(dana_note.path)).stem}]] about it")
    (plan_note,) = mem.promote(plan.id).items
    (vault / str(dana_note.path)).rename(vault / "Engram" / "Dana.md")
    assert mem.index_ltm().moved == 1
    assert mem.get(plan.id).content == "Atlas ships in May; ask [[Dana]] about it"
    mem.update(plan.id, tags=["atlas"])
    mem.update(plan.id, content="Atlas ships in June; ask [[Dana]] about it")
    note = (vault / str(plan_note.path)).read_text()
    assert CONFLICT_TAG not in note and "Atlas ships in June; ask [[Dana]] about it" in note
    assert "May" not in note and mem.app.ltm.status().conflicts == []
