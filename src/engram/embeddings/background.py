"""What "unrelated" looks like for a query, so a cosine similarity can be judged against it.

A raw cosine means different things for different queries: MiniLM gives a short, generic query
a similarity of 0.2–0.3 with almost anything, while a specific one stays near 0 with unrelated
text and reaches 0.3 only with a paraphrase. A fixed floor therefore either lets noise in or
keeps paraphrases out. Instead, each query is compared with a fixed set of everyday reference
sentences (`data/background.txt`, written for this purpose, on many unrelated topics); the mean
and spread of those similarities say how similar "unrelated" is for this query, and a memory
counts as a match by meaning when it stands clearly above that (`engram.core.ranking`).

The reference vectors of the built-in model ship precomputed (`data/background-minilm.npy`,
float16) so the first search does not pay for them; `python -m engram.embeddings.background`
rewrites that file, and a test checks that it matches the model. Any other embedder computes
them once per process.
"""

from __future__ import annotations

import threading
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from engram.embeddings.minilm import MODEL_ID, MiniLMEmbedder
from engram.embeddings.protocol import Embedder

_DATA = Path(str(resources.files("engram.embeddings") / "data"))
SENTENCES_FILE = _DATA / "background.txt"
SHIPPED_VECTORS = _DATA / "background-minilm.npy"
_lock = threading.Lock()
_computed: dict[str, NDArray[np.float32]] = {}


@cache
def sentences() -> tuple[str, ...]:
    lines = SENTENCES_FILE.read_text(encoding="utf-8").splitlines()
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def background_vectors(embedder: Embedder) -> NDArray[np.float32]:
    """Unit vectors of the reference sentences for this embedder's model."""
    model = embedder.model_id
    with _lock:
        found = _computed.get(model)
        if found is None:
            if model == MODEL_ID and SHIPPED_VECTORS.exists():
                found = np.load(SHIPPED_VECTORS).astype(np.float32)
            else:
                found = embedder.embed_batch(list(sentences()))
            _computed[model] = found
        return found


def write_shipped_vectors() -> Path:
    vectors = MiniLMEmbedder().embed_batch(list(sentences()))
    np.save(SHIPPED_VECTORS, vectors.astype(np.float16))
    return SHIPPED_VECTORS


if __name__ == "__main__":
    print(f"wrote {write_shipped_vectors()}")
