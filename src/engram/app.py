"""The composition root: the one place that wires settings, store, clock and services."""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass

from engram.clock import Clock, system_clock
from engram.config import Settings
from engram.services.context import Context
from engram.services.graph import GraphService
from engram.services.maintenance import MaintenanceService
from engram.services.memories import MemoryService
from engram.services.search import SearchService
from engram.storage.factory import open_store


@dataclass
class App:
    settings: Settings
    context: Context
    memories: MemoryService
    search: SearchService
    maintenance: MaintenanceService
    graph: GraphService

    def close(self) -> None:
        self.context.store.close()


def build_app(settings: Settings, clock: Clock | None = None) -> App:
    configure_logging(settings.log_level)
    store = open_store(settings.storage_path, settings)
    try:
        ctx = Context(
            store=store,
            settings=settings,
            policy=settings.policy(),
            rules=settings.reinforcement(),
            clock=clock or system_clock,
        )
        ctx.ensure_schedules()
    except BaseException:
        store.close()
        raise
    return App(
        settings=settings,
        context=ctx,
        memories=MemoryService(ctx),
        search=SearchService(ctx),
        maintenance=MaintenanceService(ctx),
        graph=GraphService(ctx),
    )


def configure_logging(level: str) -> None:
    """Logs go to stderr only: stdout belongs to the MCP protocol and to `--json` output."""
    root = logging.getLogger("engram")
    if not any(getattr(h, "_engram", False) for h in root.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        handler._engram = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    root.setLevel(level)
