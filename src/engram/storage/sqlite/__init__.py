from engram.storage.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
