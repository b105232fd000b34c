"""Turn the `embedding_model` setting into an embedder (or none)."""

from __future__ import annotations

from engram.embeddings.minilm import MiniLMEmbedder
from engram.embeddings.protocol import Embedder

MODELS = ("minilm", "none")


def make_embedder(name: str, threads: int) -> Embedder | None:
    if name == "none":
        return None
    return MiniLMEmbedder(threads=threads)
