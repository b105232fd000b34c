"""`engram migrate`, `engram import cortexgraph|jsonl` and `engram export`: moving memories between
stores and formats (the work is done by `engram.services.transfer`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from engram.cli.common import (
    State,
    location_named,
    not_a_file,
    open_app,
    output,
    pass_state,
    progress_bar,
    say,
    sentence,
    write_file,
    write_through,
)
from engram.core.wording import counted
from engram.errors import ValidationError
from engram.services.transfer.common import BATCH, Skipped
from engram.services.transfer.cortexgraph import ImportReport, check_cortexgraph_dir
from engram.services.transfer.export import ExportCount, ExportSummary
from engram.services.transfer.migrate import MigrationReport
from engram.services.transfer.restore import STDIN, RestoreReport, read_export
from engram.services.transfer.service import refuse_missing_source

# The services name the two stores of a migration as the Python API does; the CLI's options.
_OPTIONS = {"source": "--from", "target": "--to"}


@click.command()
@click.option("--from", "source", required=True, metavar="URL_OR_PATH", help="Store to copy.")
@click.option("--to", "target", required=True, metavar="URL_OR_PATH", help="Store to copy into.")
@click.option(
    "--overwrite",
    is_flag=True,
    help="Replace memories the target already has (by id) with the source's; "
    "by default they are kept as they are.",
)
@click.option(
    "--batch", type=click.IntRange(1, 10_000), default=BATCH, show_default=True, help="Per write."
)
@pass_state
@click.pass_context
def migrate(
    ctx: click.Context, state: State, source: str, target: str, overwrite: bool, batch: int
) -> None:
    """Copy a whole store into another one, of any backend, and verify the copy.

    Memories keep every counter and timestamp; relations and vectors come along. Safe to re-run:
    memories the target already has are skipped (or replaced, with --overwrite). Exit code 1 if
    the verification finds a missing or different record.
    """
    try:
        with location_named("--from"):
            refuse_missing_source(source)  # before the target is opened (and so created)
        with (
            open_app(
                state,
                create=True,
                location_option="--to",
                storage_path=target,
                embedding_model="none",
            ) as app,
            progress_bar(state) as progress,
        ):
            report = app.transfer.migrate_from(
                source, overwrite=overwrite, batch=batch, progress=progress
            )
    except ValidationError as exc:
        reason = exc.reason.replace("the source", "--from")
        raise ValidationError(_OPTIONS.get(exc.field, exc.field), reason) from None
    output(state, report, lambda c: render_migration(c, report))
    if not report.verified:
        ctx.exit(1)


def render_migration(out: Console, report: MigrationReport) -> None:
    rows = [
        ("memories in the source", report.memories),
        ("copied", report.copied),
        ("already in the target, kept", report.skipped),
        ("already in the target, replaced", report.overwritten),
        ("relations", report.relations),
        *((f"vectors ({model})", n) for model, n in sorted(report.vectors.items())),
        ("memories in the target now", report.target_memories),
    ]
    out.print(_counts(f"{report.source} -> {report.target}", rows))
    say(
        out,
        f"checksum {report.checksum_source[:16]}… source, {report.checksum_target[:16]}… target",
    )
    say(out, sentence(report.message))
    for ident in report.differences:
        say(out, f"  differs: {ident}")


@click.group("import")
def import_() -> None:
    """Import memories from other memory systems, or an Engram export, into the store."""


@import_.command("cortexgraph")
@click.argument("directory", metavar="DIR", type=click.Path(path_type=Path))
@pass_state
def cortexgraph(state: State, directory: Path) -> None:
    """Import a CortexGraph (mnemex) JSONL data directory: its memories.jsonl and
    relations.jsonl, with their counters, times and tombstones.

    Memories whose id the store already has are left as they are, so it is safe to run again.
    Records that cannot be imported are listed with their file, line and reason.
    """
    check_cortexgraph_dir(directory.expanduser())  # before the store is opened (and created)
    with open_app(state, create=True) as app, progress_bar(state) as progress:
        report = app.transfer.import_cortexgraph(directory, progress=progress)
    output(state, report, lambda c: _print_transfer(c, report, _CORTEXGRAPH_COUNTS))


@import_.command("jsonl")
# Named `path` as the service names it: its errors say FILE (`fields_as_typed`).
@click.argument("path", metavar="FILE", type=click.Path(path_type=Path))
@pass_state
def jsonl(state: State, path: Path) -> None:
    """Read back an Engram export: what `engram export --format jsonl` writes and `engram
    backup` commits (engram/export.jsonl). This is how a backup is restored.

    Memories keep their ids, counters and times; those the store already has are left as
    they are, so it is safe to run again. Lines that cannot be read are listed with their
    number and reason. FILE `-` reads the export from standard input (`engram export |
    engram --store other.db import jsonl -`).
    """
    # Read before the store is opened (and so created).
    if str(path) == "-":
        if sys.stdin is None:  # started with stdin closed: a traceback
            raise ValidationError("FILE", "standard input is closed: nothing to read for -")
        data = read_export(STDIN, sys.stdin.buffer)
    else:
        data = read_export(path.expanduser())
    with open_app(state, create=True) as app, progress_bar(state) as progress:
        report = app.transfer.import_export(data, progress=progress)
    output(state, report, lambda c: _print_transfer(c, report, _EXPORT_COUNTS))
    if report.skipped or report.warning:
        # A restore that left records behind is not the store it saved: a script must see it
        # (it exited 0 having imported none of eight lines).
        click.get_current_context().exit(1)


# What the imports' reports count, by field name, in the words of their tables.
_LABELS = {
    "lines": "lines",
    "memory_lines": "lines in memories.jsonl",
    "memories": "memories (the last line of each id)",
    "imported": "imported",
    "already_present": "already in the store, kept",
    "deleted": "deleted (tombstones)",
    "superseded": "earlier lines of an id given again",
    "renamed": "given a new id (kept in meta.cortexgraph_id)",
    "relations": "relations",
    "relations_imported": "relations imported",
    "relations_present": "relations already in the store, kept",
    "relations_dropped": "relations to deleted or skipped memories",
    "skipped": "records skipped",
}


# The rows of each import's table, in order.
_CORTEXGRAPH_COUNTS = (
    "memory_lines memories imported already_present deleted superseded renamed relations "
    "relations_imported relations_present relations_dropped skipped"
)
_EXPORT_COUNTS = (
    "lines memories superseded imported already_present relations relations_imported "
    "relations_present skipped"
)


def _print_transfer(out: Console, report: ImportReport | RestoreReport, fields: str) -> None:
    """An import's counts (`fields`, names of the report's fields), the records it skipped and
    what it did, in a sentence."""
    rows = [(_LABELS[name], int(getattr(report, name))) for name in fields.split()]
    out.print(_counts(f"{report.source} -> {report.target}", rows))
    _say_skipped(out, report.skipped_records)
    say(out, sentence(report.message))


def _counts(title: str, rows: Sequence[tuple[str, int]]) -> Table:
    table = Table(title=title)
    table.add_column("")
    table.add_column("count", justify="right")
    for name, value in rows:
        table.add_row(name, f"{value:,}")
    return table


def _say_skipped(out: Console, records: Sequence[Skipped]) -> None:
    for s in records:
        where = f"{s.file} line {s.line}" + (f" ({s.id})" if s.id else "")
        say(out, f"skipped {where}: {s.reason}")


@click.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "markdown"]),
    default="jsonl",
    show_default=True,
    help="jsonl: one JSON object per memory, then per relation. markdown: a readable document.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Write to this file (atomically) instead of stdout.",
)
@pass_state
def export(state: State, fmt: str, out: Path | None) -> None:
    """Export every memory and relation, for reading, grep or another tool."""
    if state.as_json and fmt == "markdown" and out is None:
        # --json promises JSON on stdout: it printed the Markdown document (a probe)
        raise click.UsageError(
            "--json: a Markdown export to stdout is no JSON; give --out FILE, and --json "
            "prints its summary"
        )
    count = ExportCount()
    with open_app(state) as app:
        lines = app.transfer.export_lines("markdown" if fmt == "markdown" else "jsonl", count)
        if out is None:
            for line in lines:
                click.echo(line)
            return
        if not_a_file(out):
            write_through(out, (line + "\n" for line in lines), "--out")
        else:
            target = app.transfer.export_path(out, "--out")
            write_file(target, ((line + "\n").encode("utf-8") for line in lines), "--out")
    summary = ExportSummary(
        format=fmt, path=str(out), memories=count.memories, relations=count.relations
    )
    output(
        state,
        summary,
        lambda c: say(
            c,
            f"Exported {counted(count.memories, 'memory')} and "
            f"{counted(count.relations, 'relation')} to {out}.",
        ),
    )


COMMANDS = (migrate, import_, export)
