"""A search hit as the MCP tool returns it (`Recalled`): compact, and dated on the asker's
calendar, so an assistant can tell the newer of two facts and when something happened."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from engram import Engram
from engram.core.ranking import Reason, SearchHit, Why
from engram.core.timeutil import day_in, moment_in
from engram.services.results import Recalled

TOKYO = timezone(timedelta(hours=9))


def hit_of(tmp_path: Path, reason: Reason) -> SearchHit:
    with Engram.open(str(tmp_path / "x.db"), embedding_model="none") as mem:
        late = datetime(2026, 1, 2, 23, 30, tzinfo=UTC)  # 3 January in Tokyo
        memory = mem.save("I moved to Lisbon from Berlin", created_at=late, last_used=late)
    why = Why(text=1.0, decay=0.8, review=0.4 if reason == "review" else 0.0, rank=0.9)
    return SearchHit(memory=memory, score=0.8, rank=0.9, reason=reason, why=why)


def test_a_hit_carries_the_day_it_was_saved_in_the_askers_zone(tmp_path: Path) -> None:
    hit = hit_of(tmp_path, "match")
    assert Recalled.of(hit, verbose=False, zone=TOKYO).saved == "2026-01-03"
    assert Recalled.of(hit, verbose=False, zone=UTC).saved == "2026-01-02"


def test_no_tags_and_the_usual_reason_are_left_out_and_a_review_says_so(tmp_path: Path) -> None:
    """Ten hits are ten times every byte: "tags": [] and "reason": "match" made room for the
    day (bench/mcp_latency.py: 2,961 bytes for ten hits before, 3,001 with the day alone)."""
    match = Recalled.of(hit_of(tmp_path / "a", "match"), verbose=False, zone=UTC)
    assert match.model_dump(mode="json") == {
        "id": match.id,
        "content": "I moved to Lisbon from Berlin",
        "saved": "2026-01-02",
        "rank": 0.9,
        "why": "text 1, decay 0.8",
    }
    back = Recalled.model_validate(match.model_dump(mode="json"))
    assert (back.reason, back.tags) == ("match", ())  # the schema's defaults
    review = Recalled.of(hit_of(tmp_path / "b", "review"), verbose=False, zone=UTC)
    tagged = review.model_copy(update={"tags": ("home",)})
    assert tagged.model_dump(mode="json")["reason"] == "review"
    assert tagged.model_dump(mode="json")["tags"] == ["home"]
    # who said it, when the memory says (a team's probe could not tell from the hits)
    assert "source" not in match.model_dump(mode="json")
    hit = hit_of(tmp_path / "c", "match")
    bobs = hit.model_copy(update={"memory": hit.memory.model_copy(update={"source": "bob"})})
    assert Recalled.of(bobs, verbose=False, zone=UTC).model_dump(mode="json")["source"] == "bob"


def test_a_day_outside_the_calendar_in_the_askers_zone_is_the_utc_day(tmp_path: Path) -> None:
    """0001-01-01T00:30Z is in the year 0 in New York: the CLI's table, which shows the day,
    ended in an OverflowError traceback for such a memory."""
    new_york = timezone(timedelta(hours=-5))
    dawn = datetime(1, 1, 1, 0, 30, tzinfo=UTC)
    assert day_in(dawn, new_york) == "0001-01-01"
    assert day_in(dawn, TOKYO) == "0001-01-01"
    assert day_in(datetime(2026, 1, 2, 23, 30, tzinfo=UTC), TOKYO) == "2026-01-03"
    # `engram open` shows its times in the zone the search table's day is in (a CLI probe saw
    # "saved 2026-12-05" beside "created 2026-12-04T22:56:48+00:00")
    late = datetime(2026, 1, 2, 23, 30, 5, 700, tzinfo=UTC)
    assert moment_in(late, TOKYO) == "2026-01-03T08:30:05+09:00"
    assert moment_in(dawn, new_york) == "0001-01-01T00:30:00+00:00"
    store = str(tmp_path / "x.db")
    with Engram.open(store, embedding_model="none") as mem:
        mem.save("far past note", created_at=dawn, last_used=dawn)
    # Its own process: the C library reads TZ when the process starts.
    found = subprocess.run(
        [sys.executable, "-m", "engram.cli.main", "--store", store, "search", "note"],
        env={**os.environ, "TZ": "America/New_York", "ENGRAM_EMBEDDING_MODEL": "none"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert found.returncode == 0 and "0001-01-01" in found.stdout, found.stderr


def test_a_hit_moved_down_by_diversity_says_it_is_like_one_above(tmp_path: Path) -> None:
    """Its order then contradicts its rank; the line says why, and that it is about the same
    thing as a hit above (an older or newer version of a fact)."""
    hit = hit_of(tmp_path, "match")
    moved = hit.model_copy(update={"why": hit.why.model_copy(update={"alike": 0.6182})})
    assert (
        Recalled.of(moved, verbose=False, zone=UTC).why == "text 1, like one above 0.62, decay 0.8"
    )
    assert "like one above" not in Recalled.of(hit, verbose=False, zone=UTC).why


def test_a_hit_of_a_list_without_a_query_says_only_its_decay(tmp_path: Path) -> None:
    """Listed by score (no query), every hit read "text 0, decay …": a failed match, to a reader."""
    hit = hit_of(tmp_path, "match")
    listed = hit.model_copy(update={"why": hit.why.model_copy(update={"text": 0.0})})
    assert Recalled.of(listed, verbose=False, zone=UTC).why == "decay 0.8"
    by_meaning = listed.why.model_copy(update={"semantic": 0.47})
    meant = listed.model_copy(update={"why": by_meaning})
    assert Recalled.of(meant, verbose=False, zone=UTC).why == "text 0, meaning 0.47, decay 0.8"


def test_faint_credit_still_says_where_a_hit_came_from(tmp_path: Path) -> None:
    """A hit found only by a neighbour's credit of 0.003 read "text 0, decay 0.8": the credit
    rounded to 0 and was left out, as if nothing had matched."""
    from engram.services.results import why_summary

    hit = hit_of(tmp_path, "match")
    faint = hit.why.model_copy(update={"text": 0.0, "context": 0.003, "expansion": 0.004})
    line = why_summary(hit.model_copy(update={"why": faint}), with_reason=False)
    assert line == "text 0, context <0.01, expansion <0.01, decay 0.8"
    plain = hit.why.model_copy(update={"context": 0.2})
    assert "context 0.2," in why_summary(hit.model_copy(update={"why": plain}))
