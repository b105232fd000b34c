#!/usr/bin/env python3
"""How long the text helpers a save runs take on long inputs of one kind, up to the 50,000
characters a content may hold: the statement key that finds repeats
(`engram.core.merge.statement_key`) and what a save keeps of a request
(`engram.core.keep_request.memory_content`).

    python bench/long_inputs.py

A helper that looks again at the whole token for each of its characters grows with the
square of its length: a 49,000-character run of marks took 101 s to save, and 12,000
characters of minified JSON made 144 million calls (a probe). A linear helper takes about
twice as long for twice the size. Prints the median of five runs per input and size, in
milliseconds (the inputs are fixed: no seed needed).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

from activation_speed import median_ms
from engram.core.keep_request import memory_content
from engram.core.merge import statement_key

INPUTS: dict[str, Callable[[int], str]] = {
    "marks, then a word": lambda n: "!" * (n - 2) + " x",
    "minified JSON": lambda n: json.dumps(
        {f"key{i}": i for i in range(n // 8)}, separators=(",", ":")
    )[:n],
    "a long word in marks": lambda n: "(" + "a" * (n - 2) + ")",
    "prose": lambda n: ("The standup is at nine, in room 4B. " * (n // 36 + 1))[:n],
}
HELPERS: dict[str, Callable[[str], object]] = {
    "statement_key": statement_key,
    "memory_content": memory_content,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2_000, 8_000, 16_000, 49_000])
    args = parser.parse_args()
    print("| input | helper | " + " | ".join(f"{n:,} chars" for n in args.sizes) + " |")
    print("|---|---|" + "---|" * len(args.sizes))
    for name, make in INPUTS.items():
        for helper, run in HELPERS.items():
            cells = [median_ms(run, make(size)) for size in args.sizes]
            print(f"| {name} | {helper} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
