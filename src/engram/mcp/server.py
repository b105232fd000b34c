"""The Engram MCP server: `build_server()` for embedding and tests, `serve()` for `engram serve`.

stdout carries the MCP protocol and nothing else: Engram logs to stderr (`configure_logging`),
the SDK's own logging goes to stderr, and while serving file descriptor 1 points at stderr
(`engram.mcp.stdio.claim_stdout`; on Windows the SDK does it) so even a stray `print` cannot
corrupt a message.
"""

from __future__ import annotations

import json
import logging
import socket
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from importlib.metadata import PackageNotFoundError, version
from typing import IO, Any, cast

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    CallToolResult,
    GetPromptResult,
    InputRequiredResult,
    TextContent,
)

from engram.about import DISTRIBUTION
from engram.app import configure_logging
from engram.clock import Clock
from engram.config import Settings, load_settings
from engram.errors import EngramError, ValidationError
from engram.mcp.arguments import (
    aliases_given,
    checked_arguments,
    named_as_given,
    validation_report,
)
from engram.mcp.launch import start
from engram.mcp.runtime import EngramRuntime
from engram.mcp.stdio import Answered, CheckedInput, claim_stdin, claim_stdout
from engram.mcp.stopping import stop_on_signals
from engram.mcp.tools import register_tools

__all__ = ["INSTRUCTIONS", "SERVER_NAME", "build_server", "serve", "serve_http", "serve_ui"]

SERVER_NAME = "engram"

INSTRUCTIONS = """\
Engram is your long-term memory across conversations. Memories fade with time unless they are \
used, like human memory: what keeps being useful stays, the rest is forgotten.

- Before answering, search_memory for what you may already know about the user or the task; \
it matches by meaning too, so ask in plain words ("which database did we pick").
- save_memory for durable facts, preferences and decisions (one idea per memory, with tags). \
Saving something already stored does not copy it: the stored memory is merged and reinforced \
(the result says so); memories close to it in meaning come back in `similar`: where one says \
the same fact in other words, update it instead of keeping both; one that is only alike (a \
lower `similarity`, another fact on the same topic) stays as it is. A save that says what \
changed replaces the old fact by itself (`supersedes`). To change a fact, update_memory the \
one you found.
- After a memory actually helped, call observe_memory_usage with the conversation's tags: that \
reinforcement is what keeps it alive. Searching and opening do not count as use.
- review_candidates lists memories about to fade; bring them up or let them go. \
promotion_candidates lists memories that earned permanent status.
- promote_memory writes a memory that earned it into the user's Obsidian vault for good; \
search_unified searches memories and vault notes together (the server indexes the vault as it \
changes; vault_status says whether vault and index agree).
- create_relation links memories (delete_relation removes a wrong link); traverse_graph \
follows links several steps (reasoning chains, context around a memory); read_graph pages \
through everything.
- gc forgets faded memories; it is a dry run unless dry_run=false.
- cluster_memories finds memories that say the same thing; consolidate_memories merges them \
(preview first; originals are archived, undo_consolidation restores them).
- Unsure whether a user's message is worth remembering, asks for a memory, or confirms one? \
analyze_message and analyze_for_recall say so, with what to save or search.
"""

log = logging.getLogger(__name__)


def _version() -> str:
    """The installed distribution's version (the package root sits above this layer)."""
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "0+unknown"


Lifespan = Callable[[MCPServer[EngramRuntime]], AbstractAsyncContextManager[EngramRuntime]]


class EngramServer(MCPServer[EngramRuntime]):
    """The SDK's server, with every tool's and prompt's arguments checked by name first: an
    unknown one is an error naming it, and the seed's spellings are renamed
    (`engram.mcp.arguments`)."""

    _parameters: dict[str, frozenset[str]] | None = None
    _prompt_parameters: dict[str, frozenset[str]] | None = None
    _prompt_required: dict[str, list[str]] | None = None
    runtime: EngramRuntime  # the App behind the tools (the dashboard shares it)

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        context: Context[EngramRuntime, Any] | None = None,
    ) -> CallToolResult | InputRequiredResult:
        if self._parameters is None:
            self._parameters = {
                tool.name: frozenset(tool.input_schema.get("properties", {}))
                for tool in await self.list_tools()
            }
        parameters = self._parameters.get(name)
        renamed = aliases_given(name, arguments)
        if parameters is not None:
            try:
                arguments = checked_arguments(name, arguments, parameters)
            except ValidationError as exc:  # worded as the SDK words a tool's own errors
                raise ToolError(f"Error executing tool {name}: {exc}") from exc
        try:
            return compact_text(await super().call_tool(name, arguments, context))
        except ToolError as exc:
            message = validation_report(name, exc) or str(exc)
            if renamed:
                message = named_as_given(message, renamed)
            if message == str(exc):
                raise
            raise ToolError(message) from exc

    async def get_prompt(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        context: Context[EngramRuntime, Any] | None = None,
    ) -> GetPromptResult | InputRequiredResult:
        """The SDK answers any failure of a prompt with "Error rendering prompt NAME" (and logs
        a traceback); a bad argument is the caller's to fix, so the answer names it."""
        if self._prompt_parameters is None or self._prompt_required is None:
            prompts = await self.list_prompts()
            self._prompt_parameters = {
                p.name: frozenset(a.name for a in p.arguments or []) for p in prompts
            }
            self._prompt_required = {
                p.name: [a.name for a in p.arguments or [] if a.required] for p in prompts
            }
        parameters = self._prompt_parameters.get(name)
        if parameters is None:  # the SDK's ValueError for it became error code 0, with a traceback
            raise MCPError(INVALID_PARAMS, f"Unknown prompt: {name}")
        try:
            arguments = checked_arguments(name, arguments or {}, parameters)
            # A missing argument failed inside the SDK, with a logged traceback.
            for needed in self._prompt_required.get(name, []):
                if needed not in arguments:
                    raise ValidationError(needed, f"is required by the prompt {name}")
            return await super().get_prompt(name, arguments, context)
        except (ValueError, EngramError) as exc:
            cause = _engram_cause(exc)
            if cause is None:
                raise
            raise MCPError(INVALID_PARAMS, f"Error rendering prompt {name}: {cause}") from exc

    async def run_stdio_async(self) -> None:
        """The SDK's stdio loop, reading through `CheckedInput` (a request the SDK could not
        parse is answered with a JSON-RPC error instead of silence) and writing through
        `DirectOutput` (no thread hop per message); see `engram.mcp.stdio`."""
        output = claim_stdout()  # first: it compares its file with the input's
        checked = CheckedInput(claim_stdin())
        async with stdio_server(
            stdin=anyio.AsyncFile(cast(IO[str], checked)),
            # The SDK only calls write and flush on it (None: the SDK's own writer).
            stdout=cast("anyio.AsyncFile[str] | None", output),
        ) as (read, write):
            checked.attach(write)
            lowlevel = self._lowlevel_server
            answered = Answered()
            await lowlevel.run(
                answered.reading(read),
                answered.writing(write),
                lowlevel.create_initialization_options(),
            )


def compact_text(
    result: CallToolResult | InputRequiredResult,
) -> CallToolResult | InputRequiredResult:
    """The text block of a result (what most clients show the model) as compact JSON of its
    structured content. The SDK writes it indented, which costs the user about a quarter more
    tokens on every call for the same content (`bench/mcp_latency.py` prints both sizes)."""
    if not isinstance(result, CallToolResult) or result.is_error:
        return result
    if result.structured_content is None:
        return result
    text = json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":"))
    compact: CallToolResult = result.model_copy(
        update={"content": [TextContent(type="text", text=text)]}
    )
    return compact


def build_server(
    settings: Settings | None = None,
    clock: Clock | None = None,
    runtime: EngramRuntime | None = None,
) -> EngramServer:
    """A server with every Engram tool; nothing is opened until the first tool call or the
    lifespan's warm-up (unless `runtime` was started already).

    `settings=None` reads the settings (environment, `.env` files) on that first call, so a bad
    setting reaches the model as a tool error naming the variable. The store is closed when the
    server's lifespan ends (the client disconnects).
    """
    runtime = runtime if runtime is not None else EngramRuntime(settings, clock)
    level = settings.log_level if settings is not None else "WARNING"
    # The SDK gives the root logger a rich handler unless it has one: every record of a client
    # that dropped mid-request (a 43-line traceback) was rendered on the event loop, 100-170 ms
    # each, and a hundred such clients stalled the server for 17 s. A plain one is ours.
    if not logging.getLogger().handlers:
        plain = logging.StreamHandler(sys.stderr)
        plain.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logging.basicConfig(level=level, handlers=[plain])
    server = EngramServer(
        SERVER_NAME,
        instructions=INSTRUCTIONS,
        version=_version(),
        log_level=level,
        lifespan=_lifespan(runtime),
    )
    register_tools(server, runtime)
    server.runtime = runtime
    return server


def _lifespan(runtime: EngramRuntime) -> Lifespan:
    @asynccontextmanager
    async def lifespan(_: MCPServer[EngramRuntime]) -> AsyncIterator[EngramRuntime]:
        runtime.warm_up()
        try:
            yield runtime
        finally:
            # Shielded: closing must finish (checkpointing the WAL) even when the server is
            # being cancelled; in a thread, because it waits for any in-flight store call.
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(runtime.close)

    return lifespan


def serve(
    settings: Settings | None = None,
    clock: Clock | None = None,
    runtime: EngramRuntime | None = None,
) -> None:
    """Run the server over stdio until the client closes stdin (what `engram serve` runs).

    `runtime`: one already started by `engram.mcp.launch.start`, which also read the settings
    and set up logging; without it, that happens here."""
    if runtime is None:
        settings, runtime = start(settings, clock)
    log.debug("serving MCP over stdio")
    stop_on_signals()
    build_server(settings, clock, runtime).run("stdio")


def serve_http(settings: Settings | None = None, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Run the server over streamable HTTP at http://HOST:PORT/mcp, every request checked
    for the bearer token (engram.mcp.http); until Ctrl-C."""
    from mcp.server.transport_security import TransportSecuritySettings

    from engram.mcp import draining
    from engram.mcp.http import (
        BearerToken,
        HostInLowerCase,
        allowed_origins,
        loopback_hosts,
        url_host,
    )
    from engram.web.dashboard import dashboard
    from engram.web.routing import with_dashboard

    settings, token, source, listener = _listening(settings, host, port)
    server = build_server(settings)
    hosts = loopback_hosts(listener, host, settings.http_allowed_hosts)
    # The SDK's own Host and Origin check, by the same list as the dashboard's (it switched
    # itself on only for three spellings of loopback, and refused a Host without a port).
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=hosts is not None,
        allowed_hosts=sorted(hosts or ()),
        allowed_origins=allowed_origins(hosts, settings.http_allowed_hosts),
    )
    mcp_app = HostInLowerCase(
        BearerToken(server.streamable_http_app(host=host, transport_security=security), token)
    )
    app = with_dashboard(dashboard(server.runtime.app, token), mcp_app, hosts)
    where = url_host(host)
    _announce(
        f"Engram MCP over HTTP on http://{where}:{port}/mcp; clients send 'Authorization: "
        f"Bearer <token>' (the token: {source}); the dashboard is at http://{where}:{port}/ui"
    )
    if hosts is None:
        log.warning(
            "listening on %s: other machines can reach this server; it speaks plain HTTP, so "
            "put it behind a TLS proxy (the token travels in every request)",
            url_host(host),
        )
    draining.serve(app, listener)


def _listening(
    settings: Settings | None, host: str, port: int
) -> tuple[Settings, str, str, socket.socket]:
    """What both HTTP servers do before building anything: the settings read, logging set up,
    the token known (with where it comes from) and the port held, so a bad setting or a port
    in use ends the start before a store is opened."""
    from engram.mcp.http import bound_socket, token_for

    settings = settings if settings is not None else load_settings()
    configure_logging(settings.log_level)
    logging.getLogger("engram").propagate = False
    token, source = token_for(settings)
    return settings, token, source, bound_socket(host, port)


def _announce(message: str) -> None:
    """Where a server started, said on stderr as a plain line: logged as a WARNING (to be seen
    at the default log level), a normal start read as a problem (a probe)."""
    sys.stderr.write(message + "\n")  # never stdout: over stdio that is the protocol's
    sys.stderr.flush()


def serve_ui(settings: Settings | None = None, host: str = "127.0.0.1", port: int = 8766) -> None:
    """`engram ui`: the dashboard alone at http://HOST:PORT/ui, signed in with the HTTP token."""
    from engram.mcp import draining
    from engram.mcp.http import loopback_hosts, url_host
    from engram.web.dashboard import dashboard
    from engram.web.routing import to_dashboard, with_dashboard

    settings, token, source, listener = _listening(settings, host, port)
    runtime = EngramRuntime(settings)
    # The store opened (and the model loaded) at once: a store that cannot be opened is said
    # at start, as `serve --http` says it, not only on every page.
    runtime.warm_up()
    hosts = loopback_hosts(listener, host, settings.http_allowed_hosts)
    app = with_dashboard(dashboard(runtime.app, token), to_dashboard, hosts)
    _announce(
        f"Engram dashboard on http://{url_host(host)}:{port}/ui (sign in with the token: {source})"
    )
    if hosts is None:
        log.warning(
            "listening on %s: other machines can reach the dashboard (plain HTTP)", url_host(host)
        )
    try:
        draining.serve(app, listener)
    finally:
        runtime.close()


def _engram_cause(exc: BaseException) -> BaseException | None:
    """The Engram error (or the tool error carrying one) behind an SDK wrapper, if any."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, EngramError | ToolError):
            return seen
        seen = seen.__cause__
    return None
