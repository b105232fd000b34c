"""The App behind one MCP server: opened on first use, run off the event loop, closed at exit.

Why lazily: a store that cannot be opened (bad setting, unwritable path, corrupt file) then
becomes a readable tool error the model can relay, instead of a server that dies during the
handshake and shows up in the client only as "disconnected". It also keeps the `initialize`
round trip fast even when a changed decay setting makes opening recompute every schedule.

Nothing here imports the MCP SDK (about a second of imports on its own): a server starts
opening its store and loading the model before that import (`engram.mcp.launch`).
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import TypeVar

import anyio.to_thread

from engram.app import App, build_app
from engram.clock import Clock, system_clock
from engram.config import Settings, load_settings
from engram.errors import EngramError, ValidationError
from engram.process_threads import one_blas_thread

T = TypeVar("T")

log = logging.getLogger(__name__)

# Client sessions whose episode ids are kept: as many as the SDK keeps sessions.
MAX_SESSIONS = 10_000
# A session that saved nothing for this long starts a new episode: a desktop client keeps one
# server (one stdio session) across many conversations, and the memories of all of them were
# one episode, each lending search credit to the others' (an unrelated memory listed after the
# match of every query).
EPISODE_GAP = timedelta(minutes=30)
# Tool calls run on worker threads of their own, at most this many at once; the rest wait
# their turn in the event loop. They used anyio's default pool, through which the SDK reads
# stdin: 41 calls waiting on a busy store took all 40 of its threads, and the server stopped
# reading, answering nothing (not even a ping or a cancellation) until the store was free.
CALL_THREADS = 16


class EngramRuntime:
    """Owns at most one App; every tool reaches the services through `call`."""

    def __init__(self, settings: Settings | None = None, clock: Clock | None = None) -> None:
        self._settings = settings
        self._clock = clock
        self._app: App | None = None
        # Two locks: building the App can take seconds (a busy store, schedules recomputed),
        # and the event loop must never wait for that — `initialize` (through `warm_up`) and
        # `save_memory` (through `episode_for`) were answered only once the store was open.
        self._build = threading.Lock()  # held while the App is built
        self._state = threading.Lock()  # guards the fields below; held only for moments
        # Each session's episode and when it last saved.
        self._episodes: OrderedDict[str | None, tuple[str, datetime]] = OrderedDict()
        self._serving = False
        self._started = False  # warm-up and vault watching started for the App
        self._calls: anyio.CapacityLimiter | None = None  # made in the event loop (`call`)

    def episode_for(self, session_id: str | None) -> str:
        """One episode id per client session and conversation: the memories an assistant saves
        in one conversation belong together, and search credits their neighbours
        (docs/search.md). Over stdio every client session is a server process of its own
        (`session_id` None); a transport with sessions names them. A session quiet for
        `EPISODE_GAP` starts a new one."""
        now = (self._clock or system_clock)()
        with self._state:
            known = self._episodes.get(session_id)
            if known is None or now - known[1] > EPISODE_GAP:
                episode = f"mcp:{uuid.uuid4()}"
            else:
                episode = known[0]
            self._episodes[session_id] = (episode, now)
            self._episodes.move_to_end(session_id)
            # Sessions end without a word to us: the oldest go (the SDK keeps at most 10,000
            # sessions, idle ones for 30 minutes); one entry per session grew forever.
            while len(self._episodes) > MAX_SESSIONS:
                self._episodes.popitem(last=False)
            return episode

    def app(self) -> App:
        """Build the App once; a failed build is retried next call (the fix may be in a file)."""
        app = self._app
        if app is None:
            with self._build:
                app = self._app
                if app is None:
                    settings = self._settings if self._settings is not None else load_settings()
                    app = build_app(settings, self._clock, recover_vectors=True)
                    log.info("store open: %s", app.context.store.location)
                    with self._state:
                        self._app = app
        self._start_serving(app)
        return app

    def _start_serving(self, app: App) -> None:
        """Once a server runs and its App exists (in either order): warm the model up in the
        background and watch the vault."""
        with self._state:
            if not self._serving or self._started or self._app is not app:
                return
            self._started = True
            # Started before the lock is let go: a caller that finds the App (and so returns
            # from `app`) must find its warm-up running, to wait for it.
            app.search.warm_up_in_background()
        self._watch_vault(app)

    def warm_up(self) -> None:
        """Open the store and load the model and vector index in the background, so the first
        search after start-up does not wait for them; a search that comes sooner answers from
        the text alone and says so. A store that cannot be opened is left to the first call,
        which reports it. Returns at once, whatever the store is doing."""

        def run() -> None:
            try:
                self.app()
            except Exception as exc:
                # Said at once: a server that cannot reach its store looked healthy, its log
                # silent, while every tool call failed.
                log.warning("cannot open the store: %s; every tool call will say so", exc)
            one_blas_thread()  # its searches kept a second core spinning (process_threads.py)

        with self._state:
            if self._serving:
                return  # started already (before the SDK was imported: engram.mcp.launch)
            self._serving = True
        threading.Thread(target=run, name="engram-open", daemon=True).start()

    @staticmethod
    def _watch_vault(app: App) -> None:
        """A server keeps the vault's index in step with edits made in Obsidian."""
        try:
            if app.ltm.watch():
                log.info("watching the vault %s", app.settings.vault_path)
        except EngramError as exc:  # a vault that cannot be read: unified search says why
            log.warning("not watching the vault: %s", exc)

    def close(self) -> None:
        with self._build, self._state:
            app, self._app = self._app, None
            self._started = False
        if app is not None:
            app.close()
            log.info("store closed")

    async def call(
        self, operation: Callable[[App], T], names: Mapping[str, str] | None = None
    ) -> T:
        """Run one synchronous service operation in a worker thread.

        SQLite calls block (a busy store waits up to `sqlite_busy_timeout`), so they must never
        run on the event loop that also reads stdin and answers other requests. Domain errors
        become `ToolError`s carrying the service's message, which names the field and the limit;
        anything else is left to the SDK, which logs the traceback to stderr and tells the model
        only that the tool failed. `names`: the tool's names for the service's parameters
        where they differ, for the field an error names.
        """

        def run() -> T:
            return operation(self.app())

        if self._calls is None:
            self._calls = anyio.CapacityLimiter(CALL_THREADS)
        try:
            return await anyio.to_thread.run_sync(run, limiter=self._calls)
        except EngramError as exc:
            from mcp.server.mcpserver.exceptions import ToolError  # loaded by the server already

            if isinstance(exc, ValidationError) and names and exc.field in names:
                raise ToolError(f"{names[exc.field]}: {exc.reason}") from exc
            raise ToolError(str(exc)) from exc
