"""Writing into the vault: every path checked to stay inside it, every write atomic.

A path given to this module is always relative to the vault and uses `/`. Before anything is
read or written it must pass `check_relative` (no absolute path, drive, `..`, NUL, control
character, Windows-reserved name or character, overlong segment; for a note that already exists
only the first four: the user named it) and, once joined to the vault and resolved through any
symlinks, still lie inside the vault.

A write goes to a temporary file in the target's own directory, is flushed and fsynced, then
renamed over the target (`os.replace`, atomic on POSIX and Windows) and the directory is
fsynced: a crash at any moment leaves the old note or the new one, never a mix. New notes are
published with `os.link`, which fails instead of overwriting when another process created the
same name first; the caller then takes the next numeric suffix.
"""

from __future__ import annotations

import errno
import os
import re
import unicodedata
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import NamedTuple

from engram.atomic import fsync_dir, remove_stale_temporaries_in, replacing
from engram.clock import system_clock
from engram.core.file_names import UNSAFE_CHARS, ends_badly, is_reserved
from engram.errors import ConfigError, ValidationError
from engram.vault.index import MAX_NOTE_BYTES

MAX_SEGMENT_BYTES = 255
# A note larger than the index reads is never rewritten (a link retargeted, a backlink added):
# it is read whole first.
MAX_REWRITE_BYTES = MAX_NOTE_BYTES
BOM = "\ufeff"
MAX_PATH_CHARS = 1_024
MAX_SUFFIX = 9_999
TEMP_PREFIX = ".engram-"
TEMP_SUFFIX = ".tmp"

_DRIVE = re.compile(r"^[A-Za-z]:")
# link() is refused on some file systems (FAT, some network mounts): fall back to a checked
# replace there.
_NO_LINK = {errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOSYS, errno.EOPNOTSUPP, errno.EACCES}


def check_relative(
    rel: str, field: str = "path", *, allow_hidden: bool = False, existing: bool = False
) -> str:
    """The path, normalised to `a/b/c.md` form, or a ValidationError naming `field`.

    `existing`: the path of a note already in the vault, to be read or rewritten. It only has
    to stay inside the vault: the rules that keep a *new* name portable (no `:` or `?`, no
    Windows device name such as `Aux`) do not apply to a name the user chose and the file
    system accepted, or such a note could be listed but never read or kept in sync."""
    if not isinstance(rel, str) or not rel.strip():
        raise ValidationError(field, "must be a non-empty path relative to the vault")
    if "\x00" in rel:
        raise ValidationError(field, "must not contain NUL characters")
    if len(rel) > MAX_PATH_CHARS:
        raise ValidationError(field, f"is longer than {MAX_PATH_CHARS} characters")
    if rel.startswith(("/", "\\", "~")) or _DRIVE.match(rel):
        raise ValidationError(field, f"{rel!r} must be relative to the vault, not absolute")
    parts = rel.split("/")
    for part in parts:
        _check_segment(part, field, rel, allow_hidden, existing)
    return "/".join(parts)


def _check_segment(part: str, field: str, rel: str, allow_hidden: bool, existing: bool) -> None:
    if part in ("", ".", ".."):
        raise ValidationError(field, f"{rel!r} must not contain empty, '.' or '..' segments")
    if existing:
        return
    if UNSAFE_CHARS.search(part):
        raise ValidationError(
            field, f'{rel!r} contains a character not allowed in file names (<>:"|?*\\ or control)'
        )
    if ends_badly(part):
        raise ValidationError(field, f"{rel!r}: a name must not end with a space or a dot")
    if is_reserved(part):
        raise ValidationError(field, f"{rel!r}: {part!r} is a reserved device name on Windows")
    if len(part.encode()) > MAX_SEGMENT_BYTES:
        raise ValidationError(field, f"a name in {rel[:40]!r}… exceeds {MAX_SEGMENT_BYTES} bytes")
    if part.startswith(".") and not allow_hidden:
        raise ValidationError(field, f"{rel!r}: hidden names (starting with '.') are not allowed")


class NoteText(NamedTuple):
    """A note as `VaultFiles.read_note` read it."""

    text: str
    bom: bool  # stored with a UTF-8 byte order mark (Notepad)
    crlf: bool  # stored with CRLF line ends (a Windows editor, git autocrlf)
    stamp: tuple[int, int]  # (mtime_ns, size) when read


class VaultFiles:
    """The vault folder: path checks, reads and atomic writes confined to it."""

    def __init__(self, root: str | Path) -> None:
        path = Path(root).expanduser()
        try:
            folder = path.is_dir()
        except OSError as exc:  # a name too long: Python 3.11 raises it from is_dir()
            raise ConfigError(f"ENGRAM_VAULT_PATH: cannot be used ({exc.strerror})") from None
        if not folder:
            raise ConfigError(
                f"ENGRAM_VAULT_PATH: {path} is not an existing folder; point it at your "
                "Obsidian vault (the folder that holds .obsidian/)"
            )
        self.root = path.resolve()
        self._swept: set[Path] = set()  # folders cleared of a killed write's temporary files

    def resolve(
        self, rel: str, field: str = "path", *, allow_hidden: bool = False, existing: bool = False
    ) -> Path:
        """The absolute path of `rel`, guaranteed (through symlinks) to lie inside the vault."""
        clean = check_relative(rel, field, allow_hidden=allow_hidden, existing=existing)
        full = self.root.joinpath(*clean.split("/"))
        resolved = full.resolve()
        if resolved != self.root and not resolved.is_relative_to(self.root):
            raise ValidationError(field, f"{rel!r} leads outside the vault")
        return full

    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def exists(self, rel: str) -> bool:
        """Whether the name is taken: by a note, or by anything else — a symlink (wherever it
        points) or a folder — that a new note must not replace; or by a name that differs only
        in case ("Atlas.md" for "atlas.md") or in how its accents are written (é as one code
        point or as e and a combining accent, which macOS writes): Obsidian resolves a link to
        either, and on macOS or Windows, or a vault synced there, they are one file."""
        full = self.root.joinpath(*check_relative(rel, "path").split("/"))
        if full.is_symlink() or full.is_dir():
            return True
        if self.resolve(rel).is_file():
            return True
        wanted = _name_key(full.name)
        try:
            return any(_name_key(name) == wanted for name in os.listdir(full.parent))
        except OSError:  # the folder is not there yet
            return False

    def read_text(self, rel: str, field: str = "path") -> str:
        """A note's text, for showing it (undecodable bytes replaced)."""
        full = self.resolve(rel, field, existing=True)
        return full.read_bytes().decode("utf-8", "replace")

    def read_note(self, rel: str, field: str = "path") -> NoteText:
        """An existing note, read to be changed and written back with `rewrite`: its whole
        text (line ends as `\n`, without a byte order mark) and how it was stored.

        A note that could not be written back as it was is refused (ValidationError naming
        `field`), never rewritten: one that is not UTF-8 (its other characters would be
        replaced for good) or larger than the index reads (it would be cut)."""
        full = self.resolve(rel, field, existing=True)
        with open(full, "rb") as handle:
            info = os.fstat(handle.fileno())
            data = handle.read(MAX_REWRITE_BYTES + 1)
        if len(data) > MAX_REWRITE_BYTES:
            raise ValidationError(field, f"{rel!r} is larger than {MAX_REWRITE_BYTES:,} bytes")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ValidationError(field, f"{rel!r} is not UTF-8 text") from None
        bom = text.startswith(BOM)
        text = text.removeprefix(BOM)
        # Every line ending in CRLF: edited as LF, written back as CRLF. Mixed line ends are
        # left as they are (normalising them would rewrite every other line).
        crlf = "\r\n" in text and text.count("\n") == text.count("\r\n")
        if crlf:
            text = text.replace("\r\n", "\n")
        return NoteText(text, bom, crlf, (info.st_mtime_ns, info.st_size))

    def rewrite(self, rel: str, note: NoteText, text: str) -> bool:
        """Write `text` over a note read with `read_note`, stored as the note was (byte order
        mark, CRLF line ends); False, writing nothing, if the note changed since it was read
        (saved by the user's editor meanwhile: that edit wins)."""
        full = self.resolve(rel, existing=True)
        try:
            info = full.stat()
        except FileNotFoundError:
            return False
        if (info.st_mtime_ns, info.st_size) != note.stamp:
            return False
        stored = (BOM if note.bom else "") + (text.replace("\n", "\r\n") if note.crlf else text)
        publish(full, stored.encode("utf-8"), overwrite=True)
        return True

    def write(self, rel: str, text: str) -> Path:
        """Create or replace the note at `rel` atomically."""
        target = self._prepare(rel)
        publish(target, text.encode("utf-8"), overwrite=True)
        return target

    def create(
        self, folder: str, stem: str, render: Callable[[str], str], field: str = "path"
    ) -> str:
        """Write a new note `folder/stem.md`, or `stem-2.md`, `stem-3.md`, … if taken; never
        overwrites. `render(name)` gives the text for the name chosen (without `.md`).
        Returns the vault-relative path used."""
        for n in range(1, MAX_SUFFIX + 1):
            name = stem if n == 1 else f"{stem}-{n}"
            rel = f"{folder}/{name}.md" if folder else f"{name}.md"
            if self.exists(rel):  # a note, or a symlink or folder planted at the name
                continue
            target = self._prepare(rel, field)
            try:
                publish(target, render(name).encode("utf-8"), overwrite=False)
            except FileExistsError:
                continue  # another process took the name a moment ago
            return rel
        raise ValidationError(field, f"{folder}/{stem}.md and {MAX_SUFFIX} variants all exist")

    def delete(self, rel: str) -> None:
        target = self.resolve(rel)
        with suppress(FileNotFoundError):
            target.unlink()
        fsync_dir(target.parent)

    def _prepare(self, rel: str, field: str = "path") -> Path:
        target = self.resolve(rel, field)
        for folder in target.relative_to(self.root).parents:
            if folder.parts and (self.root / folder).is_symlink():
                # The index does not follow links (a note reached through one would be
                # indexed under two names, or none): `vault status` contradicted itself.
                raise ValidationError(
                    field,
                    f"{folder.as_posix()!r} is a link: Engram writes notes only into the "
                    "vault's own folders (set ENGRAM_LTM_FOLDER to the folder it points to)",
                )
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.parent not in self._swept:  # once a folder: a promotion writes many notes
            # A write killed before its rename left a hidden file (a second link to the note
            # it published) that a vault kept in git would pick up.
            remove_stale_temporaries_in(target.parent, TEMP_PREFIX, system_clock().timestamp())
            self._swept.add(target.parent)
        # Re-check now that the directories exist (one may have been swapped for a symlink).
        self.resolve(rel, field)
        if target.is_dir():
            raise ValidationError(field, f"{rel!r} is a folder, not a note")
        return target


def publish(target: Path, data: bytes, *, overwrite: bool) -> None:
    """Write `data` to a temporary file beside `target` and rename it into place, durably.

    With `overwrite=False` the rename is a hard link that fails with FileExistsError if the
    target exists. The temporary file never survives a failure that Python sees.
    """
    with replacing(
        target, prefix=TEMP_PREFIX, place=os.replace if overwrite else _link_or_replace
    ) as f:
        f.write(data)


def _link_or_replace(tmp: Path, target: Path) -> None:
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in _NO_LINK:
            raise
        if target.exists():
            raise FileExistsError(errno.EEXIST, "exists", str(target)) from None
        os.replace(tmp, target)


def is_temp_file(name: str) -> bool:
    return name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX)


def _name_key(name: str) -> str:
    """What two file names that are one file on macOS or Windows have in common."""
    return unicodedata.normalize("NFC", name).casefold()
