"""`engram consolidate`: find clusters of memories saying the same thing, merge them, undo."""

from __future__ import annotations

import click
from rich.console import Console
from rich.table import Table

from engram.cli.common import State, fmt_score, open_app, output, pass_state, preview, say
from engram.services.consolidation import ClusterResult, ClusterView, ConsolidateResult


@click.group()
def consolidate() -> None:
    """Merge memories that say the same thing (docs/consolidation.md)."""


@consolidate.command("clusters")
@click.option("--memory", "memory_ids", multiple=True, help="Only these memories (repeatable).")
@click.option("--threshold", type=float, default=None, help="Similarity that links two, 0-1.")
@pass_state
def clusters(state: State, memory_ids: tuple[str, ...], threshold: float | None) -> None:
    """List clusters (changes nothing)."""
    with open_app(state) as app:
        result = app.consolidation.clusters(list(memory_ids) or None, threshold)
    output(state, result, lambda c: render_clusters(c, result))


@consolidate.command("run")
@click.option("--apply", "apply_", is_flag=True, help="Merge for real (default: preview).")
@click.option("--cohesion", type=float, default=None, help="Merge clusters at least this cohesive.")
@click.option("--cluster", "cluster_ids", multiple=True, help="A cluster id (repeatable).")
@click.option("--memory", "memory_ids", multiple=True, help="Merge exactly these (repeatable).")
@pass_state
def run(
    state: State,
    apply_: bool,
    cohesion: float | None,
    cluster_ids: tuple[str, ...],
    memory_ids: tuple[str, ...],
) -> None:
    """Merge clusters: every cluster in the merge band, the named clusters, or the named
    memories as one. A preview unless --apply."""
    with open_app(state) as app:
        result = app.consolidation.consolidate(
            mode="apply" if apply_ else "preview",
            auto_detect=not memory_ids,
            memory_ids=list(memory_ids) or None,
            cohesion_threshold=cohesion,
            cluster_ids=list(cluster_ids) or None,
        )
    output(state, result, lambda c: render_run(c, result))


@consolidate.command("undo")
@click.argument("merged_id")
@pass_state
def undo(state: State, merged_id: str) -> None:
    """Restore the originals of a merged memory and remove it."""
    with open_app(state) as app:
        result = app.consolidation.undo(merged_id)
    output(state, result, lambda c: say(c, f"Restored {len(result.restored_ids)} memories"))


def _table(title: str, views: list[ClusterView]) -> Table:
    table = Table(title=title)
    table.add_column("cluster", no_wrap=True)
    table.add_column("size", justify="right")
    table.add_column("cohesion", justify="right")
    table.add_column("action")
    table.add_column("merged content")
    for view in views:
        merged = view.merged_preview
        table.add_row(
            view.id,
            str(len(view.member_ids)),
            fmt_score(view.cohesion),
            view.action,
            preview(merged.content) if merged is not None else "",
        )
    return table


def render_clusters(out: Console, result: ClusterResult) -> None:
    if not result.clusters:
        say(out, f"No clusters among {result.memories_considered} memories.")
        return
    out.print(_table(f"{result.count} clusters", result.clusters))


def render_run(out: Console, result: ConsolidateResult) -> None:
    if not result.clusters:
        say(out, f"Nothing to merge at cohesion {result.cohesion_threshold}.")
        return
    out.print(_table(f"{result.mode}: {len(result.clusters)} clusters", result.clusters))
    for done in result.merged:
        say(out, f"Merged {len(done.archived_ids)} memories into {done.merged.id}")
    for cluster, why in result.skipped.items():
        say(out, f"Skipped {cluster}: {why}")
    if result.mode == "preview":
        say(out, "Preview only: add --apply to merge.")


COMMANDS = (consolidate,)
