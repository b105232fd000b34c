#!/usr/bin/env python3
"""Evidence recall through the shared harness (`../shared/bench/retrieval_eval.py`), with Engram
saving its memories as an adapter written to its protocol would.

    python bench/shared_harness.py --data ../shared/data/realtalk
    python bench/shared_harness.py --data bench/data/locomo_style --no-episodes
    python bench/shared_harness.py --data PATH --one-by-one --no-episodes   # turn by turn
    python bench/shared_harness.py --data PATH --one-by-one --no-episodes --now   # saved now
    python bench/shared_harness.py --data PATH --captions   # the harness's photo captions
    python bench/shared_harness.py --data PATH --set search_other_speakers_share=1   # any setting

The harness hands each conversation's turns over as memories (id "D3:14", content
"<Speaker>: <text>", a naive ISO time, tags ["speaker:<name>", "session:<n>"]) and asks each
question once. Here every conversation gets a fresh SQLite store; its turns are saved by one
`Engram.save_many` with their ids, tags and times (read as UTC), each in its session's episode
unless `--no-episodes` (an adapter that names none: docs/search.md, section 2, says what
Engram does then); every question is one `Engram.search(question, limit=10)` with the clock at
the conversation's last turn. `--one-by-one` saves each turn by `Engram.save` instead, as an
adapter replaying the chat would (without ids, which `save` does not take: a repeated turn is
merged into the memory it repeats, and answers as the first turn it was). `--now` saves them
without their times, as an adapter that keeps none would (all at the conversation's end). Prints the
harness's table (R@k, Hit@k, MRR per category, and overall for categories 1-4 and for all)
for Engram and, below it, for the harness's own BM25.
`bench/retrieval.py` measures the same data through Engram's own loader, with more options.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engram import Draft, Engram, FixedClock
from retrieval import parse_settings

HARNESS = Path(__file__).resolve().parents[1].parent / "shared" / "bench"


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


class EngramAdapter:
    """One store per conversation, under `workdir`; search returns the harness's ids."""

    def __init__(
        self,
        workdir: Path,
        episodes: bool,
        one_by_one: bool,
        timed: bool,
        settings: dict[str, Any],
    ) -> None:
        self.workdir, self.episodes, self.settings = workdir, episodes, settings
        self.one_by_one, self.timed = one_by_one, timed
        self.mem: Engram | None = None
        self.count = 0
        self.ids: dict[str, str] = {}  # memory id -> the harness's id (one by one)

    def ingest(self, memories: list[dict[str, Any]], conversation: dict[str, Any]) -> None:
        self.close()
        self.count += 1
        clock = FixedClock(_moment(conversation["now"]))
        self.mem = Engram.open(str(self.workdir / f"{self.count}.db"), clock=clock, **self.settings)
        drafts = [
            Draft(
                id=m["id"],
                content=m["content"],
                created_at=_moment(m["timestamp"]) if self.timed else None,
                tags=m["tags"],
                episode=f"session-{m['session']}" if self.episodes else None,
            )
            for m in memories
        ]
        if self.one_by_one:
            self.ids = {}
            for m, d in zip(memories, drafts, strict=True):
                saved = self.mem.save(
                    d.content, tags=d.tags, created_at=d.created_at, episode=d.episode
                )
                self.ids.setdefault(saved.id, m["id"])
        else:
            self.mem.save_many(drafts)
        self.mem.flush()  # every vector stored: the questions follow at once

    def search(self, query: str, k: int) -> list[str]:
        assert self.mem is not None
        return [self.ids.get(h.memory.id, h.memory.id) for h in self.mem.search(query, limit=k)]

    def close(self) -> None:
        if self.mem is not None:
            self.mem.close()
            self.mem = None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--no-episodes", action="store_true", help="save the turns without one")
    parser.add_argument("--one-by-one", action="store_true", help="each turn by Engram.save")
    parser.add_argument("--now", action="store_true", help="save the turns without their times")
    parser.add_argument(
        "--captions", action="store_true", help="a shared photo's caption appended to its turn"
    )
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--harness", type=Path, default=HARNESS, help="its folder")
    args = parser.parse_args()
    sys.path.insert(0, str(args.harness))
    harness = importlib.import_module("retrieval_eval")  # shared, read-only, outside the project

    conversations = harness.load_conversations(str(args.data), include_captions=args.captions)
    table: Callable[[dict[str, Any], str], str] = harness.format_table
    with tempfile.TemporaryDirectory(prefix="engram-harness-") as tmp:
        settings = parse_settings(args.set)
        adapter = EngramAdapter(
            Path(tmp), not args.no_episodes, args.one_by_one, not args.now, settings
        )
        try:
            engram = harness.evaluate(adapter.ingest, adapter.search, data=conversations)
        finally:
            adapter.close()
    bm25 = harness.BM25Baseline()
    baseline = harness.evaluate(bm25.ingest, bm25.search, data=conversations)
    episodes = "no episodes" if args.no_episodes else "each session its episode"
    print(table(engram, f"Engram on {args.data.name} ({episodes})"))
    print()
    print(table(baseline, f"the harness's BM25 on {args.data.name}"))


if __name__ == "__main__":
    main()
