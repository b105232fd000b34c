"""Writing a merge (`ConsolidationService.apply`, which holds the consolidation lock): the
merged memory inserted archived with its relations, then one atomic `modify` that activates it
and archives the originals, refusing if an original changed since the cluster was found; and
the clean-up of merges a stopped process left half-written (docs/consolidation.md).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from engram.core.clustering import cluster_id
from engram.core.merge import (
    CARRIED,
    MARK,
    MERGED_PREFIX,
    SUPERSEDES_WHOLE,
    edit_stamp,
    is_leftover,
    merge,
    merged_id,
    version,
)
from engram.core.models import Memory, Relation, Schedule, Status, new_id
from engram.errors import NotFoundError, StoreError, ValidationError
from engram.services import validation as check
from engram.services.context import Context
from engram.services.enrichment import reenriched
from engram.services.results import ClusterView, MergeDone
from engram.storage.protocol import Store

log = logging.getLogger(__name__)

SWEEP_LIMIT = 100_000  # merged memories looked at for half-written leftovers
SWEEP_EVERY = 60.0  # seconds between two such sweeps in one process
# What a merged memory adds up from its originals, taken when the merge is written.
_COUNTERS = (
    "use_count",
    "review_count",
    "cross_domain_count",
    "last_used",
    "last_review_at",
    "strength",
)


def outdated_among(store: Store, ids: Collection[str]) -> frozenset[str]:
    """Those of `ids` another of them supersedes (`core.merge.merge` leaves their words out)."""
    return frozenset(
        r.to_id
        for r in store.relations(sorted(ids))
        if r.type == "supersedes" and r.from_id in ids and r.to_id in ids
    )


class ConflictError(StoreError):
    """A memory changed between finding a cluster and applying it."""


class MergeWriter:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._swept_at: float | None = None  # when leftovers of killed merges were last swept

    def write(self, view: ClusterView, content: str | None) -> MergeDone:
        """Merge one cluster as it was found, with the consolidation lock held by the caller
        (`ConsolidationService.apply`)."""
        originals = {m.id: m for m in self.ctx.store.get_many(view.member_ids)}
        if len(originals) != len(view.member_ids):
            raise ConflictError(f"cluster {view.id}: a member no longer exists")
        now_id = cluster_id(view.member_ids, {m.id: version(m) for m in originals.values()})
        if now_id != view.id:
            raise ConflictError(f"cluster {view.id}: a member changed since the cluster was found")
        outdated = outdated_among(self.ctx.store, originals)
        merged = merge(list(originals.values()), view.cohesion, merged_id(view.id), outdated)
        merged = self.stored_form(view, merged, content)
        merged = merged.model_copy(
            update={"meta": {**merged.meta, MARK: {"cluster": view.id, "state": "pending"}}}
        )
        self._drop_pending(merged.id)
        if self._swept_at is None or time.monotonic() - self._swept_at > SWEEP_EVERY:
            self._sweep_pending()  # not before every merge: it reads every merged memory
            self._swept_at = time.monotonic()
        try:
            carried, done = self._insert_and_swap(view, merged, originals)
        except BaseException:
            # Whatever stopped the merge (a conflict, a store error, Ctrl-C), the half-written
            # merged memory goes: left "pending", its copied relations showed in `related`.
            with contextlib.suppress(Exception):
                self._drop_pending(merged.id)
            raise
        active = next(new for _, new in done if new.id == merged.id)
        self.ctx.embed_later([(active.id, active.content)])
        return MergeDone(
            cluster_id=view.id,
            merged=active,
            archived_ids=sorted(originals),
            relations_carried=carried,
        )

    def _insert_and_swap(
        self, view: ClusterView, merged: Memory, originals: dict[str, Memory]
    ) -> tuple[int, list[tuple[Memory, Memory]]]:
        self.ctx.store.insert([self.ctx.scheduled(merged)])
        carried = self._relations(merged.id, originals)
        # What undo checks before it deletes the merged memory: that nobody edited it since
        # (and, through the relations a merge marks as its own, related it to anything).
        applied = self._applied_mark(view, merged)
        locked: list[Memory] = []  # the originals as `modify` holds them (before the merged)

        def swap(m: Memory) -> tuple[Memory, Schedule]:
            if m.id == merged.id:
                # Counted from the rows held now: a touch of an original since it was read
                # (what the merged memory started from) was lost with the archived original.
                now = merge(locked, view.cohesion, new_id=merged.id)
                counts = {name: getattr(now, name) for name in _COUNTERS}
                activated = m.model_copy(update={"status": Status.ACTIVE, **counts})
                # Stamped as it is activated: a use of an original meanwhile is counted in
                # it, and it made the undo refuse ("used 1 times after the merge").
                mark = {**applied, "uses": activated.use_count, "edits": edit_stamp(activated)}
                update = {"meta": {**m.meta, MARK: mark}}
                return self.ctx.scheduled(activated.model_copy(update=update))
            before = originals[m.id]
            if m.status != Status.ACTIVE or (m.content, m.tags, m.entities) != (
                before.content,
                before.tags,
                before.entities,
            ):
                raise ConflictError(f"memory {m.id} changed since the cluster was found")
            locked.append(m)
            return self.ctx.scheduled(m.model_copy(update={"status": Status.ARCHIVED}))

        return carried, self.ctx.store.modify([*originals, merged.id], swap)

    def stored_form(self, view: ClusterView, merged: Memory, content: str | None) -> Memory:
        """The merged memory as it would be stored (archived until the swap), its limits
        checked: ValidationError names the one it passes."""
        entities = merged.entities
        if content is not None and self.ctx.settings.enrich_on_save:
            # The names follow the caller's text, as an update's do: a merge written as "Sam is
            # allergic to peanuts" kept "EpiPen", which its text no longer said, and did not
            # name Sam (a probe).
            entities = tuple(reenriched(entities, merged.content, content))
        merged = merged.model_copy(
            update={
                "content": check.content(content or merged.content, "merged content"),
                # The union of the originals' labels may pass a limit none of them did: the
                # cluster is then skipped with the reason, never stored beyond the limit.
                "tags": check.tags(merged.tags, "merged tags"),
                "entities": check.entities(entities, "merged entities"),
                "status": Status.ARCHIVED,
            }
        )
        # Checked as it will be once applied, mark included: a backup must restore it.
        check.meta({**merged.meta, MARK: self._applied_mark(view, merged)}, "merged meta")
        return merged

    @staticmethod
    def _applied_mark(view: ClusterView, merged: Memory) -> dict[str, Any]:
        applied = {"cluster": view.id, "state": "applied", "version": version(merged)}
        return {**applied, "members": sorted(view.member_ids)}

    def _relations(self, merged_id: str, originals: dict[str, Memory]) -> int:
        """`consolidated_from` to each original, and the originals' outside edges copied."""
        now = self.ctx.now()
        for ident in sorted(originals):
            self.ctx.store.add_relation(
                Relation(
                    id=new_id(),
                    from_id=merged_id,
                    to_id=ident,
                    type="consolidated_from",
                    created_at=now,
                )
            )
        carried = 0
        # One edge per (end, type): of several originals' edges to one memory, the strongest
        # (the first of equals), since the merged memory says all that they said.
        strongest: dict[tuple[str, str, str], Relation] = {}
        edges = self.ctx.store.relations(sorted(originals))
        whole = _superseding_all(edges, set(originals))
        for r in edges:
            if r.type == "consolidated_from":
                continue  # the originals' own merge history stays with them
            source = merged_id if r.from_id in originals else r.from_id
            target = merged_id if r.to_id in originals else r.to_id
            kept = strongest.get((source, target, r.type))
            if source != target and (kept is None or r.strength > kept.strength):
                strongest[(source, target, r.type)] = r
        for (source, target, _), r in strongest.items():
            # Beyond the limit with the mark, the merge stops (undone) with the reason.
            marks = {CARRIED: merged_id} | ({SUPERSEDES_WHOLE: True} if source in whole else {})
            metadata = check.meta({**r.metadata, **marks}, "carried relation metadata")
            update = {"id": new_id(), "from_id": source, "to_id": target, "metadata": metadata}
            try:
                self.ctx.store.add_relation(r.model_copy(update=update))
            except NotFoundError:  # its other end was deleted meanwhile: no edge to carry
                continue
            carried += 1
        return carried

    def _drop_pending(self, ident: str) -> None:
        """Remove what a crash left half-written for this cluster (a merge never activated, or
        an undo that archived its merged memory but did not delete it); refuse a cluster
        merged already."""
        for m in self.ctx.store.get_many([ident]):
            if not is_leftover(m):
                raise ConflictError(f"this cluster was merged already, into {ident}")
            self.ctx.store.delete([ident])

    def _sweep_pending(self) -> None:
        """Remove every merge (or undo) a killed process left half-written. Its cluster has
        usually changed since (a member edited), so no retry of the same cluster would ever find
        it, and its copied relations showed in `related`. Called with the consolidation lock
        held: no merge is under way, so every pending one is a leftover."""
        ids = self.ctx.store.ids_with_prefix(MERGED_PREFIX, SWEEP_LIMIT)
        leftovers = [m.id for m in self.ctx.store.get_many(ids) if is_leftover(m)]
        if leftovers:
            self.ctx.store.delete(leftovers)
            log.info("removed %d merge(s) left half-written by a stopped process", len(leftovers))


def _superseding_all(edges: Sequence[Relation], originals: set[str]) -> set[str]:
    """The memories outside a merge that supersede every one of its `originals`: the same fact
    said twice ("I live in Berlin, in Kreuzberg" and "I live in Berlin near Görlitzer Park"),
    both replaced by "I moved to Lisbon". Merged, their two statements ranked above the news
    for "where do I live now?" (an MCP probe)."""
    targets: dict[str, set[str]] = {}
    for r in edges:
        if r.type == "supersedes" and r.to_id in originals and r.from_id not in originals:
            targets.setdefault(r.from_id, set()).add(r.to_id)
    return {source for source, held in targets.items() if held == originals}


def only_active(memories: Iterable[Memory]) -> None:
    """Named memories are merged only while active; the refusal says why ("is promoted" alone
    left the user guessing)."""
    for m in memories:
        if m.status != Status.ACTIVE:
            held = " (its note in the vault names it)" if m.status == Status.PROMOTED else ""
            # a paraphrase of a promoted fact stayed beside it, with no word of what to do (a
            # probe)
            way = (
                "; to keep one copy, update the promoted memory to say what the others add, "
                "and delete them"
                if m.status == Status.PROMOTED
                else ""
            )
            raise ValidationError(
                "memory_ids",
                f"{m.id} is {m.status.value}{held}: only active memories are merged{way}",
            )


def all_found(ids: Sequence[str], found: Mapping[str, Memory]) -> None:
    """Every id named a memory, or an error naming the field and each that did not (it named
    the first alone, without the field: a probe)."""
    missing = list(dict.fromkeys(i for i in ids if i not in found))
    if missing:
        raise NotFoundError("memory", ", ".join(missing), "memory_ids")
