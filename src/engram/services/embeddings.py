"""Embedding upkeep: which memories lack a vector for the current model, and filling them in."""

from __future__ import annotations

from collections.abc import Callable

from engram.core.models import Status
from engram.errors import ConfigError, NotFoundError
from engram.services import validation as check
from engram.services.context import Context
from engram.services.results import Result
from engram.storage.protocol import Capability, Filter

BACKFILL_BATCH = 64


class EmbeddingStatus(Result):
    model_id: str | None
    vectors: dict[str, int]
    memories: int
    # Memories with no vector from the model in use: the work `backfill` (`engram embed
    # --backfill`) does. `pending` alone counted this process's queue, and said 0 while a
    # killed import had left 16,752 of 18,000 without one.
    missing: int = 0
    pending: int = 0  # saved by this process, vector being computed


class EmbeddingService:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def status(self) -> EmbeddingStatus:
        queue = self.ctx.queue
        pending = 0 if queue is None else queue.pending()
        counts = (
            self.ctx.store.vector_counts()
            if Capability.VECTORS in self.ctx.store.capabilities
            else {}
        )
        model = None if self.ctx.embedder is None else self.ctx.embedder.model_id
        memories = sum(self.ctx.store.count().values())
        return EmbeddingStatus(
            model_id=model,
            vectors=counts,
            memories=memories,
            missing=0 if model is None else max(0, memories - counts.get(model, 0)),
            pending=pending,
        )

    def similar(self, memory_id: str, min_cosine: float = 0.88, limit: int = 10) -> list[Similar]:
        return similar_memories(self.ctx, memory_id, min_cosine, limit)

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
        self.ctx.vectors_ready()
        done = 0
        fruitless: list[tuple[str, str]] = []
        while True:
            missing = self.ctx.store.missing_vectors(model, batch)
            if not missing or missing == fruitless:  # done, or the store refuses these
                return done
            stored = self.ctx.embed_and_store(missing)
            # Nothing stored: deleted or edited meanwhile (the next batch asks again, and the
            # edited ones come back with their new text). It stopped there, with the rest of
            # the store still to embed (audit).
            fruitless = missing if stored == 0 else []
            done += stored
            if progress is not None:
                progress(stored)


class Similar(Result):
    memory_id: str
    cosine: float


def similar_memories(
    ctx: Context, memory_id: str, min_cosine: float = 0.88, limit: int = 10
) -> list[Similar]:
    """Near-duplicates of one memory from the vector index: O(log n), not a pairwise scan.

    The building block for clustering and consolidation (cosine ≥ 0.88 by default, as the
    upstream's duplicate threshold).
    """
    embedder = ctx.semantic
    if embedder is None:
        raise ConfigError("embeddings are off (ENGRAM_EMBEDDING_MODEL=none)")
    ident = check.memory_id(memory_id)
    floor = check.unit(min_cosine, "min_cosine")  # nan found nothing, -1 the unrelated
    ctx.vectors_ready()
    vectors = ctx.store.get_vectors([ident], embedder.model_id)
    if ident not in vectors:
        if not ctx.store.get_many([ident]):
            raise NotFoundError("memory", ident)
        return []
    where = Filter(statuses=tuple(Status))
    found = ctx.store.vector_search(vectors[ident], where, check.limit(limit) + 1)
    return [
        Similar(memory_id=s.id, cosine=s.relevance)
        for s in found
        if s.id != ident and s.relevance >= floor
    ][:limit]
