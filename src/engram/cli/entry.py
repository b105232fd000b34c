"""The console script's entry point (`engram = engram.cli.entry:main`).

Loading the command line takes most of a second (click, rich, pydantic, numpy, every command):
a Ctrl-C in that time, before click handles it, ended in a Python traceback with exit code 130.
Here nothing is loaded yet (the `engram` package imports its names on first use), so an
interrupted start ends as an interrupted command does: `Aborted!` and exit code 1.
"""

from __future__ import annotations

import sys


def main() -> None:
    try:
        from engram.cli.main import main as run
    except KeyboardInterrupt:
        sys.stderr.write("\nAborted!\n")
        raise SystemExit(1) from None
    run()
