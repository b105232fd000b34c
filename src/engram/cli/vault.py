"""Long-term memory commands: promote, index-ltm, vault (list, show, open), backup; and the
rendering of `engram search --all`.

The vault is ENGRAM_VAULT_PATH; every path printed is relative to it unless marked absolute.
"""

from __future__ import annotations

from collections.abc import Sequence

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from engram.cli.common import (
    State,
    fmt_score,
    fmt_tags,
    open_app,
    output,
    pass_state,
    plain,
    progress_bar,
    resolve,
    results_table,
    say,
    short_ids,
    show,
)
from engram.core.wording import counted
from engram.services.backup import BackupResult
from engram.services.ltm import IndexReport, NoteList, NoteView, VaultStatus
from engram.services.promotion import PromotionResult
from engram.services.unified import UnifiedHit
from engram.services.vault_import import VaultImportResult
from engram.vault.render import dump_yaml

PROGRESS_MIN_FILES = 200


@click.command()
@click.argument("memory_id", required=False)
@click.option("--auto", "auto_detect", is_flag=True, help="Promote every promotion candidate.")
@click.option("--dry-run", is_flag=True, help="Only show what would be promoted, and where.")
@pass_state
def promote(state: State, memory_id: str | None, auto_detect: bool, dry_run: bool) -> None:
    """Write a memory into the Obsidian vault as a permanent note.

    Give a memory ID, or --auto for every current promotion candidate (see `engram candidates
    promote`). The note goes to <vault>/<ENGRAM_LTM_FOLDER>/<slug>.md and the memory becomes
    `promoted`: it stops fading. Promoting a memory twice changes nothing.
    """
    show(
        state,
        lambda app: app.promotion.promote(
            None if memory_id is None else resolve(app, memory_id),
            auto_detect=auto_detect,
            dry_run=dry_run,
        ),
        render_promotion,
        {"memory_id": "MEMORY_ID", "auto_detect": "--auto"},
    )


def render_promotion(out: Console, result: PromotionResult) -> None:
    say(out, result.message)
    if not result.items or (len(result.items) == 1 and result.count == 0):
        return
    table = Table()
    table.add_column("id", no_wrap=True)
    table.add_column("action")
    table.add_column("reason")
    table.add_column("score", justify="right")
    table.add_column("note", overflow="fold")
    short = short_ids([item.memory_id for item in result.items])
    for item in result.items:
        table.add_row(
            short[item.memory_id],
            item.action.replace("_", " "),
            item.reason or "",
            fmt_score(item.score),
            plain(item.path or ""),
        )
    out.print(table)


@click.command("index-ltm")
@pass_state
def index_ltm(state: State) -> None:
    """Index every Markdown note of the vault for `search --all`.

    Incremental: only notes whose modification time or size changed are read, only those
    whose content changed are parsed again, and notes deleted from the vault leave the index.
    Notes with broken frontmatter are reported and indexed as plain text.
    """
    with open_app(state, create=True) as app, progress_bar(state) as update:
        # Smaller vaults index too fast for a bar to help.
        report = app.ltm.index(
            lambda done, total: (
                update("indexing the vault", done, total) if total >= PROGRESS_MIN_FILES else None
            )
        )
    output(state, report, lambda c: render_index(c, report))


def render_index(out: Console, report: IndexReport) -> None:
    say(
        out,
        f"Indexed {counted(report.notes, 'note')} in {report.vault}: {report.added} added, "
        f"{report.updated} updated, {report.unchanged} unchanged, {report.removed} removed"
        # a renamed or moved note: its memory follows it (only --json said so: a probe)
        + (f", {report.moved} moved" if report.moved else "")
        + (f"; {report.embedded} embedded." if report.embedded else "."),
    )
    if report.problems:
        n = len(report.problems)
        verb = "has" if n == 1 else "have"
        say(out, f"{counted(n, 'note')} {verb} problems (indexed as plain text):")
        for problem in report.problems:
            say(out, f"  {problem.path}: {problem.problem}")


@click.group()
def vault() -> None:
    """The vault: list notes, show one, open a promoted memory's note, check the index, and
    import its notes as memories (`vault import --apply` writes)."""


@vault.command("list")
@click.option("--all", "everything", is_flag=True, help="Every note of the vault, not only ours.")
@pass_state
def vault_list(state: State, everything: bool) -> None:
    """List the notes in the LTM folder (ENGRAM_LTM_FOLDER), or with --all the whole vault."""
    show(state, lambda app: app.ltm.list_notes(everything), render_list)


def _folder(folder: str) -> str:
    """The folder a listing covers, as a reader names it ("4 notes in ." said the vault)."""
    return "the vault" if folder in ("", ".") else folder


def render_list(out: Console, found: NoteList) -> None:
    if not found.notes:
        say(out, f"No notes in {_folder(found.folder)}.")
        return
    table = Table(title=f"{counted(found.count, 'note')} in {_folder(found.folder)}")
    table.add_column("path", overflow="fold")
    table.add_column("title")
    table.add_column("tags")
    table.add_column("memory", no_wrap=True)
    short = short_ids([n.engram_id for n in found.notes if n.engram_id])
    for note in found.notes:
        ident = short[note.engram_id] if note.engram_id else ""
        table.add_row(plain(note.path), plain(note.title), fmt_tags(note.tags), ident)
    out.print(table)


@vault.command("status")
@pass_state
def vault_status(state: State) -> None:
    """Whether the vault and its index agree (changed, removed and orphaned notes)."""
    show(state, lambda app: app.ltm.status(), render_status)


def render_status(out: Console, status: VaultStatus) -> None:
    on_disk = counted(status.notes_on_disk, "note")
    say(out, f"Vault {status.vault}: {on_disk}, {status.notes_indexed} indexed")
    if status.changed or status.removed:
        say(
            out,
            f"  {status.changed} new or edited and {status.removed} deleted since indexed: run "
            "`engram index-ltm` (a running server catches up by itself)",
        )
    else:
        say(out, "  the index is up to date")
    for ident in status.orphaned:
        say(
            out,
            f"  memory {ident} is promoted but has no note (deleted, or the file names "
            "another): promote it again",
        )
    for path in status.unclaimed:
        say(out, f"  {path} names a memory deleted since: delete the note, or keep it as yours")
    for path in status.strays:
        say(
            out,
            f"  {path} names a memory whose note is another (a copy, or left by a stopped "
            "promotion): delete it, or keep it as yours",
        )
    for path in status.conflicts:
        say(out, f"  {path} changed in the vault and in Engram: both versions are in the note")


@vault.command("import")
@click.option("--apply", "apply_", is_flag=True, help="Import for real (default: a dry run).")
@pass_state
def vault_import(state: State, apply_: bool) -> None:
    """Turn notes marked `engram: memory` in their frontmatter into memories."""
    # A dry run changes nothing, a store included (one was made at a mistyped --store).
    show(state, lambda app: app.vault_import.run(apply_), render_import, create=apply_)


def render_import(out: Console, result: VaultImportResult) -> None:
    for path, why in result.skipped.items():
        say(out, f"Skipped {path}: {why}")
    if not result.notes:
        if not result.skipped:
            say(out, "No note is marked for import (frontmatter `engram: memory`).")
        return
    verb = "Imported" if result.mode == "applied" else "Would import"
    say(out, f"{verb} {counted(result.count, 'note')} as memories:")
    for note in result.notes:
        target = f" -> {note.memory_id}" if note.memory_id else ""
        held = " (a memory already held its text: promoted to the note, not copied)"
        say(out, f"  {note.path}{target}" + (held if note.existing else ""))
    if result.mode == "applied":
        n = result.relations
        say(out, f"{counted(n, 'wikilink')} became {'a relation' if n == 1 else 'relations'}")
    else:
        say(out, "A dry run: nothing was changed. Run again with --apply.")


@vault.command("show")
@click.argument("path")
@pass_state
def vault_show(state: State, path: str) -> None:
    """Show a note, its PATH relative to the vault: Engram/my-note.md, say."""
    show(state, lambda app: app.ltm.show(path), render_note)


@vault.command("open")
@click.argument("memory_id")
@pass_state
def vault_open(state: State, memory_id: str) -> None:
    """Show the note a promoted memory was written to."""
    show(state, lambda app: app.ltm.open_memory(resolve(app, memory_id)), render_note)


def render_note(out: Console, view: NoteView) -> None:
    say(out, f"{view.title}  ({view.path})")
    say(out, f"file: {view.absolute_path}")
    if view.problem:
        say(out, f"problem: {view.problem}")
    if view.tags:
        say(out, "tags: " + ", ".join(view.tags))
    for label, paths in (
        ("links to", view.links),
        ("linked from", view.backlinks),
        ("unresolved links", view.unresolved_links),
    ):
        if paths:
            say(out, f"{label}: " + ", ".join(paths))
    if view.frontmatter:
        say(out, "---")
        say(out, dump_yaml(view.frontmatter).rstrip("\n"))
        say(out, "---")
    say(out, view.body.rstrip("\n"))


@click.command()
@click.option("--repo", required=True, help="Folder of the git repository (created if new).")
@click.option("--include-vault", is_flag=True, help="Also copy the vault's LTM folder.")
@click.option("--force", is_flag=True, help="Run even if the repository has other changes.")
@pass_state
def backup(state: State, repo: str, include_vault: bool, force: bool) -> None:
    """Commit an export of the store (and the vault's notes) to a git repository.

    The export is engram/export.jsonl (as `engram export` writes it); --include-vault adds a copy
    of <vault>/<ENGRAM_LTM_FOLDER> under vault/. A new or empty folder becomes a repository. A
    repository with uncommitted changes that this command did not create is refused unless
    --force is given.
    """
    show(
        state,
        lambda app: app.backup.backup(repo, include_vault=include_vault, force=force),
        render_backup,
    )


def render_backup(out: Console, result: BackupResult) -> None:
    if result.created:
        say(out, f"Created the backup repository {result.repo}")
    if result.committed:
        say(out, f"Committed {(result.commit or '')[:12]} in {result.repo}: {result.message}")
    else:
        say(out, f"Nothing to commit in {result.repo}: {result.message}.")


def search_all(
    state: State,
    query: str | None,
    tags: Sequence[str],
    limit: int,
    verbose: bool,
    memory_filters: bool,
) -> None:
    """`engram search --all`: memories and vault notes in one list."""
    if memory_filters:
        raise click.UsageError(
            "--status, --window-days and --min-score filter memories only; drop them with --all"
        )
    show(
        state,
        lambda app: app.unified.search_unified(query, tags or None, limit),
        lambda out, result: render_unified(out, result.hits, verbose),
        {"limit": "--limit", "tags": "--tag"},
    )


def render_unified(out: Console, hits: Sequence[UnifiedHit], verbose: bool) -> None:
    if not hits:
        say(out, "Nothing found in memories or vault notes.")
        return
    table = results_table(len(hits))
    table.add_column("source")
    table.add_column("memory", no_wrap=True)
    table.add_column("note", overflow="fold")
    for name in ("text", "semantic", "decay", "weight", "rank") if verbose else ("rank",):
        table.add_column(name, justify="right")
    table.add_column("saved", no_wrap=True)
    table.add_column("title")
    shown = short_ids([h.id for h in hits if h.id])  # whole ids left no room for the rest
    for i, hit in enumerate(hits, 1):
        why = hit.why
        numbers = (
            [
                fmt_score(why.text),
                "–" if why.semantic is None else fmt_score(why.semantic),
                "" if why.decay is None else fmt_score(why.decay),
                f"{why.weight:g}",
                fmt_score(why.rank),
            ]
            if verbose
            else [fmt_score(hit.rank)]
        )
        table.add_row(
            str(i),
            hit.source,
            shown.get(hit.id or "", ""),
            plain(hit.path or ""),
            *numbers,
            hit.saved,
            _titled(hit, verbose),
        )
    out.print(table)


def _titled(hit: UnifiedHit, verbose: bool) -> Text:
    """The title, and in the verbose table the credit a memory took from its neighbours or
    through the words of the best matches: a hit of no text and no meaning looked matched for
    no reason (a probe)."""
    title = plain(hit.title)
    if hit.source == "ltm" and hit.preview and hit.preview != hit.title:
        # where in the note the words matched: a long note's title alone said nothing of it
        # (the snippet was in --json only; a helper's probe)
        title.append("\n" + hit.preview, style="dim")
    credit = [
        f"{name} {fmt_score(value)}"
        for name, value in (("context", hit.why.context), ("expansion", hit.why.expansion))
        if value
    ]
    if verbose and credit:
        title.append("\n" + ", ".join(credit), style="dim")
    if hit.why.superseded_by:  # outdated: said whether or not the numbers are shown
        title.append(f"\nsuperseded by {hit.why.superseded_by}", style="dim")
    return title


COMMANDS = (promote, index_ltm, vault, backup)
