"""Undoing a merge (`ConsolidationService.undo`, which holds the consolidation lock): the
originals the merge recorded are made active again and the merged memory deleted, unless that
would break something or lose work (`core.merge.undo_refusal`; docs/consolidation.md)."""

from __future__ import annotations

from engram.core.merge import (
    MARK,
    is_undone,
    merge_originals,
    merges_into,
    recorded_members,
    undo_refusal,
)
from engram.core.models import Memory, Schedule, Status
from engram.errors import NotFoundError, ValidationError
from engram.services.context import Context
from engram.services.results import UndoResult


def undo_merge(ctx: Context, ident: str, force: bool) -> UndoResult:
    found = ctx.store.get_many([ident])
    if not found:
        raise NotFoundError("memory", ident)
    merged = found[0]
    mark = merged.meta.get(MARK)
    if not isinstance(mark, dict):
        raise ValidationError("merged_id", f"{ident} is not a merged memory")
    relations = ctx.store.relations([ident])
    originals = merge_originals(merged, relations)
    if is_undone(merged):  # an undo stopped between its two writes: finish it
        ctx.store.delete([ident])
        return UndoResult(merged_id=ident, restored_ids=originals)
    if not originals:
        raise ValidationError("merged_id", f"{ident} has no consolidated_from relations")
    sources = [r.from_id for r in relations if r.type == "consolidated_from" and r.to_id == ident]
    again = [m.id for m in ctx.store.get_many(sources) if merges_into(m, ident)]
    refusal = undo_refusal(merged, mark, relations, force, again)
    if refusal is not None:
        raise ValidationError("merged_id", refusal)
    # An original deleted since (its consolidated_from relation went with it): the merged
    # memory holds the only copy of what it said, and undoing deleted that too.
    members = recorded_members(mark)
    gone = sorted(members - set(originals)) if members is not None else []
    if gone and not force:
        raise ValidationError(
            "merged_id",
            f"{gone[0]} was deleted since the merge and {ident} holds the only copy of "
            "what it said: undoing would delete that. Undo with force=true to do it anyway",
        )

    def restore(m: Memory) -> tuple[Memory, Schedule] | None:
        if m.id == ident:
            # Marked, so that a stop before the delete below leaves a leftover that the
            # next undo (or merge of the cluster) finishes, not a merge stuck half-undone.
            undone = {**mark, "state": "undone"}
            update = {"status": Status.ARCHIVED, "meta": {**m.meta, MARK: undone}}
            return ctx.scheduled(m.model_copy(update=update))
        if m.status != Status.ARCHIVED:  # set active, or promoted, since: left as it is
            return None
        return ctx.scheduled(m.model_copy(update={"status": Status.ACTIVE}))

    ctx.store.modify([*originals, ident], restore)
    ctx.store.delete([ident])
    return UndoResult(merged_id=ident, restored_ids=originals)
