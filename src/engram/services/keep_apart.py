"""Marking memories as different facts, however alike: what a person decides on a review-band
cluster that is not one fact (`ConsolidationService.keep_apart`)."""

from __future__ import annotations

from collections.abc import Sequence

from engram.core.models import Relation, new_id
from engram.services.context import Context


def mark_apart(ctx: Context, groups: Sequence[Sequence[str]], marked: set[frozenset[str]]) -> int:
    """A `distinct_from` relation between every two memories of each of `groups` not in
    `marked` yet (added to); how many were made."""
    now = ctx.now()
    added = 0
    for group in groups:
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                if frozenset((a, b)) in marked:
                    continue
                relation = Relation(
                    id=new_id(), from_id=a, to_id=b, type="distinct_from", created_at=now
                )
                ctx.store.add_relation(relation)
                marked.add(frozenset((a, b)))
                added += 1
    return added
