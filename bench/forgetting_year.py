#!/usr/bin/env python3
"""Does forgetting keep what matters? A year and more of an assistant's memory, six users.

    python bench/forgetting_year.py                        # gc every month, as a job would
    python bench/forgetting_year.py --gc none              # nothing forgotten: search alone
    python bench/forgetting_year.py --keep-vital           # vital facts saved with keep=True
    python bench/forgetting_year.py --set keep_vital=false # any setting
    python bench/forgetting_year.py --users maya,arjun

The retrieval benchmarks ask their questions of stores nothing was ever forgotten from; this
one runs the forgetting. `bench/data/forgetting_year/users.json` holds six simulated users of
a personal assistant (a parent with type 1 diabetes, a PhD student, a bakery's owner, a
retiree, a team lead who changes jobs, a nurse on shifts): 26–29 memories each, saved on their
own days over 398–545 days (lasting and vital facts, preferences, events, chit-chat, facts that
change later), 1,090 conversations that search for a memory and, when it is among the first
five, touch it (or boost it, or observe it in another context), and 125 questions asked at the
end, each labelled with the memory that answers it (or none). A fifteenth blind probe wrote it
through the public API only (docs/decay.md, "Kept for good").

Each user runs in a fresh SQLite store with a `FixedClock` moved day by day; `gc` runs on day
15 of every 30 (`--gc delete`, the default) or never (`--gc none`). Prints, per kind of
question, how often the expected memory came first, in the top 3, in the top 10, or had been
deleted by gc; and how many of the questions about nothing told found nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engram import Draft, Engram, FixedClock
from retrieval import parse_settings

DATA = Path(__file__).resolve().parent / "data" / "forgetting_year" / "users.json"
GC_EVERY, GC_DAY = 30, 15
USED_FROM_TOP = 5  # a conversation uses a memory it finds among this many
KINDS = ("vital_unused", "vital_used", "changed", "recent", "lasting", "pref", "event")


@dataclass
class Tally:
    """Where each question's memory ended up, by kind of question."""

    found: dict[str, list[int | None]] = field(default_factory=lambda: defaultdict(list))
    deleted: Counter[str] = field(default_factory=Counter)
    never_told: list[bool] = field(default_factory=list)  # found nothing
    vital_deleted: int = 0
    vital: int = 0


def run_user(user: dict[str, Any], gc: bool, keep_vital: bool, settings: dict[str, Any]) -> Tally:
    start = datetime.fromisoformat(user["start"])
    clock = FixedClock(start)
    tally = Tally()
    saves: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for m in user["memories"]:
        saves[m["day"]].append(m)
    uses: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for u in user["usage"]:
        uses[u["day"]].append(u)
    ids: dict[str, str] = {}
    deleted: set[str] = set()
    with (
        tempfile.TemporaryDirectory() as folder,
        Engram.open(str(Path(folder) / "store.db"), clock=clock, **settings) as mem,
    ):
        for day in range(user["days"] + 1):
            today = start + timedelta(days=day)
            if clock() < today:
                clock.advance(today - clock())
            todays = saves.get(day, [])
            drafts = [
                Draft(m["text"], tags=m["tags"], keep=True if keep_vital and m["vital"] else None)
                for m in todays
            ]
            if user["onboarding"] == "save_many" and len(drafts) > 1:  # told all at once
                clock.advance(timedelta(minutes=3 * len(drafts)))
                saved = mem.save_many(
                    [
                        replace(d, created_at=today + timedelta(minutes=3 * i))
                        for i, d in enumerate(drafts)
                    ]
                )
            else:  # one conversation after another
                saved = []
                for d in drafts:
                    clock.advance(timedelta(minutes=3))
                    saved.append(mem.save_result(d).memory)
            ids.update((m["key"], s.id) for m, s in zip(todays, saved, strict=True))
            for use in uses.get(day, []):
                clock.advance(timedelta(minutes=7))
                _use(mem, use, ids.get(use["key"]))
            if gc and day % GC_EVERY == GC_DAY:
                gone = mem.gc(dry_run=False).memory_ids
                deleted.update(key for key, i in ids.items() if i in gone)
        for q in user["questions"]:
            hits = [h.memory.id for h in mem.search(q["text"], limit=10)]
            if q["key"] is None:
                tally.never_told.append(not hits)
                continue
            wanted = ids[q["key"]]
            tally.found[q["kind"]].append(hits.index(wanted) + 1 if wanted in hits else None)
            tally.deleted[q["kind"]] += q["key"] in deleted
    vital = {m["key"] for m in user["memories"] if m["vital"]}
    tally.vital, tally.vital_deleted = len(vital), len(vital & deleted)
    return tally


def _use(mem: Engram, use: dict[str, Any], ident: str | None) -> None:
    """A conversation that needs one memory: searched for, used if found among the first
    `USED_FROM_TOP` (touched, boosted, or observed in the contexts `how` names)."""
    hits = [h.memory.id for h in mem.search(use["query"], limit=10)]
    if ident is None or ident not in hits[:USED_FROM_TOP]:
        return
    how = use["how"]
    if how.startswith("observe:"):
        mem.observe([ident], context_tags=how.split(":", 1)[1].split(","))
    else:
        mem.touch(ident, boost=how == "boost")


def report(tallies: list[Tally]) -> None:
    print("| kind | n | 1st | top 3 | top 10 | deleted by gc |")
    print("|---|---|---|---|---|---|")
    every: list[int | None] = []
    gone = 0
    for kind in KINDS:
        found = [p for t in tallies for p in t.found.get(kind, [])]
        deleted = sum(t.deleted[kind] for t in tallies)
        every += found
        gone += deleted
        print(
            f"| {kind} | {len(found)} | {_within(found, 1)} | {_within(found, 3)} | "
            f"{_within(found, 10)} | {deleted} |"
        )
    print(
        f"| all | {len(every)} | {_within(every, 1)} | {_within(every, 3)} | "
        f"{_within(every, 10)} | {gone} |"
    )
    told = [n for t in tallies for n in t.never_told]
    print(f"\nquestions about nothing told that found nothing: {sum(told)} of {len(told)}")
    vital = sum(t.vital for t in tallies)
    print(f"vital facts deleted by gc: {sum(t.vital_deleted for t in tallies)} of {vital}")


def _within(positions: list[int | None], k: int) -> int:
    return sum(p is not None and p <= k for p in positions)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gc", choices=("delete", "none"), default="delete")
    parser.add_argument(
        "--keep-vital", action="store_true", help="save the facts labelled vital with keep=True"
    )
    parser.add_argument("--users", help="only these users, by name, comma-separated")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args(argv)
    users = json.loads(args.data.read_text())["users"]
    if args.users:
        wanted = set(args.users.split(","))
        unknown = wanted - {u["name"] for u in users}
        if unknown:
            parser.error(f"--users: no user named {', '.join(sorted(unknown))}")
        users = [u for u in users if u["name"] in wanted]
    settings = parse_settings(args.set)
    tallies = []
    for user in users:
        print(f"{user['name']}: {user['days']} days", file=sys.stderr, flush=True)
        tallies.append(run_user(user, args.gc == "delete", args.keep_vital, settings))
    report(tallies)


if __name__ == "__main__":
    main()
