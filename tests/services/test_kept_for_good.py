"""Memories kept for good (`meta.keep`): gc never forgets them and review never offers them,
however long they go unused, on every backend. A blind probe's year of monthly gc deleted 32
of 36 vital facts told once and not needed again until months later (a blood type, an
allergy, a pacemaker)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from tests.support import START

from engram import Draft, Engram
from engram.errors import NotFoundError, ValidationError

LONG_AGO = START - timedelta(days=400)


def test_a_kept_memory_outlives_gc_and_is_still_found(mem: Engram) -> None:
    vital = mem.save("Blood type is A positive", keep=True, created_at=LONG_AGO)
    trivia = mem.save("Had pizza for lunch", created_at=LONG_AGO)
    assert vital.meta == {"keep": True} and mem.score(vital) < 0.05  # faded all the same
    done = mem.gc(dry_run=False)
    assert done.memory_ids == [trivia.id]
    assert [h.memory.id for h in mem.search("blood type")] == [vital.id]


def test_a_kept_memory_is_never_offered_for_review(mem: Engram) -> None:
    """In the danger zone by its score (ten days unused: 0.22), but it will not be forgotten:
    a review slot would only push out a match."""
    ten_days = START - timedelta(days=10)
    vital = mem.save("Allergic to penicillin", keep=True, created_at=ten_days)
    fading = mem.save("Prefers aisle seats", created_at=ten_days)
    assert [c.memory.id for c in mem.review_candidates()] == [fading.id]
    assert vital.id not in {c.memory.id for c in mem.review_candidates()}


def test_keep_marks_stored_memories_and_takes_the_mark_off(mem: Engram) -> None:
    m = mem.save("Passport expires 2031-04-02", created_at=LONG_AGO, meta={"doc": "passport"})
    (kept,) = mem.keep(m.id)
    assert kept.meta == {"doc": "passport", "keep": True}
    assert mem.gc().memory_ids == []
    assert kept.use_count == 0 and kept.last_used == m.last_used  # not a use
    (back,) = mem.keep([m.id], keep=False)
    assert back.meta == {"doc": "passport"}
    assert mem.gc().memory_ids == [m.id]


def test_update_keeps_the_mark_unless_told_otherwise(mem: Engram) -> None:
    """`meta` is replaced as a whole by an update; the mark stays unless the new meta or
    `keep` says otherwise: a note's metadata edited was not meant to let it be forgotten."""
    m = mem.save("Pacemaker fitted in 2019", keep=True, created_at=LONG_AGO)
    assert mem.update(m.id, meta={"doctor": "Dr. Ito"}).meta == {"doctor": "Dr. Ito", "keep": True}
    assert mem.gc().memory_ids == []
    assert mem.update(m.id, keep=False).meta == {"doctor": "Dr. Ito"}
    assert mem.gc().memory_ids == [m.id]
    assert mem.update(m.id, keep=True).meta == {"doctor": "Dr. Ito", "keep": True}
    assert mem.update(m.id, meta={"keep": False}).meta == {"keep": False}  # said so: not kept
    assert mem.gc().memory_ids == [m.id]


def test_saying_a_stored_fact_again_to_keep_it_keeps_it(mem: Engram) -> None:
    m = mem.save("Emergency contact: Ana, 555-0101", created_at=LONG_AGO)
    again = mem.save_result(Draft("Emergency contact: Ana, 555-0101", keep=True))
    assert again.duplicate_of == m.id and again.memory.meta == {"keep": True}


def test_save_many_keeps_what_it_is_told_to(mem: Engram) -> None:
    saved = mem.save_many(
        [
            Draft("Lactose intolerant", keep=True, created_at=LONG_AGO),
            Draft("Watched a film", created_at=LONG_AGO),
        ]
    )
    assert mem.gc().memory_ids == [saved[1].id]


def test_bad_keep_requests_are_refused_by_name(mem: Engram) -> None:
    with pytest.raises(ValidationError) as refused:
        mem.save("Blood type is O negative", keep="yes")  # type: ignore[arg-type]
    assert refused.value.field == "keep"
    with pytest.raises(ValidationError) as refused:
        mem.save_many([Draft("a"), Draft("b", keep=1)])  # type: ignore[arg-type]
    assert refused.value.field == "keep (item 1)"
    with pytest.raises(NotFoundError):
        mem.keep("00000000-0000-4000-8000-000000000000")
    assert mem.stats().total == 0  # nothing half-saved


def test_news_of_a_kept_fact_is_kept_too(mem: Engram) -> None:
    """The news matters as the fact it replaces did; the old fact keeps its mark (a wrong
    supersede link must not let a vital fact be forgotten)."""
    old = mem.save("My passport expires in April 2031", keep=True, created_at=LONG_AGO)
    news = mem.save_result("Correction: my passport now expires in May 2036")
    assert news.supersedes == [old.id]
    assert news.memory.meta == {"keep": True} and mem.get(news.memory.id).meta == {"keep": True}
    assert mem.get(old.id).meta == {"keep": True}
    other = mem.save_result("Correction: the gym now opens at 6am")
    assert other.memory.meta == {}


def test_a_fact_whose_words_name_it_vital_is_kept_by_itself(mem: Engram) -> None:
    """ENGRAM_KEEP_VITAL (default on): an allergy, a condition, a birthday, who the user is,
    or a request never to forget; the save says why. A strength given changes nothing here."""
    result = mem.save_result(Draft("Allergic to penicillin", strength=1.0, created_at=LONG_AGO))
    assert result.memory.meta == {"keep": True}
    assert result.enrichment is not None and result.enrichment.kept_for == "safety ('Allergic')"
    trivia = mem.save("Had pasta for lunch", created_at=LONG_AGO)
    assert mem.gc(dry_run=False).memory_ids == [trivia.id]
    assert mem.get(result.memory.id).meta == {"keep": True}


def test_a_save_that_says_keep_itself_decides(mem: Engram) -> None:
    told_not_to = mem.save("Allergic to cats", keep=False, created_at=LONG_AGO)
    said_in_meta = mem.save("Allergic to dust", meta={"keep": False}, created_at=LONG_AGO)
    imported = mem.save_many([Draft("Allergic to wool", id="imported-1", created_at=LONG_AGO)])
    assert told_not_to.meta == {} and said_in_meta.meta == {"keep": False}
    assert imported[0].meta == {}  # an import keeps its record as it was
    due = {told_not_to.id, said_in_meta.id, "imported-1"}
    assert set(mem.gc().memory_ids) == due
