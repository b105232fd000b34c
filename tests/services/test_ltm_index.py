"""Indexing a real vault: everything is found, only changes are re-read, deletions leave."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from tests.ltm_support import FAST, open_with_vault, used, write_note

from engram import ConfigError, Engram, FixedClock, NotFoundError, ValidationError
from engram.config import config_dir
from engram.storage.rows import NOTE_COLUMNS, note_row
from engram.storage.sqlite import migrations
from engram.vault.index import parse_note


@pytest.fixture
def ltm(tmp_path: Path, clock: FixedClock) -> Iterator[tuple[Engram, Path]]:
    with open_with_vault(tmp_path, clock) as opened:
        yield opened


def paths(mem: Engram, query: str) -> list[str]:
    return [h.path for h in mem.search_unified(query, stm_weight=0).hits if h.path]


def test_every_note_of_the_vault_is_indexed_not_only_promoted_ones(
    ltm: tuple[Engram, Path],
) -> None:
    mem, vault = ltm
    write_note(vault, "Projects/atlas.md", "---\ntags: [work]\n---\nAtlas uses PostgreSQL.\n")
    write_note(vault, "Daily/2026-01-01.md", "Met Alice about #atlas. See [[atlas]].\n")
    write_note(vault, ".obsidian/ignored.md", "postgresql")
    report = mem.index_ltm()
    assert (report.notes, report.added, report.updated, report.removed) == (2, 2, 0, 0)
    assert report.problems == []
    assert paths(mem, "postgresql") == ["Projects/atlas.md"]
    assert mem.app.ltm.show("Projects/atlas.md").backlinks == ["Daily/2026-01-01.md"]


def test_reindexing_reads_only_what_changed_and_follows_edits_renames_and_deletes(
    ltm: tuple[Engram, Path],
) -> None:
    mem, vault = ltm
    a = write_note(vault, "a.md", "alpha text about kiwis\n")
    b = write_note(vault, "b.md", "bravo text about lemons\n")
    write_note(vault, "c.md", "charlie text about mangos\n")
    mem.index_ltm()

    assert mem.index_ltm().model_dump(exclude={"vault", "problems"}) == {
        "notes": 3,
        "added": 0,
        "updated": 0,
        "unchanged": 3,
        "removed": 0,
        "embedded": 0,
        "moved": 0,
    }

    a.write_text("alpha text about papayas now\n")  # edit
    os.utime(a, ns=(a.stat().st_atime_ns, a.stat().st_mtime_ns + 5_000_000_000))
    b.rename(vault / "renamed.md")  # rename
    (vault / "c.md").unlink()  # delete
    stamp = a.stat().st_mtime_ns
    report = mem.index_ltm()
    assert (report.added, report.updated, report.unchanged, report.removed) == (1, 1, 0, 2)
    assert paths(mem, "kiwis") == []
    assert paths(mem, "papayas") == ["a.md"]
    assert paths(mem, "lemons") == ["renamed.md"]
    assert paths(mem, "mangos") == []

    os.utime(a, ns=(stamp, stamp + 1_000_000_000))  # touched, same content: no re-parse
    assert mem.index_ltm().unchanged == 2
    assert mem.app.context.store.ltm_states()["a.md"].mtime_ns == stamp + 1_000_000_000


def test_broken_frontmatter_is_reported_and_the_note_still_found(
    ltm: tuple[Engram, Path],
) -> None:
    mem, vault = ltm
    write_note(vault, "broken.md", "---\ntitle: [oops\n---\nThe zeppelin schedule\n")
    report = mem.index_ltm()
    assert [p.path for p in report.problems] == ["broken.md"]
    assert "frontmatter" in report.problems[0].problem
    assert paths(mem, "zeppelin") == ["broken.md"]
    # Still reported by the next run, which reads nothing new: only the notes read in a run
    # were, so a note a unified search or a watching server indexed first never was (probe).
    again = mem.index_ltm()
    assert (again.unchanged, [p.path for p in again.problems]) == (1, ["broken.md"])
    write_note(vault, "broken.md", "---\ntitle: mended\n---\nThe zeppelin schedule\n")
    assert mem.index_ltm().problems == []


def test_list_show_and_open_read_the_vault(ltm: tuple[Engram, Path]) -> None:
    mem, vault = ltm
    m = used(mem, "Lives in Lisbon", tags=["home"])
    promoted = mem.promote(m.id).items[0].path
    write_note(vault, "Elsewhere/user.md", "not ours")
    listed = mem.app.ltm.list_notes()
    assert [(n.path, n.engram_id) for n in listed.notes] == [(promoted, m.id)]
    assert mem.app.ltm.list_notes(everything=True).count == 2
    view = mem.app.ltm.open_memory(m.id)
    assert view.path == promoted and view.tags == ["home"] and "Lives in Lisbon" in view.body
    assert view.frontmatter["engram_id"] == m.id
    with pytest.raises(ValidationError, match="never promoted"):
        mem.app.ltm.open_memory(mem.save("fresh").id)
    # Archived, a promoted memory keeps its note: "archived, not promoted: it has no note
    # yet" was said of it, while search showed the note under its id.
    mem.archive([m.id])
    assert mem.app.ltm.open_memory(m.id).path == promoted
    with pytest.raises(NotFoundError):
        mem.app.ltm.show("Engram/missing.md")
    # its note deleted by hand: the way to write it again is said (a probe)
    assert promoted is not None
    (vault / promoted).unlink()
    with pytest.raises(NotFoundError, match=f"was deleted from the vault: promote memory {m.id}"):
        mem.app.ltm.open_memory(m.id)
    # the user's own note written under its name is not its note: it was shown as the
    # memory's (a vault probe: an assistant read the user's private text as the memory's note)
    write_note(vault, promoted, "# My own note\nprivate text of the user")
    mem.index_ltm()
    with pytest.raises(NotFoundError, match="no longer this memory's note") as refused:
        mem.app.ltm.open_memory(m.id)
    assert "private text" not in str(refused.value)
    with pytest.raises(ValidationError, match="path"):
        mem.app.ltm.show("../outside.md")
    # files the index never reads as notes are no notes to show (a vault probe)
    write_note(vault, ".obsidian/app.json", "{}")
    write_note(vault, "Attachments/diagram.png", "PNG")
    write_note(vault, "Attachments/chart.pdf", "PDF")
    # ...and an attachment that is there is no broken link, by its path or by its name alone
    links = "![[Attachments/diagram.png]] ![[chart.pdf]] ![[gone.png]] [[Missing note]]"
    write_note(vault, "Meetings/standup.md", f"# Standup\n{links}\n")
    mem.index_ltm()
    unresolved = mem.app.ltm.show("Meetings/standup.md").unresolved_links
    assert sorted(unresolved) == ["Missing note", "gone.png"]
    # as Obsidian names a note, without ".md" (a vault probe: "is not a note")
    assert mem.app.ltm.show("Meetings/standup").path == "Meetings/standup.md"
    for other in (".obsidian/app.json", "Attachments/diagram.png"):
        with pytest.raises(ValidationError, match=f"path: {other} is not a note"):
            mem.app.ltm.show(other)


def test_indexing_without_a_vault_explains_the_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It names this machine's settings file: it said ~/.config/engram/.env wherever that was
    (XDG_CONFIG_HOME elsewhere; probe)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "conf"))
    with (
        Engram.open(str(tmp_path / "x.db"), **FAST) as mem,
        pytest.raises(ConfigError, match="ENGRAM_VAULT_PATH") as refused,
    ):
        mem.index_ltm()
    assert f"in {config_dir() / '.env'};" in str(refused.value)  # under XDG_CONFIG_HOME: Linux


def test_progress_is_reported_per_file(ltm: tuple[Engram, Path]) -> None:
    mem, vault = ltm
    for i in range(5):
        write_note(vault, f"n{i}.md", f"note {i}")
    seen: list[tuple[int, int]] = []
    mem.index_ltm(lambda done, total: seen.append((done, total)))
    assert seen == [(i, 5) for i in range(1, 6)]


def test_a_note_copied_then_deleted_in_a_later_pass_is_followed(
    ltm: tuple[Engram, Path],
) -> None:
    """A sync client's "conflicted copy" indexed first, the original deleted later: the move
    was never followed, the memory was called orphaned, and promoting it again (as status
    advised) wrote a second note."""
    mem, vault = ltm
    m = used(mem, "Heron migration starts in April")
    path = mem.promote(m.id).items[0].path
    assert path is not None
    copy = vault / "Engram" / "heron (conflicted copy).md"
    copy.write_text((vault / path).read_text())
    mem.index_ltm()
    assert mem.get(m.id).promoted_to == path  # both there: the original is still its note
    (vault / path).unlink()
    assert mem.index_ltm().moved == 1
    assert mem.get(m.id).promoted_to == "Engram/heron (conflicted copy).md"
    assert mem.app.ltm.status().orphaned == []
    mem.update(m.id, tags=["birds"])
    assert "birds" in copy.read_text()


def test_a_renamed_note_takes_only_the_links_that_found_it(ltm: tuple[Engram, Path]) -> None:
    """Two notes named Atlas: renaming the project's rewrote "[[Atlas]]", a link to the root
    one (which Obsidian resolves by the name), to point at the project."""
    mem, vault = ltm
    write_note(vault, "Atlas.md", "# Atlas\nAtlas is my colleague.\n")
    (vault / "Projects").mkdir()
    project = write_note(vault, "Projects/Atlas.md", "---\nengram: memory\n---\nShips in May.\n")
    diary = write_note(vault, "Diary.md", "Lunch with [[Atlas]], and [[Projects/Atlas]] notes.\n")
    mem.index_ltm()
    mem.import_vault(apply=True)
    project.rename(vault / "Projects" / "Atlas project.md")
    assert mem.index_ltm().moved == 1
    assert diary.read_text() == "Lunch with [[Atlas]], and [[Projects/Atlas project]] notes.\n"


def test_notes_indexed_before_aliases_were_are_read_again(
    tmp_path: Path, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store indexed before 0018 held no aliases, and its notes were unchanged on disk:
    the migration has the next index run read the notes that may name some."""
    vault = tmp_path / "vault"
    text = "---\naliases: [JS]\n---\n# JavaScript\nThe language of the web.\n"
    write_note(vault, "js.md", text)
    db = tmp_path / "ltm.db"
    before = [(n, q) for n, q in migrations.MIGRATIONS if n < "0018"]
    monkeypatch.setattr(migrations, "MIGRATIONS", before)
    with closing(sqlite3.connect(db, isolation_level=None)) as conn:
        migrations.migrate(conn)
        stat = (vault / "js.md").stat()
        note = parse_note("js.md", text.encode(), mtime_ns=stat.st_mtime_ns, size=stat.st_size)
        then = [(c, v) for c, v in zip(NOTE_COLUMNS, note_row(note), strict=True) if c != "aliases"]
        conn.execute(
            f"INSERT INTO ltm_notes ({', '.join(c for c, _ in then)}) "
            f"VALUES ({', '.join('?' * len(then))})",
            [v for _, v in then],
        )
    monkeypatch.undo()
    with Engram.open(str(db), clock=clock, vault_path=str(vault), **FAST) as mem:
        mem.index_ltm()
        assert paths(mem, "JS") == ["js.md"]
