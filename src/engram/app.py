"""The composition root: the one place that wires settings, store, clock and services."""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass, replace
from typing import TextIO

from engram.clock import Clock, system_clock
from engram.config import Settings
from engram.embeddings.factory import make_embedder
from engram.services.activation import ActivationService
from engram.services.backup import BackupService
from engram.services.consolidation import ConsolidationService
from engram.services.context import Context
from engram.services.embedding_queue import EmbeddingQueue
from engram.services.embeddings import EmbeddingService
from engram.services.graph import GraphService
from engram.services.ltm import LtmService, VaultAccess
from engram.services.maintenance import MaintenanceService
from engram.services.memories import MemoryService
from engram.services.pipeline import PipelineService
from engram.services.promotion import PromotionService
from engram.services.search import SearchService
from engram.services.storage_maintenance import StorageMaintenanceService
from engram.services.transfer.service import TransferService
from engram.services.unified import UnifiedSearchService
from engram.services.vault_import import VaultImportService
from engram.storage.factory import open_store


@dataclass
class App:
    settings: Settings
    context: Context
    memories: MemoryService
    search: SearchService
    maintenance: MaintenanceService
    graph: GraphService
    embeddings: EmbeddingService
    ltm: LtmService
    promotion: PromotionService
    unified: UnifiedSearchService
    backup: BackupService
    consolidation: ConsolidationService
    activation: ActivationService
    pipeline: PipelineService
    vault_import: VaultImportService
    transfer: TransferService
    storage: StorageMaintenanceService  # the store's own files: stats and compaction

    def close(self) -> None:
        self.ltm.stop_watching()  # its index runs write to the store
        self.context.warm_up.wait()  # it reads the store
        self.context.links_ready()  # they read vectors, and write links
        if self.context.queue is not None:
            self.context.queue.close()  # vectors of the last saves first
        self.context.store.close()


def build_app(
    settings: Settings,
    clock: Clock | None = None,
    recover_vectors: bool = False,
    check_vectors: bool = True,
    library: bool = False,
) -> App:
    """`recover_vectors`: embed, in the background, memories an interrupted save left without
    a vector (the MCP server and the Python API do; one-off commands leave that to `engram
    embed`, and say so).
    `check_vectors=False`: no word at open about missing vectors (`engram embed` reports
    them itself, and told the user to run `engram embed --backfill` while running it).
    `library`: built inside another program (`Engram.open`: `configure_logging`)."""
    configure_logging(settings.log_level, library=library)
    embedder = make_embedder(settings.embedding_model, settings.embedding_threads)
    vector_model = None if embedder is None else (embedder.model_id, embedder.dimensions)
    store = open_store(settings.storage_path, settings, vector_model)
    ctx: Context | None = None
    try:
        ctx = Context(
            store=store,
            settings=settings,
            policy=settings.policy(),
            rules=settings.reinforcement(),
            clock=clock or system_clock,
            embedder=embedder,
        )
        if ctx.semantic is not None and settings.embed_in_background:
            ctx = replace(ctx, queue=EmbeddingQueue(ctx.embed_and_store))
        ctx.ensure_schedules()
        if check_vectors:
            ctx.check_vectors(recover=recover_vectors)
    except BaseException:
        if ctx is not None and ctx.queue is not None:
            ctx.queue.close()
        store.close()
        raise
    search = SearchService(ctx)
    maintenance = MaintenanceService(ctx)
    vault = VaultAccess(settings)
    ltm = LtmService(ctx, vault)
    promotion = PromotionService(ctx, maintenance, ltm, vault)
    if settings.auto_promote:
        maintenance.auto_promote = promotion.promote_due
    consolidation = ConsolidationService(ctx)
    graph = GraphService(ctx)
    graph.on_relate = promotion.link_notes
    memories = MemoryService(ctx)
    memories.on_update = promotion.sync_note
    memories.on_supersede = promotion.mark_replaced
    return App(
        settings=settings,
        context=ctx,
        memories=memories,
        search=search,
        maintenance=maintenance,
        graph=graph,
        embeddings=EmbeddingService(ctx),
        ltm=ltm,
        promotion=promotion,
        unified=UnifiedSearchService(ctx, search, ltm),
        backup=BackupService(ctx, ltm),
        consolidation=consolidation,
        activation=ActivationService(ctx, search),
        pipeline=PipelineService(ctx, maintenance, consolidation, ltm, promotion, graph),
        vault_import=VaultImportService(ctx, memories, graph, ltm, vault),
        transfer=TransferService(ctx),
        storage=StorageMaintenanceService(ctx),
    )


def configure_logging(level: str, *, library: bool = False) -> None:
    """Logs go to stderr only: stdout belongs to the MCP protocol and to `--json` output.
    `library`: in someone else's program (`Engram.open`), whose logging is theirs: no handler
    of ours where theirs show the logs already (each warning was printed twice), and no level
    set over one they gave the `engram` logger (a probe)."""
    root = logging.getLogger("engram")
    theirs = library and bool(logging.getLogger().handlers)
    if not theirs and not any(isinstance(h, _StderrHandler) for h in root.handlers):
        handler = _StderrHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
    if not library or root.level in (logging.NOTSET, _level_set["engram"]):
        root.setLevel(level)
        _level_set["engram"] = root.level


# The level Engram last gave its logger: any other was given by the program it runs in.
_level_set = {"engram": logging.NOTSET}


class _StderrHandler(logging.StreamHandler[TextIO]):
    """Marks the handler Engram installed, so building several apps adds it once."""
