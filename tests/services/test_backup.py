"""Backups go into a real git repository: one commit per run with a clear message, the store
export and optionally the vault's notes; someone else's uncommitted work is never swept up."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.ltm_support import open_with_vault, used, write_note

from engram import Engram, FixedClock, ValidationError
from engram.services.transfer import export


@pytest.fixture
def ltm(tmp_path: Path, clock: FixedClock) -> Iterator[tuple[Engram, Path]]:
    with open_with_vault(tmp_path, clock) as opened:
        yield opened


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def user_repo(path: Path) -> Path:
    path.mkdir()
    git(path, "init", "--quiet")
    git(path, "config", "user.email", "me@example.com")
    git(path, "config", "user.name", "Me")
    (path / "mine.txt").write_text("my work\n")
    git(path, "add", "mine.txt")
    git(path, "commit", "--quiet", "-m", "mine")
    return path


def test_first_backup_creates_the_repository_and_commits_the_export(
    ltm: tuple[Engram, Path], tmp_path: Path
) -> None:
    mem, _ = ltm
    a, b = mem.save("First memory", tags=["x"]), mem.save("Second memory")
    mem.create_relation(a.id, b.id)
    repo = tmp_path / "backups"
    result = mem.backup(repo)
    assert result.created and result.committed and result.commit
    assert (result.memories, result.relations, result.vault_files) == (2, 1, 0)
    assert git(repo, "log", "--format=%s") == result.message
    assert result.message.startswith("engram backup 2026-01-01T12:00:00Z: 2 memories, 1 relation")
    lines = [json.loads(line) for line in (repo / "engram/export.jsonl").read_text().splitlines()]
    assert [(x["kind"], x.get("content")) for x in lines] == [
        ("memory", "First memory"),
        ("memory", "Second memory"),
        ("relation", None),
        ("end", None),
    ]
    if os.name == "posix":  # the export is as private as the store (it was 644: a probe)
        assert (repo / "engram/export.jsonl").stat().st_mode & 0o777 == 0o600
    assert lines[2]["from_id"] == a.id
    assert git(repo, "status", "--porcelain") == ""


def test_a_second_run_commits_only_changes(
    ltm: tuple[Engram, Path], tmp_path: Path, clock: FixedClock
) -> None:
    mem, _ = ltm
    mem.save("One")
    repo = tmp_path / "backups"
    first = mem.backup(repo)
    unchanged = mem.backup(repo)
    assert not unchanged.committed and unchanged.commit == first.commit
    assert unchanged.message == "nothing changed since the last backup"
    clock.advance(days=1)
    mem.save("Two")
    second = mem.backup(repo)
    assert second.committed and second.commit != first.commit
    assert git(repo, "rev-list", "--count", "HEAD") == "2"


def test_the_vault_folder_is_copied_when_asked(ltm: tuple[Engram, Path], tmp_path: Path) -> None:
    mem, vault = ltm
    m = used(mem, "Keep me forever")
    path = mem.promote(m.id).items[0].path
    write_note(vault, "Private/diary.md", "not part of the LTM folder")
    repo = tmp_path / "backups"
    result = mem.backup(repo, include_vault=True)
    assert result.vault_files == 1 and result.message.endswith(", 1 vault files")
    assert (repo / "vault" / str(path)).read_text() == (vault / str(path)).read_text()
    assert not (repo / "vault/Private").exists()
    (vault / str(path)).unlink()
    again = mem.backup(repo, include_vault=True)
    assert again.committed and not (repo / "vault" / str(path)).exists()


def test_a_promoted_note_moved_out_of_the_folder_is_backed_up_where_it_is(
    ltm: tuple[Engram, Path], tmp_path: Path
) -> None:
    """Obsidian users file notes away: a promoted note moved to Projects/ was in no backup."""
    mem, vault = ltm
    m = used(mem, "The Atlas launch is on May 5")
    path = str(mem.promote(m.id).items[0].path)
    moved = vault / "Projects/Atlas launch.md"
    moved.parent.mkdir()
    (vault / path).rename(moved)
    repo = user_repo(tmp_path / "backups")
    write_note(repo, "vault/Mine.md", "the user's own file")
    git(repo, "add", "vault/Mine.md")
    git(repo, "commit", "--quiet", "-m", "mine")
    first = mem.backup(repo, include_vault=True)
    assert first.vault_files == 1
    assert (repo / "vault/Projects/Atlas launch.md").read_text() == moved.read_text()
    listed = git(repo, "ls-files", "vault").splitlines()
    assert listed == ["vault/Mine.md", "vault/Projects/Atlas launch.md"]
    assert (repo / "engram/moved-notes.txt").read_text() == "Projects/Atlas launch.md\n"

    # moved again: the old copy goes, the new one comes, the user's file stays
    again = vault / "Archive/2026/Atlas launch.md"
    again.parent.mkdir(parents=True)
    moved.rename(again)
    second = mem.backup(repo, include_vault=True)
    assert second.committed and second.vault_files == 1
    assert not (repo / "vault/Projects/Atlas launch.md").exists()
    listed = git(repo, "ls-files", "vault").splitlines()
    assert listed == ["vault/Archive/2026/Atlas launch.md", "vault/Mine.md"]
    assert (repo / "vault/Mine.md").read_text() == "the user's own file"


def test_a_vault_with_nothing_promoted_yet_backs_up(
    ltm: tuple[Engram, Path], tmp_path: Path
) -> None:
    """Until the first promotion the notes folder does not exist: git refused the pathspec
    and no backup was made."""
    mem, _ = ltm
    mem.save("Not promoted")
    repo = tmp_path / "backups"
    result = mem.backup(repo, include_vault=True)
    assert result.committed and result.vault_files == 0
    assert git(repo, "status", "--porcelain") == ""


def test_a_gitignore_of_the_repository_does_not_keep_the_backup_out(
    ltm: tuple[Engram, Path], tmp_path: Path
) -> None:
    """With "*.jsonl" ignored, every run said "nothing changed" and nothing was committed."""
    mem, _ = ltm
    mem.save("Kept")
    repo = user_repo(tmp_path / "mine")
    (repo / ".gitignore").write_text("*.jsonl\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "--quiet", "-m", "ignore jsonl")
    result = mem.backup(repo)
    assert result.committed
    assert "engram/export.jsonl" in git(repo, "ls-files")


def test_a_dirty_repository_it_did_not_create_is_refused_unless_forced(
    ltm: tuple[Engram, Path], tmp_path: Path
) -> None:
    mem, _ = ltm
    mem.save("One")
    repo = user_repo(tmp_path / "mine")
    (repo / "mine.txt").write_text("half-finished work\n")
    with pytest.raises(ValidationError, match="uncommitted changes"):
        mem.backup(repo)
    assert git(repo, "rev-list", "--count", "HEAD") == "1"
    forced = mem.backup(repo, force=True)
    assert forced.committed and not forced.created
    assert git(repo, "show", "--name-only", "--format=", "HEAD").splitlines() == [
        "engram/export.jsonl"
    ]
    assert git(repo, "status", "--porcelain") == "M mine.txt"  # the user's work is left alone
    assert git(repo, "log", "-1", "--format=%ae") == "me@example.com"


def test_forced_the_users_staged_work_stays_out_of_the_backup_commit(
    ltm: tuple[Engram, Path], tmp_path: Path
) -> None:
    """--force promises that only Engram's own files are committed: work the user had staged
    (git add) went into the backup commit, and made one even when the export had not changed."""
    mem, _ = ltm
    mem.save("One")
    repo = user_repo(tmp_path / "mine")
    (repo / "mine.txt").write_text("half-finished work\n")
    git(repo, "add", "mine.txt")
    first = mem.backup(repo, force=True)
    assert first.committed
    assert git(repo, "show", "--name-only", "--format=", "HEAD").splitlines() == [
        "engram/export.jsonl"
    ]
    assert git(repo, "diff", "--cached", "--name-only") == "mine.txt"  # still staged, theirs
    again = mem.backup(repo, force=True)  # nothing of Engram's changed: no commit
    assert not again.committed and again.commit == first.commit


def test_a_clean_repository_of_the_user_is_fine(ltm: tuple[Engram, Path], tmp_path: Path) -> None:
    mem, _ = ltm
    repo = user_repo(tmp_path / "mine")
    assert mem.backup(repo).committed


def test_an_export_a_killed_backup_left_does_not_block_the_next(
    ltm: tuple[Engram, Path], tmp_path: Path
) -> None:
    """A backup killed while writing its export leaves the temporary file beside it; in the
    user's repository it counted as their uncommitted change, and every later backup was
    refused (a cron job's backups stopped)."""
    mem, _ = ltm
    mem.save("Atlas ships in May")
    repo = user_repo(tmp_path / "mine")
    assert mem.backup(repo).committed
    left = repo / "engram" / f".export.jsonl.{'0' * 32}.tmp"  # as `atomic.replacing` names it
    left.write_text('{"type": "memory", "id": "half')
    mem.save("Atlas ships in June")
    assert mem.backup(repo).committed
    assert not left.exists() and git(repo, "status", "--porcelain") == ""


def test_a_backup_killed_before_its_marker_was_written_does_not_block_the_next(
    ltm: tuple[Engram, Path], tmp_path: Path
) -> None:
    """Killed between `git init` and its marker's rename, a backup left a repository holding
    the marker's temporary file alone: every later backup called it the user's change and
    refused, and --force committed without writing the marker (a probe's kill -9)."""
    mem, _ = ltm
    mem.save("Atlas ships in May")
    repo = tmp_path / "backups"
    repo.mkdir()
    git(repo, "init", "--quiet")
    left = repo / f"..engram-backup.{'0' * 32}.tmp"  # as `atomic.replacing` names it
    left.write_text("This repository holds Engram backups (engram backup).\n")
    first = mem.backup(repo)
    assert first.committed and (repo / ".engram-backup").exists() and not left.exists()
    mem.save("Atlas ships in June")
    assert mem.backup(repo).committed
    assert git(repo, "status", "--porcelain") == ""


def test_an_export_a_stopped_backup_left_uncommitted_does_not_block_the_next(
    ltm: tuple[Engram, Path], tmp_path: Path
) -> None:
    """Stopped between writing its export (and vault copy) and committing them, a backup left
    Engram's own files changed: in the user's repository they counted as the user's
    uncommitted work, and every later backup was refused (audit). The user's own changes
    still are."""
    mem, _ = ltm
    mem.promote(used(mem, "Atlas ships in May").id)
    repo = user_repo(tmp_path / "mine")
    assert mem.backup(repo, include_vault=True).committed
    (repo / "engram" / "export.jsonl").write_text('{"type": "memory", "id": "half')
    (note,) = (repo / "vault").rglob("*.md")
    note.write_text("half-copied\n")
    mem.save("Atlas ships in June")
    assert mem.backup(repo, include_vault=True).committed
    assert git(repo, "status", "--porcelain") == ""
    (repo / "mine.txt").write_text("half-finished work\n")
    with pytest.raises(ValidationError, match="uncommitted changes"):
        mem.backup(repo)


@pytest.mark.parametrize(
    "remote", ["https://github.com/me/notes.git", "git@github.com:me/notes.git", "ssh://h/x"]
)
def test_a_remote_is_refused_not_made_a_folder(
    ltm: tuple[Engram, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, remote: str
) -> None:
    """`--repo https://github.com/x/y.git` made the local folders ./https:/github.com/x/y.git
    and committed there (audit)."""
    mem, _ = ltm
    monkeypatch.chdir(tmp_path)
    before = sorted(tmp_path.iterdir())
    with pytest.raises(ValidationError, match=r"repo: takes a local folder, not a remote"):
        mem.backup(remote)
    assert sorted(tmp_path.iterdir()) == before


def test_folders_that_cannot_hold_a_backup_are_refused(
    ltm: tuple[Engram, Path], tmp_path: Path
) -> None:
    mem, vault = ltm
    not_a_repo = tmp_path / "stuff"
    not_a_repo.mkdir()
    (not_a_repo / "file.txt").write_text("x")
    with pytest.raises(ValidationError, match="not the top folder of a git repository"):
        mem.backup(not_a_repo)
    with pytest.raises(ValidationError, match="repo"):
        mem.backup(not_a_repo / "file.txt")
    # a folder that cannot be made (a file where a folder of the path goes) names repo
    with pytest.raises(ValidationError, match=r"repo: cannot create .*file.txt/deeper"):
        mem.backup(not_a_repo / "file.txt" / "deeper")
    # a repository git refuses (another owner, a broken .git) is refused with git's reason,
    # not called "not a git repository" and sent to an empty folder
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / ".git").write_text(f"gitdir: {tmp_path / 'gone'}\n")
    with pytest.raises(ValidationError, match=r"git cannot use .*broken: fatal"):
        mem.backup(broken)
    with pytest.raises(ValidationError, match="overlaps the vault"):
        mem.backup(vault / "backup", include_vault=True)
    with pytest.raises(ValidationError, match="overlaps the vault"):
        mem.backup(tmp_path, include_vault=True)
    assert not (vault / "backup").exists()
    # a folder where the export file goes: it failed with a bare "[Errno 21] Is a directory"
    mine = user_repo(tmp_path / "mine")
    (mine / "engram" / "export.jsonl").mkdir(parents=True)
    with pytest.raises(ValidationError, match=r"export\.jsonl is a folder where the backup keeps"):
        mem.backup(mine, force=True)


def test_a_link_in_the_repository_is_never_written_through(
    ltm: tuple[Engram, Path], tmp_path: Path
) -> None:
    """A repository whose `vault` linked to the Obsidian vault: the mirror deleted the user's
    promoted notes through the link (exit 0, "0 vault files"); an `engram` link had the export
    overwrite a file outside the repository."""
    mem, vault = ltm
    m = used(mem, "Keep me forever")
    note = vault / str(mem.promote(m.id).items[0].path)
    repo = user_repo(tmp_path / "linked")
    (repo / "vault").symlink_to(vault)
    git(repo, "add", "vault")
    git(repo, "commit", "--quiet", "-m", "link to my vault")
    with pytest.raises(ValidationError, match="symbolic link"):
        mem.backup(repo, include_vault=True)
    assert note.exists()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "export.jsonl").write_text("precious\n")
    other = user_repo(tmp_path / "linked-export")
    (other / "engram").symlink_to(elsewhere)
    git(other, "add", "engram")
    git(other, "commit", "--quiet", "-m", "link")
    with pytest.raises(ValidationError, match="symbolic link"):
        mem.backup(other)
    assert (elsewhere / "export.jsonl").read_text() == "precious\n"


def test_a_detached_head_is_refused(ltm: tuple[Engram, Path], tmp_path: Path) -> None:
    """A past backup checked out whole: the next backups were committed on no branch, reported
    as "Committed", and left for git to collect."""
    mem, _ = ltm
    repo = tmp_path / "backups"
    mem.backup(repo)
    mem.save("one more")
    mem.backup(repo)
    git(repo, "checkout", "--quiet", "HEAD~1")
    mem.save("and another")
    with pytest.raises(ValidationError, match="detached HEAD"):
        mem.backup(repo)
    git(repo, "checkout", "--quiet", "-")
    assert mem.backup(repo).committed


def test_a_named_pipe_among_the_notes_is_left_out(ltm: tuple[Engram, Path], tmp_path: Path) -> None:
    """A FIFO in the notes folder made every backup with the vault fail."""
    mem, vault = ltm
    m = used(mem, "Keep me forever")
    path = mem.promote(m.id).items[0].path
    os.mkfifo((vault / str(path)).parent / "pipe")
    result = mem.backup(tmp_path / "backups", include_vault=True)
    assert result.committed and result.vault_files == 1


def test_other_files_in_the_export_folder_are_never_committed(
    ltm: tuple[Engram, Path], tmp_path: Path
) -> None:
    """The whole `engram/` folder was added with --force: in a dotfiles repository whose
    `engram/` holds Engram's `.env` and `http-token` (ignored by the user's .gitignore), both
    secrets went into the backup commit, and so did the user's own file there."""
    mem, _ = ltm
    mem.save("Atlas ships in May")
    repo = user_repo(tmp_path / "dotconfig")
    (repo / "engram").mkdir()
    (repo / ".gitignore").write_text("engram/.env\nengram/http-token\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "--quiet", "-m", "ignore tokens")
    (repo / "engram" / ".env").write_text("ENGRAM_HTTP_TOKEN=super-secret-token\n")
    (repo / "engram" / "http-token").write_text("another-secret\n")
    assert mem.backup(repo).committed
    committed = git(repo, "show", "--name-only", "--format=", "HEAD").splitlines()
    assert committed == ["engram/export.jsonl"]
    (repo / "engram" / "my-notes.txt").write_text("work in progress\n")
    mem.save("Another memory")
    assert mem.backup(repo, force=True).committed
    assert git(repo, "show", "--name-only", "--format=", "HEAD").splitlines() == committed
    assert "-secret" not in git(repo, "log", "-p", "--all")


def test_a_memory_linked_while_the_backup_runs_comes_with_its_relation(
    ltm: tuple[Engram, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The export reads the store page by page: another client that saved a memory and
    linked it to one already exported left the backup with the memory but not the link. The
    other client is made to write between two pages by wrapping the page reader."""
    mem, _ = ltm
    first = mem.save("memory on the first page")
    for i in range(12):
        mem.save(f"filler memory number {i}")
    real_pages = export.pages

    def pages_with_a_writer(store: object, batch: int) -> object:
        for n, page in enumerate(real_pages(store, 5)):  # type: ignore[arg-type]
            yield page
            if n == 0 and mem.stats().total == 13:
                late = mem.save("saved while the backup ran")
                mem.create_relation(first.id, late.id, "related")

    monkeypatch.setattr(export, "pages", pages_with_a_writer)
    result = mem.backup(tmp_path / "repo")
    assert (result.memories, result.relations) == (14, 1)
    text = (tmp_path / "repo/engram/export.jsonl").read_text()
    lines = [json.loads(line) for line in text.splitlines()]
    assert sum(line["kind"] == "relation" for line in lines) == 1


def test_git_variables_of_a_hook_do_not_redirect_the_backup(
    ltm: tuple[Engram, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run from a git hook (GIT_DIR, GIT_INDEX_FILE set), the backup was committed into the
    hook's repository, and the named folder was left without one."""
    mem, _ = ltm
    mem.save("Back me up")
    other = user_repo(tmp_path / "theirs")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git" / "index"))
    result = mem.backup(tmp_path / "backups")
    monkeypatch.delenv("GIT_DIR")
    monkeypatch.delenv("GIT_INDEX_FILE")
    assert git(tmp_path / "backups", "log", "--format=%s") == result.message
    assert git(other, "log", "--format=%s") == "mine"


def test_backups_running_at_once_take_turns_and_commit_every_note(
    ltm: tuple[Engram, Path], tmp_path: Path
) -> None:
    """Nothing kept two runs apart: one run's mirror deleted the vault copy while another
    staged it, so a commit said "N vault files" while it deleted some of them, and the other
    runs failed with raw file errors."""
    mem, vault = ltm
    mem.save("Back me up")
    for i in range(150):
        write_note(vault, f"Engram/note-{i:03}.md", f"note {i}\n")
    repo = tmp_path / "backups"
    mem.backup(repo, include_vault=True)
    errors: list[BaseException] = []

    def run(round_: int) -> None:
        try:
            write_note(vault, f"Engram/note-{round_:03}.md", f"note {round_}, edited\n")
            mem.backup(repo, include_vault=True)
        except BaseException as exc:  # collected, and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for commit in git(repo, "log", "--format=%H").split():
        files = git(repo, "ls-tree", "-r", "--name-only", commit, "--", "vault").split()
        assert len(files) == 150, commit


def test_a_commit_keeps_the_users_name_when_git_knows_only_that(
    ltm: tuple[Engram, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem, _ = ltm
    mem.save("Back me up")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    repo = tmp_path / "backups"
    repo.mkdir()
    git(repo, "init", "--quiet")
    git(repo, "config", "user.name", "Dana")
    mem.backup(repo)
    assert git(repo, "log", "--format=%an <%ae>") == "Dana <engram@localhost>"
