"""The irregular forms a query's word is searched in, and how they are grouped."""

from __future__ import annotations

from engram.core.text import STOPWORDS, query_terms
from engram.core.word_forms import form_groups, with_word_forms, word_units


def test_a_word_brings_its_irregular_forms_after_the_query_words() -> None:
    terms = with_word_forms(["kate", "buy", "children"])
    assert terms == ["kate", "buy", "children", "bought", "child"]


def test_any_form_brings_the_others_once() -> None:
    assert with_word_forms(["wrote", "write"]) == ["wrote", "write", "written"]


def test_forms_that_name_something_else_are_not_added() -> None:
    """'left' is a direction, 'saw' a tool, 'sat' a Saturday: 'leave', 'see' and 'sit'
    bring none of them; light verbs that phrase questions ('tell me', 'keep in mind') none."""
    assert with_word_forms(["leave", "see", "sit", "found", "ring"]) == [
        "leave",
        "see",
        "sit",
        "found",
        "ring",
    ]
    assert with_word_forms(["tell", "keep", "go", "know"]) == ["tell", "keep", "go", "know"]


def test_stopword_forms_are_left_out() -> None:
    assert with_word_forms(query_terms("what did I eat"), STOPWORDS) == ["eat", "eaten"]
    assert with_word_forms(["drive"], frozenset({"drove"})) == ["drive", "driven"]


def test_forms_are_grouped_by_position_and_every_term_is_in_one_unit() -> None:
    terms = ["kate", "swim", "beach", "buy", "swam", "swum", "bought"]
    assert form_groups(terms) == [[1, 4, 5], [3, 6]]
    assert word_units(terms) == [[0], [1, 4, 5], [2], [3, 6]]
    assert word_units(["tea", "coffee"]) == [[0], [1]]


def test_no_form_is_indexed_as_a_function_word() -> None:
    """The index stems the forms as it stems every word: "ate" is indexed as "at", and searched
    for "eat" it found every memory saying "at"."""
    from engram.core.index_terms import index_term
    from engram.core.word_forms import _FAMILIES

    function_words = {index_term(w) for w in STOPWORDS}
    for family in _FAMILIES:
        for form in family:
            assert index_term(form) not in function_words, form
            assert len(index_term(form)) >= 3, form


def test_forms_the_index_reads_as_other_words_are_not_added() -> None:
    """The index splits "won't" into "won" and "t": "did I win anything?" listed "Landlord won't
    fix the heating"; "fed", "lent" and "drew" are the Fed, Lent and Drew."""
    assert with_word_forms(["win", "feed", "lend", "draw", "mouse"]) == [
        "win",
        "feed",
        "lend",
        "draw",
        "mouse",
        "drawn",
    ]


def test_a_word_naming_a_kind_of_tool_brings_its_names_counted_as_that_word() -> None:
    """ "which database did we pick?" shared no word with "Project Atlas uses PostgreSQL 16",
    and the model puts them at cosine 0.17 (a probe)."""
    terms = with_word_forms(query_terms("which databases did we pick"), STOPWORDS)
    assert terms[:4] == ["databases", "pick", "postgresql", "postgres"]
    assert "sql server" in terms  # a name of two words, searched as a phrase
    assert form_groups(terms) == [[0, *range(2, len(terms))]]
    two_words = with_word_forms(query_terms("which operating system do we use"), STOPWORDS)
    assert {"linux", "fedora", "macos"} <= set(two_words)
    assert form_groups(two_words)[0][0] == 1  # "system", the kind's last word


def test_a_name_does_not_bring_the_others_of_its_kind() -> None:
    """Only the kind asks for its members: a query naming PostgreSQL is not about MySQL. Names
    that are everyday words too are not listed ("go", "windows", "swift")."""
    assert with_word_forms(["postgresql"]) == ["postgresql", "postgres"]  # one name, two ways
    assert "mysql" not in with_word_forms(["postgres"])
    assert not {"go", "windows", "swift", "cursor"} & set(with_word_forms(["language", "os"]))
    assert with_word_forms(["programming", "language"])[2:4] == ["python", "rust"]


def test_a_short_name_people_type_is_searched_with_the_full_one() -> None:
    """A coding assistant's probe: "what Postgres version are we on?" shared no word with
    "Upgraded PostgreSQL from 15 to 16", "env vars" none with "environment variables"."""
    assert with_word_forms(["postgres", "version"]) == ["postgres", "version", "postgresql"]
    assert with_word_forms(["env", "vars"]) == ["env", "vars", "environment", "variables"]
    assert form_groups(["env", "vars", "environment", "variables"]) == [[0, 2], [1, 3]]


def test_a_spouse_or_a_boss_is_searched_by_what_people_call_them() -> None:
    """ "What does my wife do?" shared no word with "my partner Sam is a vet nurse" (a held-out
    probe); "partner" asks for no wife (a business has partners too)."""
    assert with_word_forms(["wife", "job"]) == ["wife", "job", "partner", "spouse"]
    assert with_word_forms(["boss"]) == ["boss", "manager"]
    assert with_word_forms(["partner"]) == ["partner"]
    assert form_groups(["wife", "job", "partner", "spouse"]) == [[0, 2, 3]]


def test_a_deadline_is_what_is_due() -> None:
    """A blind probe: "what deadlines do I have?" found nothing beside "my conference abstract
    for ISMB is due January 10" (cosine 0.12, no word shared)."""
    terms = with_word_forms(query_terms("what deadlines do I have"), STOPWORDS)
    assert "due" in terms
    assert "deadline" not in with_word_forms(query_terms("when is it due"), STOPWORDS)


def test_a_day_typed_short_is_searched_as_the_whole_day() -> None:
    """ "is italian tues or weds now?" shared no word with "Italian class is on Tuesdays"; "sat"
    and "sun" are words of their own and stay as typed."""
    assert with_word_forms(["tues", "weds"]) == [
        "tues",
        "weds",
        "tuesday",
        "tue",
        "wednesday",
        "wed",
    ]
    assert with_word_forms(["sat", "sun", "mon"]) == ["sat", "sun", "mon"]


def test_a_food_is_asked_for_by_what_an_allergy_calls_it_too() -> None:
    """A fifteenth blind probe: "Can I eat the shrimp paella…?" found nothing of "He gets
    hives from shellfish"; a query about shellfish looks for no crab."""
    assert with_word_forms(["shrimp", "paella"]) == ["shrimp", "paella", "shellfish"]
    assert with_word_forms(["cheese"]) == ["cheese", "dairy", "lactose"]
    assert with_word_forms(["shellfish"]) == ["shellfish"]
    assert form_groups(["shrimp", "paella", "shellfish"]) == [[0, 2]]
