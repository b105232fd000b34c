"""The JSONL backend: a directory of line files, diffable and safe to share between processes."""

from engram.storage.jsonl.store import JSONLStore

__all__ = ["JSONLStore"]
