"""The one way Engram replaces a file (`engram.atomic`): real files in a temporary directory."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from engram.atomic import replacing, write_atomically


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_a_failure_while_writing_leaves_the_old_file_and_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "export.jsonl"
    target.write_bytes(b"old\n")

    def chunks() -> Iterator[bytes]:
        yield b"new, half written"
        raise RuntimeError("disk went away")

    with pytest.raises(RuntimeError, match="disk went away"):
        write_atomically(target, chunks())
    assert target.read_bytes() == b"old\n"
    assert _leftovers(tmp_path) == []


def test_the_new_file_replaces_the_old_whole(tmp_path: Path) -> None:
    target = tmp_path / "meta.json"
    target.write_bytes(b"x" * 1000)
    write_atomically(target, [b"{", b'"a": 1', b"}"])
    assert target.read_bytes() == b'{"a": 1}'
    assert _leftovers(tmp_path) == []


def test_a_private_file_stays_private_and_a_mode_can_be_asked_for(tmp_path: Path) -> None:
    private = tmp_path / "private.txt"
    private.write_bytes(b"secret")
    private.chmod(0o600)
    write_atomically(private, b"new secret")
    assert private.stat().st_mode & 0o777 == 0o600

    token = tmp_path / "token"
    write_atomically(token, b"t", mode=0o600)
    assert token.stat().st_mode & 0o777 == 0o600


def test_placing_by_hard_link_refuses_an_existing_file_and_cleans_up(tmp_path: Path) -> None:
    """How two servers starting together agree on one token: the second one's link fails."""
    target = tmp_path / "token"
    write_atomically(target, b"first", place=os.link)
    with pytest.raises(FileExistsError):
        write_atomically(target, b"second", place=os.link)
    assert target.read_bytes() == b"first"
    assert _leftovers(tmp_path) == []


def test_a_writer_that_wants_a_path_gets_the_temporary_files(tmp_path: Path) -> None:
    """The vector index's library saves to a path, not to a file object."""
    target = tmp_path / "index.bin"
    with replacing(target, durable=False) as f:
        Path(f.name).write_bytes(b"written by path")
        assert Path(f.name).parent == tmp_path and not target.exists()
    assert target.read_bytes() == b"written by path"
    assert _leftovers(tmp_path) == []


def test_a_custom_prefix_names_the_temporary_file(tmp_path: Path) -> None:
    """The vault's scanner recognises its temporary files by their prefix."""
    seen: list[str] = []
    with replacing(tmp_path / "note.md", prefix=".engram-") as f:
        seen.append(Path(f.name).name)
    assert seen[0].startswith(".engram-note.md.") and seen[0].endswith(".tmp")


@pytest.mark.parametrize("length", [200, 250, 255])
def test_a_file_named_near_the_limit_is_replaced_too(tmp_path: Path, length: int) -> None:
    """A vault note named up to the filesystem's 255 bytes is legal, but its temporary file,
    named after it, went past the limit: "File name too long", and the note could never be
    rewritten (audit). The temporary name keeps the prefix the vault's scanner knows."""
    target = tmp_path / ("é" * ((length - 3) // 2) + "x" * ((length - 3) % 2) + ".md")
    assert len(os.fsencode(target.name)) == length
    target.write_text("old")
    seen: list[str] = []
    with replacing(target, prefix=".engram-") as f:
        seen.append(Path(f.name).name)
        f.write(b"new")
    assert target.read_text() == "new" and _leftovers(tmp_path) == []
    assert seen[0].startswith(".engram-") and seen[0].endswith(".tmp")
