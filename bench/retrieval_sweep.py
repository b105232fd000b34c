#!/usr/bin/env python3
"""How the search defaults were chosen: a sweep of the ranking settings, validated across
conversations.

    python bench/retrieval_sweep.py --data ../shared/data/realtalk \\
        --data ../shared/data/madial-bench-en --workdir /tmp/engram-sweep
    python bench/retrieval_sweep.py --data ... --only search_context_radius   # some settings

Every configuration searches the same stores (built once, as in bench/retrieval.py). The
configurations are the defaults and, one setting at a time, the values around them. The
objective of a configuration on some questions is the mean R@10 over the data sets (each set
weighs the same). Two folds: the even-numbered conversations of each multi-conversation set
(and the even-numbered questions of a one-conversation set, MADial) against the odd ones. The
table shows, for each fold, the configuration that scores best on it and what that
configuration scores on the *other* fold — the number to trust — next to the defaults.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conversations import Conversation, Scored, load
from engram.config import Settings
from retrieval import ask, ingest, store_path

SWEPT: dict[str, tuple[float, ...]] = {
    "search_semantic_weight": (0.3, 0.4, 0.5, 0.6),
    "search_semantic_min_z": (1.0, 1.5, 2.0, 2.5, 3.0),
    "search_context_weight": (0.0, 0.2, 0.3, 0.4, 0.5),
    "search_context_radius": (2, 3, 4, 5),
    "search_diversity": (0.0, 0.15, 0.3),
    "search_decay_weight": (0.0, 0.1, 0.2, 0.3),
    "review_blend_ratio": (0.0, 0.3),
    "search_vector_candidates": (30, 50, 100),
    "search_expansion_weight": (0.0, 0.3, 0.6, 0.9, 1.2),
    "search_expansion_terms": (5, 10, 15),
    "search_date_weight": (0.0, 0.25, 0.5, 1.0, 2.0),
    "search_question_discount": (0.0, 0.1, 0.2, 0.3),
    "search_reply_weight": (0.0, 0.2, 0.4, 0.6),
    "search_listener_discount": (0.0, 0.2, 0.4, 0.6),
    "search_amount_weight": (0.0, 0.25, 0.5, 1.0),
    "search_text_coverage": (0.0, 0.5, 1.0, 1.5),
}


def defaults() -> dict[str, Any]:
    fields = Settings.model_fields
    return {name: fields[name].default for name in SWEPT}


def configurations(only: Sequence[str] = ()) -> list[dict[str, Any]]:
    base = defaults()
    out = [base]
    for name, values in SWEPT.items():
        if not only or name in only:
            out += [{**base, name: v} for v in values if v != base[name]]
    return out


Key = tuple[int, int, int]  # (set, conversation, question)


def run(
    sets: Sequence[list[Conversation]], workdir: Path, config: dict[str, Any]
) -> dict[Key, Scored]:
    out: dict[Key, Scored] = {}
    for s, conversations in enumerate(sets):
        for c, conv in enumerate(conversations):
            for q, row in enumerate(ask(conv, store_path(workdir, conv), config)):
                out[(s, c, q)] = row
    return out


def fold_of(key: Key, sets: Sequence[list[Conversation]]) -> int:
    s, c, q = key
    return (c if len(sets[s]) > 1 else q) % 2


def objective(rows: dict[Key, Scored], keys: list[Key]) -> float:
    by_set: dict[int, list[float]] = {}
    for key in keys:
        by_set.setdefault(key[0], []).append(rows[key].recall[-1])
    return sum(sum(v) / len(v) for v in by_set.values()) / len(by_set)


def describe(config: dict[str, Any]) -> str:
    base = defaults()
    changed = {k: v for k, v in config.items() if v != base[k]}
    return ", ".join(f"{k.removeprefix('search_')}={v}" for k, v in changed.items()) or "defaults"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, action="append", required=True)
    parser.add_argument("--workdir", type=Path, help="keep the stores here (reused if present)")
    parser.add_argument(
        "--only", action="append", default=[], choices=sorted(SWEPT), help="sweep only these"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="engram-sweep-") as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        sets = [load(path) for path in args.data]
        for conversations in sets:
            for conv in conversations:
                ingest(conv, store_path(workdir, conv))
        configs = configurations(args.only)
        results = []
        for i, config in enumerate(configs):
            results.append(run(sets, workdir, config))
            print(f"[{i + 1}/{len(configs)}] {describe(config)}", file=sys.stderr)
    keys = list(results[0])
    folds = [[k for k in keys if fold_of(k, sets) == f] for f in (0, 1)]
    names = [p.name for p in args.data]
    print("| configuration | " + " | ".join(f"{n} R@10" for n in names) + " | fold 0 | fold 1 |")
    print("|---|" + "---|" * (len(names) + 2))
    for config, rows in zip(configs, results, strict=True):
        per_set = [objective(rows, [k for k in keys if k[0] == s]) for s in range(len(sets))]
        cells = [f"{v:.3f}" for v in per_set] + [f"{objective(rows, f):.3f}" for f in folds]
        print(f"| {describe(config)} | " + " | ".join(cells) + " |")
    print()
    for train, test in ((0, 1), (1, 0)):
        best = max(range(len(configs)), key=lambda i: objective(results[i], folds[train]))
        print(
            f"chosen on fold {train}: {describe(configs[best])} — fold {test}: "
            f"{objective(results[best], folds[test]):.3f} "
            f"(defaults: {objective(results[0], folds[test]):.3f})"
        )


if __name__ == "__main__":
    main()
