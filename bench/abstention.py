#!/usr/bin/env python3
"""Does search find a paraphrase, and find nothing when nothing stored is about the question?

    python bench/abstention.py
    python bench/abstention.py --set search_semantic_min_z=2.5   # any setting
    python bench/abstention.py --notes   # the facts as vault notes, asked by search_unified

The recall benchmarks (bench/retrieval.py) ask only questions that have an answer, so a search
that returns something for everything scores well there. This one saves eighteen short personal
and project facts, the kind an assistant keeps, in a fresh SQLite store and asks two kinds of
questions through the public Python API: paraphrases that share no word with the fact they are
about (it should come first), and everyday questions about nothing stored (the answer should be
empty). The facts and questions were written for this benchmark, not taken from a data set.
Prints how many of each came out right, and each miss.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engram import Engram
from retrieval import parse_settings

Asker = Callable[[str], list[str]]  # a question -> the names of the facts found, best first

FACTS = {
    "cat": "I have a cat named Miso",
    "sister": "My sister Ana is visiting in January",
    "berlin": "I live in Berlin",
    "coffee": "My favourite drink is coffee",
    "mongo": "We decided to use MongoDB for Atlas",
    "portuguese": "I started learning Portuguese",
    "concise": "Prefers concise answers with the code example first, explanation after.",
    "neovim": "Uses Neovim with the LazyVim distribution; no VS Code suggestions.",
    "billing": "The billing API allows 500 requests per minute per key.",
    "wifi": "The Lisbon office Wi-Fi is slow on Monday mornings.",
    "peanut": "Allergic to peanuts: never suggest recipes or restaurants that use them.",
    "flight": "The flight to Lisbon leaves at 9am",
    "postgres": "Decided on PostgreSQL 16 for Atlas",
    "manager": "Priya is my manager since March",
    "marathon": "Training for the Valencia marathon in December",
    "vegetarian": "My partner Tom is vegetarian",
    "deploy": "Deploys happen on Tuesdays after the standup",
    "bike": "Sold the old Golf and bought an electric bike",
}
# Each question with the facts that answer it (any of them first counts).
PARAPHRASES = [
    ("which database did we pick", {"postgres", "mongo"}),
    ("food restrictions", {"peanut", "vegetarian"}),
    ("when does my plane depart", {"flight"}),
    ("what pets do I have", {"cat"}),
    ("what city am I based in", {"berlin"}),
    ("which languages am I studying", {"portuguese"}),
    ("what do I like to drink", {"coffee"}),
    ("who is my boss", {"manager"}),
    ("what race am I preparing for", {"marathon"}),
    ("how do I get around town", {"bike"}),
    ("what editor do I use", {"neovim"}),
    ("rate limit of the payments endpoint", {"billing"}),
    ("when do we ship to production", {"deploy"}),
    ("family coming to stay", {"sister"}),
    ("internet problems at work", {"wifi"}),
    ("how should you format your replies", {"concise"}),
]
OFF_TOPIC = [
    "how do I reverse a list in python?",
    "what is the capital of Australia?",
    "tell me a joke",
    "what's my dentist's phone number?",
    "zebra migration patterns in Kenya",
    "xyzzy plugh frobnicate",
    "lorem ipsum dolor sit amet",
    "quantum chromodynamics lattice gluons",
    "how tall is mount everest",
    "recommend a good horror movie",
    "what's the weather tomorrow",
    "explain photosynthesis",
    "my grandmother's maiden name",
    "best way to clean a cast iron pan",
    "who won the 1998 world cup",
    "how many moons does jupiter have",
    "translate hello into japanese",
    "what's my blood type",
    "the plot of hamlet",
    "how to fix a leaking faucet",
]


@contextmanager
def ask_memories(workdir: Path, settings: dict[str, Any]) -> Iterator[Asker]:
    """Each fact saved as a memory; a question asked with `search`."""
    with Engram.open(str(workdir / "abstention.db"), **settings) as mem:
        names = {mem.save(text).id: name for name, text in FACTS.items()}
        yield lambda question: [names[h.memory.id] for h in mem.search(question, limit=3)]


@contextmanager
def ask_notes(workdir: Path, settings: dict[str, Any]) -> Iterator[Asker]:
    """Each fact a vault note named after it (`cat.md`), no memories; a question asked with
    `search_unified`, whose hits are then notes alone."""
    vault = workdir / "vault"
    vault.mkdir()
    for name, text in FACTS.items():
        (vault / f"{name}.md").write_text(text + "\n", encoding="utf-8")
    with Engram.open(str(workdir / "abstention.db"), vault_path=str(vault), **settings) as mem:
        mem.index_ltm()

        def ask(question: str) -> list[str]:
            hits = mem.search_unified(question, limit=3).hits
            return [Path(h.path).stem for h in hits if h.path is not None]

        yield ask


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument(
        "--notes", action="store_true", help="the facts as vault notes, asked by search_unified"
    )
    args = parser.parse_args()
    misses: list[str] = []
    opened = ask_notes if args.notes else ask_memories
    with (
        tempfile.TemporaryDirectory() as workdir,
        opened(Path(workdir), parse_settings(args.set)) as ask,
    ):
        first = 0
        for question, answers in PARAPHRASES:
            found = ask(question)
            first += bool(found) and found[0] in answers
            if not found or found[0] not in answers:
                misses.append(f"paraphrase {question!r}: {found or 'nothing'}")
        empty = 0
        for question in OFF_TOPIC:
            found = ask(question)
            empty += not found
            if found:
                misses.append(f"off-topic {question!r}: {found}")
    print("| questions | n | right |")
    print("|---|---|---|")
    print(f"| paraphrase: its fact first | {len(PARAPHRASES)} | {first} |")
    print(f"| off-topic: nothing found | {len(OFF_TOPIC)} | {empty} |")
    for miss in misses:
        print(f"  {miss}")


if __name__ == "__main__":
    main()
