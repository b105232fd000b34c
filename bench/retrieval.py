#!/usr/bin/env python3
"""Evidence recall on conversational memory data, through Engram's public Python API.

    python bench/retrieval.py --data ../shared/data/realtalk [--limit 3] [--json out.json]

Uses the shared, dependency-free harness (`../shared/bench/retrieval_eval.py`): every dialogue
turn becomes one memory (content "Speaker: text", tags speaker and session, created_at = the
turn's time), saved with `Engram.save_many` into a fresh store per conversation; every question
is one `Engram.search` with the clock at the conversation's last turn. Prints recall@1/5/10 and
MRR per question category, plus the search latency. Any dataset in that format works.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

from engram import Draft, Engram, FixedClock

HARNESS = Path(__file__).resolve().parents[2] / "shared" / "bench" / "retrieval_eval.py"


def load_harness(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("retrieval_eval", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load the evaluation harness from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def moment(iso: str | None, fallback: datetime) -> datetime:
    if not iso:
        return fallback
    parsed = datetime.fromisoformat(iso)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class EngramRetriever:
    """One fresh store per conversation, opened with the given setting overrides."""

    def __init__(self, workdir: Path, settings: dict[str, Any]) -> None:
        self.workdir = workdir
        self.settings = settings
        self.mem: Engram | None = None
        self.clock = FixedClock(datetime(2000, 1, 1, tzinfo=UTC))
        self.latencies: list[float] = []
        self.count = 0

    def ingest(self, memories: list[dict[str, Any]], conversation: dict[str, Any]) -> None:
        self.close()
        self.count += 1
        path = self.workdir / f"conversation-{self.count}.db"
        now = moment(conversation.get("now"), datetime.now(UTC))
        self.clock.now = now
        self.mem = Engram.open(str(path), clock=self.clock, **self.settings)
        drafts = [
            Draft(
                id=m["id"],
                content=m["content"],
                tags=m.get("tags") or (),
                created_at=moment(m.get("timestamp"), now),
            )
            for m in memories
        ]
        self.mem.save_many(drafts)

    def search(self, query: str, k: int) -> list[str]:
        assert self.mem is not None
        start = time.perf_counter()
        hits = self.mem.search(query, limit=k)
        self.latencies.append((time.perf_counter() - start) * 1000)
        return [h.memory.id for h in hits]

    def close(self) -> None:
        if self.mem is not None:
            self.mem.close()
            self.mem = None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="a conversation file or directory")
    parser.add_argument("--harness", type=Path, default=HARNESS)
    parser.add_argument("--limit", type=int, help="only the first N conversations")
    parser.add_argument("--json", type=Path, help="also write the raw results here")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a setting, e.g. --set embedding_model=none (repeatable)",
    )
    args = parser.parse_args()
    harness = load_harness(args.harness)
    settings = dict(item.split("=", 1) for item in args.set)

    with tempfile.TemporaryDirectory(prefix="engram-retrieval-") as tmp:
        retriever = EngramRetriever(Path(tmp), settings)
        try:
            result = harness.evaluate(
                retriever.ingest,
                retriever.search,
                ks=(1, 5, 10),
                data=args.data,
                limit=args.limit,
                progress=True,
            )
        finally:
            retriever.close()
    print(harness.format_table(result, title="Engram (public API)"))
    lat = sorted(retriever.latencies)
    if lat:
        p95 = lat[min(len(lat) - 1, int(0.95 * len(lat)))]
        print(
            f"\nsearch latency over {len(lat)} queries: p50 {statistics.median(lat):.1f} ms, "
            f"p95 {p95:.1f} ms"
        )
    if args.json:
        result["latency_ms"] = lat
        args.json.write_text(json.dumps(result, indent=2, default=str))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
