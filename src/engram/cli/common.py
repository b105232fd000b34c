"""What every command shares: global options, opening the app, output and error handling.

Kept apart from `main` so that command modules can import it without importing each other.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import re
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TextIO, TypeVar, cast

import click
from pydantic import BaseModel
from rich import progress as bars
from rich.console import Console
from rich.table import Table
from rich.text import Text

from engram.app import App, build_app
from engram.atomic import private_if_new, remove_stale_temporaries, write_atomically
from engram.clock import Clock, system_clock
from engram.config import Settings, load_settings, redact_url
from engram.core.short_ids import MIN_PREFIX, abbreviable
from engram.core.wording import counted
from engram.errors import ConfigError, EngramError, NotFoundError, ValidationError
from engram.services.transfer.common import Progress
from engram.storage.factory import store_exists

# Width used when stdout is not a terminal (pipes, files, tests): wide enough that a full
# memory id never wraps, which would break copy-paste and grep.
PIPE_WIDTH = 120
PREVIEW = 72

Shown = TypeVar("Shown", bound=BaseModel)


@dataclass(frozen=True)
class State:
    """The global options, handed to every command through click's context object."""

    store: str | None
    as_json: bool

    def overrides(self) -> dict[str, Any]:
        """Setting overrides from the command line; `--store` beats ENGRAM_STORAGE_PATH."""
        return {} if self.store is None else {"storage_path": self.store}

    def settings(self, **extra: Any) -> Settings:
        return load_settings(**{**self.overrides(), **extra})


pass_state = click.make_pass_decorator(State)


@contextmanager
def progress_bar(state: State) -> Iterator[Progress]:
    """The progress display of every long command: the services' `Progress` reports (phase,
    done, total), one line per phase, on stderr so that stdout keeps the result. One rule
    everywhere: shown when stderr is a terminal, hidden with --json or when stderr is piped (a
    script or an assistant reads it)."""
    err = Console(stderr=True)
    with bars.Progress(
        "[progress.description]{task.description}",
        bars.BarColumn(),
        bars.MofNCompleteColumn(),
        bars.TimeRemainingColumn(),
        console=err,
        disable=state.as_json or not err.is_terminal,
    ) as bar:
        tasks: dict[str, bars.TaskID] = {}

        def update(phase: str, done: int, total: int | None) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=total)
            bar.update(tasks[phase], completed=done, total=total)

        yield update


def is_new_store(settings: Settings) -> bool:
    """Whether `settings` name a store that is not there yet (opening it would make one)."""
    in_memory = settings.storage_path in (":memory:", "sqlite:///:memory:")
    return not in_memory and not store_exists(settings.storage_path)


def refuse_new_store(settings: Settings) -> NoReturn:
    """The error of a command that reads a store, given one that is not there: a mistyped
    --store made an empty one, which then said "No memories found"."""
    raise ConfigError(
        f"there is no store at {redact_url(settings.storage_path)} (check --store or "
        "ENGRAM_STORAGE_PATH): `engram save`, `import`, `migrate`, `demo`, `vault "
        "import --apply`, `index-ltm` and `serve` make one"
    )


@contextmanager
def open_app(
    state: State,
    clock: Clock | None = None,
    check_vectors: bool = True,
    create: bool = False,
    location_option: str | None = None,
    announce_new: bool = True,
    **extra: Any,
) -> Iterator[App]:
    """One App per command, always closed, so the SQLite file is never left open. Only the
    commands that add memories (`create`) make a store that is not there: a mistyped --store
    made an empty one, for `search` too, which then said "No memories found".
    `location_option`: the option that gave `storage_path` in `extra` (`--to`);
    `announce_new`: say on stderr that a store was made (not for the demo's own)."""
    option = location_option or ("--store" if state.store is not None else None)
    with location_named(option):
        settings = state.settings(**extra)
        new = is_new_store(settings)
        if not create and new:
            refuse_new_store(settings)
        app = build_app(settings, clock=clock, check_vectors=check_vectors)
        if new and announce_new:
            # Said, so that a mistyped --store is seen at once: `--store /nonexistent/dir/x.db
            # save hi` made the folders and the store without a word (a probe).
            click.echo(f"A new store: {redact_url(settings.storage_path)}", err=True)
    try:
        yield app
    finally:
        app.close()


def store_is_there(state: State) -> bool:
    """Whether the store a command would open exists: for a command that can do without it."""
    with location_named("--store" if state.store is not None else None):
        path = state.settings().storage_path
    return path in (":memory:", "sqlite:///:memory:") or store_exists(path)


# What the settings and the store factory call a store location they cannot use.
_LOCATION_SETTING = re.compile(r"^(?:invalid setting )?ENGRAM_STORAGE_PATH\b")


@contextmanager
def location_named(option: str | None) -> Iterator[None]:
    """A store location typed as an option is named as it was typed: `--store mysql://x`
    was reported as "ENGRAM_STORAGE_PATH: unsupported store URL scheme"."""
    try:
        yield
    except ConfigError as exc:
        renamed = _LOCATION_SETTING.sub(option, str(exc), count=1) if option else str(exc)
        if renamed == str(exc):
            raise
        raise ConfigError(renamed) from exc


_LISTED = "to list memories, `engram search` without a query (the highest score first)"
_SHOWN = "to show memories in full, `engram open ID...`"
_OTHER_NAMES = {
    "list": _LISTED,
    "ls": _LISTED,
    "show": _SHOWN,
    "get": _SHOWN,
    "cat": _SHOWN,
    "find": "to find memories, `engram search QUERY`",
    "add": "to add a memory, `engram save TEXT`",
    "remember": "to add a memory, `engram save TEXT`",
    "rm": "to delete memories, `engram delete ID...`",
    "remove": "to delete memories, `engram delete ID...`",
    "edit": "to edit a memory, `engram update ID`",
}


class EngramGroup(click.Group):
    """A group that turns domain errors into click's `Error: ...` line and exit code 1.

    Catching here (rather than in each command) covers every subcommand, including ones added
    later, and leaves click's own usage errors (exit code 2) untouched.
    """

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        # The names other tools give these commands: `engram list` said only "No such command
        # 'list'" (a probe).
        name = args[0] if args else None
        if name in _OTHER_NAMES and self.get_command(ctx, name) is None:
            raise click.UsageError(f"No such command '{name}': {_OTHER_NAMES[name]}", ctx)
        return super().resolve_command(ctx, args)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            ordered = global_options_first(args)
        except click.UsageError as exc:
            exc.ctx = ctx
            raise
        return super().parse_args(ctx, ordered)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.NoSuchOption as exc:
            # "-5°C in Berlin today" or a "---" front-matter block is text, not an option: it
            # said "No such option" and no more (probe).
            if _OPTION_LIKE.fullmatch(exc.option_name):
                raise
            raise click.UsageError(
                f"{exc.message.rstrip('.')}: a text that starts with '-' goes after --: "
                f"engram {ctx.invoked_subcommand} -- TEXT",
                exc.ctx,
            ) from None
        except EngramError as exc:
            raise click.ClickException(one_line(str(exc))) from None
        except OSError as exc:  # unreadable stdin, unwritable demo directory, ...
            if exc.errno == errno.EPIPE:
                raise  # `engram ... | head`: click itself exits quietly on a closed pipe
            raise click.ClickException(one_line(str(exc))) from None


# What an option looks like: "-x", "--tag", "--tag=x"; anything else starting with "-" is text.
_OPTION_LIKE = re.compile(r"--?[A-Za-z][\w-]*(?:=.*)?", re.DOTALL)
GLOBAL_FLAGS = ("--json",)
GLOBAL_VALUED = ("--store",)


def global_options_first(args: Sequence[str]) -> list[str]:
    """`args` with the global options moved before the command: `engram search tea --json`
    said "No such option '--json'" though every command takes it (placed first). Nothing after
    a `--` moves: `engram save -- --json` saves the text "--json"."""
    moved: list[str] = []
    rest: list[str] = []
    tokens = iter(args)
    for token in tokens:
        if token == "--":
            rest += [token, *tokens]
        elif token in GLOBAL_FLAGS or token.split("=", 1)[0] in GLOBAL_VALUED:
            moved.append(token)
            if token in GLOBAL_VALUED:  # its value follows (`--store PATH`)
                value = next(tokens, None)
                if value is None:
                    raise click.UsageError(f"Option '{token}' requires an argument.")
                moved.append(value)
        else:
            rest.append(token)
    return moved + rest


@contextmanager
def options_named(options: dict[str, str]) -> Iterator[None]:
    """Errors of the block name this command's options, not the Python API's parameters the
    service names (`merged_content: ...` is `--content: ...` here), in the field and in the
    reason (`auto_detect=true` is `--auto`). A name that is a plain word ("limit") is renamed
    in the reason only as a flag (`name=true`): "the limit is 1,000" said "the --limit is"."""
    try:
        yield
    except ValidationError as exc:
        reason = exc.reason
        for name in sorted(options, key=len, reverse=True):  # memory_ids before memory_id
            option = options[name]
            spelled = rf"\b{name}(=true)?\b" if "_" in name else rf"\b{name}=true\b"
            reason = re.sub(spelled, option, reason)
        raise ValidationError(options.get(exc.field, exc.field), reason) from None


def fields_as_typed(command: click.Command) -> click.Command:
    """`command` (and a group's commands), its errors naming a field as its command line spells
    it: an argument in capitals, an option by its flag. `vault show ../x` said "path: …" and
    `vault open` "memory_id: …" where the command line has PATH and MEMORY_ID. What a command
    renames itself (`options_named`) is spelled so already."""
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            fields_as_typed(sub)
        return command
    spelled = {
        p.name: p.human_readable_name if isinstance(p, click.Argument) else p.opts[0]
        for p in command.params
        if p.name
    }
    callback = command.callback
    if callback is None or not spelled:
        return command

    @functools.wraps(callback)
    def named(*args: Any, **kwargs: Any) -> Any:
        try:
            return callback(*args, **kwargs)
        except ValidationError as exc:
            if exc.field not in spelled:
                raise
            raise ValidationError(spelled[exc.field], exc.reason) from None

    command.callback = named
    return command


def given(name: str) -> bool:
    """Whether the running command's option `name` was typed (or set in the environment), not
    left at its default: an option of another mode that would be accepted and ignored."""
    source = click.get_current_context().get_parameter_source(name)
    return source not in (click.core.ParameterSource.DEFAULT, None)


def one_line(message: str) -> str:
    return " ".join(message.split()) or "unknown error"


# -- output ---------------------------------------------------------------------------------


def console() -> Console:
    """A console on the current stdout (click's test runner swaps it per invocation). A
    `COLUMNS` that is no positive number is ignored (rich took 0 as it was, and printed
    nothing: a save's id was never shown)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        width: int | None = None  # rich reads it
    elif sys.stdout.isatty():
        width = shutil.get_terminal_size().columns  # asks the terminal when COLUMNS is 0
    else:
        width = PIPE_WIDTH
    out = cast(TextIO, Chunked(sys.stdout))  # a stream in all but its type
    return Console(file=out, width=width, highlight=False, soft_wrap=False)


class Chunked:
    """Stdout written a piece at a time. One large write to a pipe whose reader quit
    (`| head -1`) stopped after the pipe's 64 KiB without an error, and the command exited 0;
    written in pieces, the next piece fails with EPIPE, which ends the command with 1 as
    `set -o pipefail` expects (docs/cli.md)."""

    PIECE = 16_384

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        for start in range(0, len(text), self.PIECE):
            self._stream.write(text[start : start + self.PIECE])
            self._stream.flush()
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def emit_json(value: BaseModel, indent: int | None = 2) -> None:
    """Exactly one JSON document on stdout, straight from the result model (as MCP sends it);
    `indent=None`: on one line (JSON Lines, for a command that prints one per run).
    A file name that is not UTF-8 holds lone surrogates (Python's escape for its bytes): they
    are written as JSON escapes, not as the raw bytes that made the output invalid UTF-8."""
    text = json.dumps(value.model_dump(mode="json"), indent=indent, ensure_ascii=False)
    Chunked(sys.stdout).write(
        _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"
    )


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def output(state: State, value: BaseModel, render: Callable[[Console], None]) -> None:
    """JSON for scripts, or the command's rich rendering for people."""
    try:
        if state.as_json:
            emit_json(value)
        else:
            render(console())
            sys.stdout.flush()  # what the console wrote reaches its file here, or fails here
    except OSError as exc:  # "[Errno 28] No space left on device", naming nothing
        if exc.errno == errno.EPIPE:
            raise  # `engram ... | head`: click itself exits quietly on a closed pipe
        raise click.ClickException(
            f"cannot write the result to standard output: {exc.strerror or exc}"
        ) from None


def show(
    state: State,
    call: Callable[[App], Shown],
    render: Callable[[Console, Shown], None],
    named: dict[str, str] | None = None,
    **opened: Any,
) -> Shown:
    """Most commands are one service call and its result: the App is closed before anything
    is printed (a slow terminal never holds the store), and the call's errors, not the
    store's opening, speak in this command's `named` options (`options_named`). `opened` goes
    to `open_app`."""
    renamed = options_named(named) if named is not None else nullcontext()
    with open_app(state, **opened) as app, renamed:
        result = call(app)
    output(state, result, lambda out: render(out, result))
    return result


def sentence(message: str) -> str:
    """A result's `message` (lower case, no full stop: it is read inside JSON too) as the
    sentence that ends a table."""
    return message[:1].upper() + message[1:] + "."


# Control characters but tab and newline (C0, DEL and C1), and the bidirectional overrides
# and isolates, which can reverse the rest of a table row in a terminal that honours them.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def plain(text: str) -> Text:
    """Stored text as a terminal shows it: never rich markup (`[brackets]` stay), and its
    control characters written as escapes (`\\x1b`), never sent. A memory saved over MCP
    holding an escape sequence could retitle or recolour the user's terminal."""
    return Text(_CONTROL.sub(_escaped, text))


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def say(out: Console, message: str) -> None:
    """One plain line: never parsed as rich markup, never wrapped (ids stay copy-pasteable)."""
    out.print(plain(message), soft_wrap=True)


def preview(content: str, length: int = PREVIEW) -> Text:
    """The first line of a memory, shortened, as `plain` text."""
    lines = content.strip().splitlines()  # at \r and U+2028 too, not only \n
    first = lines[0] if lines else ""
    more = len(first) > length or len(lines) > 1
    shown = first[: length - 1] + "…" if len(first) > length else first
    return plain(shown + (" …" if more and len(first) <= length else ""))


def results_table(count: int) -> Table:
    """The head of a search's table, `search` and `search --all` alike: titled by how many
    results, each row numbered by its rank."""
    table = Table(title=counted(count, "result"))
    table.add_column("#", justify="right")
    return table


def fmt_score(value: float) -> str:
    return f"{value:.3f}"


def fmt_tags(tags: Sequence[str]) -> Text:
    return plain(", ".join(tags))


# Ids are shown shortened, as git shows commit hashes: the first SHORT_ID characters, more where
# two ids in one table share them; every command takes such a short id (`MemoryService.resolve`).
SHORT_ID = 8


def short_ids(ids: Sequence[str]) -> dict[str, str]:
    """Each id's shortest form of at least SHORT_ID characters that no other id here shares
    (an id Engram did not make is shown whole: no start of it stands for it). Sorted, an id
    shares its longest common start with a neighbour, so one pass suffices."""
    ordered = sorted(set(ids))
    out: dict[str, str] = {}
    for i, ident in enumerate(ordered):
        shared = max(
            (_common_start(ident, ordered[j]) for j in (i - 1, i + 1) if 0 <= j < len(ordered)),
            default=0,
        )
        short = ident[: max(SHORT_ID, shared + 1)]
        out[ident] = short if abbreviable(ident) else ident  # as resolve reads it
    return out


def _common_start(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def resolve(app: App, ident: str, field: str = "memory_id", skipped: bool = False) -> str:
    """The id a short id stands for; an id that matches nothing is passed on as given, for the
    command to report (or skip) as it does with any unknown id. One too short to stand for
    an id is refused, saying so ("memory not found: 198" left a probe guessing), unless the
    command skips unknown ids (`skipped`: `delete`, which failed whole on one, a probe)."""
    try:
        return app.memories.resolve(ident, field)
    except NotFoundError:
        if len(ident) < MIN_PREFIX and not skipped:
            raise
        return ident


def resolve_all(
    app: App, ids: Sequence[str], field: str = "memory_ids", skipped: bool = False
) -> list[str]:
    return [resolve(app, ident, field, skipped) for ident in ids]


def not_a_file(path: Path) -> bool:
    """A pipe, a device or /dev/stdout where output goes: written to, never replaced (the
    atomic rename of a file replaced a FIFO or a device, /dev/null once, with a plain file,
    and failed on /dev/stdout)."""
    return path.exists() and not path.is_file() and not path.is_dir()


def write_file(path: Path, data: bytes | Iterable[bytes], field: str) -> None:
    """Never a half-written file (`engram.atomic`); a folder that is not there, or a write the
    system refuses, is an error naming the option (`graph --html` into a missing folder said
    "Could not open file", where `export --out` named its option)."""
    if not str(path).strip() or path.is_dir():  # `--out ""` is the working directory
        raise ValidationError(field, f"must name a file, not a folder ({path.resolve()})")
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise ValidationError(field, f"directory {directory} does not exist")
    # A new file holds memories as the store does, and is as private: a graph page was
    # readable by every user of the machine where the store is not (a probe). A file written
    # over keeps its own permissions.
    # What a killed write of this file left beside it (a copy of the memories, part-written,
    # in a hidden file) goes once an hour old, as other atomic writers' do (a probe).
    remove_stale_temporaries(path, system_clock().timestamp())
    try:
        write_atomically(path, data, mode=private_if_new(path))
    except OSError as exc:  # it named the temporary file beside PATH ("/proc/.x.….tmp")
        raise ValidationError(field, f"cannot write {path}: {exc.strerror}") from None


def write_through(path: Path, chunks: Iterable[str], field: str) -> None:
    try:
        with path.open("w", encoding="utf-8") as f:
            for chunk in chunks:
                f.write(chunk)
    except OSError as exc:
        raise ValidationError(field, f"cannot write to {path}: {exc.strerror}") from None
