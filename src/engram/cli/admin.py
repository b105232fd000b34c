"""Maintenance and introspection commands: gc, candidates, stats, config, serve, ui, token."""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
from pydantic import BaseModel
from rich.console import Console
from rich.table import Table
from rich.text import Text

from engram.cli.common import (
    State,
    fmt_score,
    given,
    is_new_store,
    location_named,
    open_app,
    options_named,
    output,
    pass_state,
    preview,
    refuse_new_store,
    say,
    short_ids,
    show,
)
from engram.config import (
    Settings,
    config_dir,
    data_dir,
    default_storage_path,
    load_settings,
    project_env_file,
    readable_env_files,
    redact_url,
    seed_env_file,
)
from engram.config_env import ENV_PREFIX, seed_variable
from engram.core.models import Memory
from engram.core.timeutil import DAY, to_epoch
from engram.core.wording import counted
from engram.errors import ConfigError
from engram.services.maintenance import GC_BATCH_MAX
from engram.services.results import (
    GcResult,
    PromotionCandidate,
    PromotionCandidates,
    ReviewCandidate,
    ReviewCandidates,
    Stats,
)
from engram.services.validation import MAX_IDS, MAX_LIMIT
from engram.storage.factory import (
    is_jsonl_url,
    is_postgres_url,
    jsonl_path,
    sqlite_path,
    store_exists,
)


@click.command()
@click.option("--apply", "apply_", is_flag=True, help="Really forget (default: dry run).")
@click.option("--archive", is_flag=True, help="Archive instead of deleting.")
@click.option("--limit", type=int, default=1000, show_default=True, help=f"1 to {GC_BATCH_MAX}.")
@pass_state
def gc(state: State, apply_: bool, archive: bool, limit: int) -> None:
    """Forget memories whose score fell below the forget threshold.

    A dry run by default, because deletion cannot be undone: run it, read the list, then
    repeat with --apply.
    """
    preview_of: dict[str, Memory] = {}
    with open_app(state) as app:
        with options_named({"limit": "--limit"}):
            result = app.maintenance.gc(dry_run=not apply_, archive_instead=archive, limit=limit)
        if result.dry_run:  # show what would go; after --apply there is nothing left to show
            for start in range(0, len(result.memory_ids), MAX_IDS):
                chunk = result.memory_ids[start : start + MAX_IDS]
                preview_of.update((m.id, m) for m in app.memories.get_many(chunk))
        scores = {i: app.memories.score(m) for i, m in preview_of.items()}
    output(state, result, lambda c: render_gc(c, result, preview_of, scores))


def render_gc(
    out: Console, result: GcResult, memories: dict[str, Memory], scores: dict[str, float]
) -> None:
    verb = "archived" if result.archived else "deleted"
    if result.promote_error:
        say(out, f"Warning: {result.promote_error}; nothing was promoted")
    if result.promoted:  # ENGRAM_AUTO_PROMOTE
        done = "Would promote" if result.dry_run else "Promoted"
        say(out, f"{done} {counted(len(result.promoted), 'memory')} to the vault first:")
        for ident in result.promoted:
            say(out, f"  {ident}")
    if result.dry_run:
        say(out, f"Dry run: {counted(result.count, 'memory')} would be {verb}.")
        if result.count:
            table = Table()
            table.add_column("id", no_wrap=True)
            table.add_column("score", justify="right")
            table.add_column("strength", justify="right")
            table.add_column("last used")
            table.add_column("content")
            short = short_ids(result.memory_ids)
            for ident in result.memory_ids:
                m = memories.get(ident)
                table.add_row(
                    short[ident],
                    fmt_score(scores[ident]) if ident in scores else "",
                    f"{m.strength:g}" if m else "",
                    m.last_used.date().isoformat() if m else "",
                    preview(m.content) if m else "",
                )
            out.print(table)
            # A "Critical: …" memory fades as the rest do when unused, and was listed among
            # the trivia with nothing to tell it apart (a probe).
            marked = [i for i in result.memory_ids if i in memories and memories[i].strength > 1]
            if marked:
                say(
                    out,
                    f"{len(marked)} of them {'is' if len(marked) == 1 else 'are'} marked "
                    "important (strength above 1): `engram update ID --keep` keeps one for "
                    "good (`engram promote ID` in the vault too), `engram touch ID` for now.",
                )
            say(out, "Run again with --apply to do it.")
    else:
        say(out, f"{verb.capitalize()} {counted(result.count, 'memory')}.")
        for ident in result.memory_ids:
            say(out, f"  {ident}")
    if result.has_more:
        # a dry run changes nothing, so running it again lists the same ones
        again = "raise --limit to list them" if result.dry_run else "run again (or raise --limit)"
        say(out, f"More memories are due: {again}.")


@click.command()
@click.argument("kind", type=click.Choice(["promote", "review"]))
@click.option("--limit", type=int, default=10, show_default=True, help=f"1 to {MAX_LIMIT}.")
@pass_state
def candidates(state: State, kind: str, limit: int) -> None:
    """List memories to promote or to review (danger zone).

    `promote`: memories that earned long-term status (used often early on, or still strong
    days after being reinforced). `review`: memories about to fade, most urgent first.
    """
    found: Sequence[PromotionCandidate] | Sequence[ReviewCandidate]
    result: PromotionCandidates | ReviewCandidates
    with open_app(state) as app, options_named({"limit": "--limit"}):
        now = app.context.now_epoch()
        if kind == "promote":
            result = PromotionCandidates(candidates=app.maintenance.promotion_candidates(limit))
        else:
            result = ReviewCandidates(candidates=app.maintenance.review_candidates(limit))
    found = result.candidates
    output(state, result, lambda c: render_candidates(c, kind, found, now))


def render_candidates(
    out: Console,
    kind: str,
    found: Sequence[PromotionCandidate] | Sequence[ReviewCandidate],
    now: float,
) -> None:
    if not found:
        none = "No memory is due for promotion." if kind == "promote" else "No memory to review."
        say(out, none)
        return
    title = "Promotion candidates" if kind == "promote" else "Review candidates (danger zone)"
    table = Table(title=title)
    table.add_column("id", no_wrap=True)
    table.add_column("score", justify="right")
    table.add_column("reason" if kind == "promote" else "priority", justify="right")
    table.add_column("uses", justify="right")
    table.add_column("age (days)", justify="right")
    table.add_column("content")
    short = short_ids([c.memory.id for c in found])
    for c in found:
        m = c.memory
        extra = c.reason if isinstance(c, PromotionCandidate) else fmt_score(c.review_priority)
        age = (now - to_epoch(m.created_at)) / DAY
        row = [short[m.id], fmt_score(c.score), extra, str(m.use_count), f"{age:.1f}"]
        table.add_row(*row, preview(m.content))
    out.print(table)


@click.command()
@pass_state
def stats(state: State) -> None:
    """Show store counts and what needs gc, review or promotion."""
    show(state, lambda app: app.maintenance.stats(), render_stats)


def render_stats(out: Console, s: Stats) -> None:
    table = Table(title="Engram store", show_header=False, title_justify="left")
    table.add_column("what", style="bold")
    table.add_column("value", overflow="fold")
    table.add_row("location", Text(s.location))
    table.add_row("memories", str(s.total))
    for status, n in s.by_status.items():
        table.add_row(f"  {status.value}", str(n))
    table.add_row("relations", str(s.relations))
    table.add_row("decay model", s.decay_model)
    table.add_row("due for gc", str(s.due_for_gc))
    table.add_row("in danger zone", str(s.in_danger_zone))
    table.add_row("promotion candidates", str(s.promotion_candidates))
    out.print(table)


class ConfigLine(BaseModel):
    env_var: str
    value: Any
    source: str


class ConfigFile(BaseModel):
    role: str
    path: str
    exists: bool | None  # None: cannot tell without connecting (a server)


class ConfigReport(BaseModel):
    """Every effective setting with where it came from, and the files engram reads or writes."""

    settings: dict[str, ConfigLine]  # by setting name, e.g. report.settings["decay_beta"]
    files: list[ConfigFile]


@click.command()
@pass_state
def config(state: State) -> None:
    """Show effective settings and file locations.

    Every setting with its value and where it came from (command line, environment, .env
    file or default), then the .env files read and the data/store paths.
    """
    settings = state.settings()
    report = config_report(settings, overridden=set(state.overrides()))
    output(state, report, lambda c: render_config(c, report))


def config_report(settings: Settings, overridden: set[str]) -> ConfigReport:
    defaults = Settings.model_construct()  # defaults only: no environment, no validation
    environ = {k.upper() for k in os.environ}
    in_files = {k.upper() for k in readable_env_files()[1]}
    values = settings.model_dump(mode="json")
    lines: dict[str, ConfigLine] = {}
    for name in Settings.model_fields:
        env_var = f"{ENV_PREFIX}{name.upper()}"
        seed = seed_variable(name, environ)
        seed_in_file = seed_variable(name, in_files)
        if name in overridden:
            source = "command line"
        elif env_var in environ:
            source = "environment"
        elif seed is not None and env_var not in in_files:  # the ENGRAM_ name wins
            source = f"environment ({seed})"
        elif seed_in_file is not None and env_var not in in_files:
            source = f".env file ({seed_in_file})"
        elif env_var in in_files or getattr(settings, name) != getattr(defaults, name):
            source = ".env file"  # also when the file gives the default value
        else:
            source = "default"
        value = values[name]
        if name in SECRETS and value is not None:
            value = "***"  # set, and shown nowhere (the server's start-up line neither)
        elif isinstance(value, str):
            value = redact_url(value)  # a PostgreSQL URL may carry a password
        lines[name] = ConfigLine(env_var=env_var, value=value, source=source)
    files = [
        _file("seed's config", seed_env_file()),
        _file("user config", config_dir() / ".env"),
        _file("project config", project_env_file()),
        _file("data directory", data_dir()),
        _file("default store", Path(default_storage_path())),
        _store_file(settings.storage_path),
    ]
    return ConfigReport(settings=lines, files=files)


# Settings whose value `config` never prints.
SECRETS = frozenset({"http_token"})


def _store_file(location: str) -> ConfigFile:
    """The store in use: its file or directory; a server's URL without its password (whether
    the database exists, only connecting would tell). A location no command could open is
    an error naming ENGRAM_STORAGE_PATH, as in every other command."""
    role = "store in use"
    if is_postgres_url(location):
        return ConfigFile(role=role, path=redact_url(location), exists=None)
    path = (jsonl_path(location) if is_jsonl_url(location) else sqlite_path(location)).expanduser()
    store_exists(location)  # a path no system call takes (a name too long) is named, as there
    if not is_jsonl_url(location) and path.is_dir():  # as opening it says (it said "exists: yes")
        raise ConfigError(
            f"ENGRAM_STORAGE_PATH: {path} is a folder, not a SQLite file: a JSONL store? "
            f"name it jsonl://{path.absolute()}"
        )
    return _file(role, path)


def _file(role: str, path: Path | None) -> ConfigFile:
    if path is None:
        return ConfigFile(role=role, path="(no working directory)", exists=False)
    return ConfigFile(role=role, path=str(path), exists=path.exists())


def render_config(out: Console, report: ConfigReport) -> None:
    table = Table(title="Settings")
    table.add_column("setting")
    table.add_column("value", overflow="fold")
    table.add_column("source")
    for line in report.settings.values():
        table.add_row(line.env_var, Text(str(line.value)), line.source)
    out.print(table)
    files = Table(title="Files")
    files.add_column("role")
    files.add_column("path", overflow="fold")
    files.add_column("exists")
    for f in report.files:
        exists = "?" if f.exists is None else "yes" if f.exists else "no"
        files.add_row(f.role, Text(f.path), exists)
    out.print(files)


@click.command()
@click.option("--http", "over_http", is_flag=True, help="Serve MCP over HTTP, not stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="With --http: address.")
@click.option("--port", type=click.IntRange(1, 65535), default=8765, show_default=True)
@pass_state
def serve(state: State, over_http: bool, host: str, port: int) -> None:
    """Run the MCP server on stdio (for Claude Desktop, Cursor, ...), or over HTTP with a
    bearer token (--http)."""
    _store_to_server(state)
    if not over_http and (given("host") or given("port")):
        # forgetting --http ran a stdio server that listened on no port, without a word
        raise click.UsageError("--host and --port go with --http")
    if over_http:
        _server_module().serve_http(host=host, port=port)
        return
    # The store and the model start loading before the SDK is imported (engram.mcp.launch).
    from engram.mcp.launch import start

    settings, runtime = start()
    _server_module().serve(settings, runtime=runtime)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8766, show_default=True)
@pass_state
def ui(state: State, host: str, port: int) -> None:
    """Open the local dashboard: search, memories with their decay curves, the review queue,
    promotion candidates, a gc preview, stats (sign in with `engram token show`)."""
    with location_named("--store" if state.store is not None else None):
        settings = state.settings()
    if is_new_store(settings):  # a mistyped --store opened on an empty new store (a probe)
        refuse_new_store(settings)
    _store_to_server(state)
    _server_module().serve_ui(host=host, port=port)


def _store_to_server(state: State) -> None:
    """The server reads its own settings: the environment is how --store reaches it."""
    if state.store is not None:
        os.environ[f"{ENV_PREFIX}STORAGE_PATH"] = state.store


def _server_module() -> Any:
    """`engram.mcp.server`, imported lazily: it pulls in the MCP SDK, which other commands do
    not need."""
    try:
        return importlib.import_module("engram.mcp.server")
    except ImportError as exc:
        raise click.ClickException(f"the server is not available: {exc}") from None


@click.group()
def token() -> None:
    """The bearer token of `engram serve --http`."""


class TokenShown(BaseModel):
    token: str
    source: str  # the setting or the file it came from


class TokenRotated(BaseModel):
    path: str  # the token file now holding the new token


@token.command("show")
@pass_state
def token_show(state: State) -> None:
    """Print the token clients must send (creating it the first time), and where it lives."""
    from engram.mcp.http import token_for

    value, source = token_for(load_settings())

    def render(_: Console) -> None:
        click.echo(value)  # alone on stdout, for `$(engram token show)`
        click.echo(f"(from {source})", err=True)

    output(state, TokenShown(token=value, source=str(source)), render)


@token.command("rotate")
@pass_state
def token_rotate(state: State) -> None:
    """Replace the token file's token with a new one (restart the server to use it)."""
    from engram.mcp.http import rotate_token, token_path

    if load_settings().http_token:
        raise click.ClickException(
            "ENGRAM_HTTP_TOKEN is set: that is the token in use; change the setting instead"
        )
    rotate_token()
    path = token_path()
    output(
        state,
        TokenRotated(path=str(path)),
        lambda c: say(
            c,
            f"New token written to {path}; restart `engram serve --http` and `engram ui` to "
            "use it (until then the old one still works).",
        ),
    )


COMMANDS = (gc, candidates, stats, config, serve, ui, token)
