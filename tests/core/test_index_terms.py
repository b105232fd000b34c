"""Query words counted as SQLite's full-text index holds them: the stems are checked against
a real FTS5 table with Engram's tokenizer (its vocabulary), not against a list written here."""

from __future__ import annotations

import sqlite3

from engram.core.index_terms import PhraseCounter, index_term, index_terms
from engram.core.text import cjk_spaced

WORDS = (
    "running runs ran happily happiness generalization relational caresses ponies ties cats "
    "agreed plastered motoring sing conflated troubling sized hopping falling hissing fizzed "
    "happy sky is as us go a Café naïve Ørsted Zürich2025 GPUs e-mail v2 HTTP/2 "
    "supercalifragilisticexpialidocioussupercalifragilisticexpialidocious1234 "
    # other scripts keep their accents (FTS5 folds Latin only); a final sigma is a sigma
    "œuvres ørsteds ёлки подарки ΟΔΟΣ οδός がっこう élèves e\u0301cole İstanbul Łódź "
    "ﬁles ＡＢＣ１２３ नमस्ते my_config_file Kate's don't 東京に住む 서울에"
)


def fts5_terms(text: str) -> list[str]:
    """The terms FTS5 ('porter unicode61 remove_diacritics 2') makes of `text`, in order, given
    as the index is given a memory's text (`cjk_spaced`: each CJK character a word)."""
    con = sqlite3.connect(":memory:")
    con.execute(
        "CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    con.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    con.execute("INSERT INTO t VALUES (?)", (cjk_spaced(text),))
    return [row[0] for row in con.execute("SELECT term FROM v ORDER BY offset")]


def test_index_terms_are_the_terms_fts5_makes() -> None:
    assert index_terms(WORDS) == fts5_terms(WORDS)
    assert index_term("Running") == "run" and index_term("Café") == "cafe"


def test_words_whose_stem_changes_their_start_or_that_an_underscore_joins_are_counted() -> None:
    """A prefilter picks the words that could stem to a query term by their first letters:
    "days" is "dai" (a final y made i), and "my_config" holds "config" (FTS5 splits at _)."""
    text = "Every day, day after day; the boys' toys. Edit my_config_file, then config_file."
    counter = PhraseCounter(["day", "boys", "toy", "config", "file"])
    terms = fts5_terms(text)
    assert counter.counts(text) == [terms.count(t) for t in ("dai", "boi", "toi", "config", "file")]
    assert counter.counts(text) == [3, 1, 1, 2, 2]


def test_a_query_words_repeats_are_counted_as_the_index_sees_them() -> None:
    counter = PhraseCounter(["run", "café", "kate's", "zeppelin", "ёлка"])
    text = "Kate's runners ran; Kate's RUNNING club ran at the cafe. Kate runs. Ёлка, елка"
    # run: not runners (runner), RUNNING and runs; café is cafe; "kate's" is the index's
    # phrase "kate s": twice ("Kate runs" is no match); zeppelin never; ёлка not as елка.
    terms = fts5_terms(text)
    pairs = sum(terms[i : i + 2] == ["kate", "s"] for i in range(len(terms)))
    expected = [terms.count("run"), terms.count("cafe"), pairs, 0, 1]
    assert counter.counts(text) == expected == [2, 1, 2, 0, 1]
    assert counter.counts("") == [0, 0, 0, 0, 0]


def test_texts_counted_together_count_as_each_alone() -> None:
    """One pass over several texts (a search's candidates): each text gets its own counts,
    and a phrase never runs from the end of one text into the next."""
    counter = PhraseCounter(["kate's", "days"])
    texts = ["We met Kate", "s days later, Kate's day", "", "nothing here"]
    assert counter.counts_in(texts).tolist() == [counter.counts(t) for t in texts]
    assert counter.counts_in(texts).tolist() == [[0, 0], [1, 2], [0, 0], [0, 0]]


def test_a_word_said_twice_in_the_query_and_a_text_holding_the_separator_count_right() -> None:
    """Texts counted in one pass are joined by NUL: a text holding one must not split in two
    (its words counted for the next text); two query words with one term count alike."""
    counter = PhraseCounter(["run", "runs", "day"])
    texts = ["run\x00day runs", "day", "running\x00"]
    assert counter.counts_in(texts).tolist() == [[2, 2, 1], [0, 0, 1], [1, 1, 0]]
    assert [counter.counts(t) for t in texts] == [[2, 2, 1], [0, 0, 1], [1, 1, 0]]


def test_a_text_that_folding_shortens_does_not_shift_the_texts_after_it() -> None:
    """An accent written as a combining mark makes one letter of two when folded: the texts
    after it are still counted as themselves (phrases were looked up by unfolded lengths)."""
    counter = PhraseCounter(["I'm", "day"])
    texts = ["cafe\u0301 cafe\u0301", "I'm here today, day"]
    assert counter.counts_in(texts).tolist() == [counter.counts(t) for t in texts]
    assert counter.counts_in(texts).tolist() == [[0, 0], [1, 1]]


def test_a_word_is_counted_where_one_starts_and_folded_letters_wherever_they_stand() -> None:
    """A query word counts where a word starts: after punctuation, a separator, a space or the
    start of the text, not inside another word ("platform", "2forms"). Letters outside ASCII
    are folded wherever they stand in the texts counted together, each as the index folds it."""
    texts = [
        "Forms, platform; reform: form-filling FORM 2forms form2 «form» (form)_form",
        "ΟΔΟΣ οδός ёлки Ørsted ørsteds café cafe\u0301 ﬁles files naïve NAÏVE İstanbul",
        "form",
    ]
    words = ["form", "ørsted", "café", "files", "οδός", "ёлки", "naive", "istanbul"]
    counter = PhraseCounter(words)
    for text in texts:
        terms = fts5_terms(text)
        assert counter.counts(text) == [terms.count(index_term(w)) for w in words]
    assert counter.counts_in(texts).tolist() == [
        [6, 0, 0, 0, 0, 0, 0, 0],
        [0, 2, 2, 1, 1, 1, 2, 1],
        [1, 0, 0, 0, 0, 0, 0, 0],
    ]
