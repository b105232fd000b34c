"""The storage contract, written against the protocol only: it runs on every backend."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from engram.config import Settings
from engram.core.models import AuditEntry, Memory, Relation, Schedule, Status
from engram.core.scoring import Policy, ScheduleArrays, memory_schedule, schedule_arrays
from engram.core.text import query_terms
from engram.core.timeutil import DAY, to_epoch
from engram.errors import NotFoundError, StoreError
from engram.storage.factory import open_store
from engram.storage.jsonl import JSONLStore
from engram.storage.postgres import PostgresStore
from engram.storage.protocol import Capability, Filter, MemoryText, ScheduleInputs, Store
from engram.storage.sqlite import SQLiteStore

T0 = datetime(2026, 3, 1, tzinfo=UTC)
NOW = to_epoch(T0)
POLICY = Policy()


def mem(
    ident: str,
    content: str = "note",
    *,
    tags: tuple[str, ...] = (),
    idle_days: float = 0,
    use_count: int = 0,
    status: Status = Status.ACTIVE,
    **extra: object,
) -> Memory:
    when = T0 - timedelta(days=idle_days)
    fields: dict[str, object] = {"created_at": when, "last_used": when, **extra}
    return Memory(
        id=ident, content=content, tags=tags, use_count=use_count, status=status, **fields
    )  # type: ignore[arg-type]


def put(store: Store, *memories: Memory) -> None:
    store.insert([(m, memory_schedule(POLICY, m)) for m in memories])


def test_capabilities_are_named_by_the_protocol(store: Store) -> None:
    assert store.capabilities and all(isinstance(c, Capability) for c in store.capabilities)
    assert Capability.VECTORS in store.capabilities  # every backend stores vectors


def test_insert_then_get_round_trips_every_field(store: Store) -> None:
    m = Memory(
        id="full",
        content="Ünïcode ✓ content",
        tags=("a", "B"),
        entities=("Alice",),
        source="chat",
        context="ctx",
        meta={"k": [1, 2], "n": None},
        created_at=T0,
        last_used=T0 + timedelta(hours=1),
        use_count=3,
        strength=1.7,
        status=Status.PROMOTED,
        promoted_at=T0 + timedelta(days=1),
        promoted_to="Engram/full.md",
        review_priority=0.25,
        last_review_at=T0 + timedelta(hours=2),
        review_count=4,
        cross_domain_count=2,
        episode="chat-7",
        episode_seq=3,
        cues=("Owen", "driving"),
    )
    put(store, m)
    assert store.get_many(["full"]) == [m]


def test_get_many_keeps_the_requested_order_and_skips_missing(store: Store) -> None:
    put(store, mem("a"), mem("b"), mem("c"))
    assert [m.id for m in store.get_many(["c", "zzz", "a"])] == ["c", "a"]


def test_texts_are_the_content_and_episode_of_those_that_exist(store: Store) -> None:
    put(store, mem("a", "User: I adopted a cat", episode="chat-1"), mem("b", "a note"))
    assert store.texts(["b", "zzz", "a"]) == {
        "a": MemoryText("User: I adopted a cat", "chat-1"),
        "b": MemoryText("a note", None),
    }
    assert store.texts([]) == {}


def test_ids_with_a_prefix_are_found_in_order_and_bounded(store: Store) -> None:
    put(store, mem("ab12"), mem("ab34"), mem("ac56"), mem("Ab78"), mem("ab%_"))
    assert store.ids_with_prefix("ab", 10) == ["ab%_", "ab12", "ab34"]
    assert store.ids_with_prefix("ab3", 10) == ["ab34"]
    assert store.ids_with_prefix("ab", 2) == ["ab%_", "ab12"]
    assert store.ids_with_prefix("ab%", 10) == ["ab%_"]  # no pattern characters
    assert store.ids_with_prefix("zz", 10) == []


def test_insert_is_all_or_nothing(store: Store) -> None:
    put(store, mem("dup"))
    # Each backend's own error (sqlite3.IntegrityError, psycopg's UniqueViolation) is wrapped
    # in Engram's: a caller handles one type whatever the store.
    with pytest.raises(StoreError):
        put(store, mem("new"), mem("dup"))
    assert store.get_many(["new"]) == []


def test_modify_writes_the_change_and_returns_old_and_new(store: Store) -> None:
    put(store, mem("a"))

    def change(m: Memory) -> tuple[Memory, Schedule]:
        new = m.model_copy(update={"use_count": m.use_count + 1, "content": "edited"})
        return new, memory_schedule(POLICY, new)

    ((old, new),) = store.modify(["a"], change)
    assert old.use_count == 0 and new.use_count == 1
    assert store.get_many(["a"])[0].content == "edited"
    assert [h.id for h in store.text_search(["edited"], Filter(), 10)] == ["a"]
    assert store.text_search(["note"], Filter(), 10) == []


def test_modify_can_change_every_field(store: Store) -> None:
    put(store, mem("a"))
    changed = {
        "content": "rewritten",
        "tags": ("fresh", "Tag"),
        "entities": ("Bob",),
        "source": "import",
        "context": "later",
        "meta": {"k": {"nested": [1, "two"]}},
        "last_used": T0 + timedelta(days=3),
        "use_count": 9,
        "strength": 1.9,
        "status": Status.PROMOTED,
        "promoted_at": T0 + timedelta(days=3),
        "promoted_to": "Engram/a.md",
        "review_priority": 0.5,
        "last_review_at": T0 + timedelta(days=2),
        "review_count": 2,
        "cross_domain_count": 1,
        "episode": "chat-9",
        "episode_seq": 4,
    }

    def change(m: Memory) -> tuple[Memory, Schedule]:
        new = m.model_copy(update=changed)
        return new, memory_schedule(POLICY, new)

    ((_, new),) = store.modify(["a"], change)
    assert store.get_many(["a"]) == [new]
    assert {k: getattr(new, k) for k in changed} == changed
    promoted = Filter(statuses=(Status.PROMOTED,))
    assert [h.id for h in store.text_search(["fresh"], promoted, 10)] == ["a"]  # tags reindexed
    assert [h.id for h in store.text_search(["bob"], promoted, 10)] == ["a"]  # entities too


def test_modify_can_decline(store: Store) -> None:
    put(store, mem("a"))
    assert store.modify(["a"], lambda m: None) == []


def test_modify_of_a_missing_id_changes_nothing(store: Store) -> None:
    put(store, mem("a"))

    def bump(m: Memory) -> tuple[Memory, Schedule]:
        new = m.model_copy(update={"use_count": 9})
        return new, memory_schedule(POLICY, new)

    with pytest.raises(NotFoundError):
        store.modify(["a", "missing"], bump)
    assert store.get_many(["a"])[0].use_count == 0


def test_modify_of_an_id_named_twice_sees_its_own_change(store: Store) -> None:
    put(store, mem("a"), mem("b"))

    def bump(m: Memory) -> tuple[Memory, Schedule]:
        new = m.model_copy(update={"use_count": m.use_count + 1})
        return new, memory_schedule(POLICY, new)

    pairs = store.modify(["a", "b", "a"], bump)
    assert [(old.id, old.use_count, new.use_count) for old, new in pairs] == [
        ("a", 0, 1),
        ("b", 0, 1),
        ("a", 1, 2),
    ]
    assert {m.id: m.use_count for m in store.get_many(["a", "b"])} == {"a": 2, "b": 1}


def test_a_change_may_not_alter_the_id(store: Store) -> None:
    put(store, mem("a"))

    def rename(m: Memory) -> tuple[Memory, Schedule]:
        new = m.model_copy(update={"id": "z", "use_count": 5})
        return new, memory_schedule(POLICY, new)

    with pytest.raises(StoreError, match="id"):
        store.modify(["a"], rename)
    assert [(m.id, m.use_count) for m in store.get_many(["a", "z"])] == [("a", 0)]


def test_modify_is_atomic_across_threads(store: Store) -> None:
    put(store, mem("a"))

    def bump(m: Memory) -> tuple[Memory, Schedule]:
        new = m.model_copy(update={"use_count": m.use_count + 1})
        return new, memory_schedule(POLICY, new)

    workers = [
        threading.Thread(target=lambda: [store.modify(["a"], bump) for _ in range(50)])
        for _ in range(4)
    ]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert store.get_many(["a"])[0].use_count == 200


def test_delete_removes_memories_and_their_relations(store: Store) -> None:
    put(store, mem("a"), mem("b"), mem("c"))
    for target in ("b", "c"):
        store.add_relation(
            Relation(id=f"r-{target}", from_id="a", to_id=target, type="related", created_at=T0)
        )
    assert store.delete(["b", "nope"]) == ["b"]
    assert [r.id for r in store.relations(["a", "b", "c"])] == ["r-c"]
    assert store.count_relations() == 1
    assert store.text_search(["note"], Filter(), 10) != []
    assert {h.id for h in store.text_search(["note"], Filter(), 10)} == {"a", "c"}


def test_guarded_delete_spares_memories_no_longer_due(store: Store) -> None:
    put(store, mem("due", idle_days=400), mem("fresh"))
    assert store.delete(["due", "fresh"], due_before=NOW) == ["due"]
    assert [m.id for m in store.get_many(["due", "fresh"])] == ["fresh"]


def test_count_by_status(store: Store) -> None:
    put(store, mem("a"), mem("b", status=Status.ARCHIVED), mem("c", status=Status.PROMOTED))
    assert store.count() == {Status.ACTIVE: 1, Status.ARCHIVED: 1, Status.PROMOTED: 1}


def test_text_search_matches_content_tags_and_entities(store: Store) -> None:
    put(
        store,
        mem("content", "The deploy uses Kubernetes"),
        mem("tag", "something else", tags=("kubernetes",)),
        mem("entity", "other", entities=("Kubernetes",)),
        mem("none", "unrelated words"),
    )
    found = {m.id for m in store.text_search(["kubernetes"], Filter(), 10)}
    assert found == {"content", "tag", "entity"}


def test_entities_the_text_mentions_do_not_count_twice(store: Store) -> None:
    """A name found in the text (enrichment) was indexed again as an entity: the row was
    longer and the name weighed more, so a saved memory ranked differently from the same text
    without entities. Entities the text does not contain are still found."""
    text = "Kate rode the Lisbon trams with friends"
    put(
        store,
        mem("enriched", text, entities=("Kate", "lisbon")),
        mem("plain", text),
        mem("beyond", "a day out", entities=("Porto",)),
        mem("other", "Dana stayed home with Kate today and talked about nothing much at all"),
    )
    for term in ("kate", "lisbon", "trams"):
        found = {m.id: m.relevance for m in store.text_search([term], Filter(), 10)}
        assert found["enriched"] == pytest.approx(found["plain"], rel=1e-9), term
    assert [m.id for m in store.text_search(["porto"], Filter(), 10)] == ["beyond"]
    # contained as a word, not as part of one: "Rust" is not mentioned in "trust"
    put(store, mem("inside", "We always trust the compiler, good output", entities=("Rust", "Go")))
    for term in ("rust", "go"):
        assert [m.id for m in store.text_search([term], Filter(), 10)] == ["inside"], term
    store.modify(["plain"], lambda m: (m.model_copy(update={"entities": ("Kate",)}), Schedule()))
    found = {m.id: m.relevance for m in store.text_search(["kate"], Filter(), 10)}
    assert found["enriched"] == pytest.approx(found["plain"], rel=1e-9)


def test_text_search_stems_and_ignores_case_and_accents(store: Store) -> None:
    put(store, mem("a", "Running the CAFÉ deployments"))
    for term in ("run", "cafe", "deployment"):
        assert [m.id for m in store.text_search([term], Filter(), 10)] == ["a"], term


def test_a_word_holding_a_digit_is_folded_and_stemmed_like_any_other(store: Store) -> None:
    """PostgreSQL left words with a digit ("Zürich2025") unfolded: "zurich2025" found
    nothing there and the memory on SQLite."""
    put(store, mem("a", "Meeting in Zürich2025 was fun"), mem("b", "My café2 account changed"))
    for term, ident in {"zurich2025": "a", "ZÜRICH2025": "a", "cafe2": "b"}.items():
        assert [m.id for m in store.text_search(query_terms(term), Filter(), 10)] == [ident], term


def test_a_word_is_found_by_its_own_spelling_in_any_script(store: Store) -> None:
    """Query words were case-folded, which the index never does: "Straße" became "strasse",
    a word no memory holds, so German words with ß were not found as written."""
    put(
        store,
        mem("de", "Lena wohnt in der Hauptstraße, die Maße sind groß"),
        mem("tr", "Trip to İstanbul in May"),
    )
    for query, ident in {
        "Hauptstraße": "de", "MAẞE": "de", "groß": "de", "İstanbul": "tr", "istanbul": "tr",
    }.items():  # fmt: skip
        assert [m.id for m in store.text_search(query_terms(query), Filter(), 10)] == [ident], query


def test_a_greek_word_in_capitals_is_found_however_its_last_sigma_is_written(store: Store) -> None:
    """Greek ends a word in ς, which PostgreSQL's lower case does not make of a capital Σ:
    "ΝΙΚΟΣ ΠΑΠΑΔΟΠΟΥΛΟΣ" was found there by no query, not even typed exactly (a helper's
    probe), while SQLite and JSONL found it."""
    put(store, mem("caps", "ΓΡΑΦΕΙΟΣ ΝΙΚΟΣ ΠΑΠΑΔΟΠΟΥΛΟΣ"), mem("small", "ο δρόμος είναι κλειστός"))
    for query, ident in {
        "ΝΙΚΟΣ": "caps", "νικος": "caps", "ΠΑΠΑΔΟΠΟΥΛΟΣ": "caps", "ΔΡΌΜΟΣ": "small",
        "κλειστός": "small",
    }.items():  # fmt: skip
        assert [m.id for m in store.text_search(query_terms(query), Filter(), 10)] == [ident], query


def test_a_word_inside_chinese_japanese_or_korean_text_is_found(store: Store) -> None:
    """These scripts put no space between words: "東京に住んでいます" was one token, and
    neither "東京" nor "寿司" found it. A run of their characters is searched as its pairs."""
    put(
        store,
        mem("ja", "東京に住んでいます。寿司が好きです。"),
        mem("zh", "我在北京工作", tags=("工作",)),
        mem("ko", "서울에 살아요"),
        mem("kyoto", "京都の秋は美しい"),
    )
    for query, found in {
        "東京": ["ja"], "寿司": ["ja"], "北京": ["zh"], "工作": ["zh"], "서울": ["ko"],
        "京都": ["kyoto"], "大阪": [], "Tokyo 東京": ["ja"],
    }.items():  # fmt: skip
        hits = [m.id for m in store.text_search(query_terms(query), Filter(), 10)]
        assert hits == found, query
    # the pairs of a longer query: the memory sharing more of them first
    ranked = [m.id for m in store.text_search(query_terms("東京の寿司"), Filter(), 10)]
    assert ranked[0] == "ja"


def test_text_search_finds_the_words_inside_urls_names_and_versions(store: Store) -> None:
    """Words are split at every punctuation mark, in the text as in the query (core.text):
    PostgreSQL's parser kept "next.js", URLs, paths, addresses and versions whole, and found
    none of their words, nor the whole string."""
    put(
        store,
        mem("js", "Frontend uses next.js with vue.js widgets"),
        mem("url", "Repo lives at https://github.com/acme/atlas-api"),
        mem("py", "Upgrade the build to python3.12 before friday"),
        mem("mail", "Write to ops-team@example.com about v2.5.1-beta"),
        mem("path", "The script is /usr/local/bin/deploy.sh", tags=("project/atlas",)),
    )
    expected = {
        "next": "js", "vue.js": "js", "github": "url", "acme": "url",
        "https://github.com/acme/atlas-api": "url", "python3.12": "py", "12": "py",
        "example": "mail", "v2.5.1-beta": "mail", "beta": "mail", "deploy.sh": "path",
        "usr": "path", "atlas": "path",
    }  # fmt: skip
    for query, ident in expected.items():
        found = [m.id for m in store.text_search(query_terms(query), Filter(), 10)]
        assert found[:1] == [ident], query  # best first (the words are OR-ed)


def test_a_tag_filter_ignores_case_beyond_ascii(store: Store) -> None:
    """docs/search.md: tags match case-insensitively. SQLite's NOCASE folds ASCII only."""
    put(store, mem("summer", "Vacances à Nîmes", tags=("ÉTÉ",)), mem("other", "x", tags=("hiver",)))
    for tag in ("été", "Été", "ÉTÉ"):
        found = store.browse(Filter(tags=(tag,)), 10)
        assert [s.id for s in found] == ["summer"], tag


def test_text_search_ranks_more_matching_terms_higher(store: Store) -> None:
    put(store, mem("one", "python tips"), mem("both", "python packaging tips for wheels"))
    hits = store.text_search(["python", "wheels"], Filter(), 10)
    assert [h.id for h in hits] == ["both", "one"]
    assert hits[0].relevance > hits[1].relevance > 0


def test_text_search_weighs_a_rare_word_above_a_common_one_repeated(store: Store) -> None:
    """BM25's idf on every backend: a name on most memories, said three times in each,
    does not outrank the one memory holding the query's rare word. PostgreSQL's ts_rank_cd
    alone ranked the name first (it has no notion of how common a word is)."""
    turns = [mem(f"kate{i}", f"Kate said hi, Kate waved, Kate left at {i}") for i in range(8)]
    put(store, *turns, mem("answer", "The zeppelin museum was the best part of the trip"))
    hits = store.text_search(["kate", "zeppelin"], Filter(), 10)
    assert hits[0].id == "answer" and len(hits) == 9
    assert hits[0].relevance > hits[1].relevance


def test_the_forms_of_one_word_count_as_one_query_word(store: Store) -> None:
    """The search service adds a word's irregular forms to a query ("buy": "bought",
    `core.word_forms`); every backend counts them as one word, either form matching. Counted as
    two, a memory holding both forms outranked the one holding the query's other word too."""
    put(
        store,
        mem("forms", "buy now, bought then"),
        mem("both", "bought a desk"),
        mem("word", "a desk"),
        *[mem(f"filler{i}", f"filler note {i}") for i in range(6)],
    )
    hits = store.text_search(["buy", "desk", "bought"], Filter(), 10)
    assert [h.id for h in hits][:1] == ["both"]
    assert {h.id for h in hits} == {"forms", "both", "word"}
    relevance = {h.id: h.relevance for h in hits}
    assert relevance["both"] > relevance["forms"] and relevance["both"] > relevance["word"]


def test_text_search_does_not_lower_a_long_memory_for_its_length(store: Store) -> None:
    """BM25 without length normalisation on every backend: a long turn that holds the query's
    words as often as a short one is as relevant (FTS5's own bm25 ranked it lower, and in
    conversations the long turn is often the one that answers, docs/search.md)."""
    story = (
        "We finally went kayaking on the lake last weekend with the whole family, packed a "
        "picnic, got lost twice on the way, and my brother fell in right at the start"
    )
    put(store, mem("short", "kayaking weekend"), mem("long", story))
    hits = store.text_search(["kayaking", "weekend"], Filter(), 10)
    assert {h.id for h in hits} == {"short", "long"}
    assert hits[0].relevance == pytest.approx(hits[1].relevance, rel=1e-6)


# A long turn that holds "kayaking" and "weekend" once each among many other words: FTS5's
# bm25 (b = 0.75) ranks it below short turns holding one of them; BM25 with b = 0 above.
LONG_TURN = (
    "We finally went kayaking on the lake last weekend with the whole family, packed a "
    "picnic, got lost twice on the way there and back, my brother fell in right at the "
    "start, the dog barked at every duck, and we laughed about it all the way home"
)


SHORT_TURNS_AND_A_LONG_ONE = (
    mem("s1", "kayaking trip"),
    mem("s2", "kayaking lesson"),
    mem("s3", "weekend plans"),
    mem("long", LONG_TURN),
)


def test_text_search_returns_a_long_memory_that_only_length_normalisation_ranked_low(
    store: Store,
) -> None:
    """The long turn holding both words ranks first without length normalisation, while
    FTS5's own bm25 put it below three short turns holding one word each: it must not be cut
    by FTS5's order before it is scored again (the best `limit` of FTS5's were re-scored,
    and it was not among them)."""
    put(store, *SHORT_TURNS_AND_A_LONG_ONE)
    hits = store.text_search(["kayaking", "weekend"], Filter(), 2)
    assert [h.id for h in hits][:1] == ["long"] and len(hits) == 2


def test_a_shallow_text_search_scores_again_only_the_best_of_the_index(store: Store) -> None:
    """`shallow` (query expansion's search, whose matches only lend credit) scores again only
    the index's best `limit`: SQLite and JSONL leave out the long turn FTS5 ranked below the
    short ones (the full search finds it, as it re-scores twice as many), and rank what they
    found as the full search does; PostgreSQL has one ranking."""
    put(store, *SHORT_TURNS_AND_A_LONG_ONE, *(mem(f"other{i}", "nothing here") for i in range(6)))
    terms = ["kayaking", "weekend"]
    full = store.text_search(terms, Filter(), 10)
    assert [h.id for h in store.text_search(terms, Filter(), 10, shallow=True)] == [
        h.id for h in full
    ]
    best_two = [h.id for h in store.text_search(terms, Filter(), 2, shallow=True)]
    assert len(best_two) == 2 and all(h.relevance > 0 for h in full)
    if isinstance(store, PostgresStore):
        assert best_two[:1] == ["long"]
    else:
        assert "long" not in best_two
        assert [h.id for h in store.text_search(terms, Filter(), 2)][:1] == ["long"]


def test_a_filtered_text_search_re_scores_as_deep_as_an_unfiltered_one(store: Store) -> None:
    """When the filter leaves fewer than `limit` of FTS5's best, the matches that pass are
    read again from the whole set: those too must be re-scored before they are cut, or the
    long memory is lost the moment a few short ones without the tag rank above it."""
    put(
        store,
        *(mem(f"filler{i}", "nothing to see here", tags=("t",)) for i in range(40)),
        mem("s1", "kayaking trip", tags=("t",)),
        mem("s2", "weekend plans", tags=("t",)),
        mem("long", LONG_TURN, tags=("t",)),
        *(mem(f"u{i}", w) for i, w in enumerate(["kayaking", "weekend"] * 2)),
    )
    hits = store.text_search(["kayaking", "weekend"], Filter(tags=("t",)), 2)
    assert [h.id for h in hits][:1] == ["long"] and len(hits) == 2


def test_equal_memories_rank_in_one_order_among_many_query_words(store: Store) -> None:
    """Memories holding the same words score exactly the same however many words the query
    has (a matrix product summed rows unequally from 8 words on, and reordered ties)."""
    words = ["kayak", "lake", "picnic", "brother", "duck", "family", "weekend", "home"]
    body = "kayak lake lake picnic brother family weekend weekend home"
    twins = [mem(f"t{i:02}", body) for i in range(20)]
    put(store, *(mem(f"o{i}", "nothing to see here") for i in range(43)), *twins)
    hits = store.text_search(words, Filter(), 20)
    assert len({h.relevance for h in hits}) == 1 and len(hits) == 20
    assert [h.id for h in hits] == [t.id for t in twins]  # in the order saved, as FTS5 had them


def test_a_match_whose_words_the_re_count_misses_still_ranks_as_a_match(store: Store) -> None:
    """FTS5's Porter stems "Straße" to "straß" where the re-count's stemmer keeps it whole, so
    the query word "straß" matches but is not counted: such a match counts as holding one
    query word, not left at zero below every other match."""
    put(store, mem("street", "Die Straße war lang"), mem("road", "a road and a path"))
    hits = store.text_search(["straß", "road"], Filter(), 10)
    assert {h.id for h in hits} == {"street", "road"}
    assert all(h.relevance > 0 for h in hits)


def test_text_search_treats_query_syntax_as_plain_words(store: Store) -> None:
    put(store, mem("a", 'quote " and NEAR( star * column:'))
    for term in ['"', "NEAR(", "*", "column:", "AND", "OR"]:
        store.text_search([term], Filter(), 10)  # must not raise
    assert [m.id for m in store.text_search(["near"], Filter(), 10)] == ["a"]


def test_text_search_respects_filters(store: Store) -> None:
    put(
        store,
        mem("old", "shared word", tags=("Work",), idle_days=10),
        mem("new", "shared word", tags=("home",)),
        mem("gone", "shared word", tags=("work",), status=Status.ARCHIVED),
    )
    assert {m.id for m in store.text_search(["shared"], Filter(tags=("work",)), 10)} == {"old"}
    recent = Filter(used_since=NOW - 5 * DAY)
    assert {m.id for m in store.text_search(["shared"], recent, 10)} == {"new"}
    archived = Filter(statuses=(Status.ARCHIVED,))
    assert {m.id for m in store.text_search(["shared"], archived, 10)} == {"gone"}


def test_text_search_finds_the_best_that_pass_a_filter_behind_better_that_do_not(
    store: Store,
) -> None:
    """The best matches (most repeats of the word) are archived or lack the tag: the search
    must still return the best matches that pass, however far down the ranking they are."""
    best = [mem(f"best{i}", "garden " * 10 + f"note {i}", status=Status.ARCHIVED) for i in range(8)]
    rest = [
        mem(f"rest{i}", "garden " * (6 - i) + "note", tags=("home" if i % 2 else "work",))
        for i in range(6)
    ]
    put(store, *best, *rest)
    hits = store.text_search(["garden"], Filter(), 3)
    assert [h.id for h in hits] == ["rest0", "rest1", "rest2"]
    assert hits[0].relevance > hits[1].relevance > hits[2].relevance > 0
    tagged = store.text_search(["garden"], Filter(tags=("home",)), 2)
    assert [h.id for h in tagged] == ["rest1", "rest3"]
    assert [h.id for h in store.text_search(["garden"], Filter(), 10)] == [
        f"rest{i}" for i in range(6)
    ]


def test_stubs_reads_counters_of_the_ids_that_pass_the_filter(store: Store) -> None:
    put(
        store,
        mem("old", tags=("Work",), idle_days=10, use_count=2),
        mem("new", tags=("home",)),
        mem("gone", tags=("work",), status=Status.ARCHIVED),
    )
    everyone = {s.id: s for s in store.stubs(["old", "new", "gone", "missing"], Filter())}
    assert set(everyone) == {"old", "new"}  # archived is filtered out by default, missing absent
    assert (everyone["old"].use_count, everyone["old"].last_used) == (2, NOW - 10 * DAY)
    assert {s.id for s in store.stubs(["old", "new"], Filter(tags=("work",)))} == {"old"}
    recent = Filter(used_since=NOW - 5 * DAY)
    assert {s.id for s in store.stubs(["old", "new"], recent)} == {"new"}
    assert store.stubs([], Filter()) == []


def in_episode(ident: str, episode: str, seq: int) -> Memory:
    return mem(ident, episode=episode, episode_seq=seq)


def test_episode_tails_are_the_last_place_of_each_episode(store: Store) -> None:
    put(store, in_episode("a0", "a", 0), in_episode("a1", "a", 1), in_episode("b5", "b", 5))
    put(store, mem("loose"), in_episode("b5x", "b", 5))  # two processes appended at once
    tails = store.episode_tails(["a", "b", "never"])
    assert tails == {"a": (1, "a1"), "b": (5, "b5x")}  # the greatest id where several share
    assert store.episode_tails([]) == {}


def test_cues_are_searched_as_entities_are_and_follow_an_update(store: Store) -> None:
    """A reply's cues (the words of the question before it, `core.cues`) find it; the text
    of the question itself is not its own."""
    reply = mem("reply", "he passed!! second try", cues=("Owen", "driving", "test"))
    put(store, reply, mem("other", "the bus was late again"))
    assert [s.id for s in store.text_search(["driving"], Filter(), 5)] == ["reply"]
    assert store.text_search(["passed"], Filter(), 5)[0].id == "reply"

    def recued(m: Memory) -> tuple[Memory, Schedule]:
        new = m.model_copy(update={"cues": ("bus",)})
        return new, memory_schedule(POLICY, new)

    store.modify(["reply"], recued)
    assert [s.id for s in store.text_search(["driving"], Filter(), 5)] == []
    assert {s.id for s in store.text_search(["bus"], Filter(), 5)} == {"reply", "other"}


def test_episode_neighbours_are_the_places_within_the_radius(store: Store) -> None:
    put(store, *(in_episode(f"a{i}", "a", i) for i in range(8)))
    put(store, in_episode("b3", "b", 3), mem("loose"))
    store.delete(["a4"])  # a gap: neighbours are by place, so a3's reach does not grow
    pairs = set(store.episode_neighbours(["a3", "b3", "loose", "missing"], 2))
    assert pairs == {("a3", "a1"), ("a3", "a2"), ("a3", "a5")}
    both = set(store.episode_neighbours(["a0", "a7"], 1))
    assert both == {("a0", "a1"), ("a7", "a6")}
    assert store.episode_neighbours(["a3"], 0) == []
    # the largest place a record may hold (a restored one): PostgreSQL's bigint overflowed
    last = 2**63 - 1
    put(store, in_episode("end", "c", last), in_episode("before", "c", last - 1))
    assert set(store.episode_neighbours(["end"], 2)) == {("end", "before")}


def test_the_next_in_an_episode_is_the_place_right_after(store: Store) -> None:
    put(store, *(in_episode(f"a{i}", "a", i) for i in range(5)), mem("loose"))
    put(store, in_episode("b0", "b", 0), in_episode("b1", "b", 1))
    store.delete(["a3"])  # a gap: the memory after it is no one's next
    pairs = set(store.episode_next(["a0", "a2", "a4", "b0", "loose", "missing"]))
    assert pairs == {("a0", "a1"), ("b0", "b1")}
    assert store.episode_next([]) == []
    last = 2**63 - 1  # the largest place a record may hold: one more overflowed
    put(store, in_episode("before", "c", last - 1), in_episode("end", "c", last))
    assert set(store.episode_next(["before", "end"])) == {("before", "end")}


def test_term_counts_count_memories_with_the_index_own_stemming_up_to_the_cap(
    store: Store,
) -> None:
    put(
        store,
        mem("a", "Running the cello rehearsal"),
        mem("b", "She runs every morning", tags=("cello",)),
        mem("c", "Runs and runs and runs"),
        mem("d", "Nothing to see"),
    )
    found = store.term_counts(["running", "cello", "orchestra", 'quote"', "runs"], cap=10)
    assert found.counts == {"running": 3, "cello": 2, "orchestra": 0, 'quote"': 0, "runs": 3}
    assert found.total >= 4
    # capped: a word in every memory costs no more to count than a rare one
    assert store.term_counts(["runs"], cap=2).counts == {"runs": 2}
    assert store.term_counts([], cap=10).counts == {}


def test_term_counts_follow_every_write_of_this_store_and_of_another(store: Store) -> None:
    """SQLite keeps the counts it read while the rows stay the same (a search counts its words
    several times): a save, an edit or a delete, here or by another connection, is counted."""

    def kafka() -> int:
        return store.term_counts(["kafka", "redis"], cap=10).counts["kafka"]

    put(store, mem("a", "Kafka for the event bus"))
    assert kafka() == 1
    put(store, mem("b", "Kafka topics are partitioned"))
    assert kafka() == 2

    def edit(m: Memory) -> tuple[Memory, Schedule]:
        new = m.model_copy(update={"content": "Redis for the cache"})
        return new, memory_schedule(POLICY, new)

    store.modify(["a"], edit)
    assert kafka() == 1
    other = open_store(store.location, Settings())
    try:
        put(other, mem("c", "Kafka consumer lag alerts"), mem("d", "kafka retention is 7 days"))
    finally:
        other.close()
    assert kafka() == 3
    store.delete(["b"])
    assert kafka() == 2
    assert store.term_counts(["kafka"], cap=1).counts == {"kafka": 1}  # within a lower cap
    assert store.term_counts(["kafka"], cap=10).counts == {"kafka": 2}  # then above it again


def test_a_word_with_punctuation_is_searched_as_its_words_in_a_row(store: Store) -> None:
    """SQLite's index splits "app.settings" into two words in a row; PostgreSQL's parser kept
    the query's "app.settings" one token, and found nothing (the text is split, migration
    0009)."""
    put(
        store,
        mem("a", "Renamed module app.settings to app.config"),
        mem("b", "The app stores its settings in YAML"),
    )
    assert [s.id for s in store.text_search(["app.settings"], Filter(), 10)] == ["a"]
    assert store.term_counts(["app.settings"], 10).counts == {"app.settings": 1}


def test_indexed_terms_are_the_words_the_index_holds_that_begin_so(store: Store) -> None:
    """What a misspelled query word may have meant (`engram.services.spelling`)."""
    put(
        store,
        mem("a", "We moved the event bus to Kafka", tags=("kafkaesque",)),
        mem("b", "Kale salad for lunch"),
        mem("c", "Deleted soon: kafuffle"),
    )
    store.delete(["c"])
    assert sorted(store.indexed_terms("kaf", 100)) == ["kafka", "kafkaesqu"]  # stemmed
    assert sorted(store.indexed_terms("ka", 100)) == ["kafka", "kafkaesqu", "kale"]
    assert len(store.indexed_terms("ka", 2)) == 2
    assert store.indexed_terms("zzz", 100) == []
    # Listed again after every change: a word saved or deleted since counts (SQLite keeps the
    # lists while its rows stay the same)
    put(store, mem("d", "Karaoke night"))
    assert sorted(store.indexed_terms("ka", 100)) == ["kafka", "kafkaesqu", "kale", "karaok"]
    store.delete(["b"])
    assert sorted(store.indexed_terms("ka", 100)) == ["kafka", "kafkaesqu", "karaok"]


def test_text_search_honours_limit(store: Store) -> None:
    put(store, *(mem(f"m{i}", "common") for i in range(30)))
    assert len(store.text_search(["common"], Filter(), 7)) == 7


def test_browse_orders_by_durability_and_filters(store: Store) -> None:
    put(
        store,
        mem("stale", idle_days=6),
        mem("fresh"),
        mem("used", use_count=4, idle_days=1),
        mem("archived", status=Status.ARCHIVED),
    )
    ids = [m.id for m in store.browse(Filter(statuses=(Status.ACTIVE,)), 10)]
    assert ids == ["used", "fresh", "stale"]


def test_saved_between_reads_a_span_of_saving_times_latest_first(store: Store) -> None:
    put(
        store,
        mem("before", idle_days=3),
        mem("start", idle_days=2),
        mem("inside", idle_days=1.5, tags=("x",)),
        mem("archived", idle_days=1.5, status=Status.ARCHIVED),
        mem("end", idle_days=1),
    )
    start, end = NOW - 2 * DAY, NOW - DAY  # start inclusive, end exclusive
    live = Filter(statuses=(Status.ACTIVE,))
    assert [s.id for s in store.saved_between(start, end, live, 10)] == ["inside", "start"]
    assert [s.id for s in store.saved_between(start, end, live, 1)] == ["inside"]
    tagged = Filter(statuses=(Status.ACTIVE,), tags=("X",))
    assert [s.id for s in store.saved_between(start, end, tagged, 10)] == ["inside"]
    everything = Filter(statuses=tuple(Status))
    assert {s.id for s in store.saved_between(start, end, everything, 10)} == {
        "inside",
        "start",
        "archived",
    }


def test_due_for_gc_returns_only_memories_past_their_forget_time(store: Store) -> None:
    put(
        store,
        mem("forgotten", idle_days=400),
        mem("fading", idle_days=10),
        mem("fresh"),
        mem("archived-old", idle_days=400, status=Status.ARCHIVED),
    )
    assert store.due_for_gc(NOW, 10) == ["forgotten"]


def test_danger_zone_and_promotion_windows_are_stabbing_queries(store: Store) -> None:
    put(
        store,
        mem("zone", idle_days=9),  # power law: f(9d) ≈ 0.24
        mem("fresh"),
        mem("busy", use_count=6, idle_days=0, created_at=T0 - timedelta(days=2)),
    )
    assert {m.id for m in store.near_review_peak(NOW, 10)} == {"zone", "fresh", "busy"}
    assert {m.id for m in store.near_review_peak(NOW, 2)} == {"zone", "fresh"}
    assert [m.id for m in store.in_danger_zone(NOW, 10)] == ["zone"]
    assert store.schedule_counts(NOW) == (0, 1)
    assert [m.id for m in store.in_promotion_window(NOW, 10)] == ["busy"]


def test_page_walks_the_store_in_save_order(store: Store) -> None:
    put(store, *(mem(f"m{i:02d}") for i in range(25)))
    seen: list[str] = []
    cursor = None
    while True:
        page = store.page(cursor, 10)
        if not page:
            break
        seen += [m.id for m in page]
        cursor = page[-1].id
    assert seen == [f"m{i:02d}" for i in range(25)]


def test_paging_goes_on_when_the_cursor_memory_is_deleted_meanwhile(store: Store) -> None:
    """gc, another client or an undone merge may delete the last memory of a page before the
    next page is asked for: an export, a backup or a client paging the graph goes on."""
    put(store, *(mem(f"m{i:02d}") for i in range(6)))
    first = store.page(None, 2)
    assert [m.id for m in first] == ["m00", "m01"]
    store.delete(["m01"])
    assert [m.id for m in store.page("m01", 2)] == ["m02", "m03"]
    texts = store.page_texts("m03", 10)
    store.delete(["m05"])
    assert [t[0] for t in texts] == ["m04", "m05"] and store.page_texts("m05", 10) == []
    with pytest.raises(NotFoundError):
        store.page("never-a-page-end", 2)  # an id no page ended on is still refused


def test_reschedule_all_rewrites_every_schedule_and_records_the_fingerprint(store: Store) -> None:
    put(store, *(mem(f"m{i}", idle_days=d) for i, d in enumerate((0, 30, 90, 200, 400))))
    assert store.schedule_fingerprint() is None
    slow = Policy(forget_threshold=0.01)

    def compute(cols: ScheduleInputs) -> ScheduleArrays:
        return schedule_arrays(
            slow, cols.use_count, cols.strength, cols.last_used, cols.created_at, cols.active
        )

    # When each memory is forgotten under the slow policy, computed here one by one.
    forget = {
        m.id: float(
            schedule_arrays(
                slow,
                np.array([float(m.use_count)]),
                np.array([m.strength]),
                np.array([to_epoch(m.last_used)]),
                np.array([to_epoch(m.created_at)]),
                np.array([True]),
            ).forget_at[0]
        )
        for m in store.get_many([f"m{i}" for i in range(5)])
    }
    times = sorted(forget.values())
    when = (times[1] + times[2]) / 2  # between the second and third to be forgotten
    before = set(store.due_for_gc(when, 10))  # scheduled by the default policy
    assert store.reschedule_all(compute, "slow") == 5
    assert store.schedule_fingerprint() == "slow"
    due = set(store.due_for_gc(when, 10))
    assert due == {i for i, t in forget.items() if t < when} and len(due) == 2
    assert before != due  # the stored schedules changed


def test_a_memory_kept_for_good_stays_out_of_gc_and_review_after_a_reschedule(
    store: Store,
) -> None:
    """The mark (`meta.keep`, JSON true) is read by each backend's own reschedule: kept out of
    gc when saved, it must stay out when every schedule is recomputed (settings changed), or
    the next gc after a change of decay settings deleted what was to be kept."""
    kept = {"keep": True}
    put(
        store,
        mem("kept", idle_days=400, meta=kept),
        mem("faded", idle_days=400),
        mem("not-true", idle_days=400, meta={"keep": 1}),  # only JSON true keeps
        mem("fading", idle_days=10, meta=kept),  # score 0.22: in the danger zone, but kept
        mem("zone", idle_days=10),
    )
    assert set(store.due_for_gc(NOW, 10)) == {"faded", "not-true"}
    assert [s.id for s in store.in_danger_zone(NOW, 10)] == ["zone"]

    def compute(cols: ScheduleInputs) -> ScheduleArrays:
        return schedule_arrays(
            Policy(forget_threshold=0.2),
            cols.use_count,
            cols.strength,
            cols.last_used,
            cols.created_at,
            cols.active,
            cols.kept,
        )

    assert store.reschedule_all(compute, "stricter") == 5
    assert set(store.due_for_gc(NOW, 10)) == {"faded", "not-true"}
    assert [s.id for s in store.in_danger_zone(NOW, 10)] == ["zone"]


def test_relations_are_idempotent_per_endpoints_and_type(store: Store) -> None:
    put(store, mem("a"), mem("b"))
    first = store.add_relation(
        Relation(
            id="r1",
            from_id="a",
            to_id="b",
            type="causes",
            strength=0.5,
            metadata={"why": "x"},
            created_at=T0,
        )
    )
    again = store.add_relation(
        Relation(id="r2", from_id="a", to_id="b", type="causes", created_at=T0)
    )
    other = store.add_relation(
        Relation(id="r3", from_id="a", to_id="b", type="supports", created_at=T0)
    )
    assert again == first
    assert [r.id for r in store.relations(["b"])] == ["r1", "r3"]
    assert other.type == "supports" and store.count_relations() == 2


def test_a_deleted_relation_is_gone_for_every_client(store: Store) -> None:
    """An edge made by mistake can be removed (no adapter could before): its two memories and
    the other edges stay, a second client on the same store no longer sees it, and the same
    link can be made again."""
    put(store, mem("a"), mem("b"), mem("c"))
    store.add_relation(Relation(id="r1", from_id="a", to_id="b", type="causes", created_at=T0))
    store.add_relation(Relation(id="r2", from_id="b", to_id="c", type="related", created_at=T0))
    removed = store.delete_relation("r1")
    assert removed is not None
    assert (removed.id, removed.from_id, removed.to_id, removed.type) == ("r1", "a", "b", "causes")
    assert store.delete_relation("r1") is None  # once only
    assert store.delete_relation("ghost") is None
    assert [r.id for r in store.relations(["a", "b", "c"])] == ["r2"]
    assert store.count_relations() == 1
    assert store.traverse("a", 3, [], "both", 10) == []
    assert {m.id for m in store.get_many(["a", "b", "c"])} == {"a", "b", "c"}
    other = open_store(store.location, Settings())
    try:
        assert [r.id for r in other.relations(["a", "b"])] == ["r2"]
    finally:
        other.close()
    again = store.add_relation(
        Relation(id="r3", from_id="a", to_id="b", type="causes", created_at=T0)
    )
    assert again.id == "r3" and store.count_relations() == 2


def test_relations_need_both_endpoints(store: Store) -> None:
    put(store, mem("a"))
    with pytest.raises(NotFoundError):
        store.add_relation(
            Relation(id="r", from_id="a", to_id="ghost", type="related", created_at=T0)
        )
    assert store.count_relations() == 0


def test_a_relation_id_already_taken_by_other_ends_is_a_store_error(store: Store) -> None:
    """PostgreSQL raised psycopg's own UniqueViolation, which the import's per-record
    handling (EngramError) does not catch: a CortexGraph import aborted with a traceback."""
    put(store, mem("a"), mem("b"), mem("c"))
    store.add_relation(Relation(id="r1", from_id="a", to_id="b", type="related", created_at=T0))
    with pytest.raises(StoreError):
        store.add_relation(Relation(id="r1", from_id="b", to_id="c", type="related", created_at=T0))
    assert [(r.id, r.from_id, r.to_id) for r in store.relations(["b"])] == [("r1", "a", "b")]
    assert store.count_relations() == 1


def test_a_vector_of_replaced_text_never_attaches_to_the_new_text(store: Store) -> None:
    """The race of a slow embedding against an edit: the vector says which text it describes,
    and is dropped if the memory says something else by the time it arrives."""
    put(store, mem("a", "old words"), mem("b", "kept words"))
    store.modify(["a"], lambda m: (m.model_copy(update={"content": "new words"}), Schedule()))
    vector = np.full(384, 1 / np.sqrt(384), dtype=np.float32)
    stored = store.put_vectors([("a", vector), ("b", vector)], "m", ["old words", "kept words"])
    assert stored == 1
    assert set(store.get_vectors(["a", "b"], "m")) == {"b"}
    assert store.put_vectors([("a", vector)], "m", ["new words"]) == 1
    assert store.put_vectors([("a", vector)], "m") == 1  # no text: stored unconditionally
    assert set(store.get_vectors(["a", "b"], "m")) == {"a", "b"}


def _unit(seed: int, rows: int = 1) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((rows, 384)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _at_cosine(query: np.ndarray, noise: np.ndarray) -> Callable[[float, int], np.ndarray]:
    """`near(cosine, i)`: a unit vector at `cosine` to `query`, off towards noise row i."""

    def near(cosine: float, i: int) -> np.ndarray:
        away = noise[i] - (noise[i] @ query) * query
        return np.float32(cosine) * query + np.float32(np.sqrt(1 - cosine**2)) * (
            away / np.linalg.norm(away)
        )

    return near


def test_a_memory_is_found_by_any_row_of_its_vectors(vector_store: Store) -> None:
    """Row 0 embeds the whole text, the others its passages: a query close to one passage finds
    the memory, once, at that passage's similarity; reading the vectors gives row 0 unless the
    passages are asked for."""
    put(vector_store, mem("a", "first. second. third."), mem("b", "other"))
    rows = _unit(1, rows=3)
    assert vector_store.put_vectors([("a", rows), ("b", _unit(2)[0])], "m") == 2
    found = vector_store.vector_search(rows[2], Filter(), 10)
    assert [s.id for s in found].count("a") == 1
    assert found[0].id == "a" and found[0].relevance == pytest.approx(1.0, abs=1e-4)
    whole = vector_store.get_vectors(["a", "b"], "m")
    assert whole["a"].shape == (384,) and np.allclose(whole["a"], rows[0])
    full = vector_store.get_vectors(["a", "b"], "m", passages=True)
    assert full["a"].shape == (3, 384) and np.allclose(full["a"], rows)
    assert full["b"].shape == (1, 384)


def test_the_rows_a_vector_search_hands_over_are_those_stored(vector_store: Store) -> None:
    """A search judges its neighbours on their rows next: those the vector search read to
    find them (SQLite re-scores from them) are handed over instead of read again, and must be
    what `get_vectors` gives (every row, in order); a backend that did not read them adds
    none."""
    put(vector_store, mem("a", "first. second. third."), mem("b", "other"), mem("c", "third"))
    rows = _unit(11, rows=3)
    vector_store.put_vectors([("a", rows), ("b", _unit(12)[0]), ("c", _unit(13, rows=2))], "m")
    read: dict[str, np.ndarray] = {}
    found = vector_store.vector_search(rows[1], Filter(), 10, read)
    assert {s.id for s in found} == {"a", "b", "c"}
    stored = vector_store.get_vectors(list(read), "m", passages=True)
    assert set(read) <= {"a", "b", "c"}
    for ident, matrix in read.items():
        assert matrix.dtype == np.float32 and np.array_equal(matrix, stored[ident])


def test_the_nearest_memory_is_found_among_thousands_of_near_copies(vector_store: Store) -> None:
    """3,000 vectors in two tight clusters and one apart: the approximate graph never reached
    the one apart from the clusters, although it is by far the nearest to the query (a store
    of templated notes and one odd note: "MariaDB" did not find the only memory naming it)."""
    rng = np.random.default_rng(0)
    centres = rng.standard_normal((2, 384)).astype(np.float32)
    rows = centres[np.arange(3_000) % 2] + 0.05 * rng.standard_normal((3_000, 384)).astype(
        np.float32
    )
    odd = rng.standard_normal(384).astype(np.float32)
    vectors = np.vstack([rows, odd]) / np.linalg.norm(np.vstack([rows, odd]), axis=1)[:, None]
    ids = [f"t{i}" for i in range(3_000)] + ["odd"]
    put(vector_store, *(mem(i) for i in ids))
    vector_store.put_vectors(list(zip(ids, vectors, strict=True)), "m")
    query = vectors[-1] + 0.3 * rng.standard_normal(384).astype(np.float32)
    query /= np.linalg.norm(query)
    assert float(query @ vectors[-1]) > 0.1 > float((vectors[:-1] @ query).max())
    assert vector_store.vector_search(query, Filter(), 10)[0].id == "odd"


def test_one_close_passage_is_not_crowded_out_by_another_memorys_many(
    vector_store: Store,
) -> None:
    """PostgreSQL read twice as many nearest passages as results asked for: one memory's
    fifteen close passages filled them all, and a memory with one close passage (the second
    best of the store) was missed (audit)."""
    query = _unit(7)[0]
    near = _at_cosine(query, _unit(8, rows=40))
    many = np.stack([near(0.3, 0), *(near(0.9, i) for i in range(1, 16))])
    one = np.stack([near(0.1, 16), near(0.8, 17)])
    others = [(f"r{i}", near(0.05, 18 + i)) for i in range(20)]
    put(vector_store, mem("many"), mem("one"), *(mem(i) for i, _ in others))
    vector_store.put_vectors([("many", many), ("one", one), *others], "m")
    found = vector_store.vector_search(query, Filter(), 3)
    assert [s.id for s in found[:2]] == ["many", "one"]
    assert found[1].relevance == pytest.approx(0.8, abs=0.02)


def test_a_filter_that_leaves_few_neighbours_reads_further(vector_store: Store) -> None:
    """The index's neighbours were cut at a fixed count before the filter: a memory tagged
    "home" was not found behind 240 closer ones tagged "work", though alone in a store it was
    (audit). Behind 1,000, the neighbours read at last are more than one statement binds."""
    query = _unit(9)[0]
    near = _at_cosine(query, _unit(10, rows=1_001))
    work = [mem(f"w{i}", tags=("work",)) for i in range(1_000)]
    put(vector_store, *work, mem("home", tags=("home",)))
    pairs = [(m.id, near(0.8, i)) for i, m in enumerate(work)] + [("home", near(0.4, 1_000))]
    vector_store.put_vectors(pairs, "m")
    found = vector_store.vector_search(query, Filter(tags=("home",)), 10)
    assert [s.id for s in found] == ["home"]
    assert found[0].relevance == pytest.approx(0.4, abs=0.02)


def test_new_vectors_replace_every_old_row(vector_store: Store) -> None:
    put(vector_store, mem("a", "first. second. third."))
    rows = _unit(3, rows=3)
    vector_store.put_vectors([("a", rows)], "m")
    vector_store.put_vectors([("a", _unit(4, rows=2))], "m")
    near = vector_store.vector_search(rows[2], Filter(), 5)
    assert near[0].relevance < 0.5  # the old passage is gone
    assert vector_store.get_vectors(["a"], "m", passages=True)["a"].shape == (2, 384)


def test_editing_the_text_retires_the_passages_too(vector_store: Store) -> None:
    put(vector_store, mem("a", "first. second. third."))
    rows = _unit(5, rows=3)
    vector_store.put_vectors([("a", rows)], "m")
    vector_store.modify(["a"], lambda m: (m.model_copy(update={"content": "new"}), Schedule()))
    assert vector_store.vector_search(rows[1], Filter(), 5) == []
    assert vector_store.get_vectors(["a"], "m", passages=True) == {}


def _entry(n: int, plan: str, applied: bool = False) -> AuditEntry:
    return AuditEntry(
        id=f"e{n}",
        plan_id=plan,
        step=n,
        agent="SemanticMerge",
        action="merge",
        memory_ids=("a", "b"),
        detail={"cluster_id": "c1", "versions": {"a": "x1", "b": "y2"}, "cohesion": 0.93},
        why="near-copies",
        applied=applied,
        result="done" if applied else "planned",
        at=T0 + timedelta(seconds=n),
    )


def test_the_audit_trail_keeps_every_entry_newest_first(store: Store) -> None:
    store.audit_append([_entry(1, "p1"), _entry(2, "p1")])
    store.audit_append([_entry(3, "p2", applied=True)])
    assert [e.id for e in store.audit_entries(None, 10)] == ["e3", "e2", "e1"]
    assert [e.id for e in store.audit_entries("p1", 10)] == ["e2", "e1"]
    assert store.audit_entries(None, 1) == [_entry(3, "p2", applied=True)]  # round-trips
    assert store.audit_entries("nothing", 10) == []


def test_an_exclusive_lock_is_held_once(store: Store, request: pytest.FixtureRequest) -> None:
    """A second holder (here another handle on the same store) is refused at once."""
    other = _second_handle(store, request)
    try:
        with store.exclusive("pipeline"):
            with (
                pytest.raises(StoreError, match="pipeline is already running"),
                other.exclusive("pipeline"),
            ):
                pass
            with other.exclusive("another"):
                pass  # locks by name
        with other.exclusive("pipeline"):
            pass  # released
    finally:
        other.close()


def test_a_waited_lock_waits_for_its_holder(store: Store, request: pytest.FixtureRequest) -> None:
    """With `wait`, a second holder blocks until the first lets go (what a save's look for a
    stored copy and its insert run under), instead of being refused."""
    other = _second_handle(store, request)
    order: list[str] = []
    holding = threading.Event()

    def second() -> None:
        holding.wait()
        with other.exclusive("save", wait=True):
            order.append("second")

    waiter = threading.Thread(target=second)
    waiter.start()
    try:
        with store.exclusive("save", wait=True):
            holding.set()
            waiter.join(0.3)  # it is waiting, not refused
            assert waiter.is_alive()
            order.append("first")
        waiter.join(10)
        assert order == ["first", "second"]
    finally:
        waiter.join(10)
        other.close()


def _second_handle(store: Store, request: pytest.FixtureRequest) -> Store:
    if isinstance(store, SQLiteStore):
        return SQLiteStore(store.path)
    if isinstance(store, JSONLStore):
        return JSONLStore(store.path)
    return PostgresStore(request.getfixturevalue("postgres_url"))


def test_page_texts_is_page_reduced_to_text(store: Store) -> None:
    put(store, mem("a", "first"), mem("b", "second"), mem("c", "third"))
    store.modify(["b"], lambda m: (m.model_copy(update={"status": Status.ARCHIVED}), Schedule()))
    full = store.page(None, 10)
    assert store.page_texts(None, 10) == [(m.id, m.status, m.content) for m in full]
    assert store.page_texts(full[0].id, 1) == [(full[1].id, full[1].status, full[1].content)]
    with pytest.raises(NotFoundError):
        store.page_texts("no-such-id", 1)


def test_the_audit_trail_keeps_its_newest_entries(store: Store) -> None:
    """Nothing pruned the trail: a probe's year of weekly pipeline runs left 12,656 entries,
    8 of a store's 11 MB. Past `audit_keep` entries, the oldest go as new ones come."""
    store.audit_keep = 5  # type: ignore[attr-defined]  # every backend has it; 20,000 by default
    for n in range(1, 41):
        store.audit_append([_entry(n, f"p{n % 3}")])
    assert [e.id for e in store.audit_entries(None, 100)] == [f"e{n}" for n in range(40, 35, -1)]
    assert [e.id for e in store.audit_entries("p1", 100)] == ["e40", "e37"]
