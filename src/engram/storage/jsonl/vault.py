"""The JSONL store's vault note index (capability LTM): an SQLite file of its own next to the
memories (`ltm.db`), opened when first used, every call the SQLite store's own on it
(`vault_index`). A mixin of `JSONLStore`, as the SQL stores keep their note index in one
(`SQLiteLtm`, `PostgresLtm`): the notes share nothing with the files of memories, relations
and vectors, which the rest of the store keeps in step with their index.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from engram.storage.columns import FieldWeights
from engram.storage.jsonl.delegation import vault_index
from engram.storage.jsonl.layout import LTM_DB
from engram.storage.sqlite import SQLiteStore


class JSONLVault:
    # What JSONLStore defines: declared for the type checker, not stubbed with methods that
    # could only raise.
    path: Path
    field_weights: FieldWeights
    vector_model: tuple[str, int] | None
    _mutex: threading.RLock
    _notes: SQLiteStore | None
    _check_open: Callable[[], None]

    def _note_index(self) -> SQLiteStore:
        with self._mutex:
            self._check_open()
            if self._notes is None:
                self._notes = SQLiteStore(
                    self.path / LTM_DB,
                    field_weights=self.field_weights,
                    vector_model=self.vector_model,
                )
            return self._notes

    ltm_states = vault_index(SQLiteStore.ltm_states)
    ltm_claims = vault_index(SQLiteStore.ltm_claims)
    ltm_problems = vault_index(SQLiteStore.ltm_problems)
    ltm_write = vault_index(SQLiteStore.ltm_write)
    ltm_search = vault_index(SQLiteStore.ltm_search)
    ltm_links = vault_index(SQLiteStore.ltm_links)
    ltm_put_vectors = vault_index(SQLiteStore.ltm_put_vectors)
    ltm_vector_search = vault_index(SQLiteStore.ltm_vector_search)
    ltm_missing_vectors = vault_index(SQLiteStore.ltm_missing_vectors)
    ltm_get_vectors = vault_index(SQLiteStore.ltm_get_vectors)
