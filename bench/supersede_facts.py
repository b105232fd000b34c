#!/usr/bin/env python3
"""Which stored facts a statement of change supersedes, on what an assistant saves.

    python bench/supersede_facts.py
    python bench/supersede_facts.py --set save_supersedes=false     # any setting
    PYTHONPATH=OLD/src python bench/supersede_facts.py              # an older checkout's code

A save that says something changed ("I report to Rosa now") links itself to the facts it
replaces ("My manager is Dan Kim") by `supersedes` relations, and search lists the news first;
a link to a fact it does not replace buries that fact. This set (bench/data/
supersede_facts.json: 142 scenarios, 60 changes and 82 traps — restatements, additions,
someone else's change, a life fact named in passing, new things, plans, questions) was written
and labelled before any run. Each scenario: a fresh SQLite store, its earlier facts saved with
`Engram.save`, then its statement with `Engram.save_result`. Prints, per kind, the links that
are right and wrong, precision, recall, and the scenarios whose links are exactly the labelled
ones; `--list` prints every wrong and missed link too.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import engram
from engram import Draft, Engram
from retrieval import parse_settings

DATA = Path(__file__).resolve().parent / "data" / "supersede_facts.json"


def linked(scenario: dict[str, Any], settings: dict[str, Any], workdir: Path) -> set[int]:
    """The earlier facts (by index) the scenario's statement supersedes."""
    with Engram.open(str(workdir / "store.db"), **settings) as mem:
        ids = [mem.save(fact).id for fact in scenario["facts"]]
        mem.flush()
        result = mem.save_result(Draft(content=scenario["news"]))
    return {ids.index(i) if i in ids else -1 for i in result.supersedes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="another set of the same form")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--list", action="store_true", help="print every wrong and missed link")
    args = parser.parse_args()
    settings = parse_settings(args.set)
    scenarios = json.loads(args.data.read_text())["scenarios"]

    counts: dict[str, list[int]] = defaultdict(
        lambda: [0, 0, 0, 0, 0]
    )  # n, right, wrong, gold, exact
    wrong_links: list[str] = []
    for number, scenario in enumerate(scenarios):
        with tempfile.TemporaryDirectory() as tmp:
            found = linked(scenario, settings, Path(tmp))
        gold = set(scenario["replaces"])
        kind = scenario["kind"]
        for group in (kind, "changes" if gold else "traps", "all"):
            row = counts[group]
            row[0] += 1
            row[1] += len(found & gold)
            row[2] += len(found - gold)
            row[3] += len(gold)
            row[4] += found == gold
        facts = scenario["facts"]
        for i in sorted(found - gold):
            wrong_links.append(f"#{number} wrong: {scenario['news']!r} -> {facts[i]!r}")
        for i in sorted(gold - found):
            wrong_links.append(f"#{number} missed: {scenario['news']!r} -> {facts[i]!r}")

    print(f"engram: {Path(engram.__file__).parent}")
    print()
    print("| kind | n | right links | wrong links | precision | recall | exactly right |")
    print("|---|---|---|---|---|---|---|")
    order = ["all", "changes", "traps", *sorted(k for k in counts if "-" in k)]
    for group in order:
        n, right, wrong, gold_count, exact = counts[group]
        precision = f"{right / (right + wrong):.2f}" if right + wrong else "-"
        recall = f"{right / gold_count:.2f}" if gold_count else "-"
        print(f"| {group} | {n} | {right} | {wrong} | {precision} | {recall} | {exact} |")
    if args.list:
        print()
        print("\n".join(wrong_links))


if __name__ == "__main__":
    main()
