"""Garbage collection, promotion and review candidates, statistics.

Candidates come from the store's schedule indexes (memories whose threshold crossing has
passed, or whose interval contains now); the core's exact rules order and filter them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from engram.core.merge import MARK, merge_originals
from engram.core.models import Memory, Schedule, Status
from engram.core.scoring import REASON_NAMES, memory_score, promotion_reasons, review_priority
from engram.errors import EngramError, NotFoundError
from engram.services import validation as check
from engram.services.context import Context
from engram.services.results import GcResult, PromotionCandidate, ReviewCandidate, Stats
from engram.storage.protocol import Change, Filter, Store, Stub

log = logging.getLogger(__name__)

# Due memories `stats` checks one by one as gc does (more: counted from the index alone).
STATS_DUE_CHECKED = 10_000
GC_BATCH_MAX = 10_000
PROMOTION_SCAN_CAP = 10_000
# Review candidates are ranked exactly among the REVIEW_WINDOW memories (or ten per candidate
# asked for, if more) nearest their mid-zone moment and up to REVIEW_POOL others of the danger
# zone (docs/decay.md).
REVIEW_WINDOW = 100
REVIEW_POOL = 2_000


class MaintenanceService:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        # Set by the composition root when ENGRAM_AUTO_PROMOTE is on: promotes every current
        # candidate and returns their ids (a gc run calls it first; a dry run, with dry_run).
        self.auto_promote: Callable[[bool], list[str]] | None = None

    def gc(
        self, dry_run: bool = True, archive_instead: bool = False, limit: int = 1_000
    ) -> GcResult:
        """Forget memories whose score fell below the forget threshold (oldest crossing first).

        Deleting is guarded in the store by the same condition, so a memory another client
        reinforced after the candidates were listed is spared.
        """
        limit = check.limit(limit, most=GC_BATCH_MAX)
        dry_run = check.flag(dry_run, "dry_run")
        archive_instead = check.flag(archive_instead, "archive_instead")
        self.ctx.ensure_schedules()
        promoted: list[str] = []
        promote_error = None
        if self.auto_promote is not None:
            try:
                # The dry run too: it listed as forgotten the memories the real run promotes.
                promoted = self.auto_promote(dry_run)
            except (OSError, EngramError) as exc:
                # The vault's trouble (away, full, a file where the folder should be) must not
                # keep faded memories forever: gc goes on, and says why nothing was promoted.
                promote_error = f"auto-promotion failed: {exc}"
                log.warning("%s; collecting anyway", promote_error)
        now = self.ctx.now_epoch()
        due = self.ctx.store.due_for_gc(now, limit + 1)
        has_more = len(due) > limit
        ids = self._news_of_live_facts_spared(self._due_by_own_policy(due[:limit], now))
        if dry_run and promoted:
            ids = [i for i in ids if i not in set(promoted)]
        # A merged memory forgotten takes the originals its merge archived with it (kept for
        # an undo that goes with it): they stayed archived, out of gc's reach, for good (a
        # probe's year: 68 left by 31 merged memories). Archived instead, it keeps them.
        originals = {} if archive_instead else self._archived_originals(ids)
        if dry_run:
            ids += [o for i in ids for o in originals.get(i, ())]
        elif ids and archive_instead:
            ids = self._archive(ids, now)
        elif ids:
            ids = self.ctx.store.delete(ids, due_before=now)
            left = [o for i in ids for o in originals.get(i, ())]
            still = [m.id for m in self.ctx.store.get_many(left) if m.status == Status.ARCHIVED]
            ids += self.ctx.store.delete(still) if still else []
        return GcResult(
            dry_run=dry_run,
            archived=archive_instead,
            count=len(ids),
            memory_ids=ids,
            has_more=has_more,
            promoted=promoted,
            promote_error=promote_error,
        )

    def _archived_originals(self, ids: Sequence[str]) -> dict[str, list[str]]:
        """For each merged memory of `ids`, the originals its merge archived that are still
        archived (`merge_originals`)."""
        merged = [m for m in self.ctx.store.get_many(list(ids)) if MARK in m.meta] if ids else []
        if not merged:
            return {}
        relations = self.ctx.store.relations([m.id for m in merged])
        found = {m.id: merge_originals(m, relations) for m in merged}
        listed = [o for originals in found.values() for o in originals]
        archived = {m.id for m in self.ctx.store.get_many(listed) if m.status == Status.ARCHIVED}
        return {i: [o for o in originals if o in archived] for i, originals in found.items()}

    def _archive(self, ids: list[str], now: float) -> list[str]:
        """Archive those still due. One deleted by another client since the candidates were
        listed is left out: `modify` refuses a missing id, and the whole batch with it."""
        change = self._archive_if_still_due(now)
        while ids:
            try:
                return [new.id for _, new in self.ctx.store.modify(ids, change)]
            except NotFoundError:
                present = {m.id for m in self.ctx.store.get_many(ids)}
                if len(present) == len(ids):
                    raise
                ids = [i for i in ids if i in present]
        return []

    def _due_by_own_policy(self, ids: list[str], now: float) -> list[str]:
        """The stored schedule may have been computed by another client with other decay
        settings (whoever opened the store last); forget only what this client's own settings
        score below the threshold too. A memory due by the schedule but alive by ours waits."""
        if not ids:
            return []
        stubs = self.ctx.store.stubs(ids, Filter(statuses=(Status.ACTIVE,)))
        scores = self.ctx.scores(stubs, now)
        below = {
            s.id for s, v in zip(stubs, scores, strict=True) if v < self.ctx.policy.forget_threshold
        }
        return [i for i in ids if i in below]

    def _still_holding(self, stubs: list[Stub]) -> list[Stub]:
        """Those no later memory supersedes: a fact the user corrected is no candidate for a
        permanent note, however much it was used before ("I'm vegetarian", used five times,
        then "Update: I'm no longer vegetarian", was written to the vault as it stood; a
        helper's probe)."""
        replaced = news_of(self.ctx.store, [s.id for s in stubs])
        return [s for s in stubs if s.id not in replaced] if replaced else stubs

    def _news_of_live_facts_spared(self, ids: list[str]) -> list[str]:
        """Those due but news and the fact it replaced while the other stays (`supersedes`
        relation, the other active or promoted and not due): each is forgotten with the
        other. A probe's "I moved from Portland to Denver" faded unused while a repeat of "I
        live in Portland" kept the old fact alive; gc deleted the news, and search answered
        with the old city alone, flagged by nothing. The other way round, the fact was the
        news's way in: "where do I live?" found the move only as the place of "I live in
        Portland" (`search_time`), and lost it when gc deleted the fact. Both due, both go."""
        if not ids:
            return ids
        due = set(ids)
        edges = [
            r
            for r in self.ctx.store.relations(ids)
            if r.type == "supersedes" and (r.from_id in due) != (r.to_id in due)
        ]
        if not edges:
            return ids
        # (the one due, the other) of each relation
        pairs = [(r.from_id, r.to_id) if r.from_id in due else (r.to_id, r.from_id) for r in edges]
        live = {
            m.id
            for m in self.ctx.store.get_many([other for _, other in pairs])
            if m.status in (Status.ACTIVE, Status.PROMOTED)
        }
        spared = {one for one, other in pairs if other in live}
        return [i for i in ids if i not in spared]

    def _archive_if_still_due(self, now: float) -> Change:
        policy = self.ctx.policy

        def change(m: Memory) -> tuple[Memory, Schedule] | None:
            if m.status != Status.ACTIVE or memory_score(policy, m, now) >= policy.forget_threshold:
                return None  # reinforced by another client meanwhile
            return self.ctx.scheduled(m.model_copy(update={"status": Status.ARCHIVED}))

        return change

    def promotion_candidates(self, limit: int = 10) -> list[PromotionCandidate]:
        return self._candidates(check.limit(limit))

    def every_promotion_candidate(self) -> list[PromotionCandidate]:
        """All of them, for auto-promotion, which promises every candidate (it promoted the
        first 100 and said nothing of the rest)."""
        return self._candidates(None)

    def _candidates(self, limit: int | None) -> list[PromotionCandidate]:
        self.ctx.ensure_schedules()
        stubs, reasons, scores = self._promotable(self.ctx.now_epoch())
        # usage first, then the strongest
        order = sorted(
            (i for i in range(len(stubs)) if reasons[i]),
            key=lambda i: (int(reasons[i]), -float(scores[i]), stubs[i].id),
        )[:limit]
        memories = {m.id: m for m in self.ctx.store.get_many([stubs[i].id for i in order])}
        return [
            PromotionCandidate(
                memory=memories[stubs[i].id],
                reason=REASON_NAMES[int(reasons[i])],
                score=float(scores[i]),
            )
            for i in order
            if stubs[i].id in memories
        ]

    def _promotable(self, now: float) -> tuple[list[Stub], NDArray[np.int8], NDArray[np.float64]]:
        stubs = self._still_holding(self.ctx.store.in_promotion_window(now, PROMOTION_SCAN_CAP))
        reasons = promotion_reasons(
            self.ctx.policy,
            [s.use_count for s in stubs],
            [s.strength for s in stubs],
            [s.last_used for s in stubs],
            [s.created_at for s in stubs],
            now,
        )
        return stubs, reasons, self.ctx.scores(stubs, now)

    def review_candidates(self, limit: int = 10) -> list[ReviewCandidate]:
        """Memories in the danger zone, most urgent (score closest to mid-zone) first, ranked
        exactly among the zone's memories (all of them up to REVIEW_POOL) and the ones
        nearest their mid-zone moment in time. That moment alone was a poor guide: sixty weak
        memories passing it within hours hid a memory at priority 0.64 behind ten at 0.08.
        Not a fact news superseded (`_still_holding`): an assistant asked to bring them up
        asked after the flat the user had moved out of (an MCP probe)."""
        limit = check.limit(limit)
        self.ctx.ensure_schedules()
        now = self.ctx.now_epoch()
        near = self.ctx.store.near_review_peak(now, max(REVIEW_WINDOW, limit * 10))
        zone = self.ctx.store.in_danger_zone(now, REVIEW_POOL)
        stubs = self._still_holding(list({s.id: s for s in [*near, *zone]}.values()))
        if not stubs:
            return []
        scores = self.ctx.scores(stubs, now)
        prios = review_priority(self.ctx.policy, scores)
        # Ties by id: the stores' own row orders differ, and so did ties' order (a probe)
        ids = np.array([s.id for s in stubs])
        order = [int(i) for i in np.lexsort((ids, -prios)) if prios[i] > 0][:limit]
        memories = {m.id: m for m in self.ctx.store.get_many([stubs[i].id for i in order])}
        return [
            ReviewCandidate(
                memory=memories[stubs[i].id],
                score=float(scores[i]),
                review_priority=float(prios[i]),
            )
            for i in order
            if stubs[i].id in memories
        ]

    def stats(self) -> Stats:
        self.ctx.ensure_schedules()
        counts = self.ctx.store.count()
        now = self.ctx.now_epoch()
        due, danger = self.ctx.store.schedule_counts(now)
        if 0 < due <= STATS_DUE_CHECKED:
            # What gc would collect: not news that keeps a live fact company (it said 10 due
            # where gc deleted 7, for good: a probe's year of use).
            listed = self._due_by_own_policy(self.ctx.store.due_for_gc(now, due), now)
            due = len(self._news_of_live_facts_spared(listed))
        if 0 < danger <= STATS_DUE_CHECKED:
            # What review would list: not a fact news superseded (the dashboard's menu said 14
            # in the zone beside a review queue of 13: a probe).
            danger = len(self._still_holding(self.ctx.store.in_danger_zone(now, danger)))
        return Stats(
            location=self.ctx.store.location,
            total=sum(counts.values()),
            by_status=counts,
            relations=self.ctx.store.count_relations(),
            decay_model=self.ctx.policy.decay.model,
            due_for_gc=due,
            in_danger_zone=danger,
            promotion_candidates=int(np.count_nonzero(self._promotable(now)[1])),
        )


def news_of(store: Store, ids: Sequence[str]) -> dict[str, list[str]]:
    """For each of `ids` that news superseded (a `supersedes` relation to it), the news's ids,
    sorted: a fact no longer to review, promote or keep alive."""
    found: dict[str, list[str]] = {}
    wanted = set(ids)
    for r in store.relations(list(wanted)) if wanted else []:
        if r.type == "supersedes" and r.to_id in wanted:
            found.setdefault(r.to_id, []).append(r.from_id)
    return {ident: sorted(news) for ident, news in found.items()}
