"""Backup: commit an export of the store (and optionally the vault's LTM folder) to a git
repository the user names.

Layout inside the repository:

    .engram-backup               marks a repository this command created
    engram/export.jsonl          the store as `engram export --format jsonl` writes it: every
                                 memory (in save order), then every relation, one per line
    vault/<ENGRAM_LTM_FOLDER>/   a copy of the promoted notes (with --include-vault)
    vault/<path>                 a promoted note the user moved out of that folder, at its
                                 place in the vault (listed in engram/moved-notes.txt)

A folder that does not exist or is empty becomes a new repository. An existing repository with
uncommitted changes is refused unless it was created by this command or `force` is given: the
backup commits only its own files, but a user's half-finished work deserves a look first. Files
are written atomically (temporary file, fsync, rename); `git` is run as a subprocess.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath

from engram.atomic import private_if_new, temporaries_beside, write_atomically
from engram.core.wording import counted
from engram.errors import EngramError, ValidationError
from engram.services import validation as check
from engram.services.context import Context
from engram.services.ltm import LtmService
from engram.services.results import Result
from engram.services.transfer.export import ExportCount, export_lines
from engram.storage.locks import file_lock
from engram.vault.render import iso
from engram.vault.writer import is_temp_file

MARKER = ".engram-backup"
MARKER_TEXT = "This repository holds Engram backups (engram backup).\n"
EXPORT_DIR = "engram"
EXPORT_FILE = "export.jsonl"
MOVED_LIST = "moved-notes.txt"  # in EXPORT_DIR: the moved notes the last backup copied
VAULT_DIR = "vault"
PAGE = 1_000
GIT_TIMEOUT = 600.0
EXPORT_ATTEMPTS = 3  # exports written before one runs with the store standing still
LOCK_FILE = "engram-backup.lock"  # in the git directory: never committed
# What `git rev-parse --local-env-vars` lists: variables that make git work on another
# repository than the one in the current folder.
REPOSITORY_VARIABLES = frozenset(
    """GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_CONFIG GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT
    GIT_OBJECT_DIRECTORY GIT_DIR GIT_WORK_TREE GIT_IMPLICIT_WORK_TREE GIT_GRAFT_FILE
    GIT_INDEX_FILE GIT_NO_REPLACE_OBJECTS GIT_REPLACE_REF_BASE GIT_PREFIX GIT_SHALLOW_FILE
    GIT_INTERNAL_SUPER_PREFIX GIT_COMMON_DIR""".split()
)

# What git reads as a remote: a URL ("https://…", "ssh://…", "file://…") or scp's form
# ("git@github.com:x/y.git"; a colon before any slash, and not a Windows drive "C:\\…").
_REMOTE = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*://|[^/\\:]{2,}:(?!\\))")

log = logging.getLogger(__name__)


class BackupResult(Result):
    repo: str
    created: bool  # this run created the repository
    committed: bool  # False when nothing changed since the last backup
    commit: str | None  # the commit made (or HEAD when nothing changed)
    message: str
    memories: int
    relations: int
    vault_files: int


class BackupService:
    def __init__(self, ctx: Context, ltm: LtmService) -> None:
        self.ctx = ctx
        self.ltm = ltm
        self.vault = ltm.vault

    def backup(
        self, repo: str | Path, include_vault: bool = False, force: bool = False
    ) -> BackupResult:
        include_vault = check.flag(include_vault, "include_vault")
        force = check.flag(force, "force")
        git = Git(_git_executable())
        path = _repo_path(repo)
        source = self._vault_folder(path) if include_vault else None
        created = False
        if not path.exists() or (path.is_dir() and not any(path.iterdir())):
            try:
                path.mkdir(parents=True, exist_ok=True)
            except OSError as exc:  # it was a bare "[Errno 2] …" naming no field
                raise ValidationError("repo", f"cannot create {path}: {exc.strerror}") from None
            git.run(path, "init", "--quiet")
            _write_text(path / MARKER, MARKER_TEXT)
            created = True
        elif not git.is_root(path):
            refusal = git.refusal(path)  # git's own reason ("dubious ownership", …) when it has one
            raise ValidationError(
                "repo",
                f"git cannot use {path}: {refusal}"
                if refusal
                else f"{path} is not the top folder of a git repository; name a new or empty "
                "folder, or an existing repository",
            )
        # One backup at a time per repository, whichever store or process runs it: a second
        # run's mirror deleted the vault copy while the first staged it, and the first then
        # committed "400 vault files" with 46 of them deleted.
        with file_lock(git.directory(path) / LOCK_FILE, "a backup", wait=True):
            return self._commit(git, path, source, created, force)

    def _commit(
        self, git: Git, path: Path, source: Path | None, created: bool, force: bool
    ) -> BackupResult:
        if git.detached(path):
            raise ValidationError(
                "repo",
                f"{path} has a detached HEAD (a past backup checked out whole?): a commit there "
                f"is on no branch and git may delete it; `git -C {path} switch -` or check out "
                "a branch first",
            )
        _remove_leftovers(path / EXPORT_DIR / EXPORT_FILE)
        if _remove_leftovers(path / MARKER) and git.head(path) is None:
            # Killed between `git init` and its marker's rename: the repository is this
            # command's, and its marker's temporary file, counted as the user's change, had
            # every later backup refused, --force too (a probe).
            _write_text(path / MARKER, MARKER_TEXT)
            created = True
        moved_list = f"{EXPORT_DIR}/{MOVED_LIST}"
        copied_before = _read_list(path / moved_list)
        moved = self._moved_notes() if source is not None else []
        moved_paths = [f"{VAULT_DIR}/{p}" for p in sorted({*copied_before, *moved})]
        # Engram's own files do not count: a backup stopped between its export and its commit
        # left the export changed, and every later backup was refused (audit).
        own = [f"{EXPORT_DIR}/{EXPORT_FILE}", f"{VAULT_DIR}/{self.vault.folder}", moved_list]
        own += moved_paths
        if not created and not (path / MARKER).exists() and not force and git.dirty(path, own):
            raise ValidationError(
                "repo",
                f"{path} has uncommitted changes and was not created by engram backup; commit "
                "or stash them first, or pass --force (only Engram's own files are committed)",
            )
        # Every path written is the repository's own: through a link (`vault` pointing at the
        # Obsidian vault itself) the mirror below deleted the user's notes, and the export
        # overwrote a file outside the repository.
        own_path(path, EXPORT_DIR, EXPORT_FILE, is_file=True)
        if source is not None:
            own_path(path, VAULT_DIR, *Path(self.vault.folder).parts)
        memories, relations = self._export(path / EXPORT_DIR)
        copied = 0
        # The export file itself, never its whole folder: a repository of the user's may keep
        # other files there (`engram/.env` and `engram/http-token` in a dotfiles repository),
        # and `add --force` below would commit them, secrets and ignored files included.
        export = f"{EXPORT_DIR}/{EXPORT_FILE}"
        staged = [MARKER, export] if (path / MARKER).exists() else [export]
        if source is not None:
            folder = self.vault.folder
            copied = _mirror(source, path / VAULT_DIR / folder)
            notes = f"{VAULT_DIR}/{folder}"
            # Nothing promoted yet: no folder, and a pathspec matching nothing fails git.
            if copied or git.tracks(path, notes):
                staged.append(notes)
            copied += self._copy_moved(path, moved, copied_before)
            if moved or copied_before:
                _write_text(path / moved_list, "\n".join(moved))
                staged.append(moved_list)
            # a note gone since, never committed, is no path for git to stage
            staged += [p for p in moved_paths if (path / p).exists() or git.tracks(path, p)]
        # --force: a .gitignore of the repository (say "*.jsonl") must not silently keep the
        # backup out ("nothing changed" while nothing was ever committed).
        git.run(path, "add", "--all", "--force", "--", *staged)
        message = (
            f"engram backup {iso(self.ctx.now())}: {counted(memories, 'memory')}, "
            f"{counted(relations, 'relation')}"
            + (f", {copied} vault files" if source is not None else "")
        )
        if not git.has_staged(path, staged):
            head = git.head(path)
            return BackupResult(
                repo=str(path),
                created=created,
                committed=False,
                commit=head,
                message="nothing changed since the last backup",
                memories=memories,
                relations=relations,
                vault_files=copied,
            )
        git.commit(path, message, staged)
        return BackupResult(
            repo=str(path),
            created=created,
            committed=True,
            commit=git.head(path),
            message=message,
            memories=memories,
            relations=relations,
            vault_files=copied,
        )

    def _vault_folder(self, repo: Path) -> Path:
        files = self.vault.files()
        source = files.resolve(self.vault.folder)
        target = repo.resolve()
        if target.is_relative_to(files.root) or files.root.is_relative_to(target):
            raise ValidationError(
                "repo", f"{repo} overlaps the vault {files.root}; choose a folder outside it"
            )
        return source

    def _moved_notes(self) -> list[str]:
        """The vault paths of promoted notes the user moved out of the LTM folder (an index
        run follows them): the folder's copy alone left them out of every backup."""
        if not self.ltm.live:
            return []
        folder = PurePosixPath(self.vault.folder)
        found = (self.ltm.note_path(m) for m in self.ltm.promoted_memories())
        return sorted({p for p in found if p and not PurePosixPath(p).is_relative_to(folder)})

    def _copy_moved(self, repo: Path, moved: Sequence[str], before: Sequence[str]) -> int:
        """Copy the moved notes to their places under `vault/`; remove the copies of notes the
        last backup copied that are no longer there (only those: the rest is the user's)."""
        files = self.vault.files()
        for stale in sorted(set(before) - set(moved)):
            own_path(repo, VAULT_DIR, *PurePosixPath(stale).parts, is_file=True)
            (repo / VAULT_DIR / stale).unlink(missing_ok=True)
        for note in moved:
            parts = PurePosixPath(note).parts
            own_path(repo, VAULT_DIR, *parts, is_file=True)
            target = repo.joinpath(VAULT_DIR, *parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(files.resolve(note), target)
        return len(moved)

    def _export(self, directory: Path) -> tuple[int, int]:
        """The store as JSON lines (`engram export --format jsonl`), page by page.

        The pages are read one after another, not in one snapshot: a memory saved and linked
        by another client meanwhile could be in the file without its relation. So the export
        is written again while the store's numbers of memories and relations moved during it
        (an edit moves neither, and leaves nothing dangling)."""
        directory.mkdir(parents=True, exist_ok=True)
        for _ in range(EXPORT_ATTEMPTS):
            before = self._sizes()
            count = ExportCount()
            _write_lines(directory / EXPORT_FILE, export_lines(self.ctx.store, "jsonl", count))
            if self._sizes() == before:
                break
        else:
            log.warning("the store kept changing during the backup; the last export is kept")
        return count.memories, count.relations

    def _sizes(self) -> tuple[int, int]:
        return sum(self.ctx.store.count().values()), self.ctx.store.count_relations()


class Git:
    def __init__(self, executable: str) -> None:
        self.executable = executable

    def run(self, repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        # Without the variables that point git at another repository (GIT_DIR and its kin,
        # set in a git hook): with them, the backup was committed into the user's repository.
        env = {k: v for k, v in os.environ.items() if k not in REPOSITORY_VARIABLES}
        env |= {"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
        try:
            done = subprocess.run(
                [self.executable, *args],
                cwd=repo,
                env=env,
                capture_output=True,
                # A path that is not UTF-8 (its bytes held as surrogates) comes back as it went
                # in: strict decoding raised once git had made the repository, leaving it empty.
                encoding="utf-8",
                errors="surrogateescape",
                timeout=GIT_TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise EngramError(f"git {args[0]} failed in {repo}: {exc}") from None
        if check and done.returncode != 0:
            detail = " ".join((done.stderr or done.stdout).split())
            raise EngramError(f"git {args[0]} failed in {repo}: {detail}")
        return done

    def directory(self, path: Path) -> Path:
        """The repository's git directory (`.git`, or where a `.git` file points)."""
        return Path(self.run(path, "rev-parse", "--absolute-git-dir").stdout.strip())

    def is_root(self, path: Path) -> bool:
        done = self.run(path, "rev-parse", "--show-toplevel", check=False)
        return done.returncode == 0 and Path(done.stdout.strip()).resolve() == path.resolve()

    def refusal(self, path: Path) -> str | None:
        """Why git will not use a folder that is a repository (another owner: "dubious
        ownership"); None when it is simply not one."""
        if not (path / ".git").exists():
            return None
        done = self.run(path, "rev-parse", "--git-dir", check=False)
        if done.returncode == 0:
            return None
        return " ".join(done.stderr.split()) or None

    def detached(self, path: Path) -> bool:
        """HEAD names a commit, not a branch (a repository with no commit yet is on one)."""
        return self.run(path, "symbolic-ref", "--quiet", "HEAD", check=False).returncode != 0

    def dirty(self, path: Path, excluding: Sequence[str] = ()) -> bool:
        """Whether the work tree has uncommitted changes outside `excluding` (paths in it)."""
        outside = [f":(exclude){p}" for p in excluding]
        return bool(self.run(path, "status", "--porcelain", "--", ".", *outside).stdout.strip())

    def has_staged(self, path: Path, paths: Sequence[str]) -> bool:
        """Whether any of `paths` has staged changes (what the user staged elsewhere does not
        count: it is theirs to commit)."""
        done = self.run(path, "diff", "--cached", "--quiet", "--", *paths, check=False)
        return done.returncode != 0

    def tracks(self, path: Path, pathspec: str) -> bool:
        """Whether the repository has files under `pathspec` (a folder since deleted)."""
        return bool(self.run(path, "ls-files", "--", pathspec, check=False).stdout.strip())

    def head(self, path: Path) -> str | None:
        done = self.run(path, "rev-parse", "--verify", "--quiet", "HEAD", check=False)
        return done.stdout.strip() or None

    def commit(self, path: Path, message: str, paths: Sequence[str]) -> None:
        """Commit `paths` only: with --force in a repository with the user's own staged work,
        a bare commit took that work into the backup commit."""
        identity: list[str] = []  # what the user's git configuration lacks, Engram's
        if not self.run(path, "config", "user.name", check=False).stdout.strip():
            identity += ["-c", "user.name=Engram"]
        if not self.run(path, "config", "user.email", check=False).stdout.strip():
            identity += ["-c", "user.email=engram@localhost"]
        self.run(path, *identity, "commit", "--quiet", "--no-verify", "-m", message, "--", *paths)


def _git_executable() -> str:
    found = shutil.which("git")
    if found is None:
        raise EngramError("backup needs git, and no `git` executable is on PATH; install git")
    return found


def _repo_path(repo: str | Path) -> Path:
    # A remote made a local folder named after it ("./https:/github.com/x/y.git"), committed to.
    if isinstance(repo, str) and _REMOTE.match(repo.strip()):
        raise ValidationError(
            "repo",
            f"takes a local folder, not a remote ({repo.strip()}): clone it and name the clone, "
            "or back up to a folder and push from there",
        )
    path = check.location(repo, "repo")
    if path.exists() and not path.is_dir():
        raise ValidationError("repo", f"{path} is a file, not a folder")
    return path.absolute()


def _write_lines(target: Path, lines: Iterable[str]) -> None:
    """Atomically replace `target` with the lines, each ended by a newline; a new file is
    private, as the store whose memories it holds is (a probe found a backup's export 644)."""
    data = ((line + "\n").encode("utf-8") for line in lines)
    write_atomically(target, data, mode=private_if_new(target))


def _write_text(target: Path, text: str) -> None:
    _write_lines(target, [text.rstrip("\n")])


def _read_list(source: Path) -> list[str]:
    """The vault paths a file of ours lists, one a line; none if it is not there. A path
    that is not relative, or climbs out (`..`), is not ours to touch and is passed over."""
    try:
        lines = source.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
    except (FileNotFoundError, NotADirectoryError):
        return []
    listed = (PurePosixPath(line.strip()) for line in lines if line.strip())
    return [p.as_posix() for p in listed if not p.is_absolute() and ".." not in p.parts]


def own_path(repo: Path, *parts: str, is_file: bool = False) -> None:
    """Refuse a path to be written in the repository that is a symbolic link at any step, a
    file where a folder belongs, or a folder where the file (`is_file`) goes: what is written
    there would land elsewhere, or fail with a bare Errno."""
    path = repo
    for i, part in enumerate(parts):
        path = path / part
        if path.is_symlink():
            raise ValidationError(
                "repo",
                f"{path} is a symbolic link; a backup writes only inside {repo}: remove the link "
                "or name another repository",
            )
        if i < len(parts) - 1 and path.exists() and not path.is_dir():
            raise ValidationError(
                "repo", f"{path} is a file where the backup keeps a folder; move it away"
            )
        if i == len(parts) - 1 and is_file and path.is_dir():
            raise ValidationError(
                "repo", f"{path} is a folder where the backup keeps a file; move it away"
            )


def _mirror(source: Path, target: Path) -> int:
    """Make `target` an exact copy of `source` (symlinks and hidden files left out); returns the
    number of files copied."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    copied = 0
    if not source.is_dir():
        return 0
    for directory, dirs, names in os.walk(source):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        here = Path(directory)
        out = target / here.relative_to(source)
        out.mkdir(parents=True, exist_ok=True)
        for name in sorted(names):
            item = here / name
            # Only regular files: a named pipe or a socket cannot be copied (a FIFO in the
            # notes folder made every backup fail).
            if name.startswith(".") or is_temp_file(name) or item.is_symlink():
                continue
            if not item.is_file():
                continue
            shutil.copy2(item, out / name)
            copied += 1
    return copied


def _remove_leftovers(target: Path) -> bool:
    """Remove the temporary files a killed backup left beside `target` (`engram.atomic.replacing`
    names them), and say whether there were any: under the backup lock none is in use, and
    left there, each counted as a change of the user's, so every later backup into their
    repository was refused."""
    found = temporaries_beside(target)
    for stale in found:
        with contextlib.suppress(OSError):
            stale.unlink()
    return bool(found)
