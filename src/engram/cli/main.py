"""The `engram` console script: global options, and every subcommand registered on one group.

Each command builds the App once (`build_app(load_settings(...))`), does one thing, closes it,
and prints either rich tables (people) or exactly one JSON document (`--json`, scripts).
Domain errors become a single `Error: ...` line on stderr with exit code 1; logs go to stderr.
"""

from __future__ import annotations

import io
import signal
import sys

import click

from engram.about import DISTRIBUTION
from engram.cli import (
    activation,
    admin,
    consolidate,
    embed,
    graph,
    maintenance,
    memories,
    transfer,
    vault,
)
from engram.cli.common import EngramGroup, State, fields_as_typed
from engram.cli.demo import demo


@click.group(cls=EngramGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--store",
    metavar="PATH_OR_URL",
    default=None,
    help="A store file, or a sqlite:///, jsonl:/// or postgresql:// URL "
    "(overrides ENGRAM_STORAGE_PATH).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of tables.")
# The installed distribution's version: importing `engram` itself would point up the layers.
@click.version_option(package_name=DISTRIBUTION, prog_name="engram")
@click.pass_context
def cli(ctx: click.Context, store: str | None, as_json: bool) -> None:
    """Engram: local-first memory for AI assistants. Memories decay unless reinforced."""
    ctx.obj = State(store=store, as_json=as_json)


for command in (*memories.COMMANDS, *admin.COMMANDS, *graph.COMMANDS, *vault.COMMANDS, demo):
    cli.add_command(fields_as_typed(command))
for command in (*embed.COMMANDS, *consolidate.COMMANDS, *activation.COMMANDS):
    cli.add_command(fields_as_typed(command))
for command in (*maintenance.COMMANDS, *transfer.COMMANDS):  # storage upkeep, migrate/import/export
    cli.add_command(fields_as_typed(command))


def main() -> None:
    """The command line, once loaded (`engram.cli.entry` is the console script)."""
    if sys.stdout is None:
        # Started with stdout closed (`engram stats >&-`): tables ended in a traceback and
        # `--json` results were dropped with exit 0, after the command had done its work.
        if sys.stderr is not None:
            print("Error: standard output is closed: nowhere to write the result", file=sys.stderr)
        sys.exit(1)
    _speak_utf8()
    terminated = _stop_on_sigterm()
    try:
        cli(prog_name="engram")
    except SystemExit:
        if terminated:
            sys.exit(128 + signal.SIGTERM)  # what a shell expects of a command it terminated
        raise


def _stop_on_sigterm() -> list[int]:
    """SIGTERM (`kill`, `timeout`, a service manager stopping a job) stops a command as Ctrl-C
    does, through its clean-up: Python's default ends the process at once, and an export to
    a file killed that way left its temporary file beside the target. The list is filled with
    the signal's number when it came."""
    came: list[int] = []

    def stop(signum: int, frame: object) -> None:
        came.append(signum)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    return came


def _speak_utf8() -> None:
    """Output piped or redirected is UTF-8, whatever the locale: on Windows Python writes it in
    the ANSI code page, and any memory in another script ended `--json ... | jq` or `export >
    file` with a UnicodeEncodeError traceback. A terminal that cannot show a character gets
    its escape instead."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if encoding == "utf8" or not isinstance(stream, io.TextIOWrapper):
            continue
        if stream.isatty():
            stream.reconfigure(errors="backslashreplace")
        else:
            stream.reconfigure(encoding="utf-8")


if __name__ == "__main__":
    main()
