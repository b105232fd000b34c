"""The whole store as JSON lines or Markdown, page by page."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from engram.core.models import Memory, Relation
from engram.errors import ValidationError
from engram.services.transfer.common import (
    BATCH,
    TransferResult,
    pages,
)
from engram.storage.protocol import Store

log = logging.getLogger(__name__)

# -- export -----------------------------------------------------------------------------------

ExportFormat = Literal["jsonl", "markdown"]
END = "end"  # the kind of an export's last line, which counts what came before it


class ExportSummary(TransferResult):
    format: str
    path: str
    memories: int
    relations: int


@dataclass
class ExportCount:
    memories: int = 0
    relations: int = 0


def export_lines(
    store: Store, fmt: ExportFormat, count: ExportCount | None = None, batch: int = BATCH
) -> Iterator[str]:
    """The store as text lines (without newlines), memories in save order.

    jsonl: `{"kind": "memory", ...every field...}` lines, then `{"kind": "relation", ...}`,
    then `{"kind": "end", "memories": N, "relations": M}`: an export cut short (Ctrl-C, a full
    disk) ends between two lines and reads like a whole one, its relations all missing; the
    end line says it is whole.
    markdown: a document with one section per memory (its fields, content and relations).
    """
    if fmt not in ("jsonl", "markdown"):
        raise ValidationError("format", "must be jsonl or markdown")
    tally = count if count is not None else ExportCount()
    if fmt == "markdown":
        yield "# Engram export"
        yield ""
        yield f"Store: `{store.location}`"
    relations: list[Relation] = []
    for page in pages(store, batch):
        ids = {m.id for m in page}
        edges = [r for r in store.relations(list(ids)) if r.from_id in ids]
        tally.memories += len(page)
        tally.relations += len(edges)
        if fmt == "jsonl":
            for m in page:
                data = m.model_dump(mode="json")
                data["meta"] = _key_sorted(data["meta"])
                yield json.dumps({"kind": "memory", **data}, ensure_ascii=False)
            relations += edges
        else:
            by_source: dict[str, list[Relation]] = {}
            for r in edges:
                by_source.setdefault(r.from_id, []).append(r)
            for m in page:
                yield from _markdown(m, by_source.get(m.id, []))
    for r in relations:
        data = r.model_dump(mode="json")
        data["metadata"] = _key_sorted(data["metadata"])
        yield json.dumps({"kind": "relation", **data}, ensure_ascii=False)
    if fmt == "jsonl":
        end = {"kind": END, "memories": tally.memories, "relations": tally.relations}
        yield json.dumps(end)


def _key_sorted(value: Any) -> Any:
    """Objects with their keys in order, at every depth: PostgreSQL's jsonb keeps them in
    its own order and SQLite in the order saved, and an export (a backup, diffed by git) must
    not change when the same store moves between backends."""
    if isinstance(value, dict):
        return {k: _key_sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_key_sorted(v) for v in value]
    return value


def _markdown(m: Memory, edges: list[Relation]) -> Iterator[str]:
    first = m.content.strip().splitlines()[0] if m.content.strip() else m.id
    title = first if len(first) <= 80 else first[:79] + "…"
    yield ""
    yield f"## {title}"
    yield ""
    rows = [
        ("id", f"`{m.id}`"),
        ("status", m.status.value),
        ("tags", ", ".join(m.tags)),
        ("entities", ", ".join(m.entities)),
        ("source", m.source or ""),
        ("context", m.context or ""),
        ("created", m.created_at.isoformat()),
        ("last used", m.last_used.isoformat()),
        ("uses", str(m.use_count)),
        ("strength", f"{m.strength:g}"),
    ]
    if m.promoted_to:
        rows.append(("promoted to", m.promoted_to))
    if m.episode is not None:
        rows.append(("episode", f"{m.episode} (#{m.episode_seq})"))
    if m.meta:
        rows.append(("meta", f"`{json.dumps(m.meta, ensure_ascii=False, sort_keys=True)}`"))
    for name, value in rows:
        if value:
            yield f"- **{name}**: {value}"
    yield ""
    for line in m.content.splitlines() or [""]:
        yield f"> {line}" if line else ">"
    if edges:
        yield ""
        for r in edges:
            yield f"- {r.type} → `{r.to_id}` (strength {r.strength:g})"
