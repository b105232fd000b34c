"""The default embedder is the reference model: same vocabulary, same tokens, same vectors."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray
from tests.embeddings.reference_bert import ReferenceMiniLM, model_dir
from tokenizers import Tokenizer

from engram.embeddings.minilm import DIMENSIONS, MiniLMEmbedder, _load, vocab_path

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
    ours = _load().tokenizer
    reference = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    reference.no_padding()
    reference.enable_truncation(256)
    for text in SENTENCES:
        assert ours.encode(text).ids == reference.encode(text).ids


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


def test_a_texts_vector_does_not_depend_on_its_batch(embedder: MiniLMEmbedder) -> None:
    """Activations are quantised per model call: a text padded to a longer neighbour's length,
    or sharing a call with it, would get another vector (0.989 cosine when they did)."""
    alone = embedder.embed_batch([SENTENCES[2]])[0]
    for batch in (SENTENCES, SENTENCES[::-1], [SENTENCES[5], SENTENCES[2]]):
        vectors = embedder.embed_batch(batch)
        assert float(vectors[batch.index(SENTENCES[2])] @ alone) == pytest.approx(1.0, abs=1e-6)


def test_queries_at_once_are_each_what_one_alone_gives() -> None:
    """A query and its sentences are embedded side by side (`embed_queries`): each vector is
    the one `embed_query` gives, and a text the model cannot read is None there too."""
    two = MiniLMEmbedder(threads=2)
    texts = [SENTENCES[0], "สวัสดีครับ ยินดีต้อนรับ", SENTENCES[2]]  # Thai: unreadable
    together = two.embed_queries(texts)
    assert together[1] is None and two.embed_query(texts[1]) is None
    for text, vector in zip(texts[::2], together[::2], strict=True):
        alone = two.embed_query(text)
        assert vector is not None and alone is not None
        assert float(vector @ alone) == pytest.approx(1.0, abs=1e-6)


def test_threads_asking_at_once_share_one_load() -> None:
    """A server warms the model up in the background while a request may need it already."""
    from concurrent.futures import ThreadPoolExecutor

    from engram.embeddings.minilm import _load_once

    _load_once.cache_clear()
    with ThreadPoolExecutor(4) as pool:
        models = list(pool.map(lambda _: _load(), range(4)))
    assert all(m is models[0] for m in models)


EMBED_ONE = (
    "import json, sys; from engram.embeddings.minilm import MiniLMEmbedder, _load, "
    "cached_graph_path; v = MiniLMEmbedder().embed_batch([sys.argv[1]])[0]; "
    "print(json.dumps({'vector': v.tolist(), 'cache': str(cached_graph_path(_load().signed))}))"
)


def _embed_in_a_new_process(cache: Path, text: str) -> tuple[list[float], Path]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", EMBED_ONE, text], env=env, capture_output=True, text=True, check=True
    )
    out = json.loads(done.stdout)
    return out["vector"], Path(out["cache"])


@pytest.mark.slow
def test_the_integer_graph_is_cached_checked_and_remade(tmp_path: Path) -> None:
    """Real processes: the first makes the graph, caches it and removes an earlier version's
    (not a later one's), the next loads the cached file, a damaged file is made again and an
    unwritable cache costs nothing but the cache."""
    text = "The deploy to staging failed because the migration timed out."
    stale = tmp_path / "cache" / "engram" / "minilm-0123456789abcdef-integer-v1.onnx"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"a graph an earlier version made")
    stale.with_name(stale.name + ".sha256").write_text("0" * 64)
    later = stale.with_name("minilm-0123456789abcdef-integer-v99.onnx")  # another install's
    later.write_bytes(b"a graph a later version made")
    first, path = _embed_in_a_new_process(tmp_path / "cache", text)
    kept = [path.name, path.name + ".sha256", later.name]
    if path.name.endswith("-unsigned.onnx"):  # the signed graph was found inexact here
        kept.append(path.name.replace("-unsigned.onnx", ".onnx.inexact"))  # and removed
    assert sorted(p.name for p in path.parent.iterdir()) == sorted(kept)
    digest = path.with_name(path.name + ".sha256")
    assert path.is_relative_to(tmp_path) and path.stat().st_size > 10_000_000
    assert digest.read_text() == hashlib.sha256(path.read_bytes()).hexdigest()
    made = path.stat().st_mtime_ns
    second, _ = _embed_in_a_new_process(tmp_path / "cache", text)
    assert path.stat().st_mtime_ns == made  # loaded, not made again
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    third, _ = _embed_in_a_new_process(tmp_path / "cache", text)
    assert digest.read_text() == hashlib.sha256(path.read_bytes()).hexdigest()  # made again
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("a file where the cache directory would go")
    fourth, _ = _embed_in_a_new_process(blocked, text)
    assert first == second == third == fourth


@pytest.mark.parametrize("signed", [True, False])
def test_matrix_products_multiply_the_shipped_weights(signed: bool) -> None:
    """The signed graph multiplies the shipped int8 weights, zero point 0; the unsigned one the
    same numbers shifted to uint8, zero point 128 (exact on every CPU: uint8 × int8 saturates on
    x86 CPUs without VNNI, where the vectors drifted to cosine 0.985 of the exact ones)."""
    import onnx
    from onnx import numpy_helper

    from engram.embeddings.integer_graph import integer_graph
    from engram.embeddings.minilm import onnx_path

    shipped = onnx.load(str(onnx_path()))
    rewritten = onnx.load_from_string(integer_graph(shipped.SerializeToString(), signed))
    original = {i.name: numpy_helper.to_array(i) for i in shipped.graph.initializer}
    tensors = {i.name: numpy_helper.to_array(i) for i in rewritten.graph.initializer}
    products = [n for n in rewritten.graph.node if n.op_type == "MatMulInteger"]
    assert len(products) >= 36  # 6 layers × (q, k, v, output, two feed-forward)
    for node in products:
        weights, zero_point = tensors[node.input[1]], tensors[node.input[3]]
        int8 = original[node.input[1].removesuffix(".uint8")]
        assert int8.dtype == np.int8
        if signed:
            assert weights.dtype == np.int8 and zero_point.dtype == np.int8 and zero_point == 0
            assert np.array_equal(weights, int8)
        else:
            assert weights.dtype == np.uint8 and zero_point.dtype == np.uint8
            assert zero_point == 128
            assert np.array_equal(weights.astype(np.int16) - 128, int8.astype(np.int16))


@pytest.fixture(scope="module")
def exact_session() -> Any:
    """A session on the unsigned graph: uint8 × uint8, exact on every CPU."""
    from engram.embeddings import minilm

    return minilm._session(minilm._integer_model(signed=False))


def _vectors(session: Any, texts: Sequence[str]) -> NDArray[np.float32]:
    from engram.embeddings import minilm

    tokenizer = _load().tokenizer
    return np.stack([minilm._embed(session, tokenizer.encode(t).ids) for t in texts])


def test_the_shipped_probe_vectors_are_the_exact_kernels(exact_session: Any) -> None:
    """data/minilm-probes.npy was written as `np.save(path, _vectors(exact_session, PROBES))`:
    what a session must give to be taken as exact."""
    from engram.embeddings.minilm import PROBE_AGREEMENT, PROBES, probe_vectors

    shipped = probe_vectors()
    assert shipped.shape == (len(PROBES), DIMENSIONS) and shipped.dtype == np.float32
    agreement = (shipped * _vectors(exact_session, PROBES)).sum(axis=1)
    assert agreement.min() >= PROBE_AGREEMENT, agreement


def test_the_kernels_in_use_give_the_exact_vectors(exact_session: Any) -> None:
    """Whichever graph this CPU runs (signed where its products are exact, twice as fast), a
    text's vector is the one uint8 × uint8 kernels give: a store shared between machines
    compares vectors made on both."""
    ours = MiniLMEmbedder().embed_batch(SENTENCES)
    exact = _vectors(exact_session, SENTENCES)
    assert (ours * exact).sum(axis=1).min() >= 0.9999


def test_kernels_that_miss_the_probes_are_replaced_by_the_exact_ones(
    exact_session: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CPU whose uint8 × int8 products saturate (x86 without VNNI) may not be this machine:
    probe vectors the signed session cannot give stand in for it. The session chosen then is
    the unsigned one, and gives the exact vectors. The miss is remembered in the cache, so the
    test runs on a cache of its own: in the shared one it told every later process on a VNNI
    machine to run the slower graph (and this test's own last check then failed there)."""
    from engram.embeddings import minilm

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    tokenizer = _load().tokenizer
    missed = minilm.probe_vectors()[::-1].copy()  # each probe against another's vector
    session, signed = minilm._exact_session(tokenizer, missed)
    assert signed is False
    exact = _vectors(exact_session, SENTENCES)
    assert (_vectors(session, SENTENCES) * exact).sum(axis=1).min() >= 0.99999
    minilm._inexact_verdict_path().unlink()  # a cache that has not seen the miss
    session, signed = minilm._exact_session(tokenizer, minilm.probe_vectors())
    assert signed is (_load().signed)


def test_an_earlier_graph_in_use_is_left_for_next_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On Windows a file another process has open cannot be removed. That cannot happen on
    this Linux machine (and root may remove anything), so `unlink` is made to fail the way it
    would there: the clean-up skips the file instead of failing the model's load."""
    from engram.embeddings import minilm

    current = tmp_path / f"minilm-0123456789abcdef-integer-v{minilm.GRAPH_VERSION}.onnx"
    in_use = tmp_path / "minilm-0123456789abcdef-integer-v0.onnx"
    unused = in_use.with_name(in_use.name + ".sha256")
    for path in (current, in_use, unused):
        path.write_text("x")
    unlink = Path.unlink

    def refuse_in_use(self: Path, missing_ok: bool = False) -> None:
        if self == in_use:
            raise PermissionError(13, "The process cannot access the file", str(self))
        unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", refuse_in_use)
    minilm._remove_earlier_graphs(current)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([current.name, in_use.name])


UNREADABLE = ["ร้านอาหารอร่อยมาก", "🚗💨", "🎉🎂", "ምግብ ቤት", "我喜欢吃饭和看电影"]


def test_text_the_vocabulary_cannot_read_is_similar_to_nothing(embedder: MiniLMEmbedder) -> None:
    """Thai, Amharic, emoji and most Chinese characters are all [UNK] to this model: every
    such text got the same vector (cosine 1.0 between a Thai restaurant note and two emoji),
    so they matched each other by meaning and were merged as copies."""
    vectors = embedder.embed_batch([*UNREADABLE, "hello world"])
    similarity = vectors @ vectors.T
    off_diagonal = similarity[~np.eye(len(vectors), dtype=bool)]
    assert float(np.abs(off_diagonal).max()) < 0.25
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    again = embedder.embed_batch([UNREADABLE[0]])[0]
    assert float(again @ vectors[0]) == pytest.approx(1.0, abs=1e-6)  # the same text, the same
    # A few unknown pieces among known words still go through the model.
    party = embedder.embed_batch(["Kate's birthday party 🎉", "Kate's birthday party"])
    assert float(party[0] @ party[1]) > 0.8


def test_the_unknown_token_is_the_vocabularys() -> None:
    from engram.embeddings.minilm import UNK_ID

    assert _load().tokenizer.token_to_id("[UNK]") == UNK_ID


def test_a_query_gets_the_vector_its_text_gets_or_none_if_unreadable(
    embedder: MiniLMEmbedder,
) -> None:
    """Queries are embedded on their own path (tokenized once); it must agree with the batch
    path memories take, or a memory would not match its own text."""
    batch = embedder.embed_batch(SENTENCES)
    for text, vector in zip(SENTENCES, batch, strict=True):
        query = embedder.embed_query(text)
        assert query is not None and float(query @ vector) == pytest.approx(1.0, abs=1e-6)
    assert all(embedder.embed_query(text) is None for text in UNREADABLE)


def test_a_query_of_words_the_model_cuts_into_many_pieces_knows_no_word(
    embedder: MiniLMEmbedder,
) -> None:
    """Gibberish is cut into many word pieces, and its vector matched odd memories above the
    floor of both sides (a probe: "xyzzy nonexistent" found a "🎉🎉 Release party"). A query
    holding one word of more than a letter that the model takes whole or in two pieces is
    known; rare real words are cut too ("allergies"), so they still get a vector, which
    search holds to a higher bar."""
    for text in (
        "qwertyuiop",
        "xyzzy nonexistent",
        "x",
        "Kubernetes",
        "allergies",
        "TODO",
        "line2",
    ):
        assert not embedder.knows_a_word(text), text
        assert embedder.embed_query(text) is not None, text
    for text in ("which database did we pick", "Priya", "qwertyuiop dog", "AI", "allergy", "2024"):
        assert embedder.knows_a_word(text), text


def test_a_script_the_vocabulary_spells_letter_by_letter_is_unreadable(
    embedder: MiniLMEmbedder,
) -> None:
    """The vocabulary knows Cyrillic, Greek and Hangul letters but not the words: a Russian
    sentence is a row of single letters, and unrelated ones were 0.5-0.7 alike (English: about
    0.2), so a question in Russian found every Russian memory (audit). Latin letters with
    accents are read as the model reads them."""
    spelled = [
        "Какая завтра погода?",
        "Кошка заболела, нужно к ветеринару",
        "Τι καιρό θα κάνει αύριο;",
        "회의는 내일 오후 3시입니다",
    ]
    assert all(embedder.embed_query(text) is None for text in spelled)
    vectors = embedder.embed_batch(spelled)
    assert float(np.abs(vectors[0] @ vectors[1])) < 0.2  # digests: alike to nothing
    for latin in ("Café crème à Paris", "Ich habe einen Hund", "Zoë and Chloë in Łódź"):
        assert embedder.embed_query(latin) is not None, latin


def test_a_graph_write_a_killed_process_left_is_removed_when_the_graph_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed while writing the graph to the cache, a process left a temporary file of up to
    23 MB that no later start removed (audit). One as young as another process's write is
    kept."""
    from engram.embeddings import minilm

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    graph = minilm.cached_graph_path(signed=True)
    graph.parent.mkdir(parents=True)
    stale = graph.with_name(f".{graph.name}.0123abcd.tmp")
    young = graph.with_name(f".{graph.name}.sha256.4567ef01.tmp")
    for leftover in (stale, young):
        leftover.write_bytes(b"x" * 1000)
    two_hours_ago = stale.stat().st_mtime - 7_200
    os.utime(stale, (two_hours_ago, two_hours_ago))
    assert minilm._integer_model(signed=True) != str(graph)  # made now, not loaded
    assert graph.exists() and not stale.exists() and young.exists()


def _graphs(minilm: Any) -> tuple[bool, bool]:
    """Whether the signed and the unsigned graph are in the cache."""
    return minilm.cached_graph_path(signed=True).exists(), minilm.cached_graph_path(
        signed=False
    ).exists()


@pytest.mark.slow
def test_a_cpu_found_inexact_once_loads_only_the_exact_graph_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without VNNI every process made a session on the signed graph, probed it, found it
    inexact and loaded the unsigned one (150-250 ms of each start), and both graphs stayed in
    the cache (44 MB). The first probe that disagrees is remembered for this machine, and the
    signed graph removed; a verdict made on another machine is not trusted. Run on any CPU: the
    disagreement is forced by expecting other vectors."""
    from engram.embeddings import minilm

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    tokenizer = minilm.make_tokenizer()
    verdict = minilm._inexact_verdict_path()

    _, signed = minilm._exact_session(tokenizer, -minilm.probe_vectors())  # disagrees
    assert not signed
    assert verdict.read_text() == minilm._machine_key()
    assert _graphs(minilm) == (False, True)

    _, signed = minilm._exact_session(tokenizer, minilm.probe_vectors())
    assert not signed and _graphs(minilm) == (False, True)  # not made again, not probed

    verdict.write_text("another machine's")
    _, signed = minilm._exact_session(tokenizer, minilm.probe_vectors())  # probed again
    if signed:  # exact on this CPU: the signed graph runs, the other machine's verdict stays
        assert _graphs(minilm)[0] and verdict.read_text() == "another machine's"
    else:
        assert verdict.read_text() == minilm._machine_key() and not _graphs(minilm)[0]


def test_a_signed_graph_removed_by_another_process_while_loading_falls_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes starting at once on such a CPU: one removes the signed graph (and leaves
    its verdict) just after the other checked its digest. The other then runs the exact graph;
    without a verdict in the cache, a graph that cannot be loaded is still an error."""
    from engram.embeddings import minilm

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    made = minilm._integer_model
    removed = tmp_path / "removed.onnx"
    verdict = minilm._inexact_verdict_path()
    other_process_done = [False]

    def checked_then_removed(signed: bool) -> str | bytes:
        if not signed:
            return made(signed)
        if other_process_done[0]:
            verdict.parent.mkdir(parents=True, exist_ok=True)
            verdict.write_text(minilm._machine_key())
        return str(removed)

    monkeypatch.setattr(minilm, "_integer_model", checked_then_removed)
    tokenizer = minilm.make_tokenizer()
    with pytest.raises(Exception, match=re.escape(removed.name)):
        minilm._exact_session(tokenizer, minilm.probe_vectors())
    other_process_done[0] = True
    _, signed = minilm._exact_session(tokenizer, minilm.probe_vectors())
    assert not signed
