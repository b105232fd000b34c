"""What migrate, import and export share: result base, batching, canonical forms, checksums."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from engram.core.models import Memory, Relation, Schedule
from engram.services.results import Result
from engram.storage.protocol import Store

log = logging.getLogger(__name__)

BATCH = 500
MAX_LISTED = 20  # differences and skipped records listed in a report (all are counted)

# (phase, done, total): total is None when unknown.
Progress = Callable[[str, int, int | None], None]
Schedules = Callable[[list[Memory]], list[tuple[Memory, Schedule]]]


class TransferResult(Result):
    """The base of the reports of migrate, import and export."""


# -- canonical forms and checksums ------------------------------------------------------------

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def micros(moment: datetime | None) -> int | None:
    return None if moment is None else (moment - _EPOCH) // timedelta(microseconds=1)


def canonical_memory(m: Memory) -> bytes:
    """One memory as canonical JSON: sorted keys, times as integer microseconds since the
    epoch (so two backends storing the same instant differently agree)."""
    data: dict[str, Any] = m.model_dump(mode="json")
    for name in ("created_at", "last_used", "promoted_at", "last_review_at"):
        data[name] = micros(getattr(m, name))
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def canonical_relation(r: Relation) -> bytes:
    data: dict[str, Any] = r.model_dump(mode="json")
    data["created_at"] = micros(r.created_at)
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def checksum(digests: dict[str, str]) -> str:
    """sha256 over "id digest" lines sorted by id."""
    h = hashlib.sha256()
    for ident in sorted(digests):
        h.update(f"{ident} {digests[ident]}\n".encode())
    return h.hexdigest()


def pages(store: Store, batch: int) -> Iterator[list[Memory]]:
    after: str | None = None
    while True:
        page = store.page(after, batch)
        if not page:
            return
        yield page
        after = page[-1].id


def chunks(items: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
