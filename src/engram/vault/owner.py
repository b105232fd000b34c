"""Which memory a file of the vault is the note of: the file at a memory's recorded path may
be another's (another memory's note that took the name once the first was deleted, or the
user's own note under the name of one they renamed), so a note is the memory's only if it
names it in its `engram_id`."""

from __future__ import annotations

from engram.errors import ValidationError
from engram.vault.index import ENGRAM_ID_LINE, split_frontmatter
from engram.vault.writer import VaultFiles


def note_of(files: VaultFiles, path: str | None, memory_id: str) -> bool:
    """Whether the note at `path` is this memory's: in the vault and naming it in its
    `engram_id`. A file at a memory's recorded path may be another's: another memory's note
    that took the name once the first was deleted, or the user's own note under the name of
    one they renamed. Updates wrote into those, and promote said there was nothing to do."""
    if path is None or not note_exists(files, path):
        return False
    # A note Engram cannot read as one (frontmatter the user broke, a byte that is not UTF-8,
    # a file grown past the size a note is rewritten at) is still the memory's if a line of it
    # names it: it is left as it is, not taken for gone (a second note was promoted beside it).
    try:
        text = files.read_note(path).text
    except ValidationError:  # not UTF-8, or larger than a note is rewritten
        return memory_id in ENGRAM_ID_LINE.findall(_head(files, path))
    except OSError:
        return False
    meta, _, problem = split_frontmatter(text)
    if problem is None:
        return meta.get("engram_id") == memory_id
    return memory_id in ENGRAM_ID_LINE.findall(text)


_HEAD_BYTES = 65_536  # where a note's frontmatter is


def _head(files: VaultFiles, path: str) -> str:
    """The start of a note that cannot be read whole, as text (undecodable bytes replaced)."""
    with open(files.resolve(path, existing=True), "rb") as handle:
        return handle.read(_HEAD_BYTES).decode("utf-8", errors="replace")


def note_exists(files: VaultFiles, path: str | None) -> bool:
    """Whether a promoted memory's note is in the vault. Its path is one a note already has
    (the user may have renamed it to `Atlas: plan.md`, which no new note would be named); a
    path outside the vault, as a hand-edited store might hold, counts as missing."""
    if not path:
        return False
    try:
        return files.resolve(path, existing=True).is_file()
    except ValidationError:
        return False
