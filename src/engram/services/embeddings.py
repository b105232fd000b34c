"""Embedding upkeep: which memories lack a vector for the current model, and filling them in."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from engram.errors import ConfigError
from engram.services.context import Context

BACKFILL_BATCH = 64


class EmbeddingStatus(BaseModel):
    model_config = ConfigDict(frozen=True)

    model_id: str | None
    vectors: dict[str, int]
    memories: int


class EmbeddingService:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def status(self) -> EmbeddingStatus:
        counts = self.ctx.store.vector_counts() if "vectors" in self.ctx.store.capabilities else {}
        model = None if self.ctx.embedder is None else self.ctx.embedder.model_id
        return EmbeddingStatus(
            model_id=model, vectors=counts, memories=sum(self.ctx.store.count().values())
        )

    def backfill(
        self, batch: int = BACKFILL_BATCH, progress: Callable[[int], None] | None = None
    ) -> int:
        """Embed every memory without a vector from the current model, batch by batch.

        Resumable by construction: each batch is committed, and the next run asks the store
        again what is missing.
        """
        if self.ctx.embedder is None:
            raise ConfigError("embeddings are off (ENGRAM_EMBEDDING_MODEL=none): nothing to do")
        model = self.ctx.embedder.model_id
        done = 0
        while True:
            missing = self.ctx.store.missing_vectors(model, batch)
            if not missing:
                return done
            stored = self.ctx.embed_and_store(missing)
            if stored == 0:  # memories deleted meanwhile: avoid spinning on them
                return done
            done += stored
            if progress is not None:
                progress(stored)
