"""Garbage collection, promotion and review candidates, stats, and schedule recomputation."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

import pytest
from tests.support import START

from engram import Draft, Engram, FixedClock, Status
from engram.core.decay import time_to_retention
from engram.storage.protocol import Filter, Stub


def test_gc_dry_run_lists_and_apply_deletes_only_forgotten_memories(
    mem: Engram, clock: FixedClock
) -> None:
    forgotten = mem.save("old trivia", created_at=START - timedelta(days=60))
    kept = mem.save("fresh fact")
    preview = mem.gc()
    assert preview.dry_run and preview.memory_ids == [forgotten.id]
    assert mem.stats().total == 2
    done = mem.gc(dry_run=False)
    assert done.count == 1
    assert [m.id for m in mem.get_many([forgotten.id, kept.id])] == [kept.id]


def test_gc_can_archive_instead(mem: Engram) -> None:
    m = mem.save("old trivia", created_at=START - timedelta(days=60))
    mem.gc(dry_run=False, archive_instead=True)
    assert mem.get(m.id).status == Status.ARCHIVED
    assert mem.gc().count == 0


def test_a_touch_says_it_brought_an_archived_memory_back(mem: Engram) -> None:
    """A CLI probe: "Touched …: score 1.000 → 1.516" alone hid that the memory was active again."""
    m = mem.save("old trivia", created_at=START - timedelta(days=60))
    mem.gc(dry_run=False, archive_instead=True)
    back = mem.touch(m.id)
    assert back.unarchived and back.memory.status == Status.ACTIVE
    assert not mem.touch(m.id).unarchived  # active already


def test_gc_archives_the_rest_when_another_client_deletes_a_candidate(
    mem: Engram, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another client deletes a candidate between gc's listing and its archiving: the rest are
    archived (the whole batch used to fail on the missing id)."""
    old = [mem.save(f"old trivia {i}", created_at=START - timedelta(days=60)) for i in range(3)]
    store = mem.app.context.store
    checked = store.stubs  # gc's last look at the candidates before it archives them

    def checked_then_deleted_elsewhere(ids: Sequence[str], where: Filter) -> list[Stub]:
        found = checked(ids, where)
        with Engram.open(store_url) as other:  # a real second client, in between
            other.delete([old[1].id])
        return found

    monkeypatch.setattr(store, "stubs", checked_then_deleted_elsewhere)
    done = mem.gc(dry_run=False, archive_instead=True)
    assert sorted(done.memory_ids) == sorted([old[0].id, old[2].id])
    assert {m.status for m in mem.get_many([old[0].id, old[2].id])} == {Status.ARCHIVED}


def test_stats_and_gc_agree_on_a_memory_exactly_at_the_forget_threshold(
    mem: Engram, clock: FixedClock
) -> None:
    """Saved at the threshold (strength 0.05): not below it yet, so neither counts it; a
    moment later both do (stats read the stored schedule, gc the exact score)."""
    m = mem.save("barely there", strength=0.05)
    assert (mem.stats().due_for_gc, mem.gc().count) == (0, 0)
    clock.advance(hours=1)
    assert (mem.stats().due_for_gc, mem.gc().memory_ids) == (1, [m.id])


def test_reinforced_memories_survive_gc(mem: Engram, clock: FixedClock) -> None:
    used, unused = mem.save("used"), mem.save("unused")
    for _ in range(3):
        clock.advance(days=10)
        mem.touch(used.id)
    clock.advance(days=20)
    assert mem.gc().memory_ids == [unused.id]


def test_gc_keeps_news_while_the_fact_it_replaces_lives(mem: Engram, clock: FixedClock) -> None:
    """A probe: the news "I moved to Denver" faded unused while a repeat kept "I live in
    Portland" alive; gc deleted the news, and search answered with the old city alone."""
    # keep=False: who the user is would be kept for good (ENGRAM_KEEP_VITAL); this is about
    # the news and the fact it replaces fading
    old = mem.save("I live in Portland, Oregon", keep=False)
    news = mem.save("I moved from Portland to Denver", keep=False)
    mem.create_relation(news.id, old.id, "supersedes")
    for _ in range(5):
        clock.advance(days=10)
        mem.touch(old.id)
    # due by its score, spared: stats counts what gc would collect (it counted the news)
    assert mem.stats().due_for_gc == 0
    assert mem.gc().memory_ids == []
    assert mem.gc(dry_run=False).count == 0 and mem.get(news.id).id == news.id
    # once the old fact is due too, both go
    clock.advance(days=3000)
    assert sorted(mem.gc(dry_run=False).memory_ids) == sorted([old.id, news.id])


def test_gc_keeps_a_replaced_fact_while_its_news_lives(mem: Engram, clock: FixedClock) -> None:
    """The other way round (a probe): the news in use, the old fact faded. "where do I live?"
    found "We moved from Portland to Denver" only as the place of "I live in Portland", and
    once gc deleted the fact it found the sister's city instead."""
    old = mem.save("I live in Portland, Oregon", keep=False)  # not kept for good: it fades
    clock.advance(days=60)
    news = mem.save("We moved from Portland to Denver", keep=False)
    mem.create_relation(news.id, old.id, "supersedes")
    sister = mem.save("My sister Elena lives in Valencia", keep=False)
    for _ in range(4):
        clock.advance(days=3)
        mem.touch(news.id)
    assert mem.score(mem.get(old.id)) < 0.05 <= mem.score(mem.get(news.id))
    assert mem.stats().due_for_gc == 0 and mem.gc(dry_run=False).count == 0
    assert mem.search("where do I live?")[0].memory.id == news.id
    # once the news is due too, both go
    clock.advance(days=3000)
    assert sorted(mem.gc(dry_run=False).memory_ids) == sorted([old.id, news.id, sister.id])


def test_gc_forgets_a_merged_memory_with_the_originals_it_archived(
    mem: Engram, clock: FixedClock
) -> None:
    """A probe's year: gc deleted 31 merged memories and left the 68 originals their merges
    had archived (for an undo gone with them) out of its reach for good. Archived instead,
    the merged memory keeps them."""
    first = mem.save("The wifi password is in the kitchen drawer")
    second = mem.save("Wifi password: kitchen drawer")
    kept = mem.save("I take vitamin D in winter")
    (done,) = mem.consolidate(mode="apply", memory_ids=[first.id, second.id]).merged
    merged = done.merged.id
    clock.advance(days=3000)
    for _ in range(3):
        mem.touch(kept.id)
    listed = mem.gc()
    assert sorted(listed.memory_ids) == sorted([merged, first.id, second.id])
    gone = mem.gc(dry_run=False)
    assert sorted(gone.memory_ids) == sorted(listed.memory_ids) and gone.count == 3
    assert [m.id for m in mem.get_many([merged, first.id, second.id, kept.id])] == [kept.id]


def test_gc_limit_and_has_more(mem: Engram) -> None:
    """A limited gc takes the memories forgotten longest ago first (those saved earliest
    here), and says more are due."""
    saved = [mem.save(f"old {i}", created_at=START - timedelta(days=90 + i)) for i in range(5)]
    result = mem.gc(dry_run=False, limit=3)
    assert result.count == 3 and result.has_more
    assert sorted(result.memory_ids) == sorted(m.id for m in saved[2:])
    rest = mem.gc(dry_run=False, limit=3)
    assert sorted(rest.memory_ids) == sorted(m.id for m in saved[:2]) and not rest.has_more


def test_promotion_candidates_by_usage_and_score(mem: Engram, clock: FixedClock) -> None:
    busy = mem.save("used a lot")
    steady = mem.save("used once, still strong")
    idle = mem.save("never touched", strength=2.0)
    for _ in range(5):
        mem.touch(busy.id)
    assert [(c.memory.id, c.reason) for c in mem.promotion_candidates()] == [(busy.id, "usage")]
    clock.advance(days=2)
    mem.touch(steady.id)
    clock.advance(days=2)
    found = {c.memory.id: c.reason for c in mem.promotion_candidates()}
    assert found == {busy.id: "usage", steady.id: "score"}
    assert idle.id not in found


def test_a_fact_superseded_by_news_is_no_promotion_candidate(mem: Engram) -> None:
    """ "I'm vegetarian", used five times and then corrected, was written to the vault as it
    stood, and the correction was not (a helper's probe). Its news counts in stats too."""
    old = mem.save("I'm vegetarian")
    for _ in range(5):
        mem.touch(old.id)
    assert [c.memory.id for c in mem.promotion_candidates()] == [old.id]
    news = mem.save_result("Update: I'm no longer vegetarian, I eat fish now")
    assert news.supersedes == [old.id]
    assert mem.promotion_candidates() == []
    assert mem.stats().promotion_candidates == 0


def test_promotion_candidates_list_usage_first_then_by_score(
    mem: Engram, clock: FixedClock
) -> None:
    """docs/tools.md: `usage` first, then by score, the strongest first — here the memory
    promoted for its use scores below both memories promoted for their score."""
    busy = mem.save("used a lot")
    for _ in range(5):
        mem.touch(busy.id)
    strong = mem.save("saved strong", strength=1.7)
    stronger = mem.save("saved stronger", strength=2.0)
    clock.advance(days=6)
    for m in (strong, stronger):
        mem.touch(m.id)
    found = mem.promotion_candidates()
    assert [(c.memory.id, c.reason) for c in found] == [
        (busy.id, "usage"),
        (stronger.id, "score"),
        (strong.id, "score"),
    ]
    assert found[0].score < found[2].score < found[1].score


def test_review_candidates_come_from_the_danger_zone(mem: Engram, clock: FixedClock) -> None:
    zone = mem.save("fading")
    clock.advance(days=9)
    mem.save("fresh")
    (cand,) = mem.review_candidates()
    assert cand.memory.id == zone.id and 0.15 <= cand.score <= 0.35 and cand.review_priority > 0.9


def test_a_fact_superseded_by_news_is_no_review_candidate(mem: Engram, clock: FixedClock) -> None:
    """Asked to bring review candidates up, an assistant asked after the flat the user had
    moved out of (an MCP probe): news replaced it, nothing to reinforce."""
    old = mem.save("I live in Berlin, in Kreuzberg")
    other = mem.save("I play the cello on Sundays")
    clock.advance(days=9)
    news = mem.save_result("I moved from Berlin to Lisbon last month")
    if old.id not in news.supersedes:  # made at save time where meaning is on
        mem.create_relation(news.memory.id, old.id, "supersedes")
    assert [c.memory.id for c in mem.review_candidates()] == [other.id]
    # ... nor counted in the zone by stats: the dashboard shows the two side by side
    assert mem.stats().in_danger_zone == 1


def test_the_most_urgent_review_is_found_among_many_weak_fresh_memories(
    mem: Engram, clock: FixedClock
) -> None:
    """Candidates were the memories nearest their mid-zone moment in time: sixty weak ones
    saved hours ago pass it soon and filled the list at priority 0.08, while a memory at
    priority 0.64 (its moment a day off) was never read."""
    urgent = mem.save("the urgent one")
    clock.advance(days=6.5 - 0.125)
    for i in range(60):
        mem.save(f"minor note {i}", strength=0.36)
    clock.advance(days=0.125)
    found = mem.review_candidates(10)
    assert found[0].memory.id == urgent.id and found[0].review_priority > 0.6
    assert [c.review_priority for c in found] == sorted(
        (c.review_priority for c in found), reverse=True
    )
    # the sixty tie: taken by id, as on every backend (each kept its own row order: a probe)
    tied = [c.memory.id for c in found[1:]]
    assert len({c.review_priority for c in found[1:]}) == 1
    minor = sorted(h.memory.id for h in mem.search(limit=100) if h.memory.id != urgent.id)
    assert len(minor) == 60 and tied == minor[:9]


def test_stats(mem: Engram, clock: FixedClock) -> None:
    a = mem.save("a")
    b = mem.save("b", created_at=START - timedelta(days=90))
    mem.create_relation(a.id, b.id)
    mem.archive(a.id)
    stats = mem.stats()
    assert stats.total == 2 and stats.by_status[Status.ARCHIVED] == 1
    assert stats.relations == 1 and stats.due_for_gc == 1 and stats.decay_model == "power_law"


def test_changing_decay_settings_recomputes_every_schedule(
    tmp_path: Path, clock: FixedClock
) -> None:
    path = str(tmp_path / "s.db")
    with Engram.open(path, clock=clock) as mem:
        m = mem.save("thing", created_at=START - timedelta(days=20))
        assert mem.gc().memory_ids == []  # power law: f(20d) ≈ 0.12
    with Engram.open(path, clock=clock, decay_model="exponential") as mem:
        assert mem.gc().memory_ids == [m.id]  # exponential: f(20d) ≈ 0.01
    with Engram.open(path, clock=clock) as mem:
        assert mem.gc().memory_ids == []


def test_storage_stats_and_compaction_through_the_python_api(mem: Engram, store_url: str) -> None:
    """A JSONL store's dead lines go, and nothing else; the other backends say they have no
    files to compact and change nothing."""
    kept = mem.save("Prefers dark mode")
    for _ in range(3):
        mem.touch(kept.id)
    gone = mem.save("Old VPN endpoint")
    mem.delete([gone.id])
    if not store_url.startswith("jsonl://"):
        assert not mem.storage_stats().supported
        report = mem.compact()
        assert not report.supported and "nothing to inspect or compact" in report.message
        assert [m.id for m in mem.get_many([kept.id])] == [kept.id]
        return
    before = mem.storage_stats()
    assert before.supported and before.dead_lines > 0
    report = mem.compact()
    assert report.supported and report.before is not None and report.after is not None
    assert report.before.dead_lines == before.dead_lines and report.after.dead_lines == 0
    assert mem.storage_stats().dead_lines == 0
    (found,) = mem.get_many([kept.id])
    assert found.use_count == 3
    assert mem.get_many([gone.id]) == []


def test_the_danger_zone_count_is_exact_at_its_edges(mem: Engram, clock: FixedClock) -> None:
    """The count came from the R*Tree alone, whose 32-bit bounds are rounded outwards by
    minutes: a minute after fifty memories left the zone, stats still counted all fifty while
    review_candidates listed none."""
    for i in range(50):
        mem.save(f"fading memory {i}")
    policy = mem.app.context.policy
    leaves = float(time_to_retention(policy.decay, policy.danger_zone_min))
    enters = float(time_to_retention(policy.decay, policy.danger_zone_max))
    clock.advance(seconds=enters - 60)
    assert mem.stats().in_danger_zone == 0 and mem.review_candidates(100) == []
    clock.advance(seconds=120)
    assert mem.stats().in_danger_zone == 50
    clock.advance(seconds=leaves - enters)
    assert mem.stats().in_danger_zone == 0 and mem.review_candidates(100) == []


def test_a_crossing_beyond_any_date_is_stored_on_every_backend(
    store_url: str, clock: FixedClock
) -> None:
    """With a slow power law and a tiny forget threshold (both within their documented
    ranges) the forget time overflowed to infinity: the JSONL store could neither save nor
    open (JSON has no infinity)."""
    settings = {"pl_alpha": 0.05, "forget_threshold": 1e-16}
    with Engram.open(store_url, clock=clock, **settings) as mem:
        kept = mem.save("a memory that fades very slowly")
    clock.advance(days=10_000)
    with Engram.open(store_url, clock=clock, **settings) as mem:
        assert mem.get(kept.id).content == "a memory that fades very slowly"
        assert mem.gc().memory_ids == [] and mem.stats().due_for_gc == 0


def test_memories_dated_after_now_are_listed_as_they_score(mem: Engram, clock: FixedClock) -> None:
    """Saved by a client whose clock was a day ahead (or imported from one), a memory scores
    its full value until its time comes; gc, the danger zone and promotion disagreed with
    that score (a memory below the forget threshold was not due, one in the zone not counted,
    one used five times not a candidate)."""
    clock.advance(days=1)
    faint = mem.save("faint trivia", strength=0.02)
    fading = mem.save("fading fact", strength=0.25)
    used = mem.save("often used fact")
    for _ in range(5):
        mem.touch(used.id)
    clock.advance(days=-1)
    assert mem.gc().memory_ids == [faint.id]
    stats = mem.stats()
    assert (stats.due_for_gc, stats.in_danger_zone, stats.promotion_candidates) == (1, 1, 1)
    assert [c.memory.id for c in mem.promotion_candidates()] == [used.id]
    assert [c.memory.id for c in mem.review_candidates()] == [fading.id]


def test_stats_count_as_due_what_gc_would_collect(mem: Engram, clock: FixedClock) -> None:
    """News that supersedes a live fact is spared by gc while the fact lives, and `stats`
    counted it as due all the same: 10 due where gc deleted 7, for good (a probe's year)."""
    old = mem.save("Project Atlas launch is planned for June 15")
    for _ in range(5):
        clock.advance(days=1)
        mem.touch(old.id)
    news = mem.save_result(Draft("Update: the Atlas launch slipped to July 1"))
    assert news.supersedes == [old.id]
    other = mem.save("Bought a new kettle")
    clock.advance(days=60)
    assert mem.touch(old.id).memory.id == old.id  # the fact lives on, used
    assert {m for m in mem.gc(dry_run=True).memory_ids} == {other.id}
    assert mem.stats().due_for_gc == 1
