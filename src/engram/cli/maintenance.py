"""`engram maintenance stats|compact`: file statistics and compaction of a JSONL store."""

from __future__ import annotations

import click
from rich.console import Console
from rich.table import Table

from engram.cli.common import State, pass_state, say, sentence, show
from engram.core.wording import counted
from engram.services.storage_maintenance import (
    CompactionReport,
    StorageReport,
)


@click.group()
def maintenance() -> None:
    """Inspect and compact the store's files (JSONL stores)."""


@maintenance.command("stats")
@pass_state
def stats_command(state: State) -> None:
    """Counts, file sizes, dead lines (superseded versions, relations and vectors of deleted
    memories) and whether a compaction would help."""
    show(state, lambda app: app.storage.stats(), render_stats)


@maintenance.command("compact")
@pass_state
def compact_command(state: State) -> None:
    """Rewrite the files without their dead lines, moving none (in git: only removed lines).

    Atomic (temporary file, fsync, rename) and taken under the store's lock: clients using the
    store at the same time lose nothing and pick up the new files by themselves.
    """
    show(state, lambda app: app.storage.compact(), render_compaction)


def render_stats(out: Console, report: StorageReport) -> None:
    if not report.supported:
        say(out, sentence(report.message))
        return
    say(
        out,
        f"{report.location}: {counted(report.memories or 0, 'memory')}, "
        f"{counted(report.relations or 0, 'relation')}",
    )
    table = Table()
    for column in ("file", "bytes", "lines", "live", "tombstones", "dead"):
        table.add_column(column, justify="left" if column == "file" else "right")
    for f in report.files:
        table.add_row(
            f.name,
            f"{f.bytes:,}",
            f"{f.lines:,}",
            f"{f.live:,}",
            f"{f.tombstones:,}",
            f"{f.dead:,}",
        )
    out.print(table)
    say(out, sentence(report.message))


def render_compaction(out: Console, report: CompactionReport) -> None:
    if not report.supported or report.before is None or report.after is None:
        say(out, sentence(report.message))
        return
    before = sum(f.bytes for f in report.before.files)
    after = sum(f.bytes for f in report.after.files)
    say(
        out,
        f"Compacted {report.location}: {before:,} -> {after:,} bytes, "
        f"{report.before.dead_lines:,} dead lines dropped, "
        f"{counted(report.after.memories or 0, 'memory')} and "
        f"{counted(report.after.relations or 0, 'relation')} kept.",
    )


COMMANDS = (maintenance,)
