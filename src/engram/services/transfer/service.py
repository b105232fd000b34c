"""Import and export of the open store, wired in the App, so the CLI and the Python API only
translate (migrate stays a function of two stores: `engram.services.transfer.migrate`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from engram.services.context import Context
from engram.services.transfer.common import Progress
from engram.services.transfer.cortexgraph import ImportReport, import_cortexgraph
from engram.services.transfer.export import ExportCount, ExportFormat, export_lines


class TransferService:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def import_cortexgraph(self, directory: Path, progress: Progress | None = None) -> ImportReport:
        """A CortexGraph (mnemex) JSONL directory into this store; imported memories are
        embedded as they are written, so they are found by meaning at once."""
        return import_cortexgraph(
            directory.expanduser(),
            self.ctx.store,
            self.ctx.scheduled_many,
            progress=progress,
            after_insert=lambda ms: self.ctx.embed_and_store([(m.id, m.content) for m in ms]),
        )

    def export_lines(self, fmt: ExportFormat, count: ExportCount | None = None) -> Iterator[str]:
        return export_lines(self.ctx.store, fmt, count)
