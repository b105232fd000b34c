"""How the JSONL store hands a call to one of its SQLite databases: the index of its files
(`index_read`), or the vault's note index (`vault_index`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Concatenate, ParamSpec, TypeVar

from engram.errors import DamagedStoreError
from engram.storage.sqlite import SQLiteStore

if TYPE_CHECKING:
    from engram.storage.jsonl.store import JSONLStore

P = ParamSpec("P")
R = TypeVar("R")


def index_read(
    method: Callable[Concatenate[SQLiteStore, P], R],
) -> Callable[Concatenate[JSONLStore, P], R]:
    """A read the index answers exactly as the SQLite backend, once it has caught up with the
    lines other processes appended. An index found damaged (its snapshot was: every search
    failed, telling the user to restore a backup of files that were intact) is rebuilt from
    the files, which hold the truth, and asked again."""

    def read(self: JSONLStore, /, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            with self._reading() as index:
                return method(index, *args, **kwargs)
        except DamagedStoreError:
            self._rebuild_damaged_index()
        with self._reading() as index:
            return method(index, *args, **kwargs)

    read.__name__, read.__doc__ = method.__name__, method.__doc__
    return read


def vault_index(
    method: Callable[Concatenate[SQLiteStore, P], R],
) -> Callable[Concatenate[JSONLStore, P], R]:
    """An operation on the vault's note index, an SQLite file of its own (`ltm.db`)."""

    def call(self: JSONLStore, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return method(self._note_index(), *args, **kwargs)

    call.__name__, call.__doc__ = method.__name__, method.__doc__
    return call
