"""Unified search: memories and vault notes in one list, weighted, with no duplicates."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests.ltm_support import FAST, open_with_vault, used, write_note

from engram import Engram, FixedClock, ValidationError


@pytest.fixture
def ltm(tmp_path: Path, clock: FixedClock) -> Iterator[tuple[Engram, Path]]:
    with open_with_vault(tmp_path, clock) as opened:
        yield opened


def sources(mem: Engram, query: str, **options: float) -> list[str]:
    return [f"{h.source}:{h.id or h.path}" for h in mem.search_unified(query, **options).hits]


def test_one_list_over_both_layers_ordered_by_the_weights(ltm: tuple[Engram, Path]) -> None:
    mem, vault = ltm
    m = mem.save("The zeppelin hangar is in Friedrichshafen")
    write_note(vault, "Travel/zeppelin.md", "# Zeppelin museum\nThe zeppelin museum visit.\n")
    mem.index_ltm()
    assert sources(mem, "zeppelin") == [f"stm:{m.id}", "ltm:Travel/zeppelin.md"]
    assert sources(mem, "zeppelin", ltm_weight=1.5) == ["ltm:Travel/zeppelin.md", f"stm:{m.id}"]
    assert sources(mem, "zeppelin", stm_weight=0) == ["ltm:Travel/zeppelin.md"]
    assert sources(mem, "zeppelin", ltm_weight=0) == [f"stm:{m.id}"]

    # equal weights: both match fully, and the memory comes first on the tie
    stm, note = mem.search_unified("zeppelin").hits
    assert (stm.why.weight, stm.why.text, stm.why.decay) == (1.0, 1.0, 1.0)
    assert stm.rank == stm.why.rank == pytest.approx(1.0)
    assert (note.why.weight, note.why.text, note.why.decay) == (1.0, 1.0, None)
    assert note.rank == pytest.approx(1.0)
    lighter = mem.search_unified("zeppelin", ltm_weight=0.7).hits[1]
    assert lighter.source == "ltm" and lighter.rank == pytest.approx(0.7)
    assert note.title == "Zeppelin museum" and "zeppelin museum visit" in note.preview
    assert stm.title == "The zeppelin hangar is in Friedrichshafen"


def test_each_hit_says_the_day_it_was_saved_or_its_note_written(
    ltm: tuple[Engram, Path], clock: FixedClock
) -> None:
    """Which of a memory and a note is the newer: the memory's day of saving, the note's of
    its file's last write, both on the asker's calendar (here UTC)."""
    mem, vault = ltm
    m = mem.save("The zeppelin hangar is in Friedrichshafen")
    write_note(vault, "Travel/zeppelin.md", "# Zeppelin museum\nThe zeppelin museum visit.\n")
    written = datetime(2025, 11, 20, 15, 0, tzinfo=UTC).timestamp()
    os.utime(vault / "Travel/zeppelin.md", (written, written))
    mem.index_ltm()
    days = {h.source: h.saved for h in mem.search_unified("zeppelin").hits}
    assert days == {"stm": m.created_at.date().isoformat(), "ltm": "2025-11-20"}
    assert days["stm"] == clock().date().isoformat()


def test_a_promoted_memory_and_its_note_appear_once(ltm: tuple[Engram, Path]) -> None:
    mem, _ = ltm
    m = used(mem, "Quokka photos go in the shared album")
    path = mem.promote(m.id).items[0].path
    result = mem.search_unified("quokka")
    assert result.count == 1
    (hit,) = result.hits
    assert (hit.source, hit.id, hit.path) == ("stm", m.id, path)
    (only,) = mem.search_unified("quokka", ltm_weight=3).hits
    assert (only.source, only.id, only.path) == ("ltm", m.id, path)


def test_news_ranks_above_the_promoted_fact_it_replaced_and_says_so(
    ltm: tuple[Engram, Path], clock: FixedClock
) -> None:
    """A promoted fact's note never fades: corrected by news since, it ranked first, with
    nothing saying it was replaced, and dated the day its note was written, as if newer than
    the correction (a probe)."""
    mem, _ = ltm
    old = used(mem, "My manager is Priya Shah")
    mem.promote(old.id)
    clock.advance(days=30)
    news = mem.save("My manager is Tom Becker now")
    mem.create_relation(news.id, old.id, "supersedes")  # made at save time with meaning on
    clock.advance(days=60)
    first, second = mem.search_unified("manager", limit=2).hits
    assert (first.id, second.id) == (news.id, old.id)
    assert second.why.superseded_by == news.id and first.why.superseded_by is None
    assert second.path is not None and second.saved == old.created_at.date().isoformat()
    assert first.rank >= second.rank


def test_a_promoted_memorys_note_edited_in_the_vault_shows_what_it_says(
    ltm: tuple[Engram, Path],
) -> None:
    """The note corrected to "due in April" was found by "April", and the one result showed
    the memory's "due in March" (a helper's probe)."""
    mem, vault = ltm
    m = used(mem, "The boiler service is due in March")
    path = mem.promote(m.id).items[0].path
    assert path is not None
    note = vault / path
    note.write_text(note.read_text().replace("due in March", "due in April"))
    mem.index_ltm()
    (hit,) = mem.search_unified("boiler April").hits
    assert (hit.id, hit.path) == (m.id, path)
    assert "April" in hit.preview and "March" not in hit.preview


def test_a_note_whose_frontmatter_the_user_broke_is_still_its_memorys(
    ltm: tuple[Engram, Path],
) -> None:
    """Broken YAML made the note a stranger: unified search listed the memory and its note as
    two results (a probe), though its `engram_id` line still names the memory."""
    mem, vault = ltm
    m = used(mem, "Quokka photos go in the shared album")
    path = mem.promote(m.id).items[0].path
    assert path is not None
    note = vault / path
    note.write_text(note.read_text().replace("title:", "title: [broken\ntitle_was:", 1))
    report = mem.index_ltm()
    assert [p.path for p in report.problems] == [path]
    (hit,) = mem.search_unified("quokka").hits
    assert (hit.id, hit.path) == (m.id, path)


def test_a_memory_found_through_a_relation_says_so(ltm: tuple[Engram, Path]) -> None:
    """Its credit from the related match is in `why` as `search_memory` gives it: a hit of no
    text and no meaning looked matched for no reason (a probe)."""
    mem, _ = ltm
    trip = mem.save("Booked the Lisbon trip for June")
    hotel = mem.save("Hotel Avenida, confirmation 4471")
    mem.create_relation(trip.id, hotel.id, "related", strength=1.0)
    hits = {h.id: h for h in mem.search_unified("Lisbon trip").hits}
    assert hits[trip.id].why.context is None and hits[trip.id].why.text > 0
    assert hits[hotel.id].why.text == 0 and (hits[hotel.id].why.context or 0) > 0


def test_the_note_of_a_deleted_memory_names_no_memory(ltm: tuple[Engram, Path]) -> None:
    """The vault is the user's: deleting a promoted memory leaves its note, and a hit on
    that note must not hand out the id of a memory that is gone."""
    mem, vault = ltm
    m = used(mem, "Quokka photos go in the shared album")
    path = mem.promote(m.id).items[0].path
    mem.delete([m.id])
    assert path is not None and (vault / path).exists()
    (hit,) = mem.search_unified("quokka").hits
    assert (hit.source, hit.id, hit.path) == ("ltm", None, path)


def test_a_copy_of_a_memorys_note_is_a_result_of_its_own(ltm: tuple[Engram, Path]) -> None:
    """A copy of the note keeps its engram_id (Obsidian's "Make a copy"): it was merged into
    the memory's hit, so a copy edited to say more was never found."""
    mem, vault = ltm
    m = used(mem, "Kestrel deployment uses blue green rollout")
    path = mem.promote(m.id).items[0].path
    assert path is not None
    text = (vault / path).read_text().replace("blue green", "plan B with canary")
    write_note(vault, "Engram/kestrel-copy.md", text)
    mem.index_ltm()
    found = {(h.source, h.path) for h in mem.search_unified("kestrel rollout").hits}
    assert found == {("stm", path), ("ltm", "Engram/kestrel-copy.md")}


def test_the_note_is_matched_to_its_memory_even_after_a_rename(
    ltm: tuple[Engram, Path],
) -> None:
    mem, vault = ltm
    m = used(mem, "Narwhal tusks are teeth")
    path = mem.promote(m.id).items[0].path
    assert path is not None
    (vault / path).rename(vault / "Engram/narwhals.md")
    mem.index_ltm()
    (hit,) = mem.search_unified("narwhal", ltm_weight=3).hits
    assert (hit.id, hit.path) == (m.id, "Engram/narwhals.md")


def test_a_note_copied_then_its_original_deleted_is_still_the_memorys_one(
    ltm: tuple[Engram, Path],
) -> None:
    """Copied in one index pass and the original deleted in a later one (a sync client, a file
    manager), the move was never followed: the memory and its only note were listed twice,
    the memory naming a file that was gone."""
    mem, vault = ltm
    m = used(mem, "Narwhal tusks are teeth")
    path = mem.promote(m.id).items[0].path
    assert path is not None
    (vault / "Engram/narwhals.md").write_text((vault / path).read_text())
    mem.index_ltm()
    (vault / path).unlink()
    mem.index_ltm()
    for weight in (0.7, 3.0):
        (hit,) = mem.search_unified("narwhal", ltm_weight=weight).hits
        assert (hit.id, hit.path) == (m.id, "Engram/narwhals.md")


def test_finds_by_content_across_the_whole_vault(ltm: tuple[Engram, Path]) -> None:
    """Not only recent notes, and not only the query as one substring: any of its words."""
    mem, vault = ltm
    target = write_note(vault, "Archive/2019/old.md", "Orchid repotting needs bark, never soil.\n")
    os.utime(target, (1_000_000_000, 1_000_000_000))  # the oldest note by far
    for i in range(300):
        write_note(vault, f"Daily/{i:03}.md", f"Day {i}: meetings and email.\n")
    mem.index_ltm()
    hits = mem.search_unified("what soil for repotting orchids", limit=5).hits
    assert [h.path for h in hits][:1] == ["Archive/2019/old.md"]


def test_tags_filter_both_layers_including_nested_note_tags(ltm: tuple[Engram, Path]) -> None:
    mem, vault = ltm
    keep = mem.save("Budget spreadsheet for Atlas", tags=["project"])
    home = mem.save("Budget for the holidays", tags=["home"])
    write_note(vault, "a.md", "---\ntags: [project/atlas]\n---\nAtlas budget review\n")
    write_note(vault, "b.md", "Holiday budget #home\n")
    mem.index_ltm()
    found = {h.id or h.path for h in mem.search_unified("budget", tags=["project"]).hits}
    assert found == {keep.id, "a.md"}
    by_tag_only = {h.id or h.path for h in mem.search_unified(tags=["home"]).hits}
    assert by_tag_only == {home.id, "b.md"}  # both layers, without a word to match


def test_nothing_to_match_and_bad_weights_are_refused(ltm: tuple[Engram, Path]) -> None:
    mem, _ = ltm
    with pytest.raises(ValidationError, match="query"):
        mem.search_unified("  ")
    with pytest.raises(ValidationError, match="ltm_weight"):
        mem.search_unified("x", ltm_weight=-1)
    with pytest.raises(ValidationError, match="stm_weight"):
        mem.search_unified("x", stm_weight=float("nan"))
    with pytest.raises(ValidationError, match="limit"):
        mem.search_unified("x", limit=0)
    assert mem.search_unified("?!").hits == []


def test_searching_both_layers_does_not_reinforce(ltm: tuple[Engram, Path]) -> None:
    mem, _ = ltm
    m = mem.save("Walrus facts")
    mem.search_unified("walrus")
    assert mem.get(m.id).use_count == 0


def test_promotion_and_unified_search_on_a_jsonl_store(tmp_path: Path, clock: FixedClock) -> None:
    """The JSONL backend keeps the vault index in a file next to its memories."""
    vault = tmp_path / "vault"
    vault.mkdir()
    write_note(vault, "Notes/lynx.md", "The lynx hunts at dusk.\n")
    store = f"jsonl:///{tmp_path / 'store'}"
    with Engram.open(store, clock=clock, vault_path=str(vault), embedding_model="none") as mem:
        m = used(mem, "A lynx was seen near the cabin")
        path = mem.promote(m.id).items[0].path
        assert mem.index_ltm().notes == 2
    with Engram.open(store, clock=clock, vault_path=str(vault), embedding_model="none") as mem:
        hits = mem.search_unified("lynx").hits
        assert {(h.id, h.path) for h in hits} == {(m.id, path), (None, "Notes/lynx.md")}


def test_a_note_whose_engram_id_no_memory_can_have_is_a_plain_note(
    store_url: str, tmp_path: Path, clock: FixedClock
) -> None:
    """An `engram_id` with a NUL in it failed the whole index run on PostgreSQL (its text
    cannot hold one), and every unified search after it (audit): only an id a memory can have
    names a memory, on every backend."""
    vault = tmp_path / "vault"
    vault.mkdir()
    write_note(vault, "good.md", "# Apples\nThe apples are ripe.\n")
    write_note(vault, "odd.md", '---\nengram_id: "abc\\0def"\n---\n# Apples too\nMore apples.\n')
    with Engram.open(store_url, clock=clock, vault_path=str(vault), **FAST) as mem:
        mem.index_ltm()
        hits = mem.search_unified("apples").hits
        assert sorted((h.path, h.id) for h in hits) == [("good.md", None), ("odd.md", None)]


def test_a_note_is_not_found_by_the_old_words_of_a_memory_it_links_to(
    ltm: tuple[Engram, Path],
) -> None:
    """A vault probe: a promoted memory corrected after its note was linked left its old words
    in the other note's Related link, and unified search found that note by them at rank 1.0,
    level with the fact, though they were gone everywhere else. Lists of links are what the
    notes index does not search; the links stay in the file and the graph."""
    mem, vault = ltm
    cafe = used(mem, "The team meets at Café Zürich on Thursdays")
    birthday = used(mem, "Lena's birthday is on 14 March")
    mem.create_relation(cafe.id, birthday.id, "related")
    mem.promote(cafe.id)
    lena = mem.promote(birthday.id).items[0].path
    assert lena is not None and "Café Zürich on Thursdays]]" in (vault / lena).read_text()
    mem.update(cafe.id, content="The team meets at the Rote Fabrik on Mondays")
    mem.index_ltm()
    found = mem.search_unified("Café Zürich Thursdays").hits
    assert all(h.path != lena for h in found), [(h.source, h.path, h.title) for h in found]
    assert mem.search_unified("Lena birthday").hits[0].id == birthday.id
    assert mem.app.ltm.show(lena).links  # still linked
