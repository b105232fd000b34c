"""Migration into, import into and export of the open store, wired in the App, so the CLI and
the Python API only translate."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from engram.config import redact_url
from engram.errors import ValidationError
from engram.services import validation as check
from engram.services.context import Context
from engram.services.transfer.common import BATCH, Progress, Writer
from engram.services.transfer.cortexgraph import ImportReport, import_cortexgraph
from engram.services.transfer.export import ExportCount, ExportFormat, export_lines
from engram.services.transfer.migrate import MigrationReport, migrate
from engram.services.transfer.restore import ExportData, RestoreReport, restore_export
from engram.storage.factory import (
    is_jsonl_url,
    is_postgres_url,
    is_sqlite_file,
    jsonl_path,
    open_store,
    sqlite_files,
    sqlite_path,
)
from engram.storage.jsonl.layout import META as JSONL_META


class TransferService:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def migrate_from(
        self,
        source: str,
        *,
        overwrite: bool = False,
        batch: int = BATCH,
        progress: Progress | None = None,
    ) -> MigrationReport:
        """Copy the store at `source` (a path or URL, any backend) into this one and verify the
        copy. Vectors come as stored, so this store's handle needs no embedder for it."""
        overwrite = check.flag(overwrite, "overwrite")
        refuse_missing_source(source)
        origin = open_store(source, self.ctx.settings)
        try:
            return migrate(
                origin,
                self.ctx.store,
                self.ctx.scheduled_many,
                overwrite=overwrite,
                batch=batch,
                progress=progress,
            )
        finally:
            origin.close()

    def import_cortexgraph(
        self, directory: str | Path, progress: Progress | None = None
    ) -> ImportReport:
        """A CortexGraph (mnemex) JSONL directory into this store; imported memories are
        embedded as they are written, so they are found by meaning at once."""
        return import_cortexgraph(
            check.location(directory, "directory"), self._writer(progress), now=self.ctx.now()
        )

    def import_export(
        self, path: str | Path | ExportData, progress: Progress | None = None
    ) -> RestoreReport:
        """An export of an Engram store (`engram export --format jsonl`, the file `engram
        backup` commits) into this store: how a backup is restored. Safe to run again. Given
        what `read_export` read, the file is not read again (a pipe cannot be)."""
        source = path if isinstance(path, ExportData) else check.location(path, "path")
        return restore_export(source, self._writer(progress), now=self.ctx.now())

    def _writer(self, progress: Progress | None) -> Writer:
        """Imported memories are embedded as they are written, so they are found by meaning
        at once."""
        return Writer(
            self.ctx.store,
            self.ctx.scheduled_many,
            progress=progress,
            after_insert=self.ctx.embed_missing,
        )

    def export_lines(self, fmt: ExportFormat, count: ExportCount | None = None) -> Iterator[str]:
        return export_lines(self.ctx.store, fmt, count)

    def export_path(self, path: Path, field: str = "out") -> Path:
        """Where an export of this store may be written: anywhere but over the store's own
        files, which the export's atomic rename would replace with text (the store destroyed,
        and the export of it with it)."""
        target = path.expanduser().resolve()
        location = self.ctx.store.location
        if is_postgres_url(location):
            return target
        if is_jsonl_url(location):
            home = jsonl_path(location).expanduser().resolve()
            if target == home or home in target.parents:
                raise ValidationError(field, f"{path} is inside the store being exported")
            return target
        if target in sqlite_files(sqlite_path(location).expanduser().resolve()):
            raise ValidationError(field, f"{path} is a file of the store being exported")
        return target


def refuse_missing_source(location: str) -> None:
    """A source that does not exist is a mistake: opening it would create an empty store.
    Callers that open the target themselves check first, so that a mistake creates nothing."""
    if is_postgres_url(location):
        # The database exists or the server says so; an empty one (a mistyped name) would
        # get Engram's tables and extensions, and the migration would verify zero memories.
        if not _postgres_holds_a_store(location):
            raise ValidationError(
                "source", f"there is no Engram store in {redact_url(location)} (an empty database?)"
            )
        return
    if is_jsonl_url(location):
        # Any folder opens as a JSONL store (a new one is made there): the source, which is
        # only read, must be one already.
        if not (jsonl_path(location) / JSONL_META).is_file():
            raise ValidationError(
                "source", f"there is no store at {location} (no {JSONL_META} there)"
            )
        return
    path = sqlite_path(location)
    try:
        exists = path.exists()
    except OSError as exc:  # a name longer than the file system allows
        raise ValidationError("source", f"{exc.strerror}: {location[:60]}…") from None
    if not exists:
        raise ValidationError("source", f"there is no store at {location}")
    if path.is_dir():
        raise ValidationError(
            "source", f"{location} is a folder (a JSONL store? name it jsonl://{path})"
        )
    if not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
        # A store is opened for writing even to be read (docs/reliability.md): refused then,
        # after the target was created, it left an empty store behind (a helper's probe).
        raise ValidationError(
            "source",
            f"{location} is read-only for this user, and a store opens for writing even to be "
            "read: copy it somewhere writable first (docs/reliability.md)",
        )
    if not is_sqlite_file(path):
        # Opened, it was called damaged ("restore it from a backup"), and the target was
        # created all the same.
        raise ValidationError(
            "source",
            f"{location} is not a SQLite store (an export? read one back with "
            "`engram import jsonl FILE`; a JSONL store is a directory: jsonl:///path)",
        )


def _postgres_holds_a_store(url: str) -> bool:
    try:
        from engram.storage.postgres.migrations import holds_a_store
    except ImportError:
        return True  # no driver: opening the store says what to install
    return holds_a_store(url)
