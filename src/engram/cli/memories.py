"""Commands that read, write and reinforce memories: save, search, open, update, delete,
touch, observe.

Limits (tag counts, `--limit` range, id format, ...) are deliberately not re-declared as click
types: the services check them, so the CLI, MCP and Python refuse exactly the same inputs with
the same message naming the field.
"""

from __future__ import annotations

import json
import sys
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
    options_named,
    output,
    pass_state,
    plain,
    preview,
    resolve,
    resolve_all,
    results_table,
    say,
    short_ids,
    show,
)
from engram.cli.vault import search_all
from engram.core.models import Memory, Status, is_kept
from engram.core.ranking import why_summary
from engram.core.timeutil import day_in, moment_in
from engram.core.wording import counted
from engram.errors import NotFoundError, ValidationError
from engram.services.drafts import Draft, checked_fields
from engram.services.results import (
    DeleteResult,
    ObserveResult,
    ObserveUsageResult,
    SavedMemory,
    SearchHit,
    SearchResult,
    TouchResult,
)
from engram.services.validation import MAX_CONTENT, MAX_LIMIT, MAX_TAGS

TAG_HELP = f"Tag (repeat for several; at most {MAX_TAGS})."


# The service's names for what these commands take, as the user typed them.
MEMORY_FIELDS = {
    "tags": "--tag",
    "entities": "--entity",
    "source": "--source",
    "context": "--context",
    "strength": "--strength",
}
SAVE_OPTIONS = {"content": "CONTENT", "episode": "--episode", **MEMORY_FIELDS}
UPDATE_OPTIONS = {"memory_id": "MEMORY_ID", "content": "--content", **MEMORY_FIELDS}


# The most bytes a content piped in can take: four a character, its line break and a mark of
# its encoding.
_STDIN_BYTES = 4 * (MAX_CONTENT + 2) + 4


def read_content(content: str) -> str:
    """`-` means stdin, so long or multi-line memories can be piped in."""
    if content != "-":
        return content
    if sys.stdin is None:  # started with stdin closed: a traceback
        raise ValidationError("content", "standard input is closed: nothing to read for -")
    raw = getattr(sys.stdin, "buffer", None)
    if raw is None:
        text = sys.stdin.read(MAX_CONTENT + 3)  # a line break after it, and one over
        return text.rstrip("\r\n")
    # No more than the longest content can take: `engram save - < /dev/zero` read until the
    # machine ran out of memory (a probe). What fits is judged by characters afterwards.
    data = raw.read(_STDIN_BYTES + 1)
    if len(data) > _STDIN_BYTES:
        raise ValidationError(
            "content",
            f"standard input holds more than {_STDIN_BYTES:,} bytes; the limit is "
            f"{MAX_CONTENT:,} characters",
        )
    return decoded_stdin(data).rstrip("\r\n")


# Text that says its encoding by a byte order mark (PowerShell 5.1 pipes UTF-16): read as
# UTF-8 it was refused for its NUL characters. UTF-32's marks first: they start as UTF-16's.
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
    (b"\xef\xbb\xbf", "utf-8-sig"),
)


def decoded_stdin(data: bytes) -> str:
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec)
            except UnicodeDecodeError as exc:
                raise ValidationError(
                    "content",
                    f"standard input starts as {codec.upper()} text but is not ({exc.reason})",
                ) from None
    return data.decode(sys.stdin.encoding or "utf-8", errors=sys.stdin.errors or "strict")


@click.command()
@click.argument("content")
@click.option("--tag", "tags", multiple=True, help=TAG_HELP)
@click.option("--entity", "entities", multiple=True, help="Entity (person, project, ...).")
@click.option("--source", default=None, help="Where the memory came from.")
@click.option("--context", default=None, help="The situation it was learned in.")
@click.option(
    "--strength",
    type=float,
    default=None,
    help="0 to 2 [default: from its wording, 1.0 unless it says it matters].",
)
@click.option(
    "--episode",
    default=None,
    help="The conversation or session it comes from; search credits its neighbours there.",
)
@click.option(
    "--keep/--no-keep",
    default=None,
    help="Keep it for good: gc never forgets it (a contact's number, a document's expiry) "
    "[default: where it names an allergy, a condition, a document, a birthday or who the "
    "user is].",
)
@pass_state
def save(
    state: State,
    content: str,
    tags: tuple[str, ...],
    entities: tuple[str, ...],
    source: str | None,
    context: str | None,
    strength: float | None,
    episode: str | None,
    keep: bool | None,
) -> None:
    """Save a memory. CONTENT `-` reads it from stdin."""
    draft = Draft(
        content=read_content(content),
        tags=tags,
        entities=entities,
        source=source,
        context=context,
        strength=strength,
        episode=episode,
        keep=keep,
    )
    # Refused before the store is opened: opening creates a new store's file (and its
    # folders), which a refused command must not leave behind.
    with options_named(SAVE_OPTIONS):
        checked_fields(draft)
    with open_app(state, create=True) as app, options_named(SAVE_OPTIONS):
        result = app.memories.save(draft)
        listed = {s.id for s in result.similar}
        # A fact found by its words, not by meaning ("I report to Tom Becker these days"
        # replaced "My manager is Sarah Lin"), is not among the similar: said with its text.
        unlisted = [i for i in result.supersedes if i not in listed]
        anew = unlisted and result.duplicate_of is None
        found = app.memories.get_many(unlisted) if anew else []
        replaced = [m for i in unlisted for m in found if m.id == i]
    memory = result.memory
    said = (
        f"Saved {memory.id}"
        if result.duplicate_of is None
        else f"Already saved as {memory.id}: {result.action} it"
    )
    # What the MCP tool and the Python API report as well: near-copies in other words (only
    # the id was printed, so the CLI never said a save repeated a stored memory), and the facts
    # the save replaces (a probe found only `--json` said so).
    notes = [
        f"  {'replaces' if s.id in result.supersedes else 'similar to'} {s.id} "
        f"(similarity {s.similarity:.2f}): {' '.join(s.content.split())}"  # on its one line
        for s in result.similar
    ]
    notes += [f"  replaces {m.id}: {' '.join(m.content.split())}" for m in replaced]
    if result.duplicate_of is not None:
        # said again after the news that replaced it: it holds again (a probe: it said nothing)
        notes += [
            f"  holds again: replaces {news}, the news that had replaced it" for news in unlisted
        ]
    if is_kept(memory.meta):
        why = result.enrichment.kept_for if result.enrichment else None
        notes.append(f"  kept for good: gc never forgets it{f' ({why})' if why else ''}")
    enriched = result.enrichment
    if result.duplicate_of is not None:
        # The stored memory's, not the new text's: "strength 1.2" was printed for a memory of
        # 1.3, whose strength a repeat never lowers (a probe).
        notes.append(
            f"  strength {memory.strength:g}: the stored memory's, which a repeat never lowers"
        )
    elif enriched is not None and enriched.why:
        notes.append(f"  strength {enriched.strength:g}: {'; '.join(enriched.why)}")

    def show(console: Console) -> None:
        say(console, said)
        for note in notes:
            console.print(plain(note))

    output(state, SavedMemory.of(result), show)


@click.command()
@click.argument("query", required=False)
@click.option("--tag", "tags", multiple=True, help="Only memories with any of these tags.")
@click.option(
    "--status",
    "statuses",
    multiple=True,
    help="active, promoted, archived or all (repeatable; default: active and promoted).",
)
@click.option(
    "--window-days",
    type=float,
    default=None,
    help="Only memories saved or used (touched, observed) in the last N days.",
)
@click.option("--min-score", type=float, default=None, help="Only memories scoring at least this.")
@click.option("--limit", type=int, default=10, show_default=True, help=f"1 to {MAX_LIMIT}.")
@click.option(
    "--verbose",
    "-v",
    is_flag=True,
    help="Show why each ranks: text, meaning, context, expansion, day, decay, review.",
)
@click.option("--all", "everything", is_flag=True, help="Also search the vault's notes.")
@pass_state
def search(
    state: State,
    query: str | None,
    tags: tuple[str, ...],
    statuses: tuple[str, ...],
    window_days: float | None,
    min_score: float | None,
    limit: int,
    verbose: bool,
    everything: bool,
) -> None:
    """Search memories, ranked by relevance and decay.

    QUERY is optional: with only --tag (or nothing) the highest scores now come first.
    With --all, the vault's notes are searched too, in one list (see docs/ltm.md).

    Searching does not reinforce: use `touch` or `observe` when a memory was actually used.
    """
    if everything:
        filters = bool(statuses) or window_days is not None or min_score is not None
        search_all(state, query, tags, limit, verbose, memory_filters=filters)
        return
    named = {"window_days": "--window-days", "min_score": "--min-score", "limit": "--limit"}
    named |= {"status": "--status", "tags": "--tag"}
    with open_app(state) as app, options_named(named):
        hits = app.search.search(
            query,
            tags=tags or None,
            status=list(statuses) or None,
            window_days=window_days,
            min_score=min_score,
            limit=limit,
        )
    result = SearchResult(count=len(hits), hits=hits)
    output(state, result, lambda c: render_hits(c, hits, verbose))


def render_hits(out: Console, hits: Sequence[SearchHit], verbose: bool) -> None:
    if not hits:
        say(out, "No memories found.")
        return
    table = results_table(len(hits))
    table.add_column("id", no_wrap=True)
    # What the list is ordered by (the best 1): the decay score alone, shown before, was out of
    # order down the column and read as the ranking (a probe); it is in the why line.
    table.add_column("rank", justify="right")
    table.add_column("saved", no_wrap=True)
    # Which are archived or promoted, when not all are active (`--status all` mixed them).
    statuses = any(h.memory.status != Status.ACTIVE for h in hits)
    if statuses:
        table.add_column("status")
    table.add_column("tags")
    table.add_column("content")
    short = short_ids([h.memory.id for h in hits])
    for i, hit in enumerate(hits, 1):
        m = hit.memory
        content = preview(m.content)
        if verbose:  # why, under the content: readable at any width, every number whole
            content.append("\n" + why_summary(hit), style="dim")
        value = hit.rank
        saved = day_in(m.created_at)  # which of two facts is the newer
        status = [m.status.value] if statuses else []
        table.add_row(
            str(i), short[m.id], fmt_score(value), saved, *status, fmt_tags(m.tags), content
        )
    out.print(table)


@click.command("open")
@click.argument("ids", nargs=-1, required=True)
@pass_state
def open_(state: State, ids: tuple[str, ...]) -> None:
    """Show memories in full. Exits 1 if any id is not found (after showing the others)."""
    with open_app(state) as app, options_named({"memory_ids": "IDS"}):
        result = app.memories.open(resolve_all(app, ids))
        scores = {m.id: app.memories.score(m) for m in result.memories}
    output(state, result, lambda c: render_memories(c, result.memories, scores))
    if result.missing:
        raise NotFoundError("memory", ", ".join(result.missing))


def render_memories(out: Console, memories: Sequence[Memory], scores: dict[str, float]) -> None:
    for m in memories:
        out.print(memory_table(m, scores.get(m.id)))


def memory_table(m: Memory, score: float | None = None) -> Table:
    """Every field of one memory as a two-column table titled by its id."""
    table = Table(title=m.id, show_header=False, title_justify="left")
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    rows: list[tuple[str, str | Text | None]] = [
        ("content", plain(m.content)),
        ("tags", fmt_tags(m.tags)),
        ("entities", fmt_tags(m.entities)),
        ("source", None if m.source is None else plain(m.source)),
        ("context", None if m.context is None else plain(m.context)),
        ("status", m.status.value),
        ("score", None if score is None else fmt_score(score)),
        ("strength", f"{m.strength:g}"),
        ("use count", str(m.use_count)),
        ("created", moment_in(m.created_at)),
        ("last used", moment_in(m.last_used)),
        ("review priority", fmt_score(m.review_priority)),
        ("reviews", str(m.review_count)),
        ("cross-domain uses", str(m.cross_domain_count)),
        ("promoted", moment_in(m.promoted_at) if m.promoted_at else None),
        ("episode", None if m.episode is None else f"{plain(m.episode)} (#{m.episode_seq})"),
        ("cues", fmt_tags(m.cues)),
        ("meta", plain(json.dumps(m.meta, ensure_ascii=False)) if m.meta else None),
    ]
    for name, value in rows:
        if value is not None and str(value) != "":
            table.add_row(name, value)
    return table


@click.command()
@click.argument("memory_id")
@click.option("--content", default=None, help="New content (`-` reads stdin).")
@click.option("--tag", "tags", multiple=True, help="Replace the tags (repeat for several).")
@click.option("--entity", "entities", multiple=True, help="Replace the entities.")
@click.option("--clear-tags", is_flag=True, help="Remove every tag.")
@click.option("--clear-entities", is_flag=True, help="Remove every entity.")
@click.option("--source", default=None, help="New source.")
@click.option("--context", default=None, help="New context.")
@click.option("--strength", type=float, default=None, help="New strength, 0 to 2.")
@click.option(
    "--keep/--no-keep",
    default=None,
    help="Keep it for good (gc never forgets it), or let it fade and be forgotten again.",
)
@pass_state
def update(
    state: State,
    memory_id: str,
    content: str | None,
    tags: tuple[str, ...],
    entities: tuple[str, ...],
    clear_tags: bool,
    clear_entities: bool,
    source: str | None,
    context: str | None,
    strength: float | None,
    keep: bool | None,
) -> None:
    """Edit a memory; only the options given change. Does not count as a use."""
    if (clear_tags and tags) or (clear_entities and entities):
        raise click.UsageError("--clear-tags goes without --tag, --clear-entities without --entity")
    with open_app(state) as app, options_named(UPDATE_OPTIONS):
        memory = app.memories.update(
            resolve(app, memory_id),
            content=None if content is None else read_content(content),
            tags=[] if clear_tags else tags or None,
            entities=[] if clear_entities else entities or None,
            source=source,
            context=context,
            strength=strength,
            keep=keep,
        )
        score = app.memories.score(memory)
    output(state, memory, lambda c: c.print(memory_table(memory, score)))


@click.command()
@click.argument("ids", nargs=-1, required=True)
@click.option("--archive", is_flag=True, help="Archive instead of deleting (kept, not searched).")
@pass_state
def delete(state: State, ids: tuple[str, ...], archive: bool) -> None:
    """Delete (or archive) memories. Unknown ids are skipped when deleting; archiving needs
    every id to exist (and then changes nothing if one is missing)."""
    show(
        state,
        lambda app: app.memories.remove(resolve_all(app, ids, skipped=not archive), archive),
        lambda out, result: render_delete(out, result, ids),
        {"memory_ids": "IDS"},
    )


def render_delete(out: Console, result: DeleteResult, ids: Sequence[str]) -> None:
    """What was done, and the ids typed that name no memory (skipped, as documented): one
    mistyped among several went unsaid (a probe)."""
    done = f"{result.action.capitalize()} {counted(result.count, 'memory')}"
    unknown = [t for t in dict.fromkeys(ids) if not any(m.startswith(t) for m in result.memory_ids)]
    if result.memory_ids:
        done += ": " + ", ".join(result.memory_ids)
    if unknown:
        done += f" (no memory has the id{'s' if len(unknown) > 1 else ''} {', '.join(unknown)})"
    say(out, "\n".join([done, *result.left_behind]))


@click.command()
@click.argument("ids", nargs=-1, required=True)
@pass_state
def unarchive(state: State, ids: tuple[str, ...]) -> None:
    """Bring archived memories back into search (every id must exist)."""
    with open_app(state) as app, options_named({"memory_ids": "IDS"}):
        asked = resolve_all(app, ids)
        archived = {m.id for m in app.memories.get_many(asked) if m.status == Status.ARCHIVED}
        # only those that were archived are back: one that was not read as brought back too,
        # and the count said 1 (a probe)
        back = [m.id for m in app.memories.unarchive(asked) if m.id in archived]
    result = DeleteResult(action="unarchived", count=len(back), memory_ids=back)
    untouched = [i for i in dict.fromkeys(asked) if i not in archived]

    def told(out: Console) -> None:
        if back:
            say(out, f"Back in search: {', '.join(back)}")
        if untouched:
            say(out, f"Not archived, left as they are: {', '.join(untouched)}")

    output(state, result, told)


@click.command()
@click.argument("memory_id")
@click.option("--boost", is_flag=True, help="Also raise its strength (it mattered).")
@pass_state
def touch(state: State, memory_id: str, boost: bool) -> None:
    """Reinforce a memory that was just used.

    Resets its decay clock and counts a use; --boost also adds to its strength.
    """
    show(
        state,
        lambda app: app.memories.touch(resolve(app, memory_id), boost=boost),
        render_touch,
        {"memory_id": "MEMORY_ID"},
    )


def render_touch(out: Console, result: TouchResult) -> None:
    m = result.memory
    say(
        out,
        (
            f"{result.instead_of} was merged into {m.id}: that memory took the use.\n"
            if result.instead_of
            else ""
        )
        + f"Touched {m.id}: score {fmt_score(result.old_score)} → {fmt_score(result.new_score)} "
        f"(uses {m.use_count}, strength {m.strength:g})"
        + ("; it was archived and is active again" if result.unarchived else ""),
    )


@click.command()
@click.argument("ids", nargs=-1, required=True)
@click.option(
    "--context-tag",
    "context_tags",
    multiple=True,
    required=True,
    help="Tag of the conversation the memories were used in (repeatable).",
)
@pass_state
def observe(state: State, ids: tuple[str, ...], context_tags: tuple[str, ...]) -> None:
    """Record that memories were used in a conversation.

    The --context-tag options describe the conversation (e.g. its topics).

    Use in an unrelated context (few shared tags) counts as cross-domain and strengthens more.
    """
    show(
        state,
        lambda app: ObserveUsageResult(
            results=app.memories.observe(resolve_all(app, ids), context_tags)
        ),
        lambda out, result: render_observe(out, result.results),
        {"context_tags": "--context-tag", "memory_ids": "IDS"},
    )


def render_observe(out: Console, results: Sequence[ObserveResult]) -> None:
    table = Table(title="Observed")
    table.add_column("id", no_wrap=True)
    table.add_column("score", justify="right")
    table.add_column("uses", justify="right")
    table.add_column("cross-domain")
    table.add_column("content")
    short = short_ids([r.memory.id for r in results])
    for r in results:
        table.add_row(
            short[r.memory.id],
            fmt_score(r.new_score),
            str(r.memory.use_count),
            "yes" if r.cross_domain else "no",
            preview(r.memory.content),
        )
    out.print(table)


COMMANDS = (save, search, open_, update, delete, unarchive, touch, observe)
