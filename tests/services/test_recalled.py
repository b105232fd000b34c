"""A search hit as the MCP tool returns it (`Recalled`): compact, and dated on the asker's
calendar, so an assistant can tell the newer of two facts and when something happened."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from engram import Engram
from engram.core.ranking import Reason, SearchHit, Why
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
