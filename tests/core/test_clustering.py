"""Clustering and merge rules: pure functions, no store."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from engram.core.clustering import (
    action_for,
    build_clusters,
    cluster_id,
    cohesion,
    linked_groups,
)
from engram.core.merge import (
    MARK,
    edit_stamp,
    merge,
    merged_content,
    merged_strength,
    said_by_one,
    statement_key,
    undo_refusal,
    version,
)
from engram.core.models import MAX_STRENGTH, Memory, Status
from engram.core.text import statements

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_single_linkage_joins_chains_and_ignores_weak_pairs() -> None:
    pairs = [("a", "b", 0.9), ("b", "c", 0.85), ("c", "d", 0.5), ("e", "f", 0.95), ("x", "x", 1.0)]
    assert linked_groups(pairs, 0.83) == [["a", "b", "c"], ["e", "f"]]
    assert linked_groups(pairs, 0.99) == []


def test_memories_kept_apart_are_never_joined_even_through_a_third() -> None:
    """A third memory alike to two that a person kept apart joins the one it is closer to;
    without the mark the chain joins all three."""
    pairs = [("a", "b", 0.86), ("a", "c", 0.95), ("b", "c", 0.88), ("d", "e", 0.9)]
    assert linked_groups(pairs, 0.83) == [["a", "b", "c"], ["d", "e"]]
    apart = {frozenset(("a", "b"))}
    assert linked_groups(pairs, 0.83, apart) == [["a", "c"], ["d", "e"]]
    # the order pairs come in does not decide: the stronger pair joins first
    assert linked_groups(list(reversed(pairs)), 0.83, apart) == [["a", "c"], ["d", "e"]]
    # every pair kept apart: no cluster at all
    every = {frozenset(p[:2]) for p in pairs}
    assert linked_groups(pairs, 0.83, every) == []


def test_cohesion_is_the_mean_over_every_pair() -> None:
    v = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]], dtype=np.float32)
    assert cohesion(v) == pytest.approx((0.6 + 0.0 + 0.8) / 3)
    assert cohesion(v[:1]) == 1.0


def test_copies_of_one_memory_do_not_carry_another_into_a_merge() -> None:
    """Four copies of A and one B 0.86 alike: the mean (0.93) is in the merge band, but A and
    B are two facts. The weakest pair decides whether the rules merge."""
    a = np.array([1.0, 0.0], dtype=np.float32)
    b = np.array([0.86, np.sqrt(1 - 0.86**2)], dtype=np.float32)
    vectors = {f"a{i}": a for i in range(4)} | {"b": b}
    pairs = [(f"a{i}", "b", 0.86) for i in range(4)] + [("a0", f"a{i}", 1.0) for i in (1, 2, 3)]
    (cluster,) = build_clusters(pairs, vectors, link_at=0.83, merge_at=0.9, review_at=0.75)
    assert cluster.cohesion >= 0.9 and cluster.action == "review"
    only_copies = {k: v for k, v in vectors.items() if k != "b"}
    (copies,) = build_clusters(pairs[4:], only_copies, 0.83, 0.9, 0.75)
    assert copies.action == "merge"


def test_actions_follow_the_seeds_bands() -> None:
    assert [action_for(c, 0.9, 0.75) for c in (0.95, 0.9, 0.8, 0.75, 0.7)] == [
        "merge",
        "merge",
        "review",
        "review",
        "keep",
    ]


def test_cluster_ids_are_stable_and_change_with_members_or_their_text() -> None:
    assert cluster_id(["b", "a"]) == cluster_id(["a", "b"])
    assert cluster_id(["a", "b"]) != cluster_id(["a", "c"])
    assert cluster_id(["a", "b"], {"a": "v1"}) != cluster_id(["a", "b"], {"a": "v2"})


def test_build_clusters_orders_by_cohesion_and_skips_members_without_vectors() -> None:
    e = np.eye(4, dtype=np.float32)
    vectors = {"a": e[0], "b": e[0], "c": (e[0] + e[1]) / np.sqrt(2), "d": e[2], "x": e[3]}
    vectors["y"] = (0.99 * e[3] + np.sqrt(1 - 0.99**2) * e[1]).astype(np.float32)
    pairs = [("a", "b", 1.0), ("a", "c", 0.85), ("d", "ghost", 0.99), ("x", "y", 0.99)]
    tight, loose = build_clusters(pairs, vectors, 0.83, 0.9, 0.75)
    # x and y: cosine 0.99; a, b, c: pairs at 1, 0.71 and 0.71.
    assert (tight.members, tight.action) == (("x", "y"), "merge")
    assert (loose.members, loose.action) == (("a", "b", "c"), "review")
    assert tight.cohesion == pytest.approx(0.99, abs=1e-6)
    assert loose.cohesion == pytest.approx((1 + 2 / np.sqrt(2)) / 3, abs=1e-6)


def memory(ident: str, content: str, **fields: object) -> Memory:
    base: dict[str, object] = {"created_at": T0, "last_used": T0}
    return Memory(id=ident, content=content, **(base | fields))  # type: ignore[arg-type]


def test_near_exact_statements_are_kept_once_and_distinct_ones_all() -> None:
    assert statement_key("Prefers tea, over coffee!") == statement_key("prefers tea over coffee")
    merged = merged_content(["Likes tea. Lives in Porto.", "likes tea!\nLives in porto"])
    assert merged.splitlines() == ["Likes tea. Lives in Porto."]  # every statement a repeat
    # One that adds anything is kept whole: a repeated line may hang on one that is new.
    lists = ["Alice's allergies:\n- peanuts\n- shellfish", "Alice's son's allergies:\n- peanuts"]
    assert merged_content(lists).splitlines() == [*lists[0].splitlines(), *lists[1].splitlines()]
    asked = ["Notifications on weekdays? No", "Notifications on weekends? No"]
    assert merged_content(asked).splitlines() == asked
    # A later one said whole within an earlier one, in its order, is left out ...
    assert merged_content(["Likes tea. Lives in Porto. Cycles.", "Lives in porto! cycles"]) == (
        "Likes tea. Lives in Porto. Cycles."
    )


def test_a_contraction_is_the_words_it_stands_for() -> None:
    """A probe: "I'm allergic to peanuts" merged with "I am allergic to peanuts" kept both,
    one line under the other."""
    assert merged_content(["I'm allergic to peanuts", "I am allergic to peanuts"]) == (
        "I'm allergic to peanuts"
    )
    assert statement_key("I don't eat meat") == statement_key("I do not eat meat")
    assert statement_key("We can't come") == statement_key("We cannot come")
    # "'s" and "'d" stand for more than one word: kept as written
    assert statement_key("She's left") != statement_key("She has left")
    # typed without the apostrophe, as chat types them; not where that is another word
    assert statement_key("Im allergic to peanuts!!") == statement_key("I am allergic to peanuts")
    assert statement_key("I dont eat meat") == statement_key("I do not eat meat")
    assert statement_key("I wont go") != statement_key("I will not go")  # a habit, "wont"
    assert statement_key("Send me an IM") == "send me an im"  # in capitals, an abbreviation


def test_repeated_statements_in_another_order_are_another_fact() -> None:
    """Every line of the newer plan stood somewhere in the older one, so an automatic merge
    left the newer plan out: "Tuesday: pasta" was lost (audit)."""
    plans = ["Meal plan:\nMonday:\n- pasta\nTuesday:\n- salad", "Meal plan:\nTuesday:\n- pasta"]
    assert merged_content(plans).splitlines() == [*plans[0].splitlines(), *plans[1].splitlines()]


def test_statements_with_other_numbers_are_different_facts() -> None:
    """Only letters and digits were compared: "1.5" and "15", "-5" and "5" had one key, so an
    automatic merge kept one of two different facts."""
    facts = ["The API timeout is 1.5 seconds.", "The API timeout is 15 seconds."]
    assert merged_content(facts).splitlines() == facts
    for a, b in [("Alarm at -5 C", "Alarm at 5 C"), ("at 10:30", "at 1030"), ("3/4 cup", "34 cup")]:
        assert statement_key(a) != statement_key(b)
    # What does not make a number still does not count: case, spacing, a full stop after one.
    assert statement_key("Alarm at -5 C.") == statement_key("alarm at  -5 c")
    assert statement_key("Room 5. Then lunch") == statement_key("room 5 then lunch")
    assert statement_key("well-known") == statement_key("well known")
    # Only a point, comma, colon or slash joins two digits into one number: spacing does not.
    assert statement_key("Gate code is 12 34") == statement_key("gate code is 12  34")
    assert statement_key("pages 12-34") == statement_key("pages 12 34")
    # ... nor does anything join two numbers into one: "1-2 tablets" was a repeat of "12"
    for a, b in [("Take 1-2 tablets", "Take 12 tablets"), ("Gate 12 34", "Gate 1234")]:
        assert statement_key(a) != statement_key(b)


def test_signs_and_symbols_that_change_a_fact_are_compared() -> None:
    """Only letters and digits (and number marks) were compared: "A+" and "A-", "$500" and
    "€500", "load > 5" and "load < 5" had one key, so a save of the second was merged into the
    first and the fact was gone."""
    different = [
        ("Dana's blood type is A+", "Dana's blood type is A-"),
        ("Meeting at UTC+1", "Meeting at UTC-1"),
        ("Budget is $500", "Budget is €500"),
        ("Alert when load > 5", "Alert when load < 5"),
        ("She codes in C++", "She codes in C#"),
        ("Grade: A-", "Grade: A"),
        ("Discount of 5%", "Discount of 5"),
        ("The VAT rate is 10 %", "The VAT rate is 10"),  # the French spacing
        ("The formula is x^2", "The formula is x2"),
        ("UTC-1", "UTC 1"),
        # names in addresses and code: a point or underscore between letters is part of them
        ("Dana's email is dana.kim@example.com", "Dana's email is dana_kim@example.com"),
        ("The config is prod_db.yaml", "The config is prod-db.yaml"),
    ]
    for a, b in different:
        assert statement_key(a) != statement_key(b), (a, b)
        assert merged_content([a, b]).splitlines() == [a, b]
    # Punctuation still does not count, nor a hyphen inside a word or between two numbers,
    # nor where a percent sign stands.
    assert statement_key("Budget is $500!") == statement_key("budget is $500")
    assert statement_key("Discount is 5 %.") == statement_key("discount is 5%")
    assert statement_key("an e-mail, a well-known one") == statement_key(
        "an e-mail a well-known one"
    )


def test_a_merge_keeps_statements_differing_by_an_operator_or_a_compatibility_form() -> None:
    """ "x != 0" and "x = 0" had one key ("!" read as punctuation), and "10³" was folded into
    "103": a merge kept one of the two facts (probe)."""
    for pair in (
        ["The retry check is x != 0", "The retry check is x = 0"],
        ["The rate limit is 10³ requests per hour", "The rate limit is 103 requests per hour"],
        ["Clean with rm -rf ./build", "Clean with rm -rf /build"],
    ):
        assert merged_content(pair).splitlines() == pair
    # Canonical forms are still one: "é" as one code point or as "e" and a combining accent.
    assert statement_key("Caf\u00e9 at noon") == statement_key("Cafe\u0301 at noon")


def test_a_point_after_an_abbreviation_or_initial_ends_no_statement() -> None:
    """ "Dr. Lee" was two statements, "Dr." and "Lee": merged after "Dana's dentist is Dr.
    Lee", "Sam's dentist is Dr. Lee" lost "Lee" (a statement the first had made)."""
    pairs = [
        ["Dana's dentist is Dr. Lee", "Sam's dentist is Dr. Lee"],
        ["Standup is at 9 a.m. in room 4", "Retro is at 3 p.m. in room 4"],
        ["Ask J. Smith about the lease", "Ask K. Smith about the lease"],
    ]
    for originals in pairs:
        assert merged_content(originals).splitlines() == originals
    assert statements("Dr. Lee moved. He is nice! I said no. Then left.") == [
        "Dr. Lee moved.",
        "He is nice!",
        "I said no.",
        "Then left.",
    ]


def test_an_original_without_repeats_is_kept_as_written() -> None:
    """Every original was cut into stripped statements: code lost its indentation and a line
    repeated within one original (two functions ending alike) was dropped."""
    code = "Retry helper:\ndef retry(f):\n    for i in range(3):\n        f()\n    return None\n"
    code += "def once(f):\n    f()\n    return None"
    merged = merged_content([code, "Retry helper is in utils.py", "retry helper:\nIt is tested."])
    assert merged.splitlines() == [
        *code.splitlines(),
        "Retry helper is in utils.py",
        "retry helper:",
        "It is tested.",
    ]


def test_statements_without_letters_or_digits_are_kept_too() -> None:
    """An emoji or a line of symbols has no letters to compare: it was dropped, and two
    emoji-only memories merged into nothing (then refused as blank)."""
    merged = merged_content(["Deploy on Friday 🚀", "🚀", "Great!!! 🎉", "🎉"])
    assert merged.splitlines() == ["Deploy on Friday 🚀", "🚀", "Great!!! 🎉"]
    assert merged_content(["👍", "👍 ", "🎉"]).splitlines() == ["👍", "🎉"]


def test_merge_rules() -> None:
    old = memory(
        "old",
        "Kate likes skiing",
        tags=("Hobby",),
        entities=("Kate",),
        use_count=2,
        strength=1.2,
        created_at=T0 - timedelta(days=3),
        last_used=T0,
        meta={"k": "old"},
        episode="chat-1",
        episode_seq=4,
        review_count=1,
        last_review_at=T0 - timedelta(days=1),
    )
    new = memory(
        "new",
        "kate likes skiing!",
        tags=("hobby", "sport"),
        use_count=3,
        last_used=T0 + timedelta(days=1),
        meta={"k": "new", "j": 1},
        source="chat",
        review_count=1,
        last_review_at=T0,
    )
    m = merge([new, old], cohesion=0.95, new_id="merged-1")
    assert m.content == "Kate likes skiing"
    assert m.tags == ("Hobby", "sport") and m.entities == ("Kate",)
    assert (m.created_at, m.last_used) == (old.created_at, new.last_used)
    assert m.use_count == 5 and m.strength == pytest.approx(1.2 + 0.1 * 0.95)
    assert m.meta == {"k": "old", "j": 1} and m.source == "chat"
    assert (m.episode, m.episode_seq) == ("chat-1", 4)
    # the latest review stays (it was dropped: review_count 2, last_review_at None)
    assert (m.review_count, m.last_review_at) == (2, T0)
    assert merged_strength([2.0, 2.0, 2.0], 1.0) == MAX_STRENGTH
    with pytest.raises(ValueError):
        merge([old], 1.0, "x")


def test_merged_counts_stop_at_the_most_a_count_holds() -> None:
    """Counts used 2^31 - 1 and 1 times summed past the limit: the merge failed validation
    (audit). A use stops there; a merge does too."""
    most = 2**31 - 1
    full = memory("a", "Kate likes skiing", use_count=most, review_count=most)
    full = full.model_copy(update={"cross_domain_count": most})
    one = memory("b", "kate likes skiing!", use_count=1, review_count=1)
    one = one.model_copy(update={"cross_domain_count": 1})
    m = merge([full, one], cohesion=0.95, new_id="merged-1")
    assert (m.use_count, m.review_count, m.cross_domain_count) == (most, most, most)


def test_an_older_merges_mark_is_read_as_it_was_written() -> None:
    """Merges made before the undo stamped every editable field carry the content version
    alone: a source set since does not make their undo ask for force (it did not then), an
    edited text does. A newer mark refuses both."""
    merged = memory("merged-1", "Kate likes skiing", status=Status.ACTIVE)
    older = {"state": "applied", "version": version(merged), "uses": 0}
    newer = {**older, "edits": edit_stamp(merged)}
    sourced = merged.model_copy(update={"source": "corrected", "meta": {MARK: older}})
    reworded = merged.model_copy(update={"content": "Kate loves skiing"})
    assert undo_refusal(sourced, older, [], force=False) is None
    assert "edited" in (undo_refusal(reworded, older, [], force=False) or "")
    assert "edited" in (undo_refusal(sourced, newer, [], force=False) or "")
    assert undo_refusal(merged.model_copy(update={"meta": {MARK: newer}}), newer, [], False) is None


def test_an_original_another_says_whole_in_its_clauses_is_left_out() -> None:
    """ "Project Atlas uses PostgreSQL 16" then "… 16 (decided in the kickoff)" merged into
    both lines, and "9:30am" / "9:30AM" into the same sentence twice (a probe): the later
    text says the earlier whole, as clauses of its own. A word that goes on the clause ("Bob"
    in "Bob's sister") is no clause of it."""
    atlas = ["Project Atlas uses PostgreSQL 16", "Project Atlas uses PostgreSQL 16 (decided then)"]
    assert merged_content(atlas) == atlas[1]
    assert merged_content(["Anna lives in Berlin, Germany", "Anna lives in Berlin"]) == (
        "Anna lives in Berlin, Germany"
    )
    assert merged_content(["Standup is at 9:30am", "Standup is at 9:30AM."]) == (
        "Standup is at 9:30am"
    )
    bob = ["Sam likes Bob", "Sam likes Bob's sister"]
    assert merged_content(bob).splitlines() == bob
    assert said_by_one(atlas) and not said_by_one(bob)
    # a number's marks are no clause ends: "1,000" is not "1" and "000"
    assert merged_content(["Budget 1", "Budget 1,000 USD"]).splitlines() == [
        "Budget 1",
        "Budget 1,000 USD",
    ]


def test_a_loosely_chained_group_is_split_into_the_clusters_it_holds() -> None:
    """Linked at 0.6, a 0.87-alike pair of one fact was chained through memories 0.64 alike
    into one group of cohesion well below the review band, kept apart: looking wider lost the
    only good proposal (an MCP probe). The chain is split at a stricter link."""
    angles = {"a": 0, "b": 30, "c": 80, "d": 130, "e": 180}
    vectors = {
        k: np.array([np.cos(np.radians(t)), np.sin(np.radians(t))], dtype=np.float32)
        for k, t in angles.items()
    }
    order = list(angles)
    pairs = [(x, y, float(vectors[x] @ vectors[y])) for x, y in itertools.pairwise(order)]
    assert linked_groups(pairs, 0.6) == [order]  # one chain at the wide link
    (found,) = build_clusters(pairs, vectors, 0.6, 0.9, 0.75)
    assert (found.members, found.action) == (("a", "b"), "review")
    assert round(found.cohesion, 3) == 0.866
