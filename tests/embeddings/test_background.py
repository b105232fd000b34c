"""The reference sentences that calibrate meaning, and their shipped vectors."""

from __future__ import annotations

import numpy as np

from engram.embeddings import background
from engram.embeddings.minilm import MODEL_ID, MiniLMEmbedder


class OtherModel:
    """A stand-in for an embedder of another model: its vectors are not shipped."""

    model_id = "test/other-model"
    dimensions = 4

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        return np.tile(np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32), (len(texts), 1))


def test_the_shipped_vectors_are_the_models_vectors_of_the_sentences() -> None:
    """If this fails, the sentences or the model changed: `python -m engram.embeddings.background`
    writes the file again."""
    shipped = np.load(background.SHIPPED_VECTORS).astype(np.float32)
    computed = MiniLMEmbedder().embed_batch(list(background.sentences()))
    assert shipped.shape == computed.shape == (len(background.sentences()), 384)
    assert float(np.min(np.sum(shipped * computed, axis=1))) > 0.999  # float16 rounding only


def test_sentences_are_many_distinct_and_comments_are_skipped() -> None:
    lines = background.sentences()
    assert len(set(lines)) == len(lines)
    assert not any(line.startswith(("#", "[")) for line in lines)
    groups = dict(background.groups())
    assert next(iter(groups)) == "en" and len(groups["en"]) >= 150
    assert {"de", "es", "fr"} <= set(groups) and all(len(g) >= 20 for g in groups.values())


def test_another_model_computes_its_own_vectors_once() -> None:
    found = background.background(OtherModel())  # type: ignore[arg-type]
    assert found.vectors.shape == (len(background.sentences()), 4)
    sizes = [len(lines) for _, lines in background.groups()]
    assert list(found.starts) == [sum(sizes[:i]) for i in range(len(sizes))]
    assert background.background(OtherModel()) is found  # type: ignore[arg-type]
    assert background.background(MiniLMEmbedder()).vectors.shape[1] == 384
    assert MODEL_ID in background._computed
