"""Query words counted as SQLite's full-text index holds them: the stems are checked against
a real FTS5 table with Engram's tokenizer (its vocabulary), not against a list written here."""

from __future__ import annotations

import sqlite3

from engram.core.index_terms import PhraseCounter, index_term, index_terms

WORDS = (
    "running runs ran happily happiness generalization relational caresses ponies ties cats "
    "agreed plastered motoring sing conflated troubling sized hopping falling hissing fizzed "
    "happy sky is as us go a Café naïve Ørsted Zürich2025 GPUs e-mail v2 HTTP/2 "
    "supercalifragilisticexpialidocioussupercalifragilisticexpialidocious1234"
)


def fts5_terms(text: str) -> list[str]:
    """The terms FTS5 ('porter unicode61 remove_diacritics 2') makes of `text`, in order."""
    con = sqlite3.connect(":memory:")
    con.execute(
        "CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    con.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    con.execute("INSERT INTO t VALUES (?)", (text,))
    return [row[0] for row in con.execute("SELECT term FROM v ORDER BY offset")]


def test_index_terms_are_the_terms_fts5_makes() -> None:
    assert index_terms(WORDS) == fts5_terms(WORDS)
    assert index_term("Running") == "run" and index_term("Café") == "cafe"


def test_a_query_words_repeats_are_counted_as_the_index_sees_them() -> None:
    counter = PhraseCounter(["run", "café", "kate's", "zeppelin"])
    text = "Kate's runners ran; Kate's RUNNING club ran at the cafe. Kate runs."
    # run: runners? no (runner), RUNNING and runs yes; café = cafe; "kate's" = the phrase
    # "kate s" twice; zeppelin never.
    expected = [fts5_terms(text).count("run"), 1, 2, 0]
    assert counter.counts(text) == expected == [2, 1, 2, 0]
    assert counter.counts("") == [0, 0, 0, 0]
