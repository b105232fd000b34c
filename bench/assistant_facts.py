#!/usr/bin/env python3
"""Recall on the facts an assistant saves, through Engram's public Python API.

    python bench/assistant_facts.py
    python bench/assistant_facts.py --set search_context_weight=0   # any setting
    python bench/assistant_facts.py --notes --first-person   # "User …" notes, "my …" queries

The conversational sets (bench/retrieval.py) save every turn of a chat; an assistant over MCP
saves short facts in the third person instead ("Allergic to shellfish", "Prefers pytest over
unittest") and searches them with queries it writes itself ("food the user can't eat"). This set
(bench/data/assistant_facts.json, four made-up users, 42-45 facts each over six months in 7
sessions, 100 queries) was written before any search was run. For each user: one fresh SQLite
store, each fact saved with `Engram.save` at its own time in its session's episode; each query
one `Engram.search(query, limit=10)`. Prints, per query type, R@1/R@5/R@10 (the share of a
query's gold facts in the top k) and MRR for Engram with its defaults (or `--set` overrides)
and for BM25 alone on the same stores; how many of the questions about nothing stored find
nothing; and how often the current fact ranks above the outdated ones it replaced.

`--notes` rewrites the facts that open with what the user does or is as notes naming them
("User works as…"), as many assistants write them; `--first-person` asks each query in the
user's own words ("where does I live now"), as `analyze_for_recall` passes a user's message on.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engram import Draft, Engram, FixedClock
from engram.core.own_name import in_the_users_words
from retrieval import BM25_ONLY, parse_settings

DATA = Path(__file__).resolve().parent / "data" / "assistant_facts.json"
NOW = datetime(2026, 12, 3, 17, 0, tzinfo=UTC)  # the clock of every search: fixed, reproducible
K = (1, 5, 10)
TYPES = ("paraphrase", "indirect", "multi", "temporal")


def build(user: dict[str, Any], path: Path) -> dict[str, str]:
    """The user's store at `path`; returns Engram's id for each fact's id in the data."""
    ids: dict[str, str] = {}
    facts = sorted(user["memories"], key=lambda m: -m["days_ago"])
    with Engram.open(str(path), clock=FixedClock(NOW)) as mem:
        for fact in facts:
            saved = NOW - timedelta(days=fact["days_ago"])
            draft = Draft(content=fact["text"], created_at=saved, episode=fact["episode"])
            ids[mem.save_result(draft).memory.id] = fact["id"]
    return ids


def ask(
    user: dict[str, Any], path: Path, ids: dict[str, str], settings: dict[str, Any]
) -> dict[str, list[str]]:
    """Each query's ranked fact ids."""
    with Engram.open(str(path), clock=FixedClock(NOW), **settings) as mem:
        return {
            q["qid"]: [ids.get(h.memory.id, "?") for h in mem.search(q["query"], limit=max(K))]
            for q in user["queries"]
        }


def scores(queries: Sequence[dict[str, Any]], ranked: dict[str, list[str]]) -> dict[str, Any]:
    rows: dict[str, list[tuple[float, ...]]] = defaultdict(list)
    empty = current_first = temporal = 0
    for q in queries:
        found = ranked[q["qid"]]
        if q["type"] == "none":
            empty += not found
            continue
        gold = set(q["gold"])
        first = next((i + 1 for i, f in enumerate(found) if f in gold), None)
        row = (
            *(len(gold.intersection(found[:k])) / len(gold) for k in K),
            1 / first if first else 0,
        )
        rows[q["type"]].append(row)
        rows["overall"].append(row)
        if "current" in q:
            temporal += 1
            place = {f: i for i, f in enumerate(found)}
            here = place.get(q["current"])
            current_first += here is not None and all(
                place.get(o, len(found)) > here for o in q["outdated"]
            )
    means = {t: [sum(col) / len(r) for col in zip(*r, strict=True)] for t, r in rows.items()}
    nonsense = sum(q["type"] == "none" for q in queries)
    return {
        "means": means,
        "n": {t: len(r) for t, r in rows.items()},
        "empty": (empty, nonsense),
        "current_first": (current_first, temporal),
    }


def table(ours: dict[str, Any], bm25: dict[str, Any]) -> str:
    cols = [*(f"R@{k}" for k in K), "MRR"]
    head = ["type", "n", *(f"Engram {c}" for c in cols), *(f"BM25 {c}" for c in cols)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for t in (*TYPES, "overall"):
        if t in ours["means"]:
            values = [*ours["means"][t], *bm25["means"][t]]
            lines.append(
                f"| {t} | {ours['n'][t]} | " + " | ".join(f"{v:.3f}" for v in values) + " |"
            )
    for label, key in (
        ("about nothing stored, nothing found", "empty"),
        ("current fact above the outdated ones", "current_first"),
    ):
        (a, n), (b, _) = ours[key], bm25[key]
        lines.append(f"\n{label}: Engram {a} of {n}, BM25 {b} of {n}")
    return "\n".join(lines)


# A fact that opens with what the user does or is, as a note opening with "User" says it.
_OF_THE_USER = re.compile(
    r"^(?:(?P<verb>(?:works|prefers|lives|uses|has|writes|runs|drinks|plays|loves|likes|hates"
    r"|wants|needs|takes|goes|is|was|commutes|speaks|reads|watches|trains|owns|drives|moved"
    r"|switched|started|got|began))|(?P<state>allergic|vegetarian|vegan|learning|training))\b",
    re.IGNORECASE,
)


def as_notes_of_the_user(users: list[dict[str, Any]]) -> None:
    """Each fact opening with what the user does or is written as a note naming them ("Works
    as a backend engineer…" as "User works as a backend engineer…", "Allergic to shellfish" as
    "User is allergic to shellfish"), as many assistants write them."""
    for user in users:
        for fact in user["memories"]:
            said = _OF_THE_USER.match(fact["text"])
            if said is not None:
                lead = "User is " if said["state"] else "User "
                fact["text"] = lead + fact["text"][0].lower() + fact["text"][1:]


def asked_by_the_user(users: list[dict[str, Any]]) -> None:
    """Each query in the user's own words ("where does the user live now" as "where does I
    live now", "this person" as "me"): what `analyze_for_recall` gives from the user's
    message."""
    for user in users:
        for query in user["queries"]:
            said = in_the_users_words(query["query"])
            said = re.sub(r"\bthis person\b", "me", said)
            query["query"] = re.sub(r"\bthe family\b", "my family", said)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument(
        "--notes", action="store_true", help='facts written as notes opening with "User"'
    )
    parser.add_argument(
        "--first-person", action="store_true", help="queries asked in the user's own words"
    )
    args = parser.parse_args()
    settings = parse_settings(args.set)
    users = json.loads(args.data.read_text())["users"]
    if args.notes:
        as_notes_of_the_user(users)
    if args.first_person:
        asked_by_the_user(users)
    queries = [q for u in users for q in u["queries"]]
    ours: dict[str, list[str]] = {}
    bm25: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="engram-facts-") as tmp:
        for user in users:
            path = Path(tmp) / f"{user['user']}.db"
            ids = build(user, path)
            ours |= ask(user, path, ids, settings)
            bm25 |= ask(user, path, ids, BM25_ONLY)
    print(f"### assistant facts: {len(queries)} queries, {len(users)} users\n")
    print(table(scores(queries, ours), scores(queries, bm25)))


if __name__ == "__main__":
    main()
