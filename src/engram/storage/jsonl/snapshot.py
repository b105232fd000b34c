"""A snapshot of the JSONL store's index, so that opening a store does not re-read every line.

The index (an SQLite database, see `store`) is private to each process and was rebuilt from
the files at every open: about a second per 10,000 memories. When a process closes the store,
it copies its index into the directory as `.index.db` (with the vector index's files beside
it), recording in the database how far it had read each file and a digest of those bytes. The
next process to open the store copies the snapshot into its own private directory, checks each
file against its digest, and reads only the lines appended since.

The snapshot is a cache, never the truth:
* a file that no longer starts with the bytes the snapshot read (replaced by a compaction,
  edited by hand, checked out by git) makes the opener ignore the snapshot and read everything;
* files are written atomically (temporary file, fsync, rename) under the directory's exclusive
  lock, and read under it, so the database and the vector index always come from one process;
* a snapshot that cannot be opened (damaged, or from a newer Engram) is ignored, and replaced
  at the next close; one whose pages are found damaged by a read is rebuilt from the files
  (`delegation.index_read`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from engram.atomic import private_if_new, write_atomically
from engram.storage.jsonl.layout import INDEX_SNAPSHOT as SNAPSHOT
from engram.storage.sqlite.vectors import INDEX_SUFFIXES

# The vector index's files, named after the database by `engram.storage.sqlite.vectors`.
COMPANIONS = INDEX_SUFFIXES
STATE_KEY = "jsonl_snapshot"  # in the index's store_meta: what the snapshot had read
FORMAT = 2  # bumped when what the index holds for the same lines changes


def restore(store_dir: Path, index_path: Path) -> bool:
    """Copy the store's snapshot (if any) to `index_path`; True when there was one."""
    source = store_dir / SNAPSHOT
    try:
        shutil.copyfile(source, index_path)
    except FileNotFoundError:
        return False
    for suffix in COMPANIONS:
        try:
            shutil.copyfile(Path(str(source) + suffix), Path(str(index_path) + suffix))
        except FileNotFoundError:
            break  # the vector index is rebuilt from the database when first needed
    return True


def save(index_path: Path, store_dir: Path) -> None:
    """Replace the store's snapshot with the (closed) database at `index_path` and the vector
    index files beside it; a vector index this process never opened is left out, so that no
    older one is paired with the new database."""
    target = store_dir / SNAPSHOT
    _replace(index_path, target)
    for suffix in COMPANIONS:
        source = Path(str(index_path) + suffix)
        if source.exists():
            _replace(source, Path(str(target) + suffix))
        else:
            Path(str(target) + suffix).unlink(missing_ok=True)


def vectors_missing(index_path: Path, store_dir: Path) -> bool:
    """This process built the vector index and the snapshot lacks it."""
    return (
        Path(str(index_path) + COMPANIONS[0]).exists()
        and not Path(str(store_dir / SNAPSHOT) + COMPANIONS[0]).exists()
    )


def state(
    files: dict[str, Any], tallies: dict[str, Any], unscheduled: list[str], waiting: bool
) -> str:
    """`waiting`: relation or vector lines were read whose memory the index lacked."""
    return json.dumps(
        {
            "format": FORMAT,
            "files": files,
            "tallies": tallies,
            "unscheduled": unscheduled,
            "links_waiting": waiting,
        }
    )


def parse_state(text: str | None) -> dict[str, Any] | None:
    """The recorded state, or None when it is missing or written by another format."""
    if text is None:
        return None
    try:
        found = json.loads(text)
    except ValueError:
        return None
    if not isinstance(found, dict) or found.get("format") != FORMAT:
        return None
    return found


def _replace(source: Path, target: Path) -> None:
    with source.open("rb") as f:
        write_atomically(target, iter(lambda: f.read(1 << 20), b""), mode=private_if_new(target))
