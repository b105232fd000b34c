"""What the rest of Engram needs from an embedding model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
from numpy.typing import NDArray


class Embedder(Protocol):
    """Maps texts to unit-length float32 vectors; `model_id` is stored with every vector."""

    @property
    def model_id(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    def embed_batch(self, texts: Sequence[str]) -> NDArray[np.float32]: ...

    def embed_query(self, text: str) -> NDArray[np.float32] | None:
        """One text's vector, or None when the model cannot read it (a query in a script it
        does not know is searched by its words only: its vector would be noise that some
        memories match by chance)."""
        ...

    def knows_a_word(self, text: str) -> bool:
        """Whether the model knows a word of the text well enough that a modest similarity
        means something; a query of none, gibberish or rare words, must be far more alike to
        match by meaning (`engram.core.meaning.UNKNOWN_WORDS_MIN_COSINE`)."""
        ...

    def embed_queries(self, texts: Sequence[str]) -> list[NDArray[np.float32] | None]:
        """`embed_query` of each text, computed side by side where the model can (a query
        and its sentences, searched at once)."""
        ...

    def pieces(self, text: str) -> int:
        """How many of the model's word pieces the text takes, beyond what it reads too: a long
        statement is embedded in windows that fit (`core.text.passages`)."""
        ...
