"""What a JSONL store's directory holds: the file names, `meta.json` and `.gitignore`.

`meta.json` records the format version (a newer Engram's directory is refused, not misread)
and the fingerprint of the decay settings the stored schedules were computed with.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engram.atomic import PRIVATE_FILE_MODE, fsync_dir
from engram.errors import StoreError
from engram.storage.jsonl.files import replace_small

log = logging.getLogger(__name__)

MEMORIES = "memories.jsonl"
RELATIONS = "relations.jsonl"
VECTORS = "vectors.jsonl"
AUDIT = "audit.jsonl"  # the maintenance pipeline's decisions, append-only, read on demand
LTM_DB = "ltm.db"  # the vault index: rebuilt from the vault by `engram index-ltm`
META = "meta.json"
FORMAT = 1
INDEX_SNAPSHOT = ".index.db"  # the index a closing process leaves for the next (`snapshot`)
GITIGNORE = (
    "# Engram JSONL store: commit memories.jsonl, relations.jsonl, vectors.jsonl, meta.json\n"
    ".lock\n.*.lock\nquarantine/\n.*.tmp\n.*.head\n.*.batch\n"
    "# the vault index: rebuilt from the vault by `engram index-ltm`\n"
    f"{LTM_DB}\n{LTM_DB}-*\nltm.jsonl\n"
    "# the search index of the files, kept to open faster: rebuilt from them when missing\n"
    f"{INDEX_SNAPSHOT}\n{INDEX_SNAPSHOT}.*\n"
)
# What a .gitignore written by an earlier Engram lacks, added to it when the store opens.
_LATER_IGNORES = (
    ".*.lock\n",  # the pipeline's lock file: git status listed it to commit
    f"{LTM_DB}\n{LTM_DB}-*\n",
    f"{INDEX_SNAPSHOT}\n{INDEX_SNAPSHOT}.*\n",
    ".*.head\n",  # what the last write of each file left (files.py)
    ".*.batch\n",  # where a write of several lines starts while it is written (files.py)
)


def initialise(path: Path, files: Sequence[Path]) -> None:
    """Create the files of a new store; refuse a directory that is not one of ours."""
    meta = path / META
    if not meta.exists():
        refuse_foreign(path)
        replace_small(meta, _meta_bytes({"format": FORMAT, "schedule_fingerprint": None}))
    read_meta(path)
    created = False
    for file in files:
        if not file.exists():
            file.touch(mode=PRIVATE_FILE_MODE)  # the memories' text: as private as SQLite's
            created = True
    ignore = path / ".gitignore"
    if not ignore.exists():
        ignore.write_text(GITIGNORE)
        created = True
    else:
        _with_engram_lines(ignore)
    if created:
        fsync_dir(path)


def _with_engram_lines(ignore: Path) -> None:
    """A .gitignore that exists keeps its lines and gets Engram's: all of them where it is the
    user's own (a repository made from a template: Engram's were never added, and `git add
    -A` committed the index cache and the lock files, which conflicted at every pull from the
    other machine, a probe), the ones an earlier Engram did not write where it is Engram's."""
    kept = ignore.read_text()
    if not any(line.startswith(GITIGNORE[:20]) for line in kept.splitlines()):
        ignore.write_text(kept.rstrip("\n") + ("\n\n" if kept.strip() else "") + GITIGNORE)
        return
    missing = [lines for lines in _LATER_IGNORES if lines.split("\n")[0] not in kept.split()]
    if missing:
        ignore.write_text(kept.rstrip("\n") + "\n" + "".join(missing))


# meta.json as last read, by the directory, kept while the file is the same (inode, size,
# modification time): the services check the schedule fingerprint before every gc and stats.
_meta_cache: dict[Path, tuple[tuple[int, int, int], dict[str, Any]]] = {}


def read_meta(path: Path) -> dict[str, Any]:
    """The directory's meta.json; {} when it is missing or unreadable (the schedules are then
    recomputed), an error when a newer Engram wrote it."""
    try:
        info = (path / META).stat()
    except OSError:
        info = None
    key = (info.st_ino, info.st_size, info.st_mtime_ns) if info is not None else None
    cached = _meta_cache.get(path)
    if key is not None and cached is not None and cached[0] == key:
        return dict(cached[1])
    meta = _read_meta(path)
    if key is not None:
        _meta_cache[path] = (key, dict(meta))
    return meta


def _read_meta(path: Path) -> dict[str, Any]:
    try:
        meta = json.loads((path / META).read_text())
        if not isinstance(meta, dict):
            raise ValueError("not a JSON object")
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("%s is unreadable (%s): schedules will be recomputed", META, exc)
        return {}
    version = meta.get("format", FORMAT)
    if not isinstance(version, int) or version > FORMAT:
        raise StoreError(
            f"{path / META}: format {version!r} was written by a newer Engram "
            f"(this one reads format {FORMAT})"
        )
    return meta


def write_meta(path: Path, **changes: Any) -> None:
    meta = {"format": FORMAT, "schedule_fingerprint": None}
    meta.update({k: v for k, v in read_meta(path).items() if k in meta})
    meta.update(changes)
    replace_small(path / META, _meta_bytes(meta))


def open_folder(path: Path) -> None:
    """The store's folder, made if missing: a clear error where a file stands, where it cannot
    be made, or where it holds another program's data."""
    if path.is_file():
        raise StoreError(
            f"{path} is a file, not a JSONL store's folder: a SQLite store? open it by its path "
            "(or sqlite:///path)"
        )
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create JSONL store {path}: {exc.strerror}") from exc
    if not path.is_dir():
        raise StoreError(f"JSONL store {path} is not a directory")
    refuse_foreign(path)


def refuse_foreign(path: Path) -> None:
    """Data files without meta.json: another program's directory (CortexGraph's, say)."""
    if (path / META).exists():
        return
    for name in (MEMORIES, RELATIONS):
        try:
            size = (path / name).stat().st_size
        except FileNotFoundError:
            continue
        if size:
            raise StoreError(
                f"{path} holds {name} but no {META}: not an Engram JSONL store "
                "(a CortexGraph directory is imported with `engram import cortexgraph DIR`)"
            )


def _meta_bytes(meta: dict[str, Any]) -> bytes:
    return (json.dumps(meta, indent=2, ensure_ascii=False) + "\n").encode()
