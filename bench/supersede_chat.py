#!/usr/bin/env python3
"""What linking news to the facts it replaces costs a client that saves every chat turn.

    python bench/supersede_chat.py --data ../shared/data/realtalk
    python bench/supersede_chat.py --data ../shared/data/realtalk --workdir /tmp/supersede

A save that says something changed ("I moved to Denver", "My new manager is Rosa") links itself
to the fact it replaces, and search lists the news first. Chat narrates, though ("Having lunch
right now", "I started a new hobby"), and every link made between two turns that are not news
and fact moves a turn in the ranking. This saves each conversation's turns one at a time with
`Engram.save_result`, at their own times, as a client saving every turn verbatim would; counts
the `supersedes` links made; and asks the conversation's questions as `bench/retrieval.py`
does. Compare R@1 / R@10 / MRR with `bench/retrieval.py`, whose `save_many` links nothing.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conversations import Conversation, Scored, load, summary
from engram import Draft, Engram, FixedClock
from retrieval import _turns_path, ask, parse_settings


def ingest_one_by_one(conv: Conversation, path: Path) -> int:
    """Every turn saved by itself, repeats kept as memories of their own (as `save_many` keeps
    them in bulk); returns the number of `supersedes` links made."""
    holder: dict[str, str] = {}
    clock = FixedClock(conv.turns[0].created_at if conv.turns else conv.now)
    with Engram.open(str(path), clock=clock, save_duplicates="keep") as mem:
        for turn in conv.turns:
            clock.now = max(clock.now, turn.created_at)
            saved = mem.save_result(Draft(content=turn.content, episode=turn.episode))
            holder[turn.id] = saved.memory.id
    _turns_path(path).write_text(json.dumps(holder))
    with sqlite3.connect(path) as conn:
        (links,) = conn.execute(
            "SELECT count(*) FROM relations WHERE type = 'supersedes'"
        ).fetchone()
    return int(links)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--limit", type=int, help="only the first N conversations")
    parser.add_argument("--workdir", type=Path, help="keep the stores here (made again each run)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--show", action="store_true", help="print every link made")
    args = parser.parse_args()
    settings = parse_settings(args.set)
    rows: list[Scored] = []
    links = 0
    with tempfile.TemporaryDirectory(prefix="engram-supersede-") as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        for i, conv in enumerate(load(args.data)[: args.limit]):
            path = workdir / f"{conv.name}.one-by-one.db"
            for suffix in ("", "-wal", "-shm", ".vectors.usearch", ".vectors.json"):
                Path(str(path) + suffix).unlink(missing_ok=True)
            made = ingest_one_by_one(conv, path)
            links += made
            if args.show:
                with sqlite3.connect(path) as conn:
                    for news, fact in conn.execute(
                        "SELECT n.content, f.content FROM relations r JOIN memories n ON "
                        "n.id = r.from_id JOIN memories f ON f.id = r.to_id "
                        "WHERE r.type = 'supersedes'"
                    ):
                        print(f"  {news[:70]!r}\n    -> {fact[:70]!r}")
            rows += ask(conv, path, settings)
            print(f"[{i + 1}] {conv.name}: {made} links", file=sys.stderr)
    result = summary(rows)
    print(f"\n{len(rows)} questions, {links} supersedes links")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
