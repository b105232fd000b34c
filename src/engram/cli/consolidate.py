"""`engram consolidate`: find clusters of memories saying the same thing, merge them, undo; run
the maintenance pipeline, apply its plans, read its audit trail."""

from __future__ import annotations

from collections.abc import Collection

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from engram.app import App
from engram.cli.common import (
    State,
    emit_json,
    fmt_score,
    given,
    open_app,
    options_named,
    output,
    pass_state,
    plain,
    preview,
    progress_bar,
    resolve,
    say,
    short_ids,
    show,
)
from engram.clock import pause
from engram.core.wording import counted
from engram.errors import StoreError
from engram.services.agents import AGENTS, CHANGING
from engram.services.pipeline import AUDIT_MAX, AuditTrail, PipelineResult, PipelineService
from engram.services.results import (
    ClusterResult,
    ClusterView,
    ConsolidateResult,
    KeepApartResult,
    MergeDone,
)


@click.group()
def consolidate() -> None:
    """Merge memories that say the same thing (docs/consolidation.md)."""


@consolidate.command("clusters")
@click.option("--memory", "memory_ids", multiple=True, help="Only these memories (repeatable).")
@click.option("--threshold", type=float, default=None, help="Similarity that links two, 0-1.")
@pass_state
def clusters(state: State, memory_ids: tuple[str, ...], threshold: float | None) -> None:
    """List clusters (changes nothing)."""
    show(
        state,
        lambda app: app.consolidation.clusters(_resolved(app, memory_ids), threshold),
        render_clusters,
        {"similarity_threshold": "--threshold"},
    )


def _resolved(app: App, memory_ids: tuple[str, ...]) -> list[str] | None:
    """The memories typed with --memory, short ids resolved; None when none was typed."""
    return [resolve(app, i, "--memory") for i in memory_ids] or None


# What `run` calls the service's parameters, for its errors.
RUN_OPTIONS = {
    "merged_content": "--content",
    "memory_ids": "--memory",
    "cluster_ids": "--cluster",
    "cohesion_threshold": "--cohesion",
    "similarity_threshold": "--threshold",
}


# Options of `run` and `keep-apart`: the clusters named, and the threshold they were found at.
CLUSTERS = click.option(
    "--cluster", "cluster_ids", multiple=True, help="A cluster id (repeatable)."
)
FOUND_AT = click.option(
    "--threshold",
    type=float,
    default=None,
    help="Similarity that links two, 0-1 (the one `clusters --threshold` found a cluster at).",
)


@consolidate.command("run")
@click.option("--apply", "apply_", is_flag=True, help="Merge for real (default: preview).")
@click.option(
    "--cohesion",
    type=float,
    default=None,
    help="Merge found clusters at least this cohesive, 0-1 (default: the merge band); those of "
    "the review band are listed, never merged, whatever this says.",
)
@CLUSTERS
@click.option("--memory", "memory_ids", multiple=True, help="Merge exactly these (repeatable).")
@click.option("--content", "merged_content", help="Your text for the merged memory (one merge).")
@FOUND_AT
@pass_state
def run(
    state: State,
    apply_: bool,
    cohesion: float | None,
    cluster_ids: tuple[str, ...],
    memory_ids: tuple[str, ...],
    merged_content: str | None,
    threshold: float | None,
) -> None:
    """Merge clusters: every cluster in the merge band, the named clusters, or the named
    memories as one. A preview unless --apply."""
    done: list[MergeDone] = []
    try:
        result = show(
            state,
            lambda app: app.consolidation.consolidate(
                mode="apply" if apply_ else "preview",
                auto_detect=not memory_ids,
                memory_ids=_resolved(app, memory_ids),
                cohesion_threshold=cohesion,
                cluster_ids=list(cluster_ids) or None,
                merged_content=merged_content,
                similarity_threshold=threshold,
                on_merge=done.append,
            ),
            render_run,
            RUN_OPTIONS,
        )
    except KeyboardInterrupt:
        # What was merged before Ctrl-C: it said only "Aborted!" after dozens of merges, whose
        # ids (for an undo) were then found only in an export (a probe)
        if done:
            err = Console(stderr=True)
            say(
                err,
                f"Stopped after {counted(len(done), 'merge')} (undo one with "
                "`engram consolidate undo ID`):",
            )
            for merge in done:
                say(err, f"  {merge.merged.id} from {', '.join(merge.archived_ids)}")
        raise
    if apply_ and (memory_ids or cluster_ids) and result.skipped:
        # A merge asked for by name that did not happen is a failure for a script to see;
        # clusters found here and left for review are the rules at work.
        raise SystemExit(1)


@consolidate.command("keep-apart")
@CLUSTERS
@click.option("--memory", "memory_ids", multiple=True, help="A memory id (repeatable).")
@FOUND_AT
@pass_state
def keep_apart(
    state: State, cluster_ids: tuple[str, ...], memory_ids: tuple[str, ...], threshold: float | None
) -> None:
    """Mark alike memories as different facts: they are never clustered together again."""
    show(
        state,
        lambda app: app.consolidation.keep_apart(
            _resolved(app, memory_ids), list(cluster_ids) or None, threshold
        ),
        render_kept,
        RUN_OPTIONS,
    )


def render_kept(out: Console, result: KeepApartResult) -> None:
    kept = counted(len(result.memory_ids), "memory")
    say(out, f"Kept {kept} apart ({counted(result.marked, 'pair')} newly marked)")


@consolidate.command("undo")
@click.argument("merged_id")
@click.option(
    "--force", is_flag=True, help="Undo even if the merged memory was edited or related since."
)
@pass_state
def undo(state: State, merged_id: str, force: bool) -> None:
    """Restore the originals of a merged memory and remove it."""
    show(
        state,
        lambda app: app.consolidation.undo(resolve(app, merged_id, "merged_id"), force),
        lambda out, result: say(out, f"Restored {counted(len(result.restored_ids), 'memory')}"),
        {"merged_id": "MERGED_ID", "force": "--force"},
    )


# A year: a longer sleep overflowed the platform's time (inf, 1e308: a traceback after the
# first run).
MAX_INTERVAL_HOURS = 366 * 24
# A minute: 1e-9 hours ran the agents back to back, hundreds of passes and audit entries a
# second, until stopped.
MIN_INTERVAL_HOURS = 1 / 60


@consolidate.command("pipeline")
@click.option("--apply", "apply_", is_flag=True, help="Apply the plan (default: a dry run).")
@click.option(
    "--agent", "agents", multiple=True, help=f"Only this agent (repeatable): {', '.join(AGENTS)}."
)
@click.option("--scheduled", is_flag=True, help="Run again every --interval-hours until Ctrl-C.")
@click.option(
    "--interval-hours",
    type=float,
    default=24.0,
    show_default=True,
    help="Hours between runs, at least a minute (0.0167) and at most a year (8,784).",
)
@pass_state
def pipeline(
    state: State, apply_: bool, agents: tuple[str, ...], scheduled: bool, interval_hours: float
) -> None:
    """Run the maintenance agents: a plan of what they propose (a dry run, recorded in the
    audit trail), or, with --apply, the plan applied."""
    if not scheduled and given("interval_hours"):  # accepted, and ignored without a word
        raise click.UsageError("--interval-hours goes with --scheduled")
    if scheduled and not MIN_INTERVAL_HOURS <= interval_hours <= MAX_INTERVAL_HOURS:  # and nan
        raise click.BadParameter(
            f"must be at least {MIN_INTERVAL_HOURS:.4f} (a minute) and at most "
            f"{MAX_INTERVAL_HOURS:,} (a year)",
            param_hint="--interval-hours",
        )
    with open_app(state) as app, options_named({"agents": "--agent"}):
        while True:
            try:
                run_once(
                    state, app.pipeline, list(agents) or None, dry_run=not apply_, lines=scheduled
                )
            except (StoreError, OSError) as exc:
                if not scheduled:
                    raise
                # A passing failure (another run holds the store, the database is busy, the
                # vault's disk is away) must not end a schedule meant to run until Ctrl-C.
                click.echo(f"Error: {exc}; the next run is in {interval_hours:g} h", err=True)
            if not scheduled:
                return
            pause(interval_hours * 3600)


def run_once(
    state: State,
    service: PipelineService,
    agents: list[str] | None,
    dry_run: bool,
    lines: bool = False,
) -> None:
    """One run; `lines`: with --json, its result on one line (a schedule prints one a run:
    JSON Lines, where documents of several lines, one after another, were no JSON at all)."""
    with progress_bar(state) as progress:
        result = service.run(agents, dry_run, progress)
    if lines and state.as_json:
        emit_json(result, indent=None)
    else:
        output(state, result, lambda c: render_pipeline(c, result))


@consolidate.command("apply")
@click.argument("plan_id")
@pass_state
def apply_plan(state: State, plan_id: str) -> None:
    """Apply exactly the plan a dry run recorded (steps whose memories changed are skipped)."""
    with (
        open_app(state) as app,
        progress_bar(state) as progress,
        options_named({"plan_id": "PLAN_ID"}),
    ):
        result = app.pipeline.apply(plan_id, progress)
    output(state, result, lambda c: render_pipeline(c, result))


@consolidate.command("audit")
@click.option("--plan", "plan_id", default=None, help="Only this plan's entries.")
@click.option("--limit", type=int, default=50, show_default=True, help=f"1 to {AUDIT_MAX:,}.")
@pass_state
def audit(state: State, plan_id: str | None, limit: int) -> None:
    """The audit trail: every decision of the pipeline, newest first."""
    show(
        state,
        lambda app: app.pipeline.audit(plan_id, limit),
        render_audit,
        {"plan_id": "--plan", "limit": "--limit"},
    )


SHOWN_STEPS = 20  # planned steps a dry run lists; the audit trail holds them all


def render_pipeline(out: Console, result: PipelineResult) -> None:
    title = "nothing planned" if result.plan_id is None else f"plan {result.plan_id}"
    table = Table(title=title + (" (dry run)" if result.dry_run else ""))
    table.add_column("agent")
    for kind in ("planned", "done", "reported", "skipped"):
        table.add_column(kind, justify="right")
    for agent in result.agents:
        counts = result.summary.get(agent, {})
        table.add_row(
            agent,
            *(str(counts.get(k, 0) or "") for k in ("planned", "done", "reported", "skipped")),
        )
    out.print(table)
    for step in result.steps:
        if step.result.startswith("skipped"):
            say(out, f"step {step.step} ({step.agent} {step.action}): {step.result}")
    if result.dry_run:  # what each step would do and why: counts alone left nothing to judge
        planned = [step for step in result.steps if step.result == "planned"]
        shown = short_ids([i for step in planned[:SHOWN_STEPS] for i in step.memory_ids])
        for step in planned[:SHOWN_STEPS]:
            ids = ", ".join(shown[i] for i in step.memory_ids)
            say(out, f"step {step.step} ({step.agent} {step.action} {ids}): {step.why}")
        if len(planned) > SHOWN_STEPS:
            more = len(planned) - SHOWN_STEPS
            say(out, f"… {more:,} more: `engram consolidate audit --plan {result.plan_id}`")
    for note in result.notes:
        say(out, f"note: {note}")
    if result.dry_run and any(step.action in CHANGING for step in result.steps):
        say(out, f"Dry run: apply this plan with `engram consolidate apply {result.plan_id}`.")
    elif result.dry_run and result.steps:  # applying it changed nothing, then was refused
        say(out, "Dry run: nothing to apply, the plan only reports (memories at risk, clusters).")


def render_audit(out: Console, trail: AuditTrail) -> None:
    if not trail.entries:
        say(out, "The audit trail is empty.")
        return
    table = Table(title=counted(trail.count, "audit entry"))
    for column in ("when", "plan", "agent", "action", "memories", "result", "why"):
        table.add_column(column)
    shown = short_ids([i for e in trail.entries for i in e.memory_ids])
    for e in trail.entries:
        table.add_row(
            e.at.strftime("%Y-%m-%d %H:%M"),
            e.plan_id,
            e.agent,
            e.action,
            ", ".join(shown[i] for i in e.memory_ids),
            e.result,
            e.why,
        )
    out.print(table)


def _table(title: str, views: list[ClusterView]) -> Table:
    table = Table(title=title)
    table.add_column("cluster", no_wrap=True)
    table.add_column("size", justify="right")
    table.add_column("cohesion", justify="right")
    table.add_column("action")
    table.add_column("merged content")
    short = short_ids([i for view in views for i in view.member_ids])
    for view in views:
        merged = view.merged_preview
        # a cluster kept apart has no merged text: its members, to name them (`--memory`),
        # where the row said nothing of what it grouped (a probe)
        members = "members: " + ", ".join(short[i] for i in view.member_ids)
        table.add_row(
            view.id,
            str(len(view.member_ids)),
            fmt_score(view.cohesion),
            view.action,
            _merged_text(merged.content) if merged is not None else plain(members),
        )
    return table


MERGED_LINES = 6  # of a merged text, shown in a table: a person approves what it says


def _merged_text(content: str) -> Text:
    """Each line of a merged text, shortened: its first line alone hid what a merge kept
    twice or left out (a probe)."""
    lines = content.strip().splitlines()
    shown = [preview(line).plain for line in lines[:MERGED_LINES]]
    if len(lines) > MERGED_LINES:
        shown.append(f"… {counted(len(lines) - MERGED_LINES, 'more line')}")
    return plain("\n".join(shown))


def _notes(out: Console, views: list[ClusterView], skipped: Collection[str] = ()) -> None:
    """Why a cluster is left for review, or merged below the merge band: the clusters table
    hid it (a merge dropping "lives in Berlin", Monday against Friday; a probe)."""
    for view in views:
        if view.note and view.id not in skipped:
            say(out, f"{view.id}: {view.note}")


def render_clusters(out: Console, result: ClusterResult) -> None:
    if not result.clusters:
        say(out, f"No clusters among {counted(result.memories_considered, 'memory')}.")
        return
    out.print(_table(counted(result.count, "cluster"), result.clusters))
    _notes(out, result.clusters)


def render_run(out: Console, result: ConsolidateResult) -> None:
    review = (
        f"{counted(result.left_for_review, 'cluster')} in the review band: "
        "`engram consolidate clusters` lists them, `--cluster ID` merges one, "
        "`keep-apart --cluster ID` declines one"
    )
    if not result.clusters:
        say(out, f"Nothing to merge at cohesion {result.cohesion_threshold}.")
        if result.left_for_review:
            say(out, review)
        return
    title = f"{result.mode}: {counted(len(result.clusters), 'cluster')}"
    if result.mode == "apply":  # "apply: 1 cluster" titled an apply that merged none (a probe)
        title += f", {len(result.merged)} merged"
    out.print(_table(title, result.clusters))
    for done in result.merged:
        say(out, f"Merged {counted(len(done.archived_ids), 'memory')} into {done.merged.id}")
    _notes(out, result.clusters, result.skipped)
    for cluster, why in result.skipped.items():
        say(out, f"Skipped {cluster}: {why}")
    if result.left_for_review:
        say(out, review)
    if result.mode == "preview":
        say(out, "Preview only: add --apply to merge.")


COMMANDS = (consolidate,)
