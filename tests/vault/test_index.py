"""Reading notes: frontmatter, title, tags, wikilinks; broken notes still count; scan rules."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from engram.vault.index import parse_note, scan, split_frontmatter


def parse(text: str, path: str = "Folder/My Note.md"):  # type: ignore[no-untyped-def]
    return parse_note(path, text.encode())


def test_frontmatter_tags_links_and_title_are_read() -> None:
    note = parse(
        "---\n"
        "title: The Atlas decision\n"
        "tags: [project/atlas, '#db']\n"
        "engram_id: 8883d667\n"
        "created: 2026-01-01\n"
        "---\n"
        "# Heading that is not the title\n"
        "We chose #postgres over #mysql (see [[Other note]], [[Folder/Third|alias]],\n"
        "![[diagram.png]] and [[Fourth#Section]]). #2024 is not a tag; neither is a#b.\n"
    )
    assert note.title == "The Atlas decision"
    assert note.tags == ("project/atlas", "db", "postgres", "mysql")
    assert note.links == ("Other note", "Folder/Third", "diagram.png", "Fourth")
    assert note.engram_id == "8883d667"
    assert note.frontmatter["created"] == "2026-01-01"  # dates become ISO text
    assert note.problem is None
    assert note.body.startswith("# Heading")


def test_title_falls_back_to_the_first_heading_then_the_file_name() -> None:
    assert parse("intro\n# Real Title\n").title == "Real Title"
    assert parse("no heading at all").title == "My Note"
    assert parse("---\ntags: x\n---\n").tags == ("x",)


def test_code_is_not_searched_for_tags_or_links() -> None:
    note = parse("text #real\n```\n#not-a-tag [[not a link]]\n```\n`#inline [[nope]]`\n")
    assert note.tags == ("real",) and note.links == ()


def test_broken_frontmatter_is_reported_and_the_note_indexed_as_text() -> None:
    broken = parse("---\ntitle: [unclosed\n---\nbody words #tag\n")
    assert broken.problem is not None and "not valid YAML" in broken.problem
    assert "body words" in broken.body and broken.tags == ("tag",)
    unclosed = parse("---\ntitle: x\nno closing line\n")
    assert unclosed.problem is not None and "closing" in unclosed.problem
    not_a_mapping = parse("---\n- a\n- b\n---\nbody\n")
    assert not_a_mapping.problem is not None and "not a mapping" in not_a_mapping.problem
    # a date that is none: a ValueError escaped, and index-ltm and unified search failed
    no_such_day = parse("---\ndate: 2024-02-30\n---\nbody apple\n")
    assert no_such_day.problem is not None and "impossible value" in no_such_day.problem
    assert "body apple" in no_such_day.body


def test_a_note_not_in_utf8_is_read_in_its_encoding_and_says_so() -> None:
    """A note saved as Windows-1252 was indexed as "Cr\ufffdme br\ufffdl\ufffde", found by no
    accented word, with no problem reported (a helper's probe)."""
    note = parse_note("dessert.md", "# Crème brûlée\nCaramélisé on top.\n".encode("cp1252"))
    assert note.title == "Crème brûlée" and "Caramélisé" in note.body
    assert note.problem == "not UTF-8: read as Windows-1252"
    assert parse_note("ok.md", "# Crème\n".encode()).problem is None


def test_hostile_yaml_is_bounded() -> None:
    bomb = (
        "---\na: &a [x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
            f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
            for i in range(8)
        )
        + "---\nbody\n"
    )
    note = parse(bomb)
    assert note.problem is None and note.body == "body\n"
    assert len(str(note.frontmatter)) < 200_000
    meta, _, problem = split_frontmatter("---\n!!python/object/apply:os.system ['echo']\n---\n")
    assert meta == {} and problem is not None


def test_scan_finds_markdown_and_skips_hidden_folders_and_symlinks(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    (root / "a" / "b").mkdir(parents=True)
    (root / ".obsidian").mkdir()
    (root / "top.md").write_text("x")
    (root / "a" / "b" / "deep.MD").write_text("y")
    (root / "a" / "image.png").write_bytes(b"\x89PNG")
    (root / ".obsidian" / "workspace.md").write_text("z")
    (root / "a" / ".engram-x.tmp").write_text("partial")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("s")
    (root / "linked").symlink_to(outside, target_is_directory=True)
    (root / "alias.md").symlink_to(outside / "secret.md")
    found = scan(root)
    assert [e.path for e in found] == ["a/b/deep.MD", "top.md"]
    assert found[1].size == 1 and found[1].mtime_ns > 0


def test_fences_close_as_in_commonmark_and_an_unclosed_one_runs_to_the_end() -> None:
    longer = parse("````\n[[in code]]\n```\nstill code #no\n`````\n[[after]] #yes\n")
    assert longer.links == ("after",) and longer.tags == ("yes",)
    tilde = parse("~~~ python\n#no\n~~~\n#yes\n```inline ` is not a fence```\n[[x]]\n")
    assert tilde.tags == ("yes",) and tilde.links == ("x",)
    unclosed = parse("#before\n```\n#inside [[inside]]\n")
    assert unclosed.tags == ("before",) and unclosed.links == ()


def test_a_note_of_unclosed_fences_parses_in_one_pass() -> None:
    """25,000 fence-like lines after an unclosed fence (400 KB). The old regex searched each of
    them for its end: quadratic, 1.6 s at 64 KB and about a minute here; one pass reads it at
    once."""
    hostile = "[[before]]\n```\n" + "``` not a close\n" * 25_000 + "[[inside]] #inside\n"
    note = parse(hostile)
    assert note.links == ("before",) and note.tags == ()


def test_a_heading_is_read_in_linear_time_and_its_closing_hashes_cut() -> None:
    """The heading pattern (lazy text, then optional spaces and #s) took cubic time on a
    long line of spaces: 20 s for one note of 2,000 characters, blocking every index run (this
    one took minutes)."""
    assert parse("# a" + " " * 5_000 + "b\n").title == "a b"
    assert parse("# Closed heading ##  \n").title == "Closed heading"
    assert parse("# Learning C#\n").title == "Learning C#"  # no space before: part of the text
    assert parse("#\n\n# \n#Not a heading\n").title == "My Note"
    assert parse_note("a.md", b"# Title ##\r\nbody\r\n").title == "Title"  # CRLF line ends


def test_a_lone_surrogate_in_frontmatter_is_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    """Escaped in YAML, a lone surrogate reached the index and failed every index run with
    UnicodeEncodeError. libyaml's loader refuses it; PyYAML's own loader, used where libyaml
    is not installed, lets it through: that is the loader here."""
    monkeypatch.setattr("engram.vault.index._LOADER", yaml.SafeLoader)
    note = parse_note("n.md", b'---\ntitle: "x \\ud83d y"\n"\\udc00key": 1\n---\nbody\n')
    assert note.title == "x ? y" and "?key" in note.frontmatter
    assert note.title.encode("utf-8") and all(k.encode() for k in note.frontmatter)


def test_a_note_whose_path_is_too_long_to_index_is_skipped(tmp_path: Path) -> None:
    """Its path is the note's key: past PostgreSQL's b-tree limit it failed a whole index run
    there, so no backend indexes it (a warning names it)."""
    (tmp_path / "good.md").write_text("zebra")
    deep = tmp_path.joinpath(*["d" * 250] * 9)  # 2,259 bytes below the vault
    deep.mkdir(parents=True)
    (deep / "far.md").write_text("zebra")
    assert [e.path for e in scan(tmp_path)] == ["good.md"]


def test_a_file_whose_name_is_not_utf8_is_skipped(tmp_path: Path) -> None:
    """One such name (a file copied from an old Latin-1 system) failed every index run and
    every unified search with UnicodeEncodeError: nothing was indexed."""
    (tmp_path / "good.md").write_text("zebra")
    with open(os.fsencode(tmp_path) + b"/caf\xe9.md", "wb") as handle:
        handle.write(b"zebra")
    assert [e.path for e in scan(tmp_path)] == ["good.md"]
