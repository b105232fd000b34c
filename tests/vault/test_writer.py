"""The vault writer: nothing escapes the vault, names never collide, a write is all or nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.support import leftover_temporaries

from engram.errors import ConfigError, ValidationError
from engram.vault.writer import VaultFiles, check_relative, is_temp_file, publish


@pytest.fixture
def vault(tmp_path: Path) -> VaultFiles:
    (tmp_path / "vault").mkdir()
    return VaultFiles(tmp_path / "vault")


def everything_under(root: Path) -> set[Path]:
    return set(root.rglob("*"))


ESCAPES = [
    "../../etc/x",
    "../outside.md",
    "Engram/../../outside.md",
    "/etc/passwd",
    "/tmp/x.md",
    "\\\\server\\share\\x.md",
    "C:\\Windows\\x.md",
    "C:/Windows/x.md",
    "~/x.md",
    "a\x00b.md",
    "CON",
    "Engram/nul.md",
    "Engram/com1.txt.md",
    "Engram/aux",
    "Engram/x\\..\\..\\y.md",
    "Engram//x.md",
    "./x.md",
    "Engram/x.md.",
    "Engram/trailing .md ",
    "Engram/" + "a" * 300 + ".md",
    "x" * 2_000,
    "Engram/line\nbreak.md",
    'Engram/quote".md',
    "Engram/star*.md",
    ".obsidian/app.json",
    "",
    "   ",
]


@pytest.mark.parametrize("rel", ESCAPES, ids=[repr(r)[:40] for r in ESCAPES])
def test_a_path_that_could_escape_or_break_is_refused_naming_the_field(
    vault: VaultFiles, rel: str
) -> None:
    before = everything_under(vault.root.parent)
    with pytest.raises(ValidationError) as caught:
        vault.write(rel, "pwned")
    assert caught.value.field == "path"
    assert everything_under(vault.root.parent) == before


def test_a_symlink_inside_the_vault_cannot_lead_a_write_outside(
    vault: VaultFiles, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (vault.root / "Engram").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ValidationError, match="outside the vault"):
        vault.write("Engram/note.md", "pwned")
    with pytest.raises(ValidationError, match="outside the vault"):
        vault.create("Engram", "note", lambda name: "pwned")
    (vault.root / "link.md").symlink_to(outside / "target.md")
    with pytest.raises(ValidationError, match="outside the vault"):
        vault.write("link.md", "pwned")
    assert list(outside.iterdir()) == []


def test_no_note_is_written_through_a_linked_folder_inside_the_vault(vault: VaultFiles) -> None:
    """The index does not follow links: a note written through `Engram` -> `Archive/Mem` was
    indexed under a name the next scan never saw, and `vault status` said it was both new and
    removed, its memory orphaned."""
    (vault.root / "Archive" / "Mem").mkdir(parents=True)
    (vault.root / "Engram").symlink_to(vault.root / "Archive" / "Mem", target_is_directory=True)
    with pytest.raises(ValidationError, match=r"'Engram' is a link: .* ENGRAM_LTM_FOLDER"):
        vault.create("Engram", "note", lambda name: "text")
    assert list((vault.root / "Archive" / "Mem").iterdir()) == []
    assert vault.create("Archive/Mem", "note", lambda name: "text") == "Archive/Mem/note.md"


def test_a_symlink_planted_at_a_notes_name_takes_the_name_not_the_note(
    vault: VaultFiles, tmp_path: Path
) -> None:
    """The note goes to the next free name inside the vault; the link's target is untouched."""
    outside = tmp_path / "outside.md"
    outside.write_text("the user's file")
    (vault.root / "Engram").mkdir()
    (vault.root / "Engram" / "note.md").symlink_to(outside)
    (vault.root / "Engram" / "note-2.md").mkdir()  # a folder takes a name too
    assert vault.exists("Engram/note.md") and vault.exists("Engram/note-2.md")
    assert vault.create("Engram", "note", lambda name: f"# {name}\n") == "Engram/note-3.md"
    assert (vault.root / "Engram" / "note-3.md").read_text() == "# note-3\n"
    assert outside.read_text() == "the user's file"


def test_check_relative_accepts_ordinary_notes() -> None:
    assert check_relative("Engram/My note (2).md") == "Engram/My note (2).md"
    assert check_relative("日本語/ノート.md") == "日本語/ノート.md"
    assert check_relative(".obsidian/x.md", allow_hidden=True) == ".obsidian/x.md"


def test_the_vault_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="ENGRAM_VAULT_PATH"):
        VaultFiles(tmp_path / "missing")


def test_collisions_get_a_numeric_suffix_and_never_overwrite(vault: VaultFiles) -> None:
    paths = [vault.create("Engram", "same", lambda name: f"note {name}\n") for _ in range(3)]
    assert paths == ["Engram/same.md", "Engram/same-2.md", "Engram/same-3.md"]
    assert (vault.root / "Engram/same-2.md").read_text() == "note same-2\n"
    (vault.root / "Engram/same-5.md").write_text("the user's own note")
    vault.create("Engram", "same", lambda name: "x")
    assert vault.create("Engram", "same", lambda name: "x") == "Engram/same-6.md"
    assert (vault.root / "Engram/same-5.md").read_text() == "the user's own note"


def test_a_name_taken_in_another_case_is_taken(vault: VaultFiles) -> None:
    """The user's "Atlas.md" and a new "atlas.md" were two notes here: Obsidian sends a link
    to either to one of them, and on macOS or Windows (or a vault synced there) they are one
    file. The new note takes the next name instead; the user's is left as it was."""
    (vault.root / "Engram").mkdir()
    (vault.root / "Engram/Atlas.md").write_text("# My own Atlas page\n")
    assert vault.exists("Engram/atlas.md") and not vault.exists("Engram/atlas-2.md")
    assert vault.create("Engram", "atlas", lambda name: "x") == "Engram/atlas-2.md"
    assert (vault.root / "Engram/Atlas.md").read_text() == "# My own Atlas page\n"
    assert sorted(p.name for p in (vault.root / "Engram").iterdir()) == ["Atlas.md", "atlas-2.md"]


def test_a_name_with_its_accents_written_another_way_is_taken(vault: VaultFiles) -> None:
    """macOS writes "café" as "cafe" and a combining accent (NFD); a new note "café-notes.md"
    (NFC) was written beside the user's, two names here and one file on macOS or in a vault
    synced there (probe). The new note takes the next name."""
    (vault.root / "Engram").mkdir()
    decomposed = "cafe\u0301-notes.md"
    (vault.root / "Engram" / decomposed).write_text("# My café notes\n")
    assert vault.exists("Engram/caf\u00e9-notes.md")
    assert vault.create("Engram", "caf\u00e9-notes", lambda name: "x") == (
        "Engram/caf\u00e9-notes-2.md"
    )
    assert (vault.root / "Engram" / decomposed).read_text() == "# My café notes\n"


def test_a_write_replaces_the_whole_note_and_leaves_no_temporary_file(
    vault: VaultFiles,
) -> None:
    vault.write("Engram/a.md", "old\n")
    vault.write("Engram/a.md", "new\n")
    assert (vault.root / "Engram/a.md").read_text() == "new\n"
    assert [p.name for p in (vault.root / "Engram").iterdir()] == ["a.md"]


def test_a_failed_write_leaves_the_old_note_and_no_temporary_file(tmp_path: Path) -> None:
    """The temp+rename contract with a rename that fails: the target is untouched."""
    folder = tmp_path / "notes"
    folder.mkdir()
    target = folder / "note.md"
    target.mkdir()  # a folder where the file should go: os.replace must fail
    (target / "keep.md").write_text("inside")
    with pytest.raises(OSError):
        publish(target, b"new content", overwrite=True)
    assert (target / "keep.md").read_text() == "inside"
    assert sorted(p.name for p in folder.iterdir()) == ["note.md"]


def test_writing_over_a_folder_is_refused(vault: VaultFiles) -> None:
    (vault.root / "Engram" / "dir.md").mkdir(parents=True)
    with pytest.raises(ValidationError, match="folder"):
        vault.write("Engram/dir.md", "x")


WRITER = """
import sys
from engram.vault.writer import VaultFiles
vault = VaultFiles(sys.argv[1])
big = [("A" if i % 2 else "B") * 4_000_000 for i in range(2)]
print("ready", flush=True)
i = 0
while True:
    vault.write("Engram/note.md", big[i % 2])
    i += 1
"""


@pytest.mark.slow
def test_a_writer_killed_mid_write_leaves_the_old_or_the_new_note_never_half(
    vault: VaultFiles,
) -> None:
    vault.write("Engram/note.md", "B" * 4_000_000)
    for delay in (0.05, 0.13, 0.21, 0.34):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(vault.root)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        time.sleep(delay)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        data = (vault.root / "Engram/note.md").read_bytes()
        assert len(data) == 4_000_000 and data in (b"A" * 4_000_000, b"B" * 4_000_000)
        for leftover in (vault.root / "Engram").iterdir():
            assert leftover.name == "note.md" or is_temp_file(leftover.name)


def test_a_note_saved_by_its_editor_meanwhile_is_not_overwritten(vault: VaultFiles) -> None:
    """A note read, changed and written back (a link retargeted, a backlink added) replaced
    whatever the user's editor saved between the read and the write."""
    note = vault.root / "n.md"
    note.write_text("First version.\n")
    read = vault.read_note("n.md")
    note.write_text("The user's edit, saved meanwhile.\n")
    assert vault.rewrite("n.md", read, read.text + "A backlink.\n") is False
    assert note.read_text() == "The user's edit, saved meanwhile.\n"
    again = vault.read_note("n.md")
    assert vault.rewrite("n.md", again, again.text + "A backlink.\n") is True
    assert note.read_text() == "The user's edit, saved meanwhile.\nA backlink.\n"


def test_a_note_that_cannot_be_written_back_as_it_was_is_refused(vault: VaultFiles) -> None:
    (vault.root / "latin.md").write_bytes("café".encode("latin-1"))
    with pytest.raises(ValidationError, match=r"path: 'latin\.md' is not UTF-8"):
        vault.read_note("latin.md")
    (vault.root / "big.md").write_bytes(b"x" * 5_000_001)
    with pytest.raises(ValidationError, match="larger than 5,000,000 bytes"):
        vault.read_note("big.md")
    (vault.root / "Aux: notes.md").write_text("a name only new notes may not take")
    assert vault.read_note("Aux: notes.md").text == "a name only new notes may not take"
    with pytest.raises(ValidationError, match=r"outside the vault|'\.\.'"):
        vault.read_note("../x.md")


def test_mixed_line_ends_are_written_back_as_they_were(vault: VaultFiles) -> None:
    """One CRLF line made the whole note count as CRLF: every other line was rewritten."""
    note = vault.root / "mixed.md"
    note.write_bytes(b"line one\nline two\r\nline three\n")
    read = vault.read_note("mixed.md")
    assert vault.rewrite("mixed.md", read, read.text + "line four\n")
    assert note.read_bytes() == b"line one\nline two\r\nline three\nline four\n"


def test_a_temporary_note_a_killed_write_left_goes_when_its_folder_is_written_again(
    vault: VaultFiles,
) -> None:
    """Killed between writing a note and removing its temporary file, a promotion left a hidden
    `.engram-….tmp` (a second link to the note) that no later run removed, and that a vault kept
    in git picks up. One as young as another process's write is kept."""
    folder = vault.root / "Engram"
    folder.mkdir()
    stale = folder / ".engram-old-note.md.0123abcd.tmp"
    young = folder / ".engram-new-note.md.4567ef01.tmp"
    mine = folder / ".engram-notes.txt"  # not a temporary file of ours: left alone
    leftover_temporaries(stale, young)
    mine.write_text("# my note\n")
    os.utime(mine, (stale.stat().st_mtime, stale.stat().st_mtime))
    vault.write("Engram/fresh.md", "# Fresh\n")
    assert not stale.exists() and young.exists() and mine.exists()
    assert (folder / "fresh.md").read_text() == "# Fresh\n"
