#!/usr/bin/env python3
"""Clustering a store of an assistant's notes of the user ("User works as a nurse…").

    python bench/consolidate_notes.py --n 800
    python bench/consolidate_notes.py --n 3000 --data ../shared/data/realtalk

Consolidation compares a note of the user by the vector of its words in the first person
(`engram.services.cluster_vectors`): embedded when clustering runs, kept for the life of the
process, and each such note searched again on every run. This measures what that costs, and
what it finds. Of the turns that speak in the first person in the chats under bench/data (or
`--data`), N are saved (fixed seed): three quarters as an assistant's notes (the turn told of
the user, "User work as a nurse…"), one quarter as said, and for one turn in forty the note
and the turn as said (the same fact both ways). Then, on a throwaway SQLite store:

* clustering every active memory in a new process's state (`Engram.clusters`, a fresh
  `Engram`), twice in the same instance (the second run incremental), and once more after 1 %
  of the memories changed;
* how many of the planted pairs (a note and its turn) one cluster holds together.

Prints one table; wall-clock seconds on this machine, one run each.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import conversations
from engram import Draft, Engram
from engram.core.own_name import told_the_other_way
from engram.core.text import unlabelled

DATA = Path(__file__).resolve().parent / "data"
SEED = 7


def first_person_turns(data: Path) -> list[str]:
    """Distinct turns of the chats under `data` that speak in the first person."""
    said: dict[str, None] = {}
    folders = {p.parent for p in data.glob("**/*.json") if p.parent != DATA}
    for folder in sorted(folders):
        try:
            chats = conversations.load(folder)
        except (KeyError, ValueError, TypeError):
            continue  # not a set of chats
        for chat in chats:
            for turn in chat.turns:
                text = unlabelled(turn.content).strip()
                told = told_the_other_way(text)
                if told is not None and told.startswith("User") and 6 <= len(text.split()) <= 40:
                    said[text] = None
    return list(said)


def plant(n: int, data: Path) -> tuple[list[Draft], list[tuple[int, int]]]:
    """The drafts to save, and the planted pairs (positions of a note and its turn)."""
    rng = random.Random(SEED)
    turns = first_person_turns(data)
    if len(turns) < n:
        sys.exit(f"only {len(turns)} first-person turns under {data}; ask for fewer")
    chosen = rng.sample(turns, n)
    drafts: list[Draft] = []
    pairs: list[tuple[int, int]] = []
    for i, text in enumerate(chosen):
        if i % 4 == 3:
            drafts.append(Draft(content=text))
            continue
        drafts.append(Draft(content=told_the_other_way(text) or text))
        if i % 40 == 0:
            pairs.append((len(drafts) - 1, len(drafts)))
            drafts.append(Draft(content=text))
    return drafts, pairs


def run(n: int, data: Path) -> dict[str, float]:
    drafts, pairs = plant(n, data)
    with tempfile.TemporaryDirectory() as tmp:
        url = str(Path(tmp) / "notes.db")
        with Engram.open(url, save_duplicates="keep") as mem:
            saved = mem.save_many(drafts)
            mem.flush()
        ids = [m.id for m in saved]
        with Engram.open(url, save_duplicates="keep") as mem:
            started = time.perf_counter()
            found = mem.clusters().clusters
            cold = time.perf_counter() - started
            started = time.perf_counter()
            mem.clusters()
            warm = time.perf_counter() - started
            rng = random.Random(SEED)
            for ident in rng.sample(ids, max(1, len(ids) // 100)):
                mem.update(ident, content=mem.get(ident).content + " (edited)")
            mem.flush()
            started = time.perf_counter()
            mem.clusters()
            changed = time.perf_counter() - started
        together = {frozenset(c.member_ids) for c in found}
        held = sum(any({ids[a], ids[b]} <= members for members in together) for a, b in pairs)
    return {
        "memories": len(drafts),
        "notes": sum(1 for d in drafts if d.content.startswith("User")),
        "cold": cold,
        "warm": warm,
        "changed": changed,
        "pairs": len(pairs),
        "held": held,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[800])
    parser.add_argument("--data", type=Path, default=DATA, help="a folder of chats")
    args = parser.parse_args()
    print(
        "| N | memories | notes | clusters, cold s | again s | after 1 % changed s | pairs held |"
    )
    print("|---|---|---|---|---|---|---|")
    for n in args.n:
        r = run(n, args.data)
        print(
            f"| {n:,} | {r['memories']:,.0f} | {r['notes']:,.0f} | {r['cold']:.2f} | "
            f"{r['warm']:.2f} | {r['changed']:.2f} | {r['held']:.0f} / {r['pairs']:.0f} |"
        )


if __name__ == "__main__":
    main()
