"""What every service needs: the store, the settings turned into policy, and the clock."""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from engram.clock import Clock
from engram.config import Settings
from engram.core.languages import language_of
from engram.core.meaning import UNKNOWN_WORDS_MIN_COSINE, Calibration
from engram.core.models import Memory, Schedule, Status, is_kept
from engram.core.own_name import as_the_user_says_it
from engram.core.reinforce import Reinforcement
from engram.core.scoring import (
    Policy,
    ScheduleArrays,
    memory_schedule,
    schedule_arrays,
    score,
)
from engram.core.text import passages
from engram.core.timeutil import asker_local, to_epoch
from engram.embeddings.background import background
from engram.embeddings.protocol import Embedder
from engram.errors import ConfigError, StoreError
from engram.services.embedding_queue import EmbeddingQueue
from engram.services.news_links import NewsLinks, news_links
from engram.storage.protocol import Capability, ScheduleInputs, Store, Stub

log = logging.getLogger(__name__)

TEXT_CACHE = 256
_text_vectors: OrderedDict[tuple[str, str], NDArray[np.float32]] = OrderedDict()
_text_lock = threading.Lock()
# Threads for work sent ahead while the caller goes on (a save writes while its text is
# embedded, a search reads the text index while meaning is searched); two, so that concurrent
# clients do not queue behind one another.
_ahead = ThreadPoolExecutor(2, thread_name_prefix="engram-ahead")
T = TypeVar("T")


def _after_fork_in_child() -> None:
    """A forked child has none of its parent's threads: the inherited pool took its work and
    never ran it (the child's first search waited forever), and a lock held by a parent's
    thread at the fork would stay held. The child gets its own."""
    global _ahead, _text_lock
    _ahead = ThreadPoolExecutor(2, thread_name_prefix="engram-ahead")
    _text_lock = threading.Lock()


if hasattr(os, "register_at_fork"):  # not on Windows, which never forks
    os.register_at_fork(after_in_child=_after_fork_in_child)


class WarmUp:
    """Loading, ahead of the first search, what it needs (the model, the vector index), on a
    thread of its own. While that runs a search does not wait for it: it answers from the text
    alone and says so. Without a warm-up (one-off commands) the first search loads them."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None

    def start(self, work: Callable[[], object]) -> None:
        def run() -> None:
            try:
                work()
            except Exception as exc:  # the first real call reports it (and retries)
                log.warning("warming up for search failed: %s", exc)

        self._thread = threading.Thread(target=run, name="engram-warm-up", daemon=True)
        self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)


@dataclass(frozen=True)
class Context:
    store: Store
    settings: Settings
    policy: Policy
    rules: Reinforcement
    clock: Clock
    embedder: Embedder | None = None
    queue: EmbeddingQueue | None = None  # vectors computed just after the save returns
    warm_up: WarmUp = field(default_factory=WarmUp)
    news: NewsLinks = field(default_factory=news_links)  # links made just after the save

    @property
    def semantic(self) -> Embedder | None:
        """The embedder, when meaning can be used at all: a model is configured and the store
        keeps vectors (PostgreSQL without pgvector, say, does not); otherwise None."""
        if self.embedder is None or Capability.VECTORS not in self.store.capabilities:
            return None
        return self.embedder

    def now(self) -> datetime:
        # In UTC, as every time stored and returned: a clock in another zone made `save` and
        # `touch` answer in its zone and `get` in UTC, one Memory holding both.
        return self._clock_reading().astimezone(UTC)

    def local_now(self) -> datetime:
        """Now on the asker's wall clock (`asker_local`): the days "yesterday" and "last
        Friday" are counted in."""
        return asker_local(self._clock_reading())

    def local_zone(self) -> tzinfo:
        """The asker's time zone (`local_now`'s)."""
        zone = self.local_now().tzinfo
        assert zone is not None  # `asker_local` always gives an aware time
        return zone

    def _clock_reading(self) -> datetime:
        moment = self.clock()
        if not isinstance(moment, datetime):  # `time.time`: 'float' has no attribute 'tzinfo'
            raise ConfigError(f"the clock returned {type(moment).__name__}, not a datetime")
        if moment.tzinfo is None or moment.utcoffset() is None:
            raise ConfigError("the clock returned a naive datetime; it must be timezone-aware")
        return moment

    def now_epoch(self) -> float:
        return to_epoch(self.now())

    def scheduled(self, memory: Memory) -> tuple[Memory, Schedule]:
        return memory, memory_schedule(self.policy, memory)

    def check_vectors(self, recover: bool = False) -> None:
        """At open: say how to replace vectors of another model (search skips them); with
        `recover` (a long-running server), have the embedding worker catch up, whenever it is
        idle, on every memory without a vector of the current model: left by a process killed
        between a save and its embedding, saved with embeddings off, or by another model."""
        if self.semantic is None:
            return
        current = self.semantic.model_id
        counts = self.store.vector_counts()
        for model, count in counts.items():
            if model != current:
                log.warning(
                    "%d memories have vectors from model %r, not %r: semantic search skips them "
                    "until you run `engram embed --backfill`",
                    count,
                    model,
                    current,
                )
        missing = sum(self.store.count().values()) - counts.get(current, 0)
        if missing <= 0:
            return
        if self.queue is None or not recover:
            # Said at open, or they stay unfindable by meaning without a word (a script that
            # was killed, a JSONL line edited by hand): `engram search` cannot tell.
            log.warning(
                "%d %s no vector yet: meaning search misses %s until `engram embed "
                "--backfill` (a running server catches up by itself)",
                missing,
                "memory has" if missing == 1 else "memories have",
                "it" if missing == 1 else "them",
            )
            return
        log.info("%d memories have no vector yet: embedding them in the background", missing)
        self.queue.catch_up(lambda n: self.store.missing_vectors(current, n))

    def embed_later(self, items: Sequence[tuple[str, str]]) -> None:
        """Vectors for (memory id, text) pairs: queued when saves embed in the background,
        else computed now."""
        if self.queue is not None:
            self.queue.submit(items)
            return
        try:
            self.embed_and_store(items)
        except StoreError as exc:
            # The memories are saved (committed before this); only their vectors are not, as
            # when the background worker fails. An error here said "nothing was written", and
            # a retry merged into the memory it had saved.
            log.error(
                "%d memories are saved, but their vectors could not be stored (%s); "
                "`engram embed --backfill` adds them",
                len(items),
                exc,
            )

    def vectors_ready(self) -> None:
        """Wait until every vector queued by this process is stored: call before reading
        vectors, so a memory is found by meaning as soon as its save returned."""
        if self.queue is not None:
            self.queue.drain()

    def links_ready(self) -> None:
        """Wait until every supersede link of news saved by this process without its report is
        made (`engram.services.news_links`): call before ranking, so the news saved a moment
        ago is above the fact it replaced."""
        self.news.wait()

    def text_vector(self, text: str) -> NDArray[np.float32] | None:
        """One text's embedding (a query, or a memory about to be saved), or None without an
        embedder or for a text it cannot read. Recent ones are remembered: a unified search
        embeds its query once for memories and notes, and a repeated query costs nothing."""
        embedder = self.embedder
        if embedder is None:
            return None
        key = (embedder.model_id, text)
        with _text_lock:
            cached = _text_vectors.get(key)
            if cached is not None:
                _text_vectors.move_to_end(key)
                return cached
        vector = embedder.embed_query(text)
        if vector is None:
            return None  # Thai, emoji, ...: its vector would be noise (minilm.py)
        self._remember(text, vector)
        return vector

    def min_cosine(self, text: str) -> float:
        """The cosine a query's match by meaning needs besides its z: only for a query of no
        word the model knows (`UNKNOWN_WORDS_MIN_COSINE`), 0 otherwise."""
        embedder = self.embedder
        if embedder is None or embedder.knows_a_word(text):
            return 0.0
        return UNKNOWN_WORDS_MIN_COSINE

    def calibration(self, vector: NDArray[np.float32], text: str) -> Calibration | None:
        """How unrelated text compares with `vector`, the vector of `text` (its cosines with
        the reference sentences of the text's language), for judging whether a similarity means
        anything; None without an embedder."""
        embedder = self.embedder
        if embedder is None:
            return None
        return background(embedder).calibration(vector, language_of(text))

    def _remember(self, text: str, vector: NDArray[np.float32]) -> None:
        assert self.embedder is not None
        with _text_lock:
            _text_vectors[(self.embedder.model_id, text)] = vector
            if len(_text_vectors) > TEXT_CACHE:
                _text_vectors.popitem(last=False)

    def text_vectors(self, texts: Sequence[str]) -> list[NDArray[np.float32] | None]:
        """`text_vector` of several texts; those not remembered are embedded side by side
        (a query of several sentences and each of them: one after another they cost twice
        the time on MADial-Bench's queries, 40 against 27 ms p50)."""
        embedder = self.embedder
        if embedder is None:
            return [None] * len(texts)
        found = {text: self._cached(text) for text in texts}
        wanted = [text for text, vector in found.items() if vector is None]
        if len(wanted) == 1:
            found[wanted[0]] = self.text_vector(wanted[0])
        elif wanted:
            for text, vector in zip(wanted, embedder.embed_queries(wanted), strict=True):
                found[text] = vector
                if vector is not None:
                    self._remember(text, vector)
        return [found[text] for text in texts]

    def ahead(self, work: Callable[[], T]) -> Future[T]:
        """`work` on another thread, for a caller with its own work to do meanwhile (ONNX
        Runtime, the vector index and SQLite release the interpreter while they work). `work`
        must not wait for other work sent ahead."""
        return _ahead.submit(work)

    def text_vector_ahead(self, text: str) -> Future[NDArray[np.float32] | None]:
        """`text_vector` on a thread of its own, for a caller with other work to do meanwhile;
        the vector lands in the same cache."""
        return self.ahead(lambda: self.text_vector(text))

    def embed_missing(self, memories: Sequence[Memory]) -> int:
        """Vectors for those of `memories` that have none from the current model, computed now
        (an import's batch); 0 without an embedder."""
        if self.semantic is None or not memories:
            return 0
        have = self.store.get_vectors([m.id for m in memories], self.semantic.model_id)
        return self.embed_and_store([(m.id, m.content) for m in memories if m.id not in have])

    def embed_and_store(self, items: Sequence[tuple[str, str]]) -> int:
        """Compute and store vectors for (memory id, text) pairs — the whole text, each of its
        passages and, for a note of the user, its words in the first person (last), in one
        batch; 0 without an embedder. A whole text embedded a moment ago
        (a save that looked for similar memories) is taken from the cache, not embedded twice."""
        embedder = self.semantic
        if embedder is None or not items:
            return 0
        pieces = [
            [text, *passages(text, embedder.pieces), *as_the_user_says_it(text)]
            for _, text in items
        ]
        known = {text: v for text, v in ((t, self._cached(t)) for _, t in items) if v is not None}
        wanted = list(dict.fromkeys(p for group in pieces for p in group if p not in known))
        computed = embedder.embed_batch(wanted) if wanted else None
        vector_of = dict(known)
        if computed is not None:
            vector_of.update(zip(wanted, computed, strict=True))
        pairs = [
            (ident, np.stack([vector_of[p] for p in group]))
            for (ident, _), group in zip(items, pieces, strict=True)
        ]
        texts = [text for _, text in items]  # a memory edited meanwhile keeps its new vector
        return self.store.put_vectors(pairs, embedder.model_id, texts)

    def _cached(self, text: str) -> NDArray[np.float32] | None:
        if self.embedder is None:
            return None
        with _text_lock:
            return _text_vectors.get((self.embedder.model_id, text))

    def scores(self, stubs: Sequence[Stub], now: float) -> NDArray[np.float64]:
        """Decay scores of many memories at once; a promoted memory's as of its last use (it
        no longer fades, docs/ltm.md)."""
        n = len(stubs)
        idle = now - np.fromiter((s.last_used for s in stubs), np.float64, n)
        promoted = np.fromiter((s.status == Status.PROMOTED for s in stubs), bool, n)
        return score(
            self.policy,
            np.fromiter((s.use_count for s in stubs), np.float64, n),
            np.fromiter((s.strength for s in stubs), np.float64, n),
            np.where(promoted, 0.0, idle),
        )

    def scheduled_many(self, memories: list[Memory]) -> list[tuple[Memory, Schedule]]:
        """Vectorised `scheduled` for bulk saves and imports."""
        if not memories:
            return []
        arrays = schedule_arrays(
            self.policy,
            np.array([m.use_count for m in memories], dtype=np.float64),
            np.array([m.strength for m in memories], dtype=np.float64),
            np.array([to_epoch(m.last_used) for m in memories]),
            np.array([to_epoch(m.created_at) for m in memories]),
            np.array([m.status == Status.ACTIVE for m in memories]),
            np.array([is_kept(m.meta) for m in memories]),
        )
        columns = {name: getattr(arrays, name).tolist() for name in Schedule.model_fields}
        return [
            (
                m,
                Schedule.model_construct(
                    **{k: (None if v[i] != v[i] else v[i]) for k, v in columns.items()}
                ),
            )
            for i, m in enumerate(memories)
        ]

    def ensure_schedules(self) -> int:
        """Recompute every memory's threshold crossings if the decay settings changed, or a
        JSONL line was written by hand (it has none). At open, and before every answer that
        rests on them (gc, the candidates, stats): a running server reads a hand edit when it
        happens, and had kept it unscheduled, never forgotten, until the next start."""
        fingerprint = self.policy.fingerprint()
        stored = self.store.schedule_fingerprint()
        if stored == fingerprint:
            return 0

        def compute(cols: ScheduleInputs) -> ScheduleArrays:
            return schedule_arrays(
                self.policy,
                cols.use_count,
                cols.strength,
                cols.last_used,
                cols.created_at,
                cols.active,
                cols.kept,
            )

        count = self.store.reschedule_all(compute, fingerprint)
        if count:
            # None: some lines of a JSONL store were written or edited by hand.
            why = "decay settings changed" if stored is not None else "memories edited by hand"
            log.warning("%s: recomputed schedules of %d memories", why, count)
        return count
