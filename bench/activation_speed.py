#!/usr/bin/env python3
"""How long the activation rules take on long messages (`engram.core.intent.classify`).

    python bench/activation_speed.py
    python bench/activation_speed.py --sizes 2000 4000 8000   # an older version: smaller sizes

A rule of the form "a trigger, any text, then a word that may not come" is tried again from
every later trigger when the word does not come: time grows with the square (or cube) of the
message's length. Each message below repeats a piece that starts such a rule up to the size;
a linear classifier takes about twice as long for twice the size. Prints the median of five
runs per message and size, in milliseconds (the inputs are fixed: no seed needed).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from engram.core.intent import classify

MESSAGES = {
    "prose, late question": (
        "The standup is at nine and the repo is on GitHub. ",
        " Questions? Thanks.",
    ),
    "the budget is ...?": ("the budget is ", "? x"),
    "what ... (no 'I said')": ("what ", ""),
    "my name ... (no verb)": ("my name ", ""),
    "name is aaa...?": ("a", "? x"),
    "told you ... (no ?)": ("told you ", ""),
    "What my x my x ... (no ?)": ("my x ", ""),
    "we migrated the ... (no 'to')": ("we migrated the ", ""),
    # marks of punctuation alone: a rule that lets a clause open after any of them was tried
    # again from each (20,000 dots took 100 s)
    "!!!... (punctuation only)": ("!", ""),
    "., ., ... (marks and spaces)": ("., ", ""),
    # words that may open or end a message, over and over: each rule that reads on to the end
    # was tried again after each ("hi btw " at 49,000 characters: 25 s)
    "hi btw hi btw ... (openers)": ("hi btw ", ""),
    "Guess what? ... (lead-ins)": ("Guess what? ", ""),
    "lol lol ... (chat tail)": ("lol ", "I'm vegan"),
    # facts told without the user as subject, each before a late question: a rule that looks
    # ahead for no "?" to the end was tried again from each (0.75 s at 58,000 characters)
    "a new baker named Luis ...?": ("a new baker named Luis ", "?"),
    "we need to pay every day ...?": ("we need to pay every day ", "?"),
    # a rule that reads from the start of every clause (after "and", ", ", ". "), and one
    # that reads a confirmation's words up to its approval
    "and x is due and x is due ...": ("and x is due ", ""),
    "yes a, yes a, ... good": ("yes a, ", "good"),
    # parts between commas and dashes, each read for a request beside a fact, and a request
    # read on for the user's favourite
    "a, b - c a, b - c ...?": ("a, b - c ", "?"),
    "can you my favourite ...": ("can you my favourite ", ""),
}


def message(piece: str, end: str, size: int, name: str) -> str:
    if name.startswith("name is"):
        return "name is " + piece * (size - 12) + end
    if name.startswith("What my"):
        return "What " + piece * max(1, (size - 5) // len(piece)) + end
    return piece * max(1, (size - len(end)) // len(piece)) + end


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2_000, 8_000, 16_000, 49_000])
    args = parser.parse_args()
    print("| message | " + " | ".join(f"{n:,} chars" for n in args.sizes) + " |")
    print("|---|" + "---|" * len(args.sizes))
    for name, (piece, end) in MESSAGES.items():
        cells = [median_ms(classify, message(piece, end, size, name)) for size in args.sizes]
        print(f"| {name} | " + " | ".join(cells) + " |")


def median_ms(run: Callable[[str], object], text: str, runs: int = 5) -> str:
    """The median time of `runs` calls of `run` on `text`, in milliseconds, as a table cell."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run(text)
        times.append((time.perf_counter() - start) * 1000)
    return f"{statistics.median(times):.1f}"


if __name__ == "__main__":
    main()
