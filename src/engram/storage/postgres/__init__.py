from engram.storage.postgres.store import PostgresStore

__all__ = ["PostgresStore"]
