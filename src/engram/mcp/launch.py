"""Starting the stdio server in the order that makes its first search fast.

Importing the MCP SDK takes about a second on its own (its protocol types are built at import).
The store and the embedding model do not need it, so they start loading first, in the
background, and the SDK is imported meanwhile: by the time the client's `initialize` is
answered the model is usually ready, and the first search matches by meaning instead of
answering from the text alone (docs/performance.md, "Through MCP").
"""

from __future__ import annotations

import logging

from engram.app import configure_logging
from engram.clock import Clock
from engram.config import Settings, load_settings
from engram.errors import ConfigError
from engram.mcp.runtime import EngramRuntime

log = logging.getLogger(__name__)


def start(
    settings: Settings | None = None, clock: Clock | None = None
) -> tuple[Settings | None, EngramRuntime]:
    """Read the settings, send logs to stderr, and start opening the store and loading the
    model in the background. Settings are read here so the log level applies from the start.
    A bad setting does not stop the server: it is logged now and, because the settings are
    read again on the first tool call, returned to the model as the error of that call."""
    if settings is None:
        try:
            settings = load_settings()
        except ConfigError as exc:
            configure_logging("WARNING")
            log.error("%s; every tool call will report this until it is fixed", exc)
    if settings is not None:
        configure_logging(settings.log_level)
    # Engram's records already reach stderr through its own handler; the SDK installs a root
    # handler too, and propagating would print every Engram record twice.
    logging.getLogger("engram").propagate = False
    runtime = EngramRuntime(settings, clock)
    runtime.warm_up()
    return settings, runtime


def serve_stdio() -> None:
    """`python -m engram.mcp` and `engram serve`: start loading, then import the server."""
    settings, runtime = start()
    from engram.mcp.server import serve

    serve(settings, runtime=runtime)
