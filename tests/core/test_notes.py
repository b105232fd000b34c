"""How wikilink targets are compared and which of a note's links are indexed."""

from __future__ import annotations

from engram.core.notes import distinct_links, link_key, link_name


def test_link_keys_ignore_case_extension_and_separators() -> None:
    assert link_key(" Projects\\Atlas.md ") == "projects/atlas"
    assert link_key("/projects/atlas/") == "projects/atlas"
    assert link_name("Projects/Atlas.md") == "atlas"


def test_each_linked_note_is_indexed_once_with_its_first_spelling() -> None:
    links = ["Atlas", "atlas.md", "Projects/Atlas", "  ", "", "ATLAS", "Notes/Lisbon"]
    assert distinct_links(links) == ["Atlas", "Projects/Atlas", "Notes/Lisbon"]


def test_no_links_give_no_targets() -> None:
    assert distinct_links([]) == []
