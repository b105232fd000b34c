"""A store the user may read but not write: a message that says so, nothing changed.

Permissions are real: the store is made read-only with chmod and the CLI runs in a child
process. Root ignores file permissions, so under root (CI containers) the child runs as the
unprivileged user `nobody` instead — the same kernel check a normal user meets.
"""

from __future__ import annotations

import hashlib
import os
import pwd
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from engram import Engram

STORES = {"sqlite": "{dir}/store.db", "jsonl": "jsonl://{dir}/store"}


def unprivileged() -> dict[str, object]:
    """subprocess arguments that make the child subject to file permissions."""
    if os.geteuid() != 0:
        return {}
    nobody = pwd.getpwnam("nobody")
    return {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}


@pytest.fixture
def folder() -> Iterator[Path]:
    """A folder every user can enter (pytest's own temporary folders are private to root)."""
    path = Path(tempfile.mkdtemp(prefix="engram-readonly-"))
    path.chmod(0o755)
    yield path
    for p in [path, *path.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    subprocess.run(["rm", "-rf", str(path)], check=True)


def make_read_only(root: Path) -> None:
    for p in [*root.rglob("*"), root]:
        p.chmod(0o555 if p.is_dir() else 0o444)


def digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(p.name.encode() + p.read_bytes())
    return h.hexdigest()


def engram_cli(store: str, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "ENGRAM_STORAGE_PATH": store,
        "ENGRAM_EMBEDDING_MODEL": "none",
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "HOME": str(home),
    }
    return subprocess.run(
        [sys.executable, "-c", "from engram.cli.main import cli; cli()", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=home,
        timeout=120,
        **unprivileged(),  # type: ignore[call-overload]
    )


@pytest.fixture(scope="module", autouse=True)
def child_can_run() -> None:
    """Under root the child is `nobody`: it must be able to run this interpreter and import
    Engram from where this checkout lives (a checkout under a private home cannot be)."""
    probe = subprocess.run(
        [sys.executable, "-c", "import engram"],
        capture_output=True,
        text=True,
        cwd="/",
        **unprivileged(),  # type: ignore[call-overload]
    )
    if probe.returncode != 0:
        pytest.skip(f"the unprivileged user cannot run {sys.executable}: {probe.stderr[-200:]}")


@pytest.mark.parametrize("backend", list(STORES))
def test_a_read_only_store_is_a_message_and_stays_as_it_was(folder: Path, backend: str) -> None:
    data = folder / "data"
    data.mkdir()
    store = STORES[backend].format(dir=data)
    with Engram.open(store, embedding_model="none") as mem:
        mem.save("Prefers green tea in the morning")
    make_read_only(data)
    before = digest(data)
    home = folder / "home"
    home.mkdir(mode=0o777)
    home.chmod(0o777)

    result = engram_cli(store, home, "save", "A new memory that cannot be written")

    assert result.returncode == 1, result.stdout + result.stderr
    assert "read-only" in result.stderr and "nothing was written" in result.stderr
    assert "Traceback" not in result.stderr
    assert digest(data) == before


def test_a_jsonl_change_that_cannot_write_one_of_its_files_is_not_done_at_all(
    folder: Path,
) -> None:
    """relations.jsonl read-only in a store otherwise writable: a relation refused by it was
    kept in the index (the same relate then answered OK, and the snapshot carried it until a
    compaction lost it); a delete wrote the memory's tombstone, then failed on it, saying
    nothing was done; a compaction replaced the read-only file."""
    data = folder / "store"
    with Engram.open(f"jsonl://{data}", embedding_model="none") as mem:
        a, b = mem.save("alpha apples"), mem.save("beta bananas")
        c = mem.save("cherry")
        mem.create_relation(a.id, c.id)
    for p in [data, *data.rglob("*")]:
        p.chmod(0o777 if p.is_dir() else 0o666)
    (data / "relations.jsonl").chmod(0o444)
    before = (data / "relations.jsonl").read_bytes()
    home = folder / "home"
    home.mkdir(mode=0o777)
    home.chmod(0o777)
    store = f"jsonl://{data}"
    for _ in range(2):  # the second was answered OK from the index
        relate = engram_cli(store, home, "relate", a.id, b.id)
        assert relate.returncode == 1 and "cannot write" in relate.stderr, relate.stderr
    delete = engram_cli(store, home, "delete", c.id)
    assert delete.returncode == 1 and "cannot write" in delete.stderr, delete.stderr
    compact = engram_cli(store, home, "maintenance", "compact")
    assert compact.returncode == 1 and "cannot write" in compact.stderr, compact.stderr
    assert (data / "relations.jsonl").read_bytes() == before
    assert os.stat(data / "relations.jsonl").st_mode & 0o777 == 0o444
    (data / "relations.jsonl").chmod(0o666)
    with Engram.open(store, embedding_model="none") as mem:
        assert mem.get(c.id).content == "cherry"  # not deleted
        assert [(r.from_id, r.to_id) for r in mem.relations(a.id)] == [(a.id, c.id)]
        mem.compact()
        assert [(r.from_id, r.to_id) for r in mem.relations(a.id)] == [(a.id, c.id)]


def test_a_migration_from_a_read_only_store_is_refused_before_its_target_is_made(
    folder: Path,
) -> None:
    """Refused once the target had been created, it left an empty store behind (a helper's
    probe)."""
    data = folder / "data"
    data.mkdir()
    source = data / "engram.db"
    with Engram.open(str(source), embedding_model="none") as mem:
        mem.save("Prefers green tea in the morning")
    make_read_only(data)
    home = folder / "home"
    home.mkdir(mode=0o777)
    home.chmod(0o777)
    target = home / "copy.db"

    result = engram_cli(str(target), home, "migrate", "--from", str(source), "--to", str(target))

    assert result.returncode != 0, result.stdout + result.stderr
    assert "read-only" in result.stderr and "Traceback" not in result.stderr
    assert not target.exists()
