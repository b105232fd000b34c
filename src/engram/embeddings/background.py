"""What "unrelated" looks like for a query, so a cosine similarity can be judged against it.

A raw cosine means different things for different queries: MiniLM gives a short, generic query
a similarity of 0.2–0.3 with almost anything, while a specific one stays near 0 with unrelated
text and reaches 0.3 only with a paraphrase. A fixed floor therefore either lets noise in or
keeps paraphrases out. Instead, each query is compared with a fixed set of everyday reference
sentences (`data/background.txt`, written for this purpose, on many unrelated topics); the mean
and spread of those similarities say how similar "unrelated" is for this query, and a memory
counts as a match by meaning when it stands clearly above that (`engram.core.ranking`). The
same statements in other languages (`data/background-languages.txt`) judge a text in one of
those: to the model, text in one language is alike to all text in it.

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

from engram.core.meaning import Background
from engram.embeddings.minilm import MODEL_ID, MiniLMEmbedder
from engram.embeddings.protocol import Embedder

_DATA = Path(str(resources.files("engram.embeddings") / "data"))
SENTENCES_FILE = _DATA / "background.txt"
LANGUAGES_FILE = _DATA / "background-languages.txt"
SHIPPED_VECTORS = _DATA / "background-minilm.npy"
_lock = threading.Lock()
_computed: dict[str, Background] = {}


@cache
def groups() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The reference sentences by language, English first: (language code, sentences)."""
    found: list[tuple[str, list[str]]] = [("en", [])]
    for path in (SENTENCES_FILE, LANGUAGES_FILE):
        for raw in path.read_text(encoding="utf-8").splitlines():
            line = raw.strip()
            if line.startswith("[") and line.endswith("]"):
                found.append((line[1:-1], []))
            elif line and not line.startswith("#"):
                found[-1][1].append(line)
    return tuple((code, tuple(lines)) for code, lines in found)


def sentences() -> tuple[str, ...]:
    """Every reference sentence, in the order of `groups` (the rows of the vectors)."""
    return tuple(line for _, lines in groups() for line in lines)


def background(embedder: Embedder) -> Background:
    """The reference sentences' unit vectors for this embedder's model, grouped by language."""
    model = embedder.model_id
    with _lock:
        found = _computed.get(model)
        if found is None:
            if model == MODEL_ID and SHIPPED_VECTORS.exists():
                vectors = np.load(SHIPPED_VECTORS).astype(np.float32)
            else:
                vectors = embedder.embed_batch(list(sentences()))
            sizes = [len(lines) for _, lines in groups()]
            starts = tuple(int(n) for n in np.cumsum([0, *sizes[:-1]]))
            found = Background(vectors, starts, tuple(code for code, _ in groups()))
            _computed[model] = found
        return found


def write_shipped_vectors() -> Path:
    vectors = MiniLMEmbedder().embed_batch(list(sentences()))
    np.save(SHIPPED_VECTORS, vectors.astype(np.float16))
    return SHIPPED_VECTORS


if __name__ == "__main__":
    print(f"wrote {write_shipped_vectors()}")
