"""The default embedder is the reference model: same vocabulary, same tokens, same vectors."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from tests.embeddings.reference_bert import ReferenceMiniLM, model_dir
from tokenizers import Tokenizer

from engram.embeddings.minilm import DIMENSIONS, MiniLMEmbedder, _batches, vocab_path

SENTENCES = [
    "I prefer TypeScript over JavaScript for new projects.",
    "Alice's birthday is on March 3rd; she likes orchids.",
    "The deploy to staging failed because the database migration timed out.",
    "Ünïcödé, émojis 🙂 and punctuation!?",
    "a",
    "Project Atlas chose PostgreSQL 16 over MongoDB for transactions. " * 20,  # > 256 tokens
]


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_vocabulary_is_the_reference_models() -> None:
    shipped = hashlib.sha256(vocab_path().read_bytes()).hexdigest()
    reference = hashlib.sha256((model_dir() / "vocab.txt").read_bytes()).hexdigest()
    assert shipped == reference


def test_tokens_match_the_reference_tokenizer(embedder: MiniLMEmbedder) -> None:
    embedder.embed_batch(["warm up"])
    reference = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    reference.no_padding()
    reference.enable_truncation(256)
    for text in SENTENCES:
        assert embedder._tokenizer.encode(text).ids == reference.encode(text).ids


def test_vectors_agree_with_the_fp32_reference_model(embedder: MiniLMEmbedder) -> None:
    ours = embedder.embed_batch(SENTENCES)
    theirs = ReferenceMiniLM().embed(SENTENCES)
    cosines = (ours * theirs).sum(axis=1)
    assert cosines.min() >= 0.99, cosines


def test_vectors_are_unit_length_float32_in_input_order(embedder: MiniLMEmbedder) -> None:
    vectors = embedder.embed_batch(SENTENCES)
    assert vectors.shape == (len(SENTENCES), DIMENSIONS) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    single = embedder.embed_batch([SENTENCES[2]])[0]
    assert float(single @ vectors[2]) == pytest.approx(1.0, abs=1e-5)


def test_similar_meanings_are_closer_than_unrelated_ones(embedder: MiniLMEmbedder) -> None:
    dog, dogs, market = embedder.embed_batch(
        ["I love dogs", "Dogs are my favourite animals", "The stock market crashed"]
    )
    assert dog @ dogs > 0.6 > 0.2 > dog @ market


def test_empty_batch(embedder: MiniLMEmbedder) -> None:
    assert embedder.embed_batch([]).shape == (0, DIMENSIONS)


def test_long_texts_go_in_smaller_batches() -> None:
    """Attention's working memory grows with texts × padded length: a batch stays under the
    token budget (64 long texts took the process to 1.6 GB in batches of 32, 0.7 GB now)."""
    texts = ["word " * 300] * 10 + ["short text"] * 40
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    batches = _batches(order, texts)
    assert sorted(i for b in batches for i in b) == list(range(len(texts)))
    assert all(len(b) <= 32 for b in batches)
    long_batches = [b for b in batches if len(texts[b[-1]]) > 1000]
    assert long_batches and all(len(b) * 256 <= 2_048 for b in long_batches)
    assert len(batches[0]) == 32  # short ones still 32 at a time
