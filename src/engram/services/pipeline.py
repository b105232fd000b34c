"""The maintenance pipeline: the five agents propose, a plan records, a run applies.

- `run(agents, dry_run=True)`: every agent (or the named ones) surveys the store and proposes
  steps; the steps form a plan whose id is a digest of them. The plan goes to the audit trail
  (one entry per step, result "planned"). A dry run (the default) stops there and changes
  nothing; a real run then applies the plan.
- `apply(plan_id)`: applies exactly the steps a dry run recorded — each refused (and recorded
  as skipped) when one of its memories changed since — and refuses a plan applied before; one
  that stopped part-way (killed, Ctrl-C) is finished: the steps without an outcome are done.
- Steps that change the store (merge, promote, relate) are paced by ENGRAM_PIPELINE_RATE_LIMIT
  (operations per minute); reports (at_risk, review_cluster) are recorded, not applied.
- One pipeline at a time per store (`Store.exclusive("pipeline")`): a second says so at once.
- Every step's outcome is an audit entry: agent, action, memories, detail, why, applied,
  result, time.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engram.clock import pause
from engram.core.models import AuditEntry, new_id
from engram.core.wording import counted
from engram.errors import EngramError, NotFoundError, ValidationError
from engram.services import validation as check
from engram.services.agents import AGENTS, RUNS, AgentName, Step, Survey, stamp
from engram.services.consolidation import ConsolidationService
from engram.services.context import Context
from engram.services.graph import GraphService
from engram.services.ltm import LtmService
from engram.services.maintenance import MaintenanceService
from engram.services.promotion import PromotionService
from engram.services.results import ClusterView, Result

AUDIT_MAX = 1_000
PLAN_MAX_STEPS = 10_000

Progress = Callable[[str, int, int | None], None]  # (phase, done, total if known)


class StepOutcome(Result):
    step: int
    agent: str
    action: str
    memory_ids: list[str]
    why: str
    result: str  # planned | done | reported | skipped: <why>


class PipelineResult(Result):
    """A run or an applied plan: the plan's id, what each step came to, and a count per agent
    and result. `notes` says what an agent could not do (no vault, no embeddings)."""

    plan_id: str | None  # None when no agent proposed a step: there is no plan to apply
    dry_run: bool
    agents: list[str]
    steps: list[StepOutcome]
    summary: dict[str, dict[str, int]]
    notes: list[str]


class AuditTrail(Result):
    count: int
    entries: list[AuditEntry]


class RateLimit:
    """At most `per_minute` operations in any 60 seconds: the first ones at once, then paced."""

    def __init__(
        self,
        per_minute: int,
        now: Callable[[], float] | None = None,
        sleep: Callable[[float], None] | None = None,
        waiting: Callable[[float], None] | None = None,
    ) -> None:
        """`waiting(seconds)` is told of each wait before it starts."""
        self.per_minute = per_minute
        self._now = now if now is not None else time.monotonic
        self._sleep = sleep if sleep is not None else pause
        self._waiting = waiting
        self._recent: deque[float] = deque()

    def wait(self) -> None:
        if len(self._recent) >= self.per_minute:
            pause = 60.0 - (self._now() - self._recent[0])
            if pause > 0:
                if self._waiting is not None:
                    self._waiting(pause)
                self._sleep(pause)
            self._recent.popleft()
        self._recent.append(self._now())


@dataclass(eq=False)  # a service is one object: compared and hashed by identity
class PipelineService:
    ctx: Context
    maintenance: MaintenanceService
    consolidation: ConsolidationService
    ltm: LtmService
    promotion: PromotionService
    graph: GraphService

    def run(
        self,
        agents: Sequence[str] | None = None,
        dry_run: bool = True,
        progress: Progress | None = None,
    ) -> PipelineResult:
        names = _agent_names(agents)
        dry_run = check.flag(dry_run, "dry_run")
        with self.ctx.store.exclusive("pipeline"):
            survey = Survey(self.ctx, self.maintenance, self.consolidation, self.ltm)
            steps: list[Step] = []
            for name in names:  # a line per agent on the CLI, done when it has planned
                if progress:
                    progress(name, 0, 1)
                steps += RUNS[name](survey)
                if progress:
                    progress(name, 1, 1)
            if not steps:
                # No plan: an id for it named nothing `apply` or `audit` could find ("plan not
                # found" for the id the run had just printed).
                return _result(None, dry_run, names, [], [], [*survey.notes, NOTHING_PLANNED])
            plan_id = _new_plan_id()
            self._record(plan_id, [(i, step, "planned") for i, step in enumerate(steps)])
            results = ["planned"] * len(steps)
            if not dry_run:
                results = self._apply(plan_id, steps, progress, {})
        return _result(plan_id, dry_run, names, steps, results, survey.notes)

    def apply(self, plan_id: str, progress: Progress | None = None) -> PipelineResult:
        ident = check.short_text(plan_id, "plan_id")
        if ident is None:  # it was "plan not found: " with nothing after it
            raise ValidationError("plan_id", "must name a plan (the id a dry run printed)")
        with self.ctx.store.exclusive("pipeline"):
            # Each step's outcome follows its "planned" entry, newest first.
            entries = self.ctx.store.audit_entries(ident, 2 * PLAN_MAX_STEPS)
            if not entries:
                raise NotFoundError("plan", ident)
            planned = sorted((e for e in entries if e.result == "planned"), key=lambda e: e.step)
            outcomes: dict[int, str] = {}
            for e in entries:
                if e.result != "planned":
                    outcomes.setdefault(e.step, e.result)
            # A run that stopped (killed, or Ctrl-C) left steps with no outcome, or "not
            # applied": applying the plan again carries out those and no other.
            earlier = {i: r for i, r in outcomes.items() if r != STOPPED}
            if len(earlier) >= len(planned):
                raise ValidationError("plan_id", f"{ident} was applied already")
            steps = [
                Step(
                    agent=e.agent,
                    action=e.action,
                    memory_ids=e.memory_ids,
                    versions=e.detail["versions"],
                    detail=e.detail["detail"],
                    why=e.why,
                )
                for e in planned
            ]
            results = self._apply(ident, steps, progress, earlier)
        names = list(dict.fromkeys(s.agent for s in steps))
        return _result(ident, False, names, steps, results, [])

    def audit(self, plan_id: str | None = None, limit: int = 50) -> AuditTrail:
        """A plan nobody recorded is not found (as `apply` says), not an empty trail."""
        ident = None if plan_id is None else check.short_text(plan_id, "plan_id")
        entries = self.ctx.store.audit_entries(ident, check.limit(limit, most=AUDIT_MAX))
        if ident is not None and not entries:
            raise NotFoundError("plan", ident)
        return AuditTrail(count=len(entries), entries=entries)

    # -- applying -------------------------------------------------------------------------------

    def _apply(
        self,
        plan_id: str,
        steps: list[Step],
        progress: Progress | None,
        earlier: dict[int, str],
    ) -> list[str]:
        """Each step's outcome, recorded as soon as it is known: a run killed part-way left
        every step "planned" although it had promoted ten memories (audit). `earlier`: the
        outcomes a run that stopped recorded, by step; those steps are not carried out again."""
        rate = self.ctx.settings.pipeline_rate_limit
        waits = [0]

        def waiting(seconds: float) -> None:
            # Said on a line of its own: the bar stood still for a minute at a time, as if
            # hung (a probe's 682 steps)
            waits[0] += 1
            if progress:
                most = counted(rate, "change")
                phase = f"paced: at most {most} a minute (ENGRAM_PIPELINE_RATE_LIMIT)"
                progress(phase, waits[0], None)

        limit = RateLimit(rate, waiting=waiting)
        results: list[str] = []
        done_by: dict[str, int] = {}  # memory id -> the step of this plan that changed it
        doing: Step | None = None  # the step being carried out, if the run stops in it
        resuming = bool(earlier)  # the first step without an outcome may have been done
        try:
            for i, step in enumerate(steps):
                if progress:
                    progress("applying", i, len(steps))
                if i in earlier:
                    self._note(i, step, earlier[i], results, done_by)
                    continue
                if resuming:
                    resuming = False
                    if step.changes and self._landed(step):  # killed just after its change
                        self._record(plan_id, [(i, step, "done")])
                        self._note(i, step, "done", results, done_by)
                        continue
                result = self._carry_out(step, limit, done_by)
                if result is None:
                    doing = step
                    try:
                        self._do(step)
                        result = "done"
                    except (EngramError, OSError) as exc:  # e.g. a note the vault refuses
                        result = f"skipped: {exc}"
                    doing = None
                self._record(plan_id, [(i, step, result)])
                self._note(i, step, result, results, done_by)
        finally:
            # The run stopped part-way (Ctrl-C in the rate limit's wait): the step it stopped in
            # is done if its change landed (it was recorded as not applied although its memories
            # were merged: audit); the rest are not applied, and applying the plan again carries
            # them out.
            at = len(results)
            if doing is not None and self._landed(doing):
                results.append("done")
            results.extend([STOPPED] * (len(steps) - len(results)))
            self._record(plan_id, [(i, steps[i], results[i]) for i in range(at, len(steps))])
        return results

    def _carry_out(self, step: Step, limit: RateLimit, done_by: dict[str, int]) -> str | None:
        """The outcome of a step that is not to be carried out, or None if it is."""
        if not step.changes:
            # A report of memories merged or kept apart since the plan reports nothing true
            # any more (an MCP probe's stale plan "reported" a cluster already declined).
            stale = self._changed(step)
            return "reported" if stale is None else f"skipped: {stale}"
        # Waited for first, checked after: a memory archived or edited during the wait (up to
        # a minute) was acted on as the plan had seen it (audit).
        limit.wait()
        earlier = next((done_by[m] for m in step.memory_ids if m in done_by), None)
        changed = (
            f"its memories were changed by step {earlier + 1} of this plan"
            if earlier is not None
            else self._changed(step)
        )
        return f"skipped: {changed}" if changed else None

    @staticmethod
    def _note(i: int, step: Step, result: str, results: list[str], done_by: dict[str, int]) -> None:
        results.append(result)
        if result == "done" and step.action != "relate":  # a relation leaves its memories
            done_by.update((m, i) for m in step.memory_ids)

    def _landed(self, step: Step) -> bool:
        """Whether a step the run stopped in made its change: checked against the plan under
        the pipeline's lock, its memories (or, for a relation, their link) changed since."""
        if step.action == "relate":
            return self._linked(*step.memory_ids)
        return self._changed(step) is not None

    def _changed(self, step: Step) -> str | None:
        members = self.ctx.store.get_many(list(step.memory_ids))
        now = {m.id: stamp(m) for m in members}
        for ident, then in step.versions.items():
            if ident not in now:
                return f"memory {ident} no longer exists"
            if now[ident] != then:
                return f"memory {ident} changed since the plan"
        cohesion = step.detail.get("cohesion", 1.0)
        if step.action == "merge" and (reason := self.consolidation.veto(members, cohesion)):
            return f"{reason} since the plan"  # e.g. related as contradicting meanwhile
        if step.action == "review_cluster" and self._kept_apart(step.memory_ids):
            return "they were kept apart since the plan"
        if step.action == "relate" and self._linked(*step.memory_ids):
            # Someone linked them meanwhile: the step reported "done" and changed nothing.
            return "they were related since the plan"
        if step.action == "promote" and (news := self._news_of(step.memory_ids[0])):
            # Corrected since the plan ("My new manager is Grace"): a corrected fact is no
            # candidate for a permanent note, and the plan wrote one all the same (a probe).
            return f"memory {news} supersedes it since the plan"
        return None

    def _news_of(self, ident: str) -> str | None:
        """A memory that supersedes `ident`, if any."""
        replaced = (
            r.from_id
            for r in self.ctx.store.relations([ident])
            if r.type == "supersedes" and r.to_id == ident
        )
        return next(replaced, None)

    def _kept_apart(self, ids: Sequence[str]) -> bool:
        """Whether two of these memories are marked as different facts (`distinct_from`)."""
        inside = set(ids)
        return any(
            r.type == "distinct_from" and r.from_id in inside and r.to_id in inside
            for r in self.ctx.store.relations(sorted(inside))
        )

    def _linked(self, a: str, b: str) -> bool:
        return any({r.from_id, r.to_id} == {a, b} for r in self.ctx.store.relations([a]))

    def _do(self, step: Step) -> None:
        if step.action == "merge":
            view = ClusterView(
                id=step.detail["cluster_id"],
                member_ids=list(step.memory_ids),
                cohesion=step.detail["cohesion"],
                action="merge",
            )
            self.consolidation.apply(view)
        elif step.action == "promote":
            self.promotion.promote(step.memory_ids[0])
        elif step.action == "relate":
            a, b = step.memory_ids
            self.graph.create_relation(
                a,
                b,
                "related",
                strength=step.detail["strength"],
                metadata={"agent": step.agent, "entities": step.detail["entities"]},
            )

    def _record(self, plan_id: str, outcomes: Sequence[tuple[int, Step, str]]) -> None:
        """Audit entries for (step number, step, result); applied when the result is done."""
        at = self.ctx.now()
        entries = [
            AuditEntry(
                id=new_id(),
                plan_id=plan_id,
                step=i,
                agent=step.agent,
                action=step.action,
                memory_ids=step.memory_ids,
                detail={"versions": step.versions, "detail": step.detail},
                why=step.why,
                applied=result == "done",
                result=result,
                at=at,
            )
            for i, step, result in outcomes
        ]
        if entries:
            self.ctx.store.audit_append(entries)


STOPPED = "not applied: the run stopped before this step"
# A run that planned nothing has no plan (no id, no record).
NOTHING_PLANNED = "no agent proposed a step: there is nothing to apply"


def _agent_names(agents: Sequence[str] | None) -> list[AgentName]:
    """None is every agent; an empty list names none (it ran all five, and applied them)."""
    if agents is None:
        return list(AGENTS)
    if isinstance(agents, str):  # iterated, "decay" was five agents named by its letters
        raise ValidationError("agents", "must be a list of agent names, not one string")
    agents = check.sequence(agents, "agents")
    if not agents:
        raise ValidationError(
            "agents", f"name at least one of {', '.join(AGENTS)} (or none at all for every one)"
        )
    by_lower = {a.casefold(): a for a in AGENTS}
    names: list[AgentName] = []
    for name in agents:
        found = by_lower.get(name.casefold()) if isinstance(name, str) else None
        if found is None:
            known = ", ".join(AGENTS)
            raise ValidationError("agents", f"{name!r} is not an agent (one of {known})")
        names.append(found)
    # Each once: an agent named twice planned its steps twice, and applying them counted each
    # change twice.
    return list(dict.fromkeys(names))


def _new_plan_id() -> str:
    """A new id per run: two dry runs of an unchanged store are two plans (either may be
    applied, once; the second then skips what the first changed)."""
    return "plan-" + new_id().replace("-", "")[:16]


def _result(
    plan_id: str | None,
    dry_run: bool,
    agents: Sequence[str],
    steps: list[Step],
    results: list[str],
    notes: list[str],
) -> PipelineResult:
    summary: dict[str, dict[str, int]] = {name: {} for name in agents}
    for step, result in zip(steps, results, strict=True):
        kind = result.split(":", 1)[0]
        counts = summary.setdefault(step.agent, {})
        counts[kind] = counts.get(kind, 0) + 1
    return PipelineResult(
        plan_id=plan_id,
        dry_run=dry_run,
        agents=list(agents),
        steps=[
            StepOutcome(
                step=i,
                agent=s.agent,
                action=s.action,
                memory_ids=list(s.memory_ids),
                why=s.why,
                result=r,
            )
            for i, (s, r) in enumerate(zip(steps, results, strict=True))
        ],
        summary=summary,
        notes=list(dict.fromkeys(notes)),
    )
