"""The knowledge graph from the shell: relate two memories, page through or draw the graph,
walk the relations of one memory."""

from __future__ import annotations

import shlex
from pathlib import Path

import click
from pydantic import BaseModel
from rich.console import Console
from rich.table import Table
from rich.text import Text

from engram.cli.common import (
    State,
    fmt_tags,
    given,
    not_a_file,
    open_app,
    options_named,
    output,
    pass_state,
    preview,
    resolve,
    say,
    short_ids,
    show,
    write_file,
    write_through,
)
from engram.config import redact_url
from engram.core.models import RELATION_TYPES, Relation
from engram.core.wording import counted
from engram.errors import ValidationError
from engram.services.graph import MAX_DEPTH, MAX_GRAPH_PAGE, MAX_RELATED, MAX_SNAPSHOT
from engram.services.results import GraphPage, RelatedResult
from engram.web.graph_page import graph_html


class GraphFile(BaseModel):
    """`engram graph --html FILE --json`: what was drawn."""

    path: str
    memories: int  # drawn
    relations: int  # drawn
    total: int  # memories in the store


# What `relate` and `related` call the service's parameters, for their errors.
RELATE_OPTIONS = {
    "from_id": "FROM_ID",
    "from_memory_id": "FROM_ID",
    "to_id": "TO_ID",
    "to_memory_id": "TO_ID",
    "relation_type": "--type",
    "strength": "--strength",
}
RELATED_OPTIONS = {
    "memory_id": "MEMORY_ID",
    "depth": "--depth",
    "types": "--type",
    "direction": "--direction",
    "limit": "--limit",
}


@click.command()
@click.argument("from_id")
@click.argument("to_id")
@click.option(
    "--type",
    "relation_type",
    default="related",
    show_default=True,
    help=", ".join(RELATION_TYPES) + ".",
)
@click.option("--strength", type=float, default=1.0, show_default=True, help="0 to 1.")
@pass_state
def relate(state: State, from_id: str, to_id: str, relation_type: str, strength: float) -> None:
    """Link two memories with a typed relation.

    Idempotent: the same FROM, TO and type returns the existing link.
    """
    with open_app(state) as app, options_named(RELATE_OPTIONS):
        relation = app.graph.create_relation(
            resolve(app, from_id, "from_id"), resolve(app, to_id, "to_id"), relation_type, strength
        )
    line = f"{edge(relation)} (strength {relation.strength:g}, relation {relation.id})"
    if given("strength") and relation.strength != strength:
        # The link existed: its strength stays, and the one typed was dropped without a word.
        line += (
            f"\nThey were related already: the strength {strength:g} given was not applied; "
            f"to change it, `engram unrelate {relation.id}` and relate them again"
        )
    output(state, relation, lambda c: say(c, line))


@click.command()
@click.argument("relation_id")
@pass_state
def unrelate(state: State, relation_id: str) -> None:
    """Remove one relation by its id (`relate` prints it; `related --json` lists them).

    Its two memories stay.
    """
    show(
        state,
        lambda app: app.graph.delete_relation(relation_id),
        lambda out, relation: say(out, f"Removed {edge(relation)} (relation {relation.id})"),
        {"relation_id": "RELATION_ID"},
    )


def edge(relation: Relation) -> str:
    return f"{relation.from_id} -[{relation.type}]-> {relation.to_id}"


@click.command()
@click.option("--cursor", default=None, help="The next cursor printed by the previous page.")
@click.option("--limit", type=int, default=100, show_default=True, help=f"1 to {MAX_GRAPH_PAGE}.")
@click.option(
    "--html",
    "html_path",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    default=None,
    help="Write an interactive picture of the graph to this file instead (opens offline; "
    "- writes it to stdout).",
)
@click.option(
    "--max-memories",
    type=int,
    default=2_000,
    show_default=True,
    help=f"With --html: at most this many memories, the most alive (1 to {MAX_SNAPSHOT}).",
)
@pass_state
def graph(
    state: State, cursor: str | None, limit: int, html_path: Path | None, max_memories: int
) -> None:
    """Page through all memories and their relations, or draw them (--html).

    Memories come in save order; every relation touching the page is included.
    """
    # An option of the other mode was ignored without a word (a bogus cursor drew the graph).
    typed = {p for p in ("cursor", "limit", "max_memories") if given(p)}
    if html_path is not None and typed & {"cursor", "limit"}:
        raise click.UsageError("--cursor and --limit page through the graph; --html draws it whole")
    if html_path is None and "max_memories" in typed:
        raise click.UsageError("--max-memories goes with --html")
    if html_path is not None and str(html_path) == "-":  # a file named "-" was written
        if state.as_json:
            raise click.UsageError("--json: the page on stdout is no JSON (give --html a file)")
        with open_app(state) as app:
            snapshot = app.graph.snapshot(max_memories, "--max-memories")
        click.echo(graph_html(snapshot), nl=False)
        return
    if html_path is not None:
        if not str(html_path).strip() or html_path.is_dir():  # '' is the working folder
            raise ValidationError("--html", "give a file name, not a folder")
        with open_app(state) as app:
            # Not over the store's own files: the atomic rename replaced the store with the
            # drawing of it (`engram graph --html engram.db`), as it would an export.
            html_path = app.transfer.export_path(html_path, "--html")
            snapshot = app.graph.snapshot(max_memories, "--max-memories")
        if not_a_file(html_path):
            write_through(html_path, [graph_html(snapshot)], "--html")
        else:
            write_file(html_path, graph_html(snapshot).encode("utf-8"), "--html")
        shown = len(snapshot.memories)
        written = GraphFile(
            path=str(html_path),
            memories=shown,
            relations=len(snapshot.relations),
            total=snapshot.total,
        )
        output(
            state,
            written,
            lambda c: say(
                c,
                f"Wrote {html_path}: {counted(shown, 'memory')} and "
                f"{counted(len(snapshot.relations), 'relation')}"
                + (
                    f" (the {shown:,} most alive of {snapshot.total:,}: --max-memories shows more)"
                    if snapshot.total > shown
                    else ""
                ),
            ),
        )
        return
    with open_app(state) as app, options_named({"limit": "--limit", "cursor": "--cursor"}):
        page = app.graph.read_graph(cursor, limit)
    # The next page's command repeats what chose this one (a copied hint read another store),
    # with no password (it printed a PostgreSQL one: a probe; the user types their own).
    store = ["--store", shlex.quote(redact_url(state.store))] if state.store else []
    again = ["engram", *store, "graph"]
    again += [] if limit == 100 else ["--limit", str(limit)]
    output(state, page, lambda c: render_graph(c, page, " ".join(again)))


def render_graph(out: Console, page: GraphPage, command: str = "engram graph") -> None:
    table = Table(title=counted(len(page.memories), "memory"))
    table.add_column("id", no_wrap=True)
    table.add_column("status")
    table.add_column("tags")
    table.add_column("content")
    short = short_ids(
        [m.id for m in page.memories] + [i for r in page.relations for i in (r.from_id, r.to_id)]
    )
    for m in page.memories:
        table.add_row(short[m.id], m.status.value, fmt_tags(m.tags), preview(m.content))
    out.print(table)
    if page.relations:
        rel = Table(title=counted(len(page.relations), "relation"))
        rel.add_column("from", no_wrap=True)
        rel.add_column("type")
        rel.add_column("to", no_wrap=True)
        rel.add_column("strength", justify="right")
        for r in page.relations:
            rel.add_row(short[r.from_id], r.type, short[r.to_id], f"{r.strength:g}")
        out.print(rel)
    if page.next_cursor:
        say(out, f"Next page: {command} --cursor {page.next_cursor}")


@click.command()
@click.argument("memory_id")
@click.option(
    "--depth", type=int, default=2, show_default=True, help=f"Edges away, 1 to {MAX_DEPTH}."
)
@click.option(
    "--type",
    "types",
    multiple=True,
    help="Follow only this relation type (repeatable): " + ", ".join(RELATION_TYPES) + ".",
)
@click.option(
    "--direction",
    default="both",
    show_default=True,
    help="out (from -> to), in (to -> from) or both.",
)
@click.option("--limit", type=int, default=100, show_default=True, help=f"1 to {MAX_RELATED}.")
@pass_state
def related(
    state: State, memory_id: str, depth: int, types: tuple[str, ...], direction: str, limit: int
) -> None:
    """Memories linked to MEMORY_ID, up to --depth relations away, closest first.

    Each appears once, at its shortest distance, with the relation it was reached by; cycles
    are harmless. Does not count as a use.
    """
    with open_app(state) as app, options_named(RELATED_OPTIONS):
        memory_id = resolve(app, memory_id)
        found = app.graph.related(memory_id, depth, types or None, direction, limit)
    result = RelatedResult(memory_id=memory_id, count=len(found), related=found)
    output(state, result, lambda c: render_related(c, result))


def render_related(out: Console, result: RelatedResult) -> None:
    if not result.related:
        say(out, f"No memories related to {result.memory_id}.")
        return
    table = Table(title=f"{counted(result.count, 'memory')} related to {result.memory_id}")
    # Read left to right as the relation reads: "A -[causes]-> B" (with the memory reached
    # first, B's row said "B -[causes]-> A").
    table.add_column("depth", justify="right")
    table.add_column("from", no_wrap=True)
    table.add_column("link")
    table.add_column("id", no_wrap=True)
    table.add_column("content")
    short = short_ids([i for r in result.related for i in (r.memory.id, r.reached_from)])
    for r in result.related:
        forward = r.relation.to_id == r.memory.id
        arrow = f"-[{r.relation.type}]->" if forward else f"<-[{r.relation.type}]-"
        table.add_row(
            str(r.depth),
            short[r.reached_from],
            Text(arrow),
            short[r.memory.id],
            preview(r.memory.content),
        )
    out.print(table)


COMMANDS = (relate, unrelate, graph, related)
