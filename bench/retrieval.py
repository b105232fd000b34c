#!/usr/bin/env python3
"""Evidence recall on conversational data, through Engram's public Python API.

    python bench/retrieval.py --data ../shared/data/realtalk --data ../shared/data/madial-bench-en
    python bench/retrieval.py --data PATH --set search_context_weight=0   # any setting
    python bench/retrieval.py --data PATH --saved-now   # every turn saved "now": no decay gap
    python bench/retrieval.py --data PATH --ask-after 180   # asked half a year after the chat
    python bench/retrieval.py --data PATH --time-scale 12   # the chat spread over 12x the time
    python bench/retrieval.py --data PATH --postgres    # the same stores, copied to PostgreSQL
    python bench/retrieval.py --data PATH --as-recall   # as analyze_for_recall advises
    python bench/retrieval.py --data bench/data/user_assistant/first --padded   # one user's chats
    python bench/retrieval.py --data PATH --misnamed   # questions naming the wrong speaker
    python bench/retrieval.py --data PATH --logged bracketed   # "[2024-05-01 14:00] Kevin: …"

One fresh SQLite store per conversation; every turn is saved with `Engram.save_many` at its own
time and in its own episode (see bench/conversations.py), without an id as a client saves
(enriched: names as entities, strength from words of importance); every question is one
`Engram.search(question, limit=10)` with the clock at the conversation's last turn. Prints R@1,
R@5, R@10 and MRR per question category for Engram with its defaults (or `--set` overrides)
and, side by side, for the same stores searched by full-text BM25 alone (SQLite FTS5, or with
`--postgres` PostgreSQL's full-text ranking: no embeddings, context, diversity, decay or review
slots), plus search latency and save throughput. `--postgres` searches copies of the stores
(`Engram.migrate_from`: same ids, vectors and episodes) in one database each on the server of
`bench/scale.py --backend postgres` (ENGRAM_BENCH_POSTGRES_URL, or a throwaway embedded server
under the workdir). `--as-recall` scores the questions `Engram.analyze_for_recall` reads as
recalls, searched with the query and window it gives, beside the same questions searched as
asked (instead of BM25).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scale
from conversations import (
    KS,
    LOGGED,
    Conversation,
    Scored,
    load,
    logged,
    misnamed,
    padded,
    score,
    summary,
)
from engram import Draft, Engram, FixedClock
from engram.embeddings.minilm import MODEL_ID

# The same stores, searched by words alone: what "BM25 alone" means in the tables.
BM25_ONLY: dict[str, Any] = {
    "embedding_model": "none",
    "search_context_weight": 0.0,
    "search_diversity": 0.0,
    "search_decay_weight": 0.0,
    "review_blend_ratio": 0.0,
    "search_expansion_weight": 0.0,
    "search_date_weight": 0.0,
    "search_present_weight": 0.0,
    "search_when_weight": 0.0,
    "search_amount_weight": 0.0,
    "search_text_coverage": 0.0,
    "search_question_discount": 0.0,
    "search_reply_weight": 0.0,
    "search_listener_discount": 0.0,
    "search_other_speakers_share": 1.0,
}


def store_path(
    workdir: Path, conv: Conversation, time_scale: float = 1.0, saved_now: bool = False
) -> Path:
    """Where a conversation's store is kept: one for each conversation (by its turns, not only
    its name) and each way it was saved (a store saved at the turns' own times was searched for
    `--saved-now` when both had one name)."""
    scaled = "" if time_scale == 1.0 else f".x{time_scale:g}"
    now = ".now" if saved_now else ""
    return workdir / f"{conv.name}-{conv.fingerprint}{scaled}{now}.db"


def spread_in_time(conv: Conversation, factor: float) -> Conversation:
    """The conversation with its turns `factor` times further back from its last one: three
    weeks of chat become eight months at 12, and old memories fade further behind new ones."""
    now = conv.now
    turns = [replace(t, created_at=now - (now - t.created_at) * factor) for t in conv.turns]
    return replace(conv, turns=turns)


def ingest(conv: Conversation, path: Path, saved_now: bool = False) -> float:
    """Save every turn (skipped if the store is already there); returns memories per second.
    `saved_now`: every turn saved at the conversation's end instead of at its own time (what
    decay does to old memories is then out of the picture).

    Turns are saved the way a client saves: without an id, so that enrichment runs (names as
    entities, strength from the words of importance). `save_many` keeps a repeated turn as a
    memory of its own (a single `save` would merge it), so each turn has its memory; which one
    is kept beside the store (`<store>.turns.json`) to score the answers."""
    if path.exists():
        if _embedded_by_current_model(path) and _turns_path(path).exists():
            return 0.0
        for suffix in ("", "-wal", "-shm", ".vectors.usearch", ".vectors.json", ".turns.json"):
            Path(str(path) + suffix).unlink(missing_ok=True)  # kept from another version: redo
    drafts = [
        Draft(content=t.content, created_at=None if saved_now else t.created_at, episode=t.episode)
        for t in conv.turns
    ]
    holder: dict[str, str] = {}
    with Engram.open(str(path), clock=FixedClock(conv.now)) as mem:
        start = time.perf_counter()
        for i in range(0, len(drafts), 500):
            saved = mem.save_many(drafts[i : i + 500])
            for turn, memory in zip(conv.turns[i : i + 500], saved, strict=True):
                holder[turn.id] = memory.id
        rate = len(drafts) / (time.perf_counter() - start)
    _turns_path(path).write_text(json.dumps(holder))
    return rate


def _turns_path(store: Path) -> Path:
    return Path(str(store) + ".turns.json")


def _embedded_by_current_model(path: Path) -> bool:
    """A kept store (--workdir) whose vectors come from another model would be searched by
    text alone: every number would be wrong without a word of warning in the table."""
    with sqlite3.connect(path) as conn:
        models = {row[0] for row in conn.execute("SELECT DISTINCT model_id FROM memory_vectors")}
    return models <= {MODEL_ID}


def postgres_copy(conv: Conversation, path: Path, server: str) -> str:
    """The store at `path` copied into a database of its own (kept, like the stores, and
    copied again when the SQLite store is newer)."""
    import psycopg

    key = f"{conv.name}-{conv.fingerprint}"
    name = "engram_retrieval_" + hashlib.sha1(key.encode()).hexdigest()[:12]
    url = urlunsplit(urlsplit(server)._replace(path="/" + name))
    stamp = f"{path.stat().st_mtime_ns}"
    with psycopg.connect(server, autocommit=True) as admin:
        row = admin.execute(
            "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = %s",
            (name,),
        ).fetchone()
        if row is not None and row[0] == stamp:
            return url
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    with Engram.open(url, clock=FixedClock(conv.now)) as mem:
        mem.migrate_from(str(path))
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f"COMMENT ON DATABASE \"{name}\" IS '{stamp}'")
    return url


def ask(
    conv: Conversation,
    path: Path,
    settings: dict[str, Any],
    latencies: list[float] | None = None,
    location: str | None = None,
    after_days: float = 0.0,
    recalls: str | None = None,
) -> list[Scored]:
    """Every question of the conversation, scored against the memories that hold its
    evidence turns; search times appended to `latencies`. `location`: the store to search
    instead of the one at `path` (a copy of it). `after_days`: asked that long after the
    conversation's last turn (its memories have faded meanwhile). `recalls`: only the
    questions `analyze_for_recall` reads as recalls, searched "as asked" or with the query
    and window it gives ("advised")."""
    holder: dict[str, str] = json.loads(_turns_path(path).read_text())
    rows: list[Scored] = []
    clock = FixedClock(conv.now + timedelta(days=after_days))
    with Engram.open(location or str(path), clock=clock, **settings) as mem:
        for q in conv.questions:
            query, window = q.text, None
            if recalls is not None:
                advice = mem.analyze_for_recall(q.text)
                if not advice.should_search:
                    continue
                if recalls == "advised":
                    query, window = advice.query or "", advice.window_days
            start = time.perf_counter()
            hits = mem.search(query, limit=max(KS), window_days=window) if query or window else []
            if latencies is not None:
                latencies.append((time.perf_counter() - start) * 1000)
            gold = frozenset(holder[t] for t in q.gold if t in holder)
            rows.append(score(replace(q, gold=gold), [h.memory.id for h in hits]))
    return rows


def table(engram: Sequence[Scored], baseline: Sequence[Scored], label: str = "BM25") -> str:
    ours, theirs = summary(engram), summary(baseline)
    cols = [f"R@{k}" for k in KS] + ["MRR"]
    head = ["category", "n", *(f"Engram {c}" for c in cols), *(f"{label} {c}" for c in cols)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    names = [*sorted(n for n in ours if n != "overall"), "overall"]
    for name in names:
        row = [name, str(int(ours[name]["n"]))]
        row += [f"{ours[name][c]:.3f}" for c in cols]
        row += [f"{theirs[name][c]:.3f}" for c in cols]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def parse_settings(items: Sequence[str]) -> dict[str, Any]:
    return dict(item.split("=", 1) for item in items)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, action="append", required=True, help="repeatable")
    parser.add_argument("--limit", type=int, help="only the first N conversations of each set")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--workdir", type=Path, help="keep the stores here (reused if present)")
    parser.add_argument("--json", type=Path, help="also write the summaries here")
    parser.add_argument(
        "--saved-now",
        action="store_true",
        help="save every turn at the conversation's end, not at its own time",
    )
    parser.add_argument(
        "--ask-after",
        type=float,
        default=0.0,
        metavar="DAYS",
        help="ask the questions this many days after each conversation's last turn",
    )
    parser.add_argument(
        "--time-scale",
        type=float,
        default=1.0,
        metavar="FACTOR",
        help="spread each conversation's turns FACTOR times further back from its last one",
    )
    parser.add_argument(
        "--padded",
        action="store_true",
        help="each conversation's store holds the other conversations' sessions of its set too",
    )
    parser.add_argument(
        "--misnamed",
        action="store_true",
        help="only the questions naming one speaker, asked of the other (LoCoMo's adversarial)",
    )
    parser.add_argument(
        "--logged",
        choices=sorted(LOGGED),
        help="save each turn as a harness logging the chat might: the time it was said before "
        "or after its speaker's label, the label in bold or told, or no label",
    )
    parser.add_argument(
        "--postgres", action="store_true", help="search copies of the stores on PostgreSQL"
    )
    parser.add_argument(
        "--as-recall",
        action="store_true",
        help="the questions read as recalls, searched as analyze_for_recall advises",
    )
    args = parser.parse_args()
    if args.postgres and not args.workdir and not os.environ.get("ENGRAM_BENCH_POSTGRES_URL"):
        # The embedded server's data would go with the temporary folder before it stops.
        parser.error("--postgres needs --workdir (or ENGRAM_BENCH_POSTGRES_URL)")
    for data in args.data:  # a folder of sets, not a set, ran the sets before it, then failed
        if not any(c.questions for c in load(data)):
            parser.error(f"--data {data}: no conversation with questions in it")
    settings = parse_settings(args.set)
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="engram-retrieval-") as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        server = scale.postgres_server(workdir) if args.postgres else None
        for data in args.data:
            loaded = padded(load(data)) if args.padded else load(data)
            conversations = [spread_in_time(c, args.time_scale) for c in loaded[: args.limit]]
            if args.logged:
                conversations = [logged(c, args.logged) for c in conversations]
            if args.misnamed:
                conversations = [misnamed(c) for c in conversations]
                if not any(c.questions for c in conversations):
                    print(f"\n### {data.name}: no question names one of two speakers")
                    continue
            engram: list[Scored] = []
            baseline: list[Scored] = []
            latencies: list[float] = []
            rates: list[float] = []
            for i, conv in enumerate(conversations):
                path = store_path(workdir, conv, args.time_scale, args.saved_now)
                rate = ingest(conv, path, args.saved_now)
                if rate:
                    rates.append(rate)
                copy = postgres_copy(conv, path, server) if server else None
                advised, beside = ("advised", "as asked") if args.as_recall else (None, None)
                engram += ask(conv, path, settings, latencies, copy, args.ask_after, advised)
                baseline += ask(
                    conv,
                    path,
                    settings if args.as_recall else BM25_ONLY,
                    location=copy,
                    after_days=args.ask_after,
                    recalls=beside,
                )
                print(f"[{i + 1}/{len(conversations)}] {conv.name}", file=sys.stderr)
            print(f"\n### {data.name}: {len(engram)} questions\n")
            print(table(engram, baseline, "as asked" if args.as_recall else "BM25"))
            p50, p95 = statistics.median(latencies), percentile(latencies, 0.95)
            print(
                f"\nsearch p50 {p50:.1f} ms, p95 {p95:.1f} ms over {len(latencies)} queries", end=""
            )
            print(f"; save_many {statistics.median(rates):.0f} memories/s" if rates else "")
            report[data.name] = {
                "engram": summary(engram),
                ("as_asked" if args.as_recall else "bm25"): summary(baseline),
                "latency_ms": {"p50": p50, "p95": p95},
                "settings": settings,
                "ask_after_days": args.ask_after,
                "time_scale": args.time_scale,
            }
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
