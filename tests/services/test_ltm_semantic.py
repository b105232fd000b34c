"""Vault notes found by meaning: real notes, the real MiniLM model, on every backend."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray
from tests.ltm_support import used, write_note
from tests.services.conftest import STORE_URLS

from engram import Engram, FixedClock
from engram.embeddings.minilm import MiniLMEmbedder
from engram.services.ltm import EMBED_CHARS, LtmService, embedding_text
from engram.services.unified import UnifiedHit

DENTIST = ("Health/dentist.md", "# Dentist\nMy dentist appointment is on Tuesday at 3pm.\n")
FLIGHT = ("Travel/flight.md", "# Flight\nThe flight leaves at 9am.\n")
TAXES = ("Admin/taxes.md", "# Taxes\nThe quarterly tax return is due in April.\n")
GARDEN = ("garden.md", "# Garden\nWater the tomatoes every evening in summer.\n")
# Queries that share no word with the note they mean (MiniLM cosine about 0.6–0.7; every
# other note here scores below 0.25).
TOOTH_DOCTOR = "when do I visit the tooth doctor"
PLANE = "when does my plane depart"
BREAD = "how long should the bread cook"


@pytest.fixture(params=sorted(STORE_URLS))
def vault_url(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path]:
    vault = tmp_path / "vault"
    vault.mkdir()
    for path, text in (DENTIST, FLIGHT, TAXES, GARDEN):
        write_note(vault, path, text)
    return STORE_URLS[request.param](request, tmp_path), vault


@pytest.fixture
def ltm(vault_url: tuple[str, Path], clock: FixedClock) -> Iterator[tuple[Engram, Path]]:
    url, vault = vault_url
    with Engram.open(url, clock=clock, vault_path=str(vault)) as mem:
        yield mem, vault


def found(mem: Engram, query: str) -> list[str]:
    return [f"{h.source}:{h.path if h.source == 'ltm' else h.id}" for h in hits(mem, query)]


def hits(mem: Engram, query: str, tags: Sequence[str] | None = None) -> list[UnifiedHit]:
    return mem.search_unified(query, tags=tags).hits


def edit(path: Path, text: str) -> None:
    """Rewrite a note and move its mtime on, as an editor saving a second later would."""
    stamp = path.stat().st_mtime_ns
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(stamp, stamp + 1_000_000_000))


class CountingEmbedder(MiniLMEmbedder):
    """The real model, counting the texts it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed_batch(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.texts.extend(texts)
        return super().embed_batch(texts)


def test_a_note_is_found_by_meaning_alone(ltm: tuple[Engram, Path]) -> None:
    mem, _ = ltm
    report = mem.index_ltm()
    assert (report.added, report.embedded) == (4, 4)
    assert found(mem, TOOTH_DOCTOR) == [f"ltm:{DENTIST[0]}"]
    (hit,) = hits(mem, TOOTH_DOCTOR)
    assert hit.title == "Dentist" and "Tuesday at 3pm" in hit.preview
    assert hit.why.text == 0.0 and hit.why.semantic is not None and hit.why.semantic > 0.5
    assert hit.rank == pytest.approx(1.0)  # the best note, at the default ltm_weight
    # A memory meaning the same is found too; each layer's `why` says so.
    memory = mem.save("Our plane takes off at nine in the morning")
    assert set(found(mem, PLANE)) == {f"stm:{memory.id}", f"ltm:{FLIGHT[0]}"}
    assert all(h.why.semantic is not None and h.why.semantic > 0.5 for h in hits(mem, PLANE))
    # Tags restrict meaning matches as they restrict word matches.
    assert hits(mem, TOOTH_DOCTOR, tags=["travel"]) == []


def test_a_note_that_means_the_query_outranks_a_memory_that_barely_does(
    ltm: tuple[Engram, Path],
) -> None:
    """Each layer ranked within itself: the best memory was 1.0 and the best note 0.7 (its weight
    then) however weakly the memory matched (one shared word, cosine 0.27, above a runbook at
    0.54)."""
    mem, vault = ltm
    write_note(
        vault,
        "Ops/upgrade.md",
        "# Kubernetes upgrade runbook\nSteps to upgrade the cluster: drain the nodes, upgrade "
        "the control plane, then the workers.\n",
    )
    mem.index_ltm()
    weak = mem.save("The staging server runs Ubuntu")
    first, *rest = hits(mem, "server upgrade runbook")
    assert first.path == "Ops/upgrade.md" and first.rank == pytest.approx(1.0)
    (memory,) = [h for h in rest if h.id == weak.id]
    assert memory.why.semantic is not None and memory.rank < first.rank


def test_a_short_note_alike_to_everything_is_not_found_by_unrelated_questions(
    ltm: tuple[Engram, Path],
) -> None:
    """Notes are judged from both sides as memories are (docs/search.md, section 1b): short
    generic notes cleared the query's floor for everyday questions about nothing in the vault
    and were found ("what is the capital of Australia?" found three of them)."""
    mem, vault = ltm
    facts = {
        "cat": "I have a cat named Miso",
        "sister": "My sister Ana is visiting in January",
        "berlin": "I live in Berlin",
        "coffee": "My favourite drink is coffee",
        "peanut": "Allergic to peanuts: never suggest recipes or restaurants that use them.",
        "manager": "Priya is my manager since March",
    }
    for name, text in facts.items():
        write_note(vault, f"facts/{name}.md", text + "\n")
    mem.index_ltm()
    for question in (
        "what is the capital of Australia?",
        "xyzzy plugh frobnicate",
        "lorem ipsum dolor sit amet",
        "who won the 1998 world cup",
    ):
        assert hits(mem, question) == [], question
    # What the notes are about is still found by meaning alone, from both sides.
    assert found(mem, "what pets do I have")[:1] == ["ltm:facts/cat.md"]
    assert found(mem, "who is my boss")[:1] == ["ltm:facts/manager.md"]
    assert found(mem, PLANE) == [f"ltm:{FLIGHT[0]}"]


def test_words_and_meaning_both_count_for_notes(ltm: tuple[Engram, Path]) -> None:
    mem, vault = ltm
    write_note(vault, "Travel/both.md", "# Plane\nMy plane to Lisbon departs at 9am.\n")
    write_note(vault, "Math/plane.md", "# Geometry\nA plane is a flat two-dimensional surface.\n")
    mem.index_ltm()
    ranked = [h.path for h in hits(mem, PLANE)]
    # Both words and meaning first; then the note sharing only the meaning, or only the word.
    assert ranked[0] == "Travel/both.md"
    assert set(ranked) == {"Travel/both.md", FLIGHT[0], "Math/plane.md"}
    by_path = {h.path: h.why for h in hits(mem, PLANE)}
    assert by_path[FLIGHT[0]].text == 0.0 and by_path["Math/plane.md"].text > 0.0


def test_an_edited_note_is_found_by_its_new_meaning_only(ltm: tuple[Engram, Path]) -> None:
    mem, vault = ltm
    mem.index_ltm()
    assert found(mem, PLANE) == [f"ltm:{FLIGHT[0]}"]
    edit(vault / FLIGHT[0], "# Kitchen\nBake the loaf for forty minutes at 230 degrees.\n")
    report = mem.index_ltm()
    assert (report.updated, report.embedded) == (1, 1)
    assert found(mem, PLANE) == []
    assert found(mem, BREAD) == [f"ltm:{FLIGHT[0]}"]


def test_a_deleted_note_never_resurfaces(vault_url: tuple[str, Path], clock: FixedClock) -> None:
    url, vault = vault_url
    with (
        Engram.open(url, clock=clock, vault_path=str(vault)) as a,
        Engram.open(url, clock=clock, vault_path=str(vault)) as b,
    ):
        a.index_ltm()
        assert found(b, TOOTH_DOCTOR) == [f"ltm:{DENTIST[0]}"]  # b holds the vectors now
        (vault / DENTIST[0]).unlink()
        assert a.index_ltm().removed == 1
        assert found(a, TOOTH_DOCTOR) == found(b, TOOTH_DOCTOR) == []
        write_note(vault, "Health/other.md", "# Other\nThe library closes at six on weekdays.\n")
        a.index_ltm()
        assert found(b, TOOTH_DOCTOR) == []


def test_indexing_again_embeds_only_what_changed(ltm: tuple[Engram, Path]) -> None:
    mem, vault = ltm
    counting = CountingEmbedder()
    service = LtmService(dataclasses.replace(mem.app.context, embedder=counting), mem.app.ltm.vault)
    assert service.index().embedded == 4 and len(counting.texts) == 4
    assert "Dentist. My dentist appointment is on Tuesday at 3pm." in counting.texts

    assert service.index().embedded == 0
    path = vault / DENTIST[0]
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))  # touched
    assert service.index().embedded == 0
    edit(path, "---\ntags: [health]\n---\n" + DENTIST[1])  # frontmatter only: same text
    report = service.index()
    assert (report.updated, report.embedded) == (1, 0)
    assert len(counting.texts) == 4
    assert found(mem, TOOTH_DOCTOR) == [f"ltm:{DENTIST[0]}"]

    edit(path, "# Dentist\nMy dentist appointment moved to Friday at 10am.\n")
    assert service.index().embedded == 1
    assert counting.texts[4:] == ["Dentist. My dentist appointment moved to Friday at 10am."]


def test_notes_indexed_without_a_model_are_embedded_by_the_next_index(
    vault_url: tuple[str, Path], clock: FixedClock
) -> None:
    url, vault = vault_url
    with Engram.open(url, clock=clock, vault_path=str(vault), embedding_model="none") as mem:
        assert mem.index_ltm().embedded == 0
    with Engram.open(url, clock=clock, vault_path=str(vault)) as mem:
        report = mem.index_ltm()
        assert (report.unchanged, report.embedded) == (4, 4)
        assert found(mem, TOOTH_DOCTOR) == [f"ltm:{DENTIST[0]}"]
    with Engram.open(url, clock=clock, vault_path=str(vault), embedding_model="none") as mem:
        write_note(vault, "Health/orthodontist.md", "Braces get tightened every six weeks.")
        assert mem.index_ltm().embedded == 0
    with Engram.open(url, clock=clock, vault_path=str(vault)) as mem:
        # Unified search catches up with the vault first: that run embeds the new note, which
        # then matches by meaning alone (no shared word).
        (hit,) = [h for h in hits(mem, "dental retainer adjustments") if h.source == "ltm"][:1]
        assert hit.path == "Health/orthodontist.md" and hit.why.text == 0.0
        assert mem.index_ltm().embedded == 0


def test_a_promoted_memory_and_its_note_found_by_meaning_are_one_result(
    ltm: tuple[Engram, Path],
) -> None:
    mem, _ = ltm
    memory = used(mem, "Our plane takes off at nine in the morning")
    path = mem.promote(memory.id).items[0].path  # written and embedded at once
    (hit,) = [h for h in hits(mem, PLANE) if h.id == memory.id or h.path == path]
    assert (hit.id, hit.path) == (memory.id, path)
    (memory_hit,) = [
        h
        for h in mem.search_unified(PLANE, stm_weight=3).hits
        if h.id == memory.id or h.path == path
    ]
    assert (memory_hit.source, memory_hit.id, memory_hit.path) == ("stm", memory.id, path)
    (note,) = [
        h
        for h in mem.search_unified(PLANE, ltm_weight=3).hits
        if h.id == memory.id or h.path == path
    ]
    assert (note.source, note.id, note.path) == ("ltm", memory.id, path)
    assert note.why.semantic is not None and note.why.semantic > 0.5


def test_a_note_is_embedded_from_its_title_and_the_start_of_its_body() -> None:
    assert embedding_text("Dentist", "# Dentist\nTuesday at 3pm.\n") == "Dentist. Tuesday at 3pm."
    assert embedding_text("Trip", "Lisbon\n\nin   May") == "Trip. Lisbon in May"
    assert embedding_text("Why?", "Because.") == "Why? Because."
    assert embedding_text("Empty", "") == "Empty"
    long = embedding_text("Long", "word " * 1_000)
    assert len(long) <= EMBED_CHARS and long.endswith("word")
