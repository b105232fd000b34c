"""`engram demo`: a month in the life of an assistant's memory, simulated in under a second.

A FixedClock stands in for the wall clock, so the demo can jump from day 0 to day 30 and show
what the decay model does: memories that keep being used survive (and get promoted), important
ones that go unused surface for review, and trivia fades until gc forgets it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import click
from pydantic import BaseModel
from rich.console import Console
from rich.table import Table
from rich.text import Text

from engram.app import App
from engram.cli.common import State, console, emit_json, fmt_score, open_app, pass_state, preview
from engram.clock import FixedClock, system_clock
from engram.config import data_dir
from engram.errors import EngramError
from engram.services.drafts import Draft
from engram.services.results import GcResult, PromotionCandidate, ReviewCandidate, SearchHit
from engram.storage.factory import sqlite_files

DAYS = (0, 1, 3, 7, 14, 30)


@dataclass(frozen=True)
class Seed:
    key: str  # a short label, shown in the demo's tables instead of a 36-character id
    content: str
    tags: tuple[str, ...]
    strength: float = 1.0


SEEDS = (
    Seed(
        "concise answers",
        "Prefers concise answers with the code example first, explanation after.",
        ("preference", "style", "communication"),
    ),
    Seed(
        "PostgreSQL",
        "Project Atlas: decided on PostgreSQL 16 over MongoDB for transactional integrity.",
        ("decision", "database", "atlas"),
    ),
    Seed(
        "deploy days",
        "Atlas deploys go out Tuesdays and Thursdays after 14:00 UTC.",
        ("fact", "deploy", "atlas"),
    ),
    Seed(
        "ruff",
        "Decided to replace flake8 + black with ruff in every Python repo.",
        ("decision", "python", "tooling"),
    ),
    Seed(
        "peanut allergy",
        "Allergic to peanuts: never suggest recipes or restaurants that use them.",
        ("preference", "health"),
        2.0,
    ),
    Seed(
        "Neovim",
        "Uses Neovim with the LazyVim distribution; no VS Code suggestions.",
        ("preference", "editor"),
    ),
    Seed(
        "API rate limit",
        "The billing API allows 500 requests per minute per key.",
        ("fact", "billing", "api"),
    ),
    Seed("meeting moved", "The Q3 roadmap sync with Dana moved to Friday.", ("meeting",), 0.5),
    Seed("office Wi-Fi", "The Lisbon office Wi-Fi is slow on Monday mornings.", ("trivia",), 0.5),
)

# day -> what the assistant used that day: (memory key, context tags of the conversation);
# no context tags means a plain `touch`.
USES: dict[int, tuple[tuple[str, tuple[str, ...]], ...]] = {
    0: (("concise answers", ()), ("PostgreSQL", ("database", "atlas"))),
    1: (("concise answers", ()), ("ruff", ("python", "tooling"))),
    3: (("concise answers", ()), ("PostgreSQL", ())),
    7: (("concise answers", ("email", "writing")), ("PostgreSQL", ())),
    14: (("concise answers", ()), ("PostgreSQL", ()), ("deploy days", ())),
    30: (("concise answers", ()), ("PostgreSQL", ("atlas", "database", "migration"))),
}

SEARCHES: tuple[tuple[str | None, tuple[str, ...]], ...] = (
    ("which database did we choose", ()),
    ("how does the user like answers", ()),
    (None, ("atlas",)),
)


class DemoUse(BaseModel):
    day: int
    memory_id: str
    action: str  # "touch" or "observe"
    context_tags: list[str]
    cross_domain: bool


class DemoSearch(BaseModel):
    query: str | None
    tags: list[str]
    results: list[SearchHit]


class DemoMemory(BaseModel):
    id: str
    label: str
    content: str
    tags: list[str]
    saved_strength: float
    use_count: int
    scores: dict[int, float]  # day -> decay score at the end of that day


class DemoReport(BaseModel):
    """Everything the demo did, so `--json` can hand the whole run to a script."""

    store: str
    start: datetime
    days: list[int]
    forget_threshold: float
    danger_zone: tuple[float, float]
    promote_threshold: float
    searches: list[DemoSearch]
    uses: list[DemoUse]
    memories: list[DemoMemory]
    promotion_candidates: list[PromotionCandidate]
    review_candidates: list[ReviewCandidate]
    gc_dry_run: GcResult
    gc: GcResult
    remaining: int


@click.command()
@pass_state
def demo(state: State) -> None:
    """Simulate 30 days of memory: decay, review, promotion, gc.

    Uses <data dir>/demo.db (recreated each run), or --store if given (which must be empty:
    the demo never touches a store that holds memories).
    """
    if state.store is None:
        path = data_dir() / "demo.db"
        _remove_store(path)
        location = str(path)
    else:
        location = state.store
    # The simulated month ends now: the store the demo leaves is then, to the commands a
    # user runs next (docs/cli.md: search, gc, candidates), as the demo showed it. A fixed
    # start in the past let everything fade for months before the first look.
    clock = FixedClock(system_clock().replace(second=0, microsecond=0) - timedelta(days=DAYS[-1]))
    # Never the user's vault: the demo's gc promoted its memories into it (ENGRAM_AUTO_PROMOTE),
    # a copy more at every run, pointing at a store the next run deletes.
    with open_app(
        state,
        clock=clock,
        create=True,
        announce_new=False,  # a store of its own, made anew at every run
        storage_path=location,
        vault_path=None,
        auto_promote=False,
    ) as app:
        existing = app.maintenance.stats().total
        if existing:
            raise EngramError(
                f"refusing to run the demo on {app.context.store.location}: it holds {existing} "
                "memories; give --store a new file, or omit --store to use the demo store"
            )
        report = run(app, clock)
    if state.as_json:
        emit_json(report)
    else:
        render(console(), report)


def _remove_store(path: Path) -> None:
    """The default demo store is ours alone, so each run starts from a clean slate: its vector
    index too, or the next run would find an index of another store and rebuild it, warning."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for file in sqlite_files(path):
        file.unlink(missing_ok=True)


def run(app: App, clock: FixedClock) -> DemoReport:
    start = clock.now
    saved = app.memories.save_many(
        [Draft(content=s.content, tags=s.tags, strength=s.strength) for s in SEEDS]
    )
    ids = {seed.key: m.id for seed, m in zip(SEEDS, saved, strict=True)}
    searches = [
        DemoSearch(
            query=query,
            tags=list(tags),
            results=app.search.search(query, tags=tags or None, limit=3),
        )
        for query, tags in SEARCHES
    ]
    uses: list[DemoUse] = []
    scores: dict[str, dict[int, float]] = {i: {} for i in ids.values()}
    for day in DAYS:
        clock.now = start + timedelta(days=day)
        for key, context in USES.get(day, ()):
            uses.append(_use(app, day, ids[key], context))
        for m in app.memories.get_many(list(ids.values())):
            scores[m.id][day] = app.memories.score(m)
    final = {m.id: m for m in app.memories.get_many(list(ids.values()))}
    labels = {i: key for key, i in ids.items()}
    strengths = {m.id: m.strength for m in saved}
    policy = app.context.policy
    dry = app.maintenance.gc(dry_run=True)
    return DemoReport(
        store=app.context.store.location,
        start=start,
        days=list(DAYS),
        forget_threshold=policy.forget_threshold,
        danger_zone=(policy.danger_zone_min, policy.danger_zone_max),
        promote_threshold=policy.promote_threshold,
        searches=searches,
        uses=uses,
        memories=[
            DemoMemory(
                id=m.id,
                label=labels[m.id],
                content=m.content,
                tags=list(m.tags),
                saved_strength=strengths[m.id],
                use_count=m.use_count,
                scores=scores[m.id],
            )
            for m in final.values()
        ],
        promotion_candidates=app.maintenance.promotion_candidates(),
        review_candidates=app.maintenance.review_candidates(),
        gc_dry_run=dry,
        gc=app.maintenance.gc(dry_run=False),
        remaining=app.maintenance.stats().total,
    )


def _use(app: App, day: int, memory_id: str, context: tuple[str, ...]) -> DemoUse:
    if not context:
        app.memories.touch(memory_id)
        return DemoUse(
            day=day, memory_id=memory_id, action="touch", context_tags=[], cross_domain=False
        )
    (result,) = app.memories.observe([memory_id], context)
    return DemoUse(
        day=day,
        memory_id=memory_id,
        action="observe",
        context_tags=list(context),
        cross_domain=result.cross_domain,
    )


# -- rendering ------------------------------------------------------------------------------


def render(out: Console, report: DemoReport) -> None:
    label = {m.id: m.label for m in report.memories}
    out.rule("[bold]engram demo[/bold]: 30 simulated days of an assistant's memory")
    out.print(Text(f"Store: {report.store}  (simulated start {report.start:%Y-%m-%d %H:%M} UTC)"))
    out.print(saved_table(report))
    for s in report.searches:
        title = f'"{s.query}"' if s.query else "(no text)"
        if s.tags:
            title += f" --tag {' --tag '.join(s.tags)}"
        out.print(hits_table(f"search {title}", s.results, label))
    out.print(uses_table(report, label))
    out.print(decay_table(report))
    out.print(
        f"≥ {report.promote_threshold:g} strong · "
        f"{report.danger_zone[0]:g}–{report.danger_zone[1]:g} danger zone (review) · "
        f"< {report.forget_threshold:g} forgotten by gc · * used that day"
    )
    last = report.days[-1]
    out.print(f"\n[bold]Day {last}: promotion candidates[/bold] (worth keeping for good)")
    for p in report.promotion_candidates:
        name = label[p.memory.id]
        out.print(Text(f"  {name:<16} score {fmt_score(p.score)}  reason: {p.reason}"))
    out.print("[bold]Review candidates[/bold] (danger zone: bring them up before they fade)")
    for r in report.review_candidates:
        out.print(
            Text(
                f"  {label[r.memory.id]:<16} score {fmt_score(r.score)} "
                f" priority {r.review_priority:.2f}"
            )
        )
    forgotten = ", ".join(label[i] for i in report.gc_dry_run.memory_ids) or "nothing"
    out.print(
        f"[bold]gc[/bold] (dry run): {report.gc_dry_run.count} below "
        f"{report.forget_threshold:g}: {forgotten}"
    )
    out.print(
        f"[bold]gc --apply[/bold]: deleted {report.gc.count}; {report.remaining} memories remain."
    )
    out.print(
        "\nUsed memories survived and earned promotion; important unused ones surfaced for "
        "review; trivia faded and was forgotten."
    )


def saved_table(report: DemoReport) -> Table:
    table = Table(title=f"Day 0: saved {len(report.memories)} memories")
    table.add_column("label", no_wrap=True)
    table.add_column("strength", justify="right", no_wrap=True)
    table.add_column("tags")
    table.add_column("content")
    for m in report.memories:
        table.add_row(m.label, f"{m.saved_strength:g}", ", ".join(m.tags), preview(m.content, 60))
    return table


def hits_table(title: str, hits: list[SearchHit], label: dict[str, str]) -> Table:
    table = Table(title=title)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("label", no_wrap=True)
    table.add_column("rank", justify="right", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("content")
    for i, hit in enumerate(hits, 1):
        table.add_row(
            str(i),
            label[hit.memory.id],
            fmt_score(hit.rank),
            fmt_score(hit.score),
            preview(hit.memory.content, 60),
        )
    return table


def uses_table(report: DemoReport, label: dict[str, str]) -> Table:
    table = Table(title="Then the assistant used some of them (each use reinforces)")
    table.add_column("day", justify="right", no_wrap=True)
    table.add_column("used")
    for day in report.days:
        parts = []
        for u in report.uses:
            if u.day != day:
                continue
            part = label[u.memory_id]
            if u.action == "observe":
                part += f" (observed in: {', '.join(u.context_tags)}"
                part += "; cross-domain, strength +)" if u.cross_domain else ")"
            parts.append(part)
        table.add_row(str(day), Text("; ".join(parts) or "-"))
    return table


def decay_table(report: DemoReport) -> Table:
    used = {(u.day, u.memory_id) for u in report.uses}
    table = Table(title="Decay score by simulated day")
    table.add_column("memory", no_wrap=True)
    for day in report.days:
        table.add_column(f"day {day}", justify="right", no_wrap=True)
    table.add_column("uses", justify="right", no_wrap=True)
    for m in report.memories:
        cells = []
        for day in report.days:
            value = m.scores[day]
            mark = "*" if (day, m.id) in used else " "
            cells.append(Text(f"{value:.2f}{mark}", style=_style(report, value)))
        table.add_row(m.label, *cells, str(m.use_count))
    return table


def _style(report: DemoReport, value: float) -> str:
    low, high = report.danger_zone
    if value < report.forget_threshold:
        return "red"
    if low <= value <= high:
        return "yellow"
    if value >= report.promote_threshold:
        return "green"
    return ""
