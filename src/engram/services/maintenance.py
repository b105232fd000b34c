"""Garbage collection, promotion and review candidates, statistics.

Candidates come from the store's schedule indexes (memories whose threshold crossing has
passed, or whose interval contains now), then the exact rule of the core filters them.
"""

from __future__ import annotations

from engram.core.models import Memory, Schedule, Status
from engram.core.scoring import memory_score, promotion_reason, review_priority
from engram.services import validation as check
from engram.services.context import Context
from engram.services.results import GcResult, PromotionCandidate, ReviewCandidate, Stats
from engram.storage.protocol import Change

GC_BATCH_MAX = 10_000
_STATS_CAP = 10_000
# Review candidates are read from the memories whose peak urgency (score at mid-zone) is nearest
# to now, then ordered exactly. See docs/decay.md for why this window is enough.
REVIEW_WINDOW = 200


class MaintenanceService:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def gc(
        self, dry_run: bool = True, archive_instead: bool = False, limit: int = 1_000
    ) -> GcResult:
        """Forget memories whose score fell below the forget threshold (oldest crossing first)."""
        limit = check.limit(limit, most=GC_BATCH_MAX)
        now = self.ctx.now_epoch()
        policy = self.ctx.policy
        due = [
            m
            for m in self.ctx.store.due_for_gc(now, limit + 1)
            if m.status == Status.ACTIVE and memory_score(policy, m, now) < policy.forget_threshold
        ]
        has_more = len(due) > limit
        ids = [m.id for m in due[:limit]]
        if not dry_run and ids:
            if archive_instead:
                self.ctx.store.modify(ids, self._archive_if_still_due(now))
            else:
                self.ctx.store.delete(ids)
        return GcResult(
            dry_run=dry_run,
            archived=archive_instead,
            count=len(ids),
            memory_ids=ids,
            has_more=has_more,
        )

    def _archive_if_still_due(self, now: float) -> Change:
        policy = self.ctx.policy

        def change(m: Memory) -> tuple[Memory, Schedule] | None:
            if memory_score(policy, m, now) >= policy.forget_threshold:
                return None  # reinforced by another client meanwhile
            return self.ctx.scheduled(m.model_copy(update={"status": Status.ARCHIVED}))

        return change

    def promotion_candidates(self, limit: int = 10) -> list[PromotionCandidate]:
        limit = check.limit(limit)
        now = self.ctx.now_epoch()
        policy = self.ctx.policy
        found = []
        for m in self.ctx.store.in_promotion_window(now, _STATS_CAP):
            reason = promotion_reason(policy, m, now)
            if reason is not None:
                found.append(
                    PromotionCandidate(memory=m, reason=reason, score=memory_score(policy, m, now))
                )
        found.sort(key=lambda c: (c.reason != "usage", -c.score, c.memory.id))
        return found[:limit]

    def review_candidates(self, limit: int = 10) -> list[ReviewCandidate]:
        """Memories in the danger zone, most urgent (score closest to mid-zone) first."""
        limit = check.limit(limit)
        now = self.ctx.now_epoch()
        policy = self.ctx.policy
        out = []
        window = max(REVIEW_WINDOW, limit * 20)
        for m in self.ctx.store.near_review_peak(now, window):
            s = memory_score(policy, m, now)
            p = float(review_priority(policy, s))
            if p > 0:
                out.append(ReviewCandidate(memory=m, score=s, review_priority=p))
        out.sort(key=lambda c: (-c.review_priority, c.memory.id))
        return out[:limit]

    def stats(self) -> Stats:
        counts = self.ctx.store.count()
        now = self.ctx.now_epoch()
        policy = self.ctx.policy
        due, danger = self.ctx.store.schedule_counts(now)
        promotable = sum(
            1
            for m in self.ctx.store.in_promotion_window(now, _STATS_CAP)
            if promotion_reason(policy, m, now) is not None
        )
        return Stats(
            location=self.ctx.store.location,
            total=sum(counts.values()),
            by_status=counts,
            relations=self.ctx.store.count_relations(),
            decay_model=policy.decay.model,
            due_for_gc=due,
            in_danger_zone=danger,
            promotion_candidates=promotable,
        )
