"""Meaning judged from both sides: a memory vector matches a probe only where its cosine stands
out against unrelated text for the probe (its calibration) and for the vector itself (its
similarities with the reference sentences)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from engram.core.meaning import (
    LANGUAGE_MARGIN,
    Background,
    Calibration,
    Probe,
    meaning_matches,
    unlike_the_query,
)

DIMS = 64


def unit(vector: NDArray[np.float64]) -> NDArray[np.float32]:
    return (vector / np.linalg.norm(vector)).astype(np.float32)


@pytest.fixture
def space() -> tuple[Background, NDArray[np.float32]]:
    """Reference sentences spread around one common direction (everyday text has one), and
    that direction."""
    rng = np.random.default_rng(7)
    common = unit(rng.standard_normal(DIMS))
    background = np.stack([unit(common + 0.8 * rng.standard_normal(DIMS)) for _ in range(200)])
    return Background(background), common


def probe_for(query: NDArray[np.float32], background: Background, shrink: float = 0.0) -> Probe:
    return Probe(query, background.calibration(query), shrink)


def test_a_generic_memory_alike_to_everything_does_not_match(
    space: tuple[Background, NDArray[np.float32]],
) -> None:
    """The generic memory lies along the direction every reference sentence shares: the query
    alone lets it in (z 2.8), but it is nearly as close to unrelated text (z 1.8 for itself),
    so it cannot match by meaning alone."""
    background, common = space
    rng = np.random.default_rng(1)
    specific_direction = unit(rng.standard_normal(DIMS))
    query = unit(specific_direction + 0.3 * common)
    specific = unit(specific_direction + 0.2 * common)
    generic = unit(common + 0.15 * specific_direction)
    probe = probe_for(query, background)
    assert probe.calibration.z(float(query @ generic)) >= 2.0  # the query alone lets it in
    found = meaning_matches(
        {"specific": specific[None, :], "generic": generic[None, :]}, [probe], background, 2.0
    )
    assert set(found) == {"specific"}
    assert found["specific"].cosine == pytest.approx(float(query @ specific), abs=1e-6)
    assert found["specific"].z == pytest.approx(probe.calibration.z(float(query @ specific)))


def test_a_memorys_best_vector_and_best_probe_decide(
    space: tuple[Background, NDArray[np.float32]],
) -> None:
    """A passage matches where the whole text does not; a sentence's probe counts less its
    shrink; a memory with nothing above the floor is left out."""
    background, _ = space
    rng = np.random.default_rng(2)
    topic, other = unit(rng.standard_normal(DIMS)), unit(rng.standard_normal(DIMS))
    whole = unit(rng.standard_normal(DIMS))
    passage = unit(topic + 0.3 * rng.standard_normal(DIMS))
    unrelated = unit(rng.standard_normal(DIMS))
    query = probe_for(topic, background)
    sentence = probe_for(other, background, shrink=0.5)
    rows = {
        "passage": np.stack([whole, passage]),
        "by sentence": np.stack([unit(other + 0.3 * rng.standard_normal(DIMS))]),
        "unrelated": unrelated[None, :],
    }
    found = meaning_matches(rows, [query, sentence], background, 2.0)
    assert set(found) == {"passage", "by sentence"}  # nothing above the floor: left out
    assert found["passage"].cosine == pytest.approx(float(topic @ passage), abs=1e-6)
    by_sentence = float(rows["by sentence"][0] @ other)
    assert found["by sentence"].z == pytest.approx(sentence.calibration.z(by_sentence) - 0.5)


def test_nothing_to_judge_finds_nothing(
    space: tuple[Background, NDArray[np.float32]],
) -> None:
    background, common = space
    assert meaning_matches({}, [probe_for(common, background)], background, 2.0) == {}
    assert meaning_matches({"a": common[None, :]}, [], background, 2.0) == {}


def test_a_memory_none_of_whose_vectors_is_like_the_query_is_unlike_it() -> None:
    """Judged by its best vector (its whole text or a passage), against unrelated text's
    cosines with the query: a mean of 0.1 and a spread of 0.1 here."""
    probe = Probe(np.array([1.0, 0.0], dtype=np.float32), Calibration(0.1, 0.1), 0.0)
    rows = {
        "by chance": np.array([[0.12, 0.99]], dtype=np.float32),  # z 0.2
        "a passage answers": np.array([[0.0, 1.0], [0.3, 0.95]], dtype=np.float32),  # z 2
        "no vector": np.zeros((0, 2), dtype=np.float32),
    }
    assert unlike_the_query(rows, probe) == {"by chance"}
    assert unlike_the_query(rows, probe, min_z=0.1) == set()


def languages(rng: np.random.Generator) -> tuple[Background, NDArray[np.float32]]:
    """English reference sentences near one direction, and a second language's near another
    (`german`): text in one language is alike to all text in it."""
    english = unit(rng.standard_normal(DIMS))
    german = unit(rng.standard_normal(DIMS))
    rows = [unit(english + 0.15 * rng.standard_normal(DIMS)) for _ in range(150)]
    rows += [unit(german + 0.15 * rng.standard_normal(DIMS)) for _ in range(30)]
    return Background(np.stack(rows), (0, 150), ("en", "de")), german


def test_a_text_in_another_language_is_judged_against_that_languages_sentences() -> None:
    """Against the English sentences every text in the other language stood out as a match
    for any query in it; against its own, only the memory about the query does."""
    rng = np.random.default_rng(3)
    background, german = languages(rng)
    topic = unit(rng.standard_normal(DIMS))
    query = unit(german + 0.05 * rng.standard_normal(DIMS) + topic)
    about_it = unit(german + 0.05 * rng.standard_normal(DIMS) + topic)
    about_else = unit(german + 0.15 * rng.standard_normal(DIMS) + unit(rng.standard_normal(DIMS)))
    english_only = background.calibration(query, "en")
    assert english_only.z(float(query @ about_else)) > 4  # the old judgement: a match
    for language in ("de", None):  # said in German, or saying no function word
        probe = Probe(query, background.calibration(query, language), 0.0)
        assert probe.calibration.z(float(query @ about_else)) < 1
        rows = {"about it": about_it[None, :], "about else": about_else[None, :]}
        assert set(meaning_matches(rows, [probe], background, 2.0)) == {"about it"}
        german = background.vectors[150:] @ query
        assert probe.calibration.mean == pytest.approx(float(german.mean()), abs=1e-6)


def test_a_text_of_no_function_word_moves_only_where_another_language_is_clearly_nearer() -> None:
    """Told by its vector alone, only a mean LANGUAGE_MARGIN above the English one moves a text
    to another language's sentences; one whose words say English keeps them however near (an
    English question about learning Portuguese came 0.27 nearer the Portuguese sentences)."""
    sentences = np.zeros((180, 2), dtype=np.float32)
    sentences[:150:2, 0] = 0.04  # a spread of cosines among the English sentences
    sentences[150:, 1] = 1.0  # the German ones: as near as the query's second part
    background = Background(sentences, (0, 150), ("en", "de"))
    for nearer, moved in ((LANGUAGE_MARGIN * 0.9, False), (LANGUAGE_MARGIN * 1.5, True)):
        query = np.array([1.0, nearer], dtype=np.float32)
        guessed = background.calibration(query, None)
        assert guessed.mean == pytest.approx(nearer if moved else 0.02)
        assert background.calibration(query, "en").mean == pytest.approx(0.02)
        assert background.calibration(query, "de").mean == pytest.approx(nearer)
