"""Meaning judged from both sides: a memory vector matches a probe only where its cosine stands
out against unrelated text for the probe (its calibration) and for the vector itself (its
similarities with the reference sentences)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from engram.core.meaning import Calibration, Probe, meaning_matches, unlike_the_query

DIMS = 64


def unit(vector: NDArray[np.float64]) -> NDArray[np.float32]:
    return (vector / np.linalg.norm(vector)).astype(np.float32)


@pytest.fixture
def space() -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Reference sentences spread around one common direction (everyday text has one), and
    that direction."""
    rng = np.random.default_rng(7)
    common = unit(rng.standard_normal(DIMS))
    background = np.stack([unit(common + 0.8 * rng.standard_normal(DIMS)) for _ in range(200)])
    return background, common


def probe_for(
    query: NDArray[np.float32], background: NDArray[np.float32], shrink: float = 0.0
) -> Probe:
    return Probe(query, Calibration.of(background @ query), shrink)


def test_a_generic_memory_alike_to_everything_does_not_match(
    space: tuple[NDArray[np.float32], NDArray[np.float32]],
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
    space: tuple[NDArray[np.float32], NDArray[np.float32]],
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
    space: tuple[NDArray[np.float32], NDArray[np.float32]],
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
