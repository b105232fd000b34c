"""Every setting is read from the environment or .env files, fails loudly when bad, and changes
behaviour. Each row of EFFECTS opens a real store twice (default vs changed) and compares one
observable outcome."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from tests.support import START

from engram import ConfigError, Draft, Engram, FixedClock, StoreError, ValidationError
from engram.config import Settings, load_settings
from engram.storage.factory import store_exists
from engram.vault.writer import VaultFiles

Probe = Callable[[Engram, FixedClock], Any]


def aged_score(mem: Engram, clock: FixedClock) -> float:
    return round(mem.score(mem.save("x", created_at=START - timedelta(days=5))), 9)


def touched_score(mem: Engram, clock: FixedClock) -> float:
    m = mem.save("x")
    for _ in range(3):
        mem.touch(m.id)
    clock.advance(days=2)
    return round(mem.score(mem.get(m.id)), 9)


def gc_count(mem: Engram, clock: FixedClock) -> int:
    mem.save("x", created_at=START - timedelta(days=12))
    return mem.gc().count


def promotable(mem: Engram, clock: FixedClock) -> list[str]:
    a, b = mem.save("often used"), mem.save("used twice")
    for _ in range(3):
        mem.touch(a.id)
    mem.touch(b.id)
    mem.touch(b.id)
    clock.advance(days=2)
    return sorted(c.memory.content for c in mem.promotion_candidates())


def promotable_later(mem: Engram, clock: FixedClock) -> list[str]:
    a = mem.save("busy")
    for _ in range(5):
        mem.touch(a.id)
    clock.advance(days=16)
    return [c.reason for c in mem.promotion_candidates()]


def review_ids(mem: Engram, clock: FixedClock) -> int:
    for days in (4, 6, 9, 12, 16):
        mem.save(f"aged {days}", created_at=START - timedelta(days=days))
    return len(mem.review_candidates(limit=100))


def blended(mem: Engram, clock: FixedClock) -> int:
    """A fading memory that matches well, but less well than many fresh ones: without review
    slots it is pushed out of the top ten."""
    mem.save("garden tomatoes need water")
    clock.advance(days=9)
    for i in range(12):
        mem.save(f"garden tomatoes plan {i}")
    return sum(h.reason == "review" for h in mem.search("garden tomatoes", limit=10))


def observed(mem: Engram, clock: FixedClock) -> tuple[int, float, bool]:
    m = mem.save("x", tags=["a", "b", "c"])
    (r,) = mem.observe([m.id], ["a", "x", "y", "z"])  # Jaccard 1/6 ≈ 0.17
    return r.memory.use_count, round(r.memory.strength, 9), r.cross_domain


def boosted(mem: Engram, clock: FixedClock) -> float:
    return round(mem.touch(mem.save("x").id, boost=True).memory.strength, 9)


def order_fresh_vs_exact(mem: Engram, clock: FixedClock) -> list[str]:
    """An old memory saying the query's words twice, a fresh one saying them once: the better
    match first at a small decay weight, the fresher at weight 1."""
    mem.save("alpha beta gamma, alpha beta gamma")
    clock.advance(days=30)
    mem.save("alpha beta gamma delta")
    return [h.memory.content for h in mem.search("alpha beta gamma")]


def pool_depth(mem: Engram, clock: FixedClock) -> bool:
    """Whether the fresh memory, 31st by text relevance but first by decay (weight 1 in both
    runs), is in the pool that gets re-ranked."""
    for i in range(30):
        mem.save(f"zebra stripes {i}", created_at=START - timedelta(days=40))
    fresh = mem.save("zebra stripes are a pattern seen on the plains of africa today")
    return mem.search("zebra stripes", limit=1)[0].memory.id == fresh.id


def field_order(mem: Engram, clock: FixedClock) -> list[str]:
    mem.save("notes about kiwi fruit and kiwi birds")
    mem.save("other", tags=["kiwi"])
    mem.save("more", entities=["kiwi"])
    return [h.memory.content for h in mem.search("kiwi")]


def paraphrase(mem: Engram, clock: FixedClock) -> list[str]:
    """No word in common: only the embedding can find it."""
    mem.save("The flight to Lisbon leaves at 9am")
    mem.save("quarterly tax return is due in April")
    return [h.memory.content for h in mem.search("when does my plane depart")]


def episode_context(mem: Engram, clock: FixedClock) -> list[str]:
    """The turn that names the topic and the turns after it, saved in one episode: the later
    turns share no word with the query, only their place. Which of them get the kayak turn's
    credit (weak matches pass on a little credit of their own, hence the cut-off)?"""
    for text in (
        "Let's plan the kayak trip",
        "Sure, which weekend works?",
        "Maybe the second one in May",
        "Then I will book the cabin by the lake",
    ):
        mem.save(text, episode="chat-1")
    return sorted(h.memory.content for h in mem.search("kayak") if (h.why.context or 0) > 0.1)


def repeated_save(mem: Engram, clock: FixedClock) -> tuple[int, tuple[str, ...], str]:
    """A fact saved twice with other tags: how many memories, which tags, what was done."""
    mem.save("Prefers tea over coffee", tags=["drinks"])
    again = mem.save_result(Draft("prefers tea over coffee!", tags=["morning"]))
    return mem.stats().total, again.memory.tags, again.action


def similar_reported(mem: Engram, clock: FixedClock) -> int:
    mem.save("The flight to Lisbon leaves at 9am on Friday")
    mem.flush()
    return len(mem.save_result(Draft("The flight to Lisbon leaves at 9 am on Friday!")).similar)


def enriched_save(mem: Engram, clock: FixedClock) -> tuple[tuple[str, ...], float]:
    """What a save adds by itself: the names in the text, a strength from its wording."""
    saved = mem.save("Important: Dana Kim moves the Atlas launch to Friday")
    return saved.entities, saved.strength


def vital_gc(mem: Engram, clock: FixedClock) -> list[str]:
    """What gc would forget of a vital fact and of trivia saved alike long ago."""
    for text in ("Allergic to penicillin", "Had pasta for lunch"):
        mem.save(text, created_at=START - timedelta(days=200))
    return sorted(m.content for m in mem.get_many(mem.gc().memory_ids))


def tea_clusters(mem: Engram, clock: FixedClock) -> list[tuple[int, str]]:
    """Two near-copies and a looser paraphrase: how many clusters, of what size, doing what.
    Not copies of the same words: those are merged whatever the settings."""
    for text in (
        "Prefers tea over coffee",
        "Prefers tea over coffee, always",
        "Likes tea more than coffee",
    ):
        mem.save(text)
    return [(len(c.member_ids), c.action) for c in mem.clusters().clusters]


def copy_clusters(mem: Engram, clock: FixedClock) -> list[tuple[int, str]]:
    """A statement and two that each add a word of their own: what the merge band does with
    them (the paraphrase of `tea_clusters` is a review at any threshold: its words differ).
    No one of them says the others whole, which is merged whatever the band, and none repeats
    another's words, which is too."""
    for text in (
        "Prefers tea over coffee",
        "Prefers tea over coffee, always",
        "Always prefers tea over coffee",
    ):
        mem.save(text)
    return [(len(c.member_ids), c.action) for c in mem.clusters().clusters]


def background_embedding(mem: Engram, clock: FixedClock) -> bool:
    """Whether saves hand their vectors to a worker thread (the queue searches wait for)."""
    return mem.app.context.queue is not None


def paraphrases(mem: Engram, clock: FixedClock) -> list[str]:
    for text in (
        "Prefers tea over coffee",
        "Likes tea more than coffee",
        "Would rather drink tea than coffee",
    ):
        mem.save(text)
    mem.save("Green tea from Kyoto is a favourite gift")
    return [h.memory.content for h in mem.search("tea", limit=2)]


def expansion_finds(mem: Engram, clock: FixedClock) -> list[str]:
    """What a question finds through words of its best matches: the orchestra line shares a word
    with the best match only, the Alps line with the second best only, neither with the query."""
    for text in (
        "The dentist appointment is on Monday at nine",
        "The car needs an oil change soon",
        "Watered the plants on the balcony",
        "Kate's hobbies: she plays the cello in a community orchestra",
        "Kate also loves hiking in the Alps",
        "The orchestra rehearsal moved to Thursday evening",
        "The Alps trip is booked for August",
    ):
        mem.save(text)
    return sorted(h.memory.content for h in mem.search("What are Kate's hobbies?"))


def dated_order(mem: Engram, clock: FixedClock) -> list[str]:
    """One memory saved twice: 20 days ago, and (fresher) 10 days ago; the query names the
    older one's day."""
    older = clock.now - timedelta(days=20)
    mem.save_many(
        [
            Draft(content="Bought a brass lamp", created_at=older, tags=["older"]),
            Draft(content="Bought a brass lamp", created_at=clock.now - timedelta(days=10)),
        ]
    )
    return [",".join(h.memory.tags) for h in mem.search(f"what did I buy on {older:%d %b %Y}")]


def present_order(mem: Engram, clock: FixedClock) -> list[str]:
    """A fact and, later, the news that replaced it, among others; the query asks how things
    stand now."""
    from tests.support import NEW_JOB, OLD_JOB, OTHER_FACTS, save_facts

    save_facts(mem, clock, *OTHER_FACTS)
    old, new = save_facts(mem, clock, OLD_JOB, NEW_JOB)
    found = [h.memory.id for h in mem.search("which company does the user work for currently")]
    return ["old" if i == old else "new" for i in found if i in (old, new)]


def chat_order(chat: str, query: str, limit: int = 2) -> Probe:
    """A probe: the contents of the first `limit` hits for `query` in the chat of
    tests/support.py named `chat`, saved as one episode."""

    def probe(mem: Engram, clock: FixedClock) -> list[str]:
        import tests.support

        turns = getattr(tests.support, chat)
        mem.save_many([Draft(content=t, episode="chat") for t in turns])
        mem.flush()
        return [h.memory.content for h in mem.search(query, limit=limit)]

    return probe


# A turn saying when, and one about the same move without a date; the question asks when.
when_order = chat_order("MOVE_CHAT", "When did Siobhan move into her new flat?")
amount_order = chat_order("KIDS_CHAT", "How many kids does Tomas have?")
# A paraphrased question whose best text match holds only a name and "up" of it.
coverage_order = chat_order(
    "SUMMIT_CHAT", "Which Irish summit did Siobhan trek up with her father?", limit=1
)
# A short question sharing more of the query's words than the reply that answers it (a turn
# apart: right after it, the question's words are the reply's cues).
question_order = chat_order("FLAT_CHAT_APART", "How far is Siobhan's new flat from the station?")
# A turn telling only of its listener, sharing more words than the speaker's own.
listener_order = chat_order("MARKET_CHAT", "What will Emi sell at the market?")


def cue_order(mem: Engram, clock: FixedClock) -> list[str]:
    """The reply to a question holds the query's words once each as its cues; another memory
    holds them twice each as its own words."""
    question, reply = "Ines: which ferry goes to the island?", "Marta: the early one from Pier 4"
    mem.save_many([Draft(content=question, episode="chat"), Draft(content=reply, episode="chat")])
    mem.save("Marta: the island ferry, the slow island ferry")
    return [h.memory.content for h in mem.search("ferry island", limit=1)]


# The reply to a question, sharing none of the query's words.
reply_order = chat_order(
    "INTERVIEW_CHAT", "What happened with Lena's interview at the harbour museum?"
)
# A transcript whose other speaker asks what the query asks of the one it names.
speaker_order = chat_order("NEBRAAS_CHAT", "What sports does Nebraas play?", limit=3)


def fused_ranks(mem: Engram, clock: FixedClock) -> list[float]:
    mem.save("my plane to Lisbon departs at 9am")
    mem.save("the flight to Lisbon leaves at 9am from gate 12")
    return [round(h.rank, 6) for h in mem.search("when does the plane depart")]


def deep_neighbours(mem: Engram, clock: FixedClock) -> int:
    """The nearest neighbours by meaning have all faded below the floor; a deeper candidate
    pool reaches a fresh memory further off. (A tag filter no longer shows it: a filtered
    search reads further neighbours until enough pass.)"""
    old = clock.now - timedelta(days=60)
    mem.save_many(
        [
            Draft(content=f"when does my plane number {i} depart", created_at=old, last_used=old)
            for i in range(120)
        ]
    )
    mem.save("Our flight to Lisbon leaves at 9am")
    return len(mem.search("when does my plane depart", limit=1, min_score=0.9))


def embedding_workers(mem: Engram, clock: FixedClock) -> int:
    """How many threads embedded the texts of one batch side by side."""
    embedder = mem.app.context.embedder
    assert embedder is not None
    before = {t.ident for t in threading.enumerate()}
    embedder.embed_batch([f"sentence number {i} about gardens" for i in range(16)])
    return sum(
        t.name.startswith("engram-embed") and t.ident not in before for t in threading.enumerate()
    )


def promoted_note(mem: Engram, clock: FixedClock) -> str:
    """Where a promoted memory's note goes, or that it cannot go anywhere."""
    vault = mem.app.settings.vault_path
    if vault is not None:
        Path(vault).mkdir(parents=True, exist_ok=True)
    memory = mem.save("Atlas runs on PostgreSQL 16")
    try:
        return str(mem.promote(memory.id).items[0].path)
    except ConfigError:
        return "no vault"


def auto_promoted(mem: Engram, clock: FixedClock) -> str:
    Path(str(mem.app.settings.vault_path)).mkdir(parents=True, exist_ok=True)
    busy = mem.save("used all the time")
    for _ in range(5):
        mem.touch(busy.id)
    mem.gc(dry_run=False)
    return mem.get(busy.id).status.value


def location(mem: Engram, clock: FixedClock) -> str:
    return Path(mem.stats().location).name


def log_level(mem: Engram, clock: FixedClock) -> int:
    return logging.getLogger("engram").level


EFFECTS: list[tuple[str, dict[str, Any], dict[str, Any], Probe]] = [
    ("decay_model", {}, {"decay_model": "exponential"}, aged_score),
    ("pl_alpha", {}, {"pl_alpha": 2.0}, aged_score),
    ("pl_halflife_days", {}, {"pl_halflife_days": 7.0}, aged_score),
    (
        "decay_lambda",
        {"decay_model": "exponential"},
        {"decay_model": "exponential", "decay_lambda": 1e-5},
        aged_score,
    ),
    (
        "tc_lambda_fast",
        {"decay_model": "two_component"},
        {"decay_model": "two_component", "tc_lambda_fast": 5e-5},
        aged_score,
    ),
    (
        "tc_lambda_slow",
        {"decay_model": "two_component"},
        {"decay_model": "two_component", "tc_lambda_slow": 5e-6},
        aged_score,
    ),
    (
        "tc_weight_fast",
        {"decay_model": "two_component"},
        {"decay_model": "two_component", "tc_weight_fast": 0.2},
        aged_score,
    ),
    ("decay_beta", {}, {"decay_beta": 1.0}, touched_score),
    ("forget_threshold", {}, {"forget_threshold": 0.2}, gc_count),
    (
        "promote_threshold",
        {"promote_min_age_days": 1},
        {"promote_min_age_days": 1, "promote_threshold": 2.5},
        promotable,
    ),
    ("promote_use_count", {}, {"promote_use_count": 3}, promotable),
    ("promote_time_window", {}, {"promote_time_window": 30}, promotable_later),
    ("promote_min_age_days", {}, {"promote_min_age_days": 1}, promotable),
    ("review_danger_zone_min", {}, {"review_danger_zone_min": 0.05}, review_ids),
    ("review_danger_zone_max", {}, {"review_danger_zone_max": 0.6}, review_ids),
    ("review_blend_ratio", {}, {"review_blend_ratio": 0.0}, blended),
    ("auto_reinforce", {}, {"auto_reinforce": False}, observed),
    ("cross_domain_threshold", {}, {"cross_domain_threshold": 0.1}, observed),
    ("cross_domain_boost", {}, {"cross_domain_boost": 0.5}, observed),
    ("touch_boost", {}, {"touch_boost": 0.4}, boosted),
    (
        # expansion off: the fresh memory's extra word would otherwise lift it whatever decay says
        "search_decay_weight",
        {"search_expansion_weight": 0.0},
        {"search_expansion_weight": 0.0, "search_decay_weight": 1.0},
        order_fresh_vs_exact,
    ),
    (
        "search_candidates",
        {"embedding_model": "none", "search_decay_weight": 1.0},
        {"embedding_model": "none", "search_decay_weight": 1.0, "search_candidates": 10},
        pool_depth,
    ),
    ("embedding_model", {}, {"embedding_model": "none"}, paraphrase),
    ("embedding_threads", {"embedding_threads": 2}, {"embedding_threads": 1}, embedding_workers),
    ("embed_in_background", {}, {"embed_in_background": False}, background_embedding),
    (
        "cluster_link_threshold",
        {"save_duplicates": "keep"},
        {"save_duplicates": "keep", "cluster_link_threshold": 0.95},
        tea_clusters,
    ),
    (
        "cluster_merge_cohesion",
        {"save_duplicates": "keep", "cluster_merge_cohesion": 0.85},
        {"save_duplicates": "keep", "cluster_merge_cohesion": 0.99},
        copy_clusters,
    ),
    ("save_duplicates", {}, {"save_duplicates": "reinforce"}, repeated_save),
    ("enrich_on_save", {}, {"enrich_on_save": False}, enriched_save),
    ("keep_vital", {}, {"keep_vital": False}, vital_gc),
    ("save_similar_threshold", {}, {"save_similar_threshold": 0.0}, similar_reported),
    (
        "cluster_review_cohesion",
        {"save_duplicates": "keep", "cluster_merge_cohesion": 0.99},
        {
            "save_duplicates": "keep",
            "cluster_review_cohesion": 0.95,
            "cluster_merge_cohesion": 0.99,
        },
        tea_clusters,
    ),
    ("search_semantic_weight", {}, {"search_semantic_weight": 0.9}, fused_ranks),
    ("search_semantic_min_z", {}, {"search_semantic_min_z": 15.0}, paraphrase),
    ("search_context_weight", {}, {"search_context_weight": 0.0}, episode_context),
    ("search_context_radius", {}, {"search_context_radius": 1}, episode_context),
    ("search_diversity", {}, {"search_diversity": 1.0}, paraphrases),
    ("search_expansion_weight", {}, {"search_expansion_weight": 0.0}, expansion_finds),
    ("search_expansion_matches", {}, {"search_expansion_matches": 1}, expansion_finds),
    ("search_expansion_terms", {}, {"search_expansion_terms": 1}, expansion_finds),
    ("search_date_weight", {}, {"search_date_weight": 0.0}, dated_order),
    ("search_present_weight", {}, {"search_present_weight": 0.0}, present_order),
    ("search_when_weight", {}, {"search_when_weight": 0.0}, when_order),
    (  # in chats this short, "many" and "far" are words no turn holds: meaning decides both
        # orders, the text's share left to it (`search_text_coverage`)
        "search_amount_weight",
        {"search_text_coverage": 0.0},
        {"search_text_coverage": 0.0, "search_amount_weight": 0.0},
        amount_order,
    ),
    ("search_text_coverage", {}, {"search_text_coverage": 0.0}, coverage_order),
    (  # the reply's credit alone puts the reply first too, and so does its number ("how far")
        "search_question_discount",
        {"search_reply_weight": 0.0, "search_amount_weight": 0.0, "search_text_coverage": 0.0},
        {
            "search_reply_weight": 0.0,
            "search_amount_weight": 0.0,
            "search_text_coverage": 0.0,
            "search_question_discount": 0.0,
        },
        question_order,
    ),
    ("search_reply_weight", {}, {"search_reply_weight": 0.0}, reply_order),
    ("search_listener_discount", {}, {"search_listener_discount": 0.0}, listener_order),
    ("search_other_speakers_share", {}, {"search_other_speakers_share": 1.0}, speaker_order),
    (
        "search_vector_candidates",
        {"search_vector_candidates": 10},
        {"search_vector_candidates": 200},
        deep_neighbours,
    ),
    (
        "fts_weight_content",
        {"embedding_model": "none"},
        {"embedding_model": "none", "fts_weight_content": 20.0},
        field_order,
    ),
    (
        "fts_weight_tags",
        {"embedding_model": "none"},
        {"embedding_model": "none", "fts_weight_tags": 0.05},
        field_order,
    ),
    (
        "fts_weight_entities",
        {"embedding_model": "none"},
        {"embedding_model": "none", "fts_weight_entities": 0.05},
        field_order,
    ),
    (
        "fts_weight_cues",
        {"embedding_model": "none", "search_reply_weight": 0.0, "search_context_weight": 0.0},
        {
            "embedding_model": "none",
            "search_reply_weight": 0.0,
            "search_context_weight": 0.0,
            "fts_weight_cues": 20.0,
        },
        cue_order,
    ),
    (
        "vault_path",
        {"embedding_model": "none"},
        {"embedding_model": "none", "vault_path": "__tmp__/vault"},
        promoted_note,
    ),
    (
        "ltm_folder",
        {"embedding_model": "none", "vault_path": "__tmp__/vault"},
        {"embedding_model": "none", "vault_path": "__tmp__/vault", "ltm_folder": "Memory/Kept"},
        promoted_note,
    ),
    (
        "auto_promote",
        {"embedding_model": "none", "vault_path": "__tmp__/vault"},
        {"embedding_model": "none", "vault_path": "__tmp__/vault", "auto_promote": True},
        auto_promoted,
    ),
    ("storage_path", {}, {"storage_path": "__tmp__/other.db"}, location),
    ("log_level", {}, {"log_level": "DEBUG"}, log_level),
]


def run(tmp_path: Path, name: str, overrides: dict[str, Any], probe: Probe) -> Any:
    opts = {
        k: str(tmp_path / v[8:]) if str(v).startswith("__tmp__/") else v
        for k, v in overrides.items()
    }
    clock = FixedClock(START)
    path = opts.pop("storage_path", None) or str(tmp_path / f"{name}.db")
    with Engram.open(path, clock=clock, **opts) as mem:
        return probe(mem, clock)


@pytest.mark.parametrize(("name", "base", "changed", "probe"), EFFECTS, ids=[e[0] for e in EFFECTS])
def test_setting_changes_behaviour(
    tmp_path: Path, name: str, base: dict[str, Any], changed: dict[str, Any], probe: Probe
) -> None:
    before = run(tmp_path / "a", name, base, probe)
    after = run(tmp_path / "b", name, changed, probe)
    assert before != after, f"{name} had no visible effect ({before!r})"


def test_each_decay_setting_reaches_its_own_field_of_the_policy() -> None:
    """The effect test above sees that a setting changes something; this one, that it changes
    the right thing: two settings swapped in the wiring (the fast and slow rates of the
    two-component model) still changed scores, so the test above passed."""
    values = {
        "pl_alpha": 1.7,
        "pl_halflife_days": 5.5,
        "decay_lambda": 3e-6,
        "tc_lambda_fast": 4e-5,
        "tc_lambda_slow": 2e-6,
        "tc_weight_fast": 0.4,
        "decay_beta": 0.9,
        "forget_threshold": 0.07,
        "promote_threshold": 0.8,
        "promote_use_count": 9,
        "promote_time_window": 21.0,
        "promote_min_age_days": 4.0,
        "review_danger_zone_min": 0.12,
        "review_danger_zone_max": 0.4,
    }
    policy = Settings(**values).policy()
    decay = policy.decay
    assert (decay.pl_alpha, decay.pl_halflife_days, decay.decay_lambda) == (1.7, 5.5, 3e-6)
    assert (decay.tc_lambda_fast, decay.tc_lambda_slow, decay.tc_weight_fast) == (4e-5, 2e-6, 0.4)
    assert (policy.beta, policy.forget_threshold, policy.promote_threshold) == (0.9, 0.07, 0.8)
    assert (policy.promote_use_count, policy.promote_time_window_days) == (9, 21.0)
    assert policy.promote_min_age_days == 4.0
    assert (policy.danger_zone_min, policy.danger_zone_max) == (0.12, 0.4)


def test_every_setting_has_an_effect_test() -> None:
    # these have tests of their own: test_busy_timeout…, test_postgres_pool_size…,
    # tests/services/test_pipeline.py::test_the_rate_limit_setting_paces_a_real_run and
    # tests/adapters/test_mcp_http.py (the token a real HTTP client must send),
    # tests/services/test_vault_live.py::test_the_refresh_setting_spaces_the_rescans,
    # tests/services/test_activation.py::test_a_correction_supersedes_the_fact_and_is_found_first,
    # tests/adapters/test_dashboard.py (a proxy on this machine is answered by the names ...),
    # tests/services/test_context_search.py::test_no_episode_is_given_with_the_gap_at_zero
    own = {
        "episode_gap_minutes",
        "http_allowed_hosts",
        "sqlite_busy_timeout",
        "postgres_pool_size",
        "pipeline_rate_limit",
        "http_token",
        "vault_refresh_seconds",
        "save_supersedes",
    }
    tested = {e[0] for e in EFFECTS} | own
    assert tested == set(Settings.model_fields)


def test_busy_timeout_bounds_the_wait_for_another_writer(tmp_path: Path) -> None:
    path = tmp_path / "busy.db"
    with Engram.open(str(path), sqlite_busy_timeout=0.2) as mem:
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            with pytest.raises(StoreError, match="busy"):
                mem.save("blocked")
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert mem.save("now free").content == "now free"


def test_postgres_pool_size_caps_the_connections_of_one_client(postgres_url: str) -> None:
    # Only sessions begun after this moment are this client's: one an earlier test left to
    # its server (3 seen once, in a run beside a machine-wide out-of-memory kill) is not.
    with psycopg.connect(postgres_url) as admin:
        (since,) = admin.execute("SELECT clock_timestamp()").fetchone() or (None,)
    with Engram.open(postgres_url, postgres_pool_size=2, embedding_model="none") as mem:
        target = mem.save("busy").id
        workers = [
            # a save of the same words again holds a pool connection for its look and write
            threading.Thread(
                target=lambda: [(mem.touch(target), mem.save("busy")) for _ in range(25)]
            )
            for _ in range(6)
        ]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        # A session closed a moment ago (the store's migration connection, an earlier test's)
        # can still be listed while its backend exits: look again until those are gone. The
        # pool's own connections stay open, so more than two would never go away.
        with psycopg.connect(postgres_url) as admin:
            for _ in range(50):
                (connections,) = admin.execute(
                    "SELECT count(*) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                    "AND backend_start >= %s",
                    [since],
                ).fetchone() or (0,)
                if connections <= 2:
                    break
                time.sleep(0.1)
        assert 1 <= connections <= 2
        assert mem.get(target).use_count == 300 and mem.stats().total == 1


def test_environment_variables_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_DECAY_BETA", "0.8")
    monkeypatch.setenv("ENGRAM_DECAY_MODEL", "two_component")
    s = load_settings()
    assert s.decay_beta == 0.8 and s.policy().decay.model == "two_component"


def test_env_files_are_read_with_the_working_directory_winning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "xdg-config" / "engram"
    user.mkdir(parents=True)
    (user / ".env").write_text("ENGRAM_DECAY_BETA=0.7\nENGRAM_FORGET_THRESHOLD=0.07\n")
    (tmp_path / ".env").write_text("ENGRAM_DECAY_BETA=0.9\nUNRELATED=1\n")
    s = load_settings()
    assert (s.decay_beta, s.forget_threshold) == (0.9, 0.07)
    monkeypatch.setenv("ENGRAM_DECAY_BETA", "0.5")
    assert load_settings().decay_beta == 0.5
    assert load_settings(decay_beta=0.4).decay_beta == 0.4


def test_a_bad_setting_from_a_settings_file_names_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ENGRAM_DECAY_BETA=abc` in ./.env said only "invalid setting ENGRAM_DECAY_BETA": the
    user looked in their shell. The environment's own value is named as before."""
    user = tmp_path / "xdg-config" / "engram"
    user.mkdir(parents=True)
    (user / ".env").write_text("ENGRAM_DECAY_BETA=0.7\n")
    (tmp_path / ".env").write_text("ENGRAM_DECAY_BETA=abc\n")
    with pytest.raises(ConfigError) as err:
        load_settings()
    assert f"invalid setting ENGRAM_DECAY_BETA (in {tmp_path / '.env'}): " in str(err.value)
    monkeypatch.setenv("ENGRAM_DECAY_BETA", "xyz")
    with pytest.raises(ConfigError) as err:
        load_settings()
    assert "invalid setting ENGRAM_DECAY_BETA: " in str(err.value)


@pytest.mark.parametrize(
    ("env", "value", "fragment"),
    [
        ("ENGRAM_DECAY_BETA", "abc", "ENGRAM_DECAY_BETA"),
        ("ENGRAM_DECAY_MODEL", "linear", "ENGRAM_DECAY_MODEL"),
        ("ENGRAM_FORGET_THRESHOLD", "0", "ENGRAM_FORGET_THRESHOLD"),
        (
            "ENGRAM_REVIEW_DANGER_ZONE_MIN",
            "0.5",
            "invalid settings: ENGRAM_REVIEW_DANGER_ZONE_MIN must be below "
            "ENGRAM_REVIEW_DANGER_ZONE_MAX",
        ),
        ("ENGRAM_CLUSTER_MERGE_COHESION", "0.5", "ENGRAM_CLUSTER_REVIEW_COHESION must"),
        # a SQLite file named " " in the working directory; a token nobody could send
        ("ENGRAM_STORAGE_PATH", " ", "ENGRAM_STORAGE_PATH: must not be blank"),
        ("ENGRAM_STORAGE_PATH", "a\x01b.db", "ENGRAM_STORAGE_PATH: must not contain"),
        # a relative path, so a new store in each folder a client started the server in
        *(
            (env, path, f"{env}: must not begin or end with a space")
            for env in ("ENGRAM_STORAGE_PATH", "ENGRAM_VAULT_PATH")
            for path in (" /tmp/engram.db", "\u00a0/tmp/engram.db", "/tmp/engram.db ")
        ),
        ("ENGRAM_HTTP_TOKEN", " " * 16, "ENGRAM_HTTP_TOKEN: must be printable ASCII"),
        # A client cannot put it in a header ("ä" * 16 failed in httpx: every request refused).
        ("ENGRAM_HTTP_TOKEN", "ä" * 16, "ENGRAM_HTTP_TOKEN: must be printable ASCII"),
        ("ENGRAM_AUTO_REINFORCE", "maybe", "ENGRAM_AUTO_REINFORCE"),
        # 2 ** (1 / alpha) overflowed below about 0.001: a raw OverflowError at the first score
        ("ENGRAM_PL_ALPHA", "0.0005", "ENGRAM_PL_ALPHA"),
    ],
)
def test_a_bad_value_fails_at_start_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch, env: str, value: str, fragment: str
) -> None:
    monkeypatch.setenv(env, value)
    with pytest.raises(ConfigError, match=fragment):
        Engram.open()


def test_a_store_that_is_no_path_is_refused_naming_the_argument(tmp_path: Path) -> None:
    """Engram.open(["abc"]) created a SQLite file literally named "['abc']"."""
    with pytest.raises(ValidationError, match="path_or_url"):
        Engram.open(["abc"])  # type: ignore[arg-type]
    with Engram.open(tmp_path / "x.db") as mem:  # a Path is fine
        assert mem.stats().total == 0


@pytest.fixture
def notices(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[[], str]:
    """What loading the settings told the user on stderr (each notice is once per process:
    start from none told)."""
    monkeypatch.setattr("engram.config_env._told", set())

    def stderr() -> str:
        captured = capsys.readouterr()
        assert captured.out == ""  # stdout may be an MCP channel
        return captured.err

    return stderr


def test_a_settings_file_that_is_not_utf8_is_left_out_with_a_notice(
    tmp_path: Path, notices: Callable[[], str]
) -> None:
    """A Latin-1 or UTF-16 `.env` (often another tool's, in the working directory) stopped
    every command with a UnicodeDecodeError traceback."""
    user = tmp_path / "xdg-config" / "engram"
    user.mkdir(parents=True)
    (user / ".env").write_text("ENGRAM_DECAY_BETA=0.7\n")
    (tmp_path / ".env").write_bytes(b"ENGRAM_DECAY_BETA=0.5\n# caf\xe9\n")
    assert load_settings().decay_beta == 0.7
    told = notices()
    assert "ignoring the settings file" in told and str(tmp_path / ".env") in told
    assert "not UTF-8" in told
    (user / ".env").write_text("ENGRAM_DECAY_BETA=0.7\n", encoding="utf-16")
    assert load_settings().decay_beta == Settings.model_fields["decay_beta"].default


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_a_setting_that_is_not_a_finite_number_is_named_so(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    """ENGRAM_PL_ALPHA=nan was refused as "less than or equal to 10"."""
    monkeypatch.setenv("ENGRAM_PL_ALPHA", value)
    with pytest.raises(ConfigError, match="ENGRAM_PL_ALPHA: Input should be a finite number"):
        load_settings()


def test_the_seeds_variables_are_read_with_a_notice(
    monkeypatch: pytest.MonkeyPatch, notices: Callable[[], str], tmp_path: Path
) -> None:
    monkeypatch.setenv("CORTEXGRAPH_PL_HALFLIFE_DAYS", "7")
    monkeypatch.setenv("CORTEXGRAPH_FORGET_THRESHOLD", "0.1")
    monkeypatch.setenv("LTM_VAULT_PATH", str(tmp_path / "vault"))
    settings = load_settings()
    assert settings.pl_halflife_days == 7.0 and settings.forget_threshold == 0.1
    assert settings.vault_path == str(tmp_path / "vault")
    told = notices()
    assert "CORTEXGRAPH_PL_HALFLIFE_DAYS is read as ENGRAM_PL_HALFLIFE_DAYS" in told
    assert "LTM_VAULT_PATH is read as ENGRAM_VAULT_PATH" in told
    load_settings()
    assert notices() == ""  # once per process, not at every load


def test_the_seeds_variables_in_a_settings_file_are_read_too(
    monkeypatch: pytest.MonkeyPatch, notices: Callable[[], str], tmp_path: Path
) -> None:
    """The seed reads its settings from a `.env`; there they were ignored without a word."""
    vault = tmp_path / "vault"
    (tmp_path / ".env").write_text(
        f"CORTEXGRAPH_DECAY_BETA=0.9\nCORTEXGRAPH_FORGET_THRESHOLD=0.1\nLTM_VAULT_PATH={vault}\n"
    )
    monkeypatch.setenv("CORTEXGRAPH_FORGET_THRESHOLD", "0.2")  # the environment wins
    settings = load_settings()
    assert (settings.decay_beta, settings.forget_threshold) == (0.9, 0.2)
    assert settings.vault_path == str(vault)
    told = notices()
    assert "CORTEXGRAPH_DECAY_BETA is read as ENGRAM_DECAY_BETA" in told
    assert "LTM_VAULT_PATH is read as ENGRAM_VAULT_PATH" in told


def test_the_seeds_own_settings_file_is_read_below_engrams(
    monkeypatch: pytest.MonkeyPatch, notices: Callable[[], str], tmp_path: Path
) -> None:
    """The seed's "primary" settings file, ~/.config/cortexgraph/.env, was not read: a user
    moving over lost their decay model and thresholds to the defaults without a word (a
    probe). Engram's own files, and the environment, still win."""
    seed = tmp_path / "xdg-config" / "cortexgraph" / ".env"
    seed.parent.mkdir(parents=True)
    seed.write_text(
        "CORTEXGRAPH_DECAY_MODEL=exponential\nCORTEXGRAPH_DECAY_BETA=0.9\n"
        "CORTEXGRAPH_FORGET_THRESHOLD=0.1\n"
    )
    ours = tmp_path / "xdg-config" / "engram" / ".env"
    ours.parent.mkdir(parents=True)
    ours.write_text("ENGRAM_DECAY_BETA=0.7\n")
    monkeypatch.setenv("CORTEXGRAPH_FORGET_THRESHOLD", "0.2")
    settings = load_settings()
    assert (settings.decay_model, settings.decay_beta, settings.forget_threshold) == (
        "exponential",
        0.7,
        0.2,
    )
    assert "CORTEXGRAPH_DECAY_MODEL is read as ENGRAM_DECAY_MODEL" in notices()


def test_a_decay_setting_the_chosen_model_does_not_read_is_named(
    monkeypatch: pytest.MonkeyPatch, notices: Callable[[], str]
) -> None:
    """The seed's cheat sheet tunes λ; read under the default power law it changed nothing,
    after a notice that it "is read"."""
    monkeypatch.setenv("CORTEXGRAPH_DECAY_LAMBDA", "8.02e-6")
    assert load_settings().decay_lambda == 8.02e-6
    told = notices()
    assert "ENGRAM_DECAY_LAMBDA has no effect: the power_law decay model reads" in told
    assert "ENGRAM_PL_ALPHA, ENGRAM_PL_HALFLIFE_DAYS" in told
    monkeypatch.setenv("ENGRAM_DECAY_MODEL", "exponential")
    load_settings()
    assert "no effect" not in notices()


def test_an_engram_variable_wins_over_the_seeds(
    monkeypatch: pytest.MonkeyPatch, notices: Callable[[], str], tmp_path: Path
) -> None:
    monkeypatch.setenv("CORTEXGRAPH_PL_ALPHA", "2.0")
    (tmp_path / ".env").write_text("ENGRAM_PL_ALPHA=1.5\n")
    assert load_settings().pl_alpha == 1.5
    assert "CORTEXGRAPH_PL_ALPHA is not read: ENGRAM_PL_ALPHA is set and wins" in notices()
    assert load_settings(pl_alpha=1.2).pl_alpha == 1.2  # an explicit override beats both


def test_the_seeds_store_path_is_never_opened_as_ours(
    monkeypatch: pytest.MonkeyPatch, notices: Callable[[], str], tmp_path: Path
) -> None:
    """The seed's JSONL directory is another format: opening it as an Engram store could
    damage the seed's data. It is named with the way to import it instead."""
    monkeypatch.setenv("CORTEXGRAPH_STORAGE_PATH", str(tmp_path / "seed-jsonl"))
    assert load_settings().storage_path == str(tmp_path / "engram.db")
    assert "engram import cortexgraph" in notices()


def test_a_misspelled_engram_variable_names_the_closest_setting(
    monkeypatch: pytest.MonkeyPatch, notices: Callable[[], str]
) -> None:
    monkeypatch.setenv("ENGRAM_PL_HALFLIFE_DAY", "7")
    monkeypatch.setenv("CORTEXGRAPH_NO_SUCH_THING", "1")
    assert load_settings().pl_halflife_days == 3.0
    told = notices()
    assert "ENGRAM_PL_HALFLIFE_DAY is not an Engram setting" in told
    assert "did you mean ENGRAM_PL_HALFLIFE_DAYS?" in told
    assert "CORTEXGRAPH_NO_SUCH_THING is not read: Engram has no setting" in told


def test_a_variable_like_no_setting_is_not_told_it_meant_one(
    monkeypatch: pytest.MonkeyPatch, notices: Callable[[], str]
) -> None:
    """Compared with its prefix, every ENGRAM_ name was close to some setting: a probe's
    ENGRAM_BOGUS_SETTING was asked whether it meant ENGRAM_LOG_LEVEL."""
    monkeypatch.setenv("ENGRAM_BOGUS_SETTING", "1")
    load_settings()
    told = notices()
    assert "ENGRAM_BOGUS_SETTING is not an Engram setting and is ignored" in told
    assert "did you mean" not in told


def test_unknown_override_is_refused_with_the_name_it_may_mean() -> None:
    """A probe: `Engram.open(..., decay_betta=0.5)` was not told of decay_beta."""
    with pytest.raises(ConfigError, match=r"unknown setting.*did you mean decay_beta"):
        load_settings(decay_bta=0.6)
    with pytest.raises(ConfigError, match=r"unknown setting\(s\): zzz$"):
        load_settings(zzz=1)


def test_a_bad_keyword_of_open_is_named_as_the_keyword(tmp_path: Path) -> None:
    """`Engram.open(forget_threshold=-1)` was told of ENGRAM_FORGET_THRESHOLD, a variable the
    caller never set (a probe)."""
    with pytest.raises(ConfigError, match=r"^invalid setting forget_threshold: "):
        Engram.open(str(tmp_path / "k.db"), forget_threshold=-1)
    with pytest.raises(ConfigError, match=r"^invalid setting ENGRAM_FORGET_THRESHOLD: "):
        load_settings(forget_threshold=-1)  # the CLI's overrides are its variables


def test_store_url_forms(tmp_path: Path) -> None:
    with Engram.open(f"sqlite:///{tmp_path}/u.db") as mem:
        assert mem.stats().location == str(tmp_path / "u.db")
    with pytest.raises(ConfigError, match="unsupported store URL"):
        Engram.open("redis://localhost/0")


@pytest.mark.parametrize("suffix", ["?mode=ro", "#frag"])
def test_a_store_url_with_options_is_refused_before_anything_is_made(
    tmp_path: Path, suffix: str
) -> None:
    """`?mode=ro` was dropped without a word and the store opened for writing (and made)."""
    for url in (f"sqlite:///{tmp_path}/q.db{suffix}", f"jsonl:///{tmp_path}/j{suffix}"):
        with pytest.raises(ConfigError, match="takes no options"):
            Engram.open(url)
    assert list(tmp_path.iterdir()) == []


def test_a_store_urls_path_is_percent_decoded(tmp_path: Path) -> None:
    """`%20` made a file named "q%20sp.db"."""
    with Engram.open(f"sqlite:///{tmp_path}/q%20sp.db") as mem:
        assert mem.stats().location == str(tmp_path / "q sp.db")
    assert (tmp_path / "q sp.db").exists()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("sqlite:///%00x.db", "NUL character"),  # a ValueError traceback from the first call
        ("jsonl:///tmp/a%00b", "NUL character"),
        ("sqlite://tmp/x.db", "a SQLite store is a local file"),  # was /x.db, "tmp" dropped
        ("sqlite:", "has no file path"),  # made a file named "sqlite:"
        # the name read as a host: "has no file path" alone did not say where it goes (probe)
        ("sqlite://relative.db", r"has no file path \(sqlite:///absolute/path\.db, .*"),
    ],
)
def test_a_store_url_no_store_can_be_at_is_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=f"ENGRAM_STORAGE_PATH: .*{message}"):
        Engram.open(url)
    assert list(tmp_path.iterdir()) == []


def test_a_relative_sqlite_url_is_a_relative_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`sqlite:notes.db` made a file named "sqlite:notes.db" (`jsonl:notes` is a folder)."""
    monkeypatch.chdir(tmp_path)
    with Engram.open("sqlite:notes.db") as mem:
        mem.save("kept in notes.db")
    assert (tmp_path / "notes.db").is_file() and not (tmp_path / "sqlite:notes.db").exists()


def test_a_path_too_long_for_the_system_names_the_setting(tmp_path: Path) -> None:
    """Python 3.11 raises ENAMETOOLONG from exists(): `engram stats` and `config` said a bare
    "[Errno 36] File name too long" without naming the setting."""
    long = tmp_path / ("x" * 300)
    with pytest.raises(ConfigError, match=r"ENGRAM_STORAGE_PATH: .*cannot be used"):
        store_exists(str(long))
    with pytest.raises(ConfigError, match="ENGRAM_VAULT_PATH: cannot be used"):
        VaultFiles(long)


def test_a_blank_http_token_in_a_dotenv_file_means_unset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ENGRAM_HTTP_TOKEN=` (as `ENGRAM_VAULT_PATH=` beside it) stopped every command with
    "at least 16 characters", though nothing but the HTTP server reads the token."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("ENGRAM_VAULT_PATH=\nENGRAM_HTTP_TOKEN=\n")
    settings = load_settings()
    assert settings.http_token is None and settings.vault_path is None
    with Engram.open(tmp_path / "s.db") as mem:
        assert mem.stats().total == 0


def test_a_forget_threshold_above_the_review_zone_is_told(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A CLI probe: with ENGRAM_FORGET_THRESHOLD=0.5 every memory offered for review was on gc's
    list, without a word. Told, not refused: the seed's settings files allow it."""
    monkeypatch.setenv("ENGRAM_FORGET_THRESHOLD", "0.31")
    monkeypatch.setenv("ENGRAM_REVIEW_DANGER_ZONE_MIN", "0.21")
    assert load_settings().forget_threshold == 0.31
    told = capsys.readouterr().err
    assert "ENGRAM_FORGET_THRESHOLD (0.31) is above ENGRAM_REVIEW_DANGER_ZONE_MIN (0.21)" in told


def test_settings_print_without_their_secrets(tmp_path: Path) -> None:
    """`repr(app)` printed the HTTP token and a store URL's password in clear (a probe), where
    `engram config` hides them; the values themselves are kept."""
    token = "t" * 40
    url = "postgresql://engram:s3cretpw@localhost/memories"
    settings = load_settings(http_token=token, storage_path=url, embedding_model="none")
    for shown in (repr(settings), str(settings)):
        assert token not in shown and "s3cretpw" not in shown
        assert "http_token='<hidden>'" in shown and "postgresql://engram:" in shown
    assert (settings.http_token, settings.storage_path) == (token, url)
    with Engram.open(str(tmp_path / "x.db"), embedding_model="none", http_token=token) as mem:
        assert token not in repr(mem.app)
