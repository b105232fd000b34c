"""`engram vault import` and memories that already hold a note's text: the import promotes
that memory to the note instead of saving a second copy of the fact. Real vault folder, real
SQLite store."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import frontmatter
import pytest
from click.testing import CliRunner
from tests.ltm_support import open_with_vault, write_note

from engram import Engram, FixedClock
from engram.cli.main import cli

MARKED = "---\nengram: memory\ntags: [{tags}]\n---\n{body}\n"


@pytest.fixture
def ltm(tmp_path: Path, clock: FixedClock) -> Iterator[tuple[Engram, Path]]:
    with open_with_vault(tmp_path, clock, vault_refresh_seconds=0) as opened:
        yield opened


def test_a_note_repeating_a_memory_promotes_that_memory_instead_of_copying_it(
    ltm: tuple[Engram, Path],
) -> None:
    mem, vault = ltm
    held = mem.save("atlas ships in may", tags=["roadmap"])
    write_note(vault, "Atlas.md", MARKED.format(tags="work", body="Atlas ships in May."))

    (listed,) = mem.import_vault().notes  # the dry run says which memory it will take
    assert (listed.memory_id, listed.existing) == (held.id, True)
    assert mem.get(held.id).status == "active"

    done = mem.import_vault(apply=True)
    (imported,) = done.notes
    assert (imported.memory_id, imported.existing, done.count) == (held.id, True, 1)
    assert mem.stats().total == 1  # no second copy of the fact
    memory = mem.get(held.id)
    assert memory.status == "promoted" and memory.promoted_to == "Atlas.md"
    # The note's wording and tags join the memory: its next change is no false conflict.
    assert memory.content == "Atlas ships in May." and set(memory.tags) == {"roadmap", "work"}
    assert frontmatter.load(vault / "Atlas.md")["engram_id"] == held.id
    assert mem.import_vault(apply=True).count == 0
    mem.update(held.id, content="Atlas ships in June.")
    note = (vault / "Atlas.md").read_text()
    assert "Atlas ships in June." in note and "engram-conflict" not in note


def test_a_note_repeating_a_promoted_memory_is_skipped_naming_it(
    ltm: tuple[Engram, Path],
) -> None:
    """That memory has a note already: a second one would be a second copy in the vault."""
    mem, vault = ltm
    held = mem.save("Dana leads Atlas.")
    mem.promote(held.id)
    path = mem.get(held.id).promoted_to
    write_note(vault, "Dana.md", MARKED.format(tags="", body="Dana leads Atlas"))
    for run in (mem.import_vault(), mem.import_vault(apply=True)):
        assert run.count == 0
        assert run.skipped["Dana.md"] == (
            f"memory {held.id} holds its text already, with the note {path}"
        )
    assert mem.stats().total == 1 and "engram_id" not in (vault / "Dana.md").read_text()


def test_two_notes_with_the_same_text_make_one_memory(ltm: tuple[Engram, Path]) -> None:
    mem, vault = ltm
    write_note(vault, "a.md", MARKED.format(tags="", body="The review is in March."))
    write_note(vault, "b.md", MARKED.format(tags="", body="the review is in march"))
    done = mem.import_vault(apply=True)
    assert [n.path for n in done.notes] == ["a.md"] and mem.stats().total == 1
    assert done.skipped == {"b.md": "a.md, imported in the same run, has the same text"}


def test_copies_are_made_when_the_store_keeps_repeats(tmp_path: Path, clock: FixedClock) -> None:
    with open_with_vault(tmp_path, clock, save_duplicates="keep") as (mem, vault):
        held = mem.save("Atlas ships in May.")
        write_note(vault, "Atlas.md", MARKED.format(tags="", body="Atlas ships in May."))
        (imported,) = mem.import_vault(apply=True).notes
        assert imported.memory_id != held.id and not imported.existing
        assert mem.stats().total == 2 and mem.get(held.id).status == "active"


def test_a_memory_whose_note_cannot_take_the_id_is_left_as_it_was(
    ltm: tuple[Engram, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The note is edited between its read and the writing of its id (made to happen then by
    wrapping the save of the other note): the memory it would have taken is not left promoted
    to a note that does not name it."""
    mem, vault = ltm
    held = mem.save("atlas ships in may", tags=["roadmap"])
    note = write_note(vault, "Atlas.md", MARKED.format(tags="work", body="Atlas ships in May."))
    write_note(vault, "Bo.md", MARKED.format(tags="", body="Bo tests Atlas."))
    real_save_many = mem.app.vault_import.memories.save_many

    def save_then_edit(*args: object, **kwargs: object) -> object:
        saved = real_save_many(*args, **kwargs)  # type: ignore[arg-type]
        note.write_text(MARKED.format(tags="work", body="Atlas ships in May. Edited."))
        return saved

    monkeypatch.setattr(mem.app.vault_import.memories, "save_many", save_then_edit)
    done = mem.import_vault(apply=True)
    assert [n.path for n in done.notes] == ["Bo.md"]
    assert "changed while it was imported" in done.skipped["Atlas.md"]
    memory = mem.get(held.id)
    assert (memory.status, memory.promoted_to) == ("active", None)
    assert (memory.content, memory.tags) == ("atlas ships in may", ("roadmap",))


def test_the_cli_says_which_note_took_a_memory_it_already_had(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write_note(vault, "Atlas.md", MARKED.format(tags="", body="Atlas ships in May."))
    env = {"ENGRAM_VAULT_PATH": str(vault), "ENGRAM_EMBEDDING_MODEL": "none"}
    store = ["--store", str(tmp_path / "cli.db")]

    def cli_run(*args: str) -> str:
        result = CliRunner().invoke(cli, [*store, *args], env=env, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.stdout

    held = cli_run("--json", "save", "Atlas ships in May").strip()
    memory_id = json.loads(held)["id"]
    out = cli_run("vault", "import", "--apply")
    assert f"Atlas.md -> {memory_id} (a memory already held its text" in out


def edit_during_import(
    mem: Engram, monkeypatch: pytest.MonkeyPatch, edit: Callable[[], object]
) -> None:
    """Run `edit` (another client's change) after the import has read the vault and the
    store, before it takes over any memory: wrapped around the save of the new notes."""
    real_save_many = mem.app.vault_import.memories.save_many

    def save_then_edit(*args: object, **kwargs: object) -> object:
        saved = real_save_many(*args, **kwargs)  # type: ignore[arg-type]
        edit()
        return saved

    monkeypatch.setattr(mem.app.vault_import.memories, "save_many", save_then_edit)


def test_a_memory_changed_by_another_client_meanwhile_keeps_the_change(
    ltm: tuple[Engram, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    mem, vault = ltm
    held = mem.save("atlas ships in may", tags=["roadmap"])
    write_note(vault, "Atlas.md", MARKED.format(tags="work", body="Atlas ships in May."))
    write_note(vault, "Bo.md", MARKED.format(tags="", body="Bo tests Atlas."))
    edit_during_import(mem, monkeypatch, lambda: mem.update(held.id, content="Atlas ships in June"))
    done = mem.import_vault(apply=True)
    assert [n.path for n in done.notes] == ["Bo.md"]  # the rest of the import goes ahead
    assert done.skipped == {
        "Atlas.md": f"memory {held.id}, which holds its text, changed: run the import again"
    }
    memory = mem.get(held.id)
    assert (memory.content, memory.status, memory.tags) == (
        "Atlas ships in June",
        "active",
        ("roadmap",),
    )


def test_tags_added_meanwhile_past_the_limit_skip_the_note_not_the_import(
    ltm: tuple[Engram, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The limit was checked when the import read the memory; another client's tags then
    made the merge pass it, and the error stopped the import with the new notes' memories
    saved but their notes without ids."""
    mem, vault = ltm
    held = mem.save("atlas ships in may")
    write_note(vault, "Atlas.md", MARKED.format(tags="work", body="Atlas ships in May."))
    write_note(vault, "Bo.md", MARKED.format(tags="", body="Bo tests Atlas."))
    many = [f"t{i}" for i in range(50)]
    edit_during_import(mem, monkeypatch, lambda: mem.update(held.id, tags=many))
    done = mem.import_vault(apply=True)
    assert [n.path for n in done.notes] == ["Bo.md"] and "engram_id" in (
        vault / "Bo.md"
    ).read_text()
    assert "Atlas.md" in done.skipped and mem.get(held.id).status == "active"


def test_a_promoted_memory_whose_note_is_gone_or_is_this_note_takes_it(
    ltm: tuple[Engram, Path],
) -> None:
    """Its note deleted (orphaned), or this very note without its engram_id line: the memory
    is promoted to the marked note instead of the note being refused on every run."""
    mem, vault = ltm
    orphan = mem.save("Dana leads Atlas.")
    mem.promote(orphan.id)
    (vault / str(mem.get(orphan.id).promoted_to)).unlink()
    write_note(vault, "Dana.md", MARKED.format(tags="", body="Dana leads Atlas"))
    (taken,) = mem.import_vault(apply=True).notes
    assert (taken.memory_id, taken.existing) == (orphan.id, True)
    assert mem.get(orphan.id).promoted_to == "Dana.md"
    # The id line removed by hand: the next import finds the same memory, promoted to it.
    (vault / "Dana.md").write_text(MARKED.format(tags="", body="Dana leads Atlas"))
    (again,) = mem.import_vault(apply=True).notes
    assert again.memory_id == orphan.id and mem.stats().total == 1
    assert frontmatter.load(vault / "Dana.md")["engram_id"] == orphan.id


def test_a_note_that_lost_its_id_and_was_edited_stays_its_memorys(
    ltm: tuple[Engram, Path],
) -> None:
    """Its engram_id line removed and its text edited: only a repeat of the text was looked
    for, so the import made a second memory and left the first promoted to the note, an
    orphan never forgotten, with the relations (probe). The memory promoted to this note takes
    the edited text."""
    mem, vault = ltm
    write_note(vault, "Lee.md", MARKED.format(tags="", body="Lee runs the Atlas infra."))
    (first,) = mem.import_vault(apply=True).notes
    assert first.memory_id is not None
    other = mem.save("Atlas runs on Kubernetes")
    mem.create_relation(first.memory_id, other.id)
    edited = MARKED.format(tags="ops", body="Lee runs the Atlas infrastructure team.")
    (vault / "Lee.md").write_text(edited)
    (listed,) = mem.import_vault().notes  # the dry run names it too
    assert (listed.memory_id, listed.existing) == (first.memory_id, True)
    (again,) = mem.import_vault(apply=True).notes
    assert (again.memory_id, again.existing) == (first.memory_id, True)
    assert mem.stats().total == 2  # the memory and the one it relates to: no copy
    memory = mem.get(first.memory_id)
    assert memory.content == "Lee runs the Atlas infrastructure team."
    assert (memory.status, memory.promoted_to) == ("promoted", "Lee.md")
    assert "ops" in memory.tags
    assert frontmatter.load(vault / "Lee.md")["engram_id"] == first.memory_id
    assert mem.app.ltm.status().orphaned == []
    assert [r.memory.id for r in mem.related(first.memory_id)] == [other.id]


def test_a_marked_note_whose_frontmatter_is_not_yaml_is_skipped_saying_why(
    ltm: tuple[Engram, Path],
) -> None:
    """Its frontmatter could not be read, so its mark was not seen either: the import said
    no note was marked, in the dry run and for real. It is skipped now with the reason, and
    a note with the same fault but no mark is still no concern of the import."""
    mem, vault = ltm
    (vault / "plan.md").write_text("---\nengram: memory\naliases: [Atlas: plan\n---\nThe plan.\n")
    (vault / "diary.md").write_text("---\naliases: [Atlas: plan\n---\nDear diary.\n")
    for apply in (False, True):
        result = mem.import_vault(apply=apply)
        assert result.count == 0
        assert list(result.skipped) == ["plan.md"]
        assert "frontmatter is not valid YAML" in result.skipped["plan.md"]
    assert mem.stats().total == 0


def test_notes_imported_together_are_no_episode(ltm: tuple[Engram, Path]) -> None:
    """Memories saved in one batch without an episode join one by the time they were saved
    (`core.episodes`); notes of a vault were not said in one conversation."""
    mem, vault = ltm
    write_note(vault, "Atlas.md", MARKED.format(tags="work", body="Atlas ships in May."))
    write_note(vault, "Heron.md", MARKED.format(tags="birds", body="Herons nest in March."))
    done = mem.import_vault(apply=True)
    assert done.count == 2
    assert {mem.get(n.memory_id).episode for n in done.notes} == {None}
