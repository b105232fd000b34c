"""The maintenance pipeline through the public API, on every backend: a dry run records a plan
and changes nothing; applying it changes exactly what it listed; every decision is audited."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from engram import Engram, FixedClock
from engram.app import build_app
from engram.config import load_settings
from engram.core.models import Status
from engram.errors import NotFoundError, StoreError, ValidationError
from engram.services.agents import Step
from engram.services.pipeline import NOTHING_PLANNED, RateLimit

TEA = ("Prefers tea over coffee", "prefers tea over coffee!", "Prefers tea over coffee.")
OTHERS = (
    "The billing API allows 500 requests per minute per key.",
    "Uses Neovim with the LazyVim distribution",
    "Atlas deploys go out Tuesdays and Thursdays",
    "Our dog needs a vet appointment next week",
)


@pytest.fixture
def ops(store_url: str, clock: FixedClock, tmp_path: Path) -> Iterator[Engram]:
    """Repeats kept as copies (the merge agent's work), and a vault for the promoter."""
    vault = tmp_path / "vault"
    vault.mkdir()
    with Engram.open(
        store_url, clock=clock, save_duplicates="keep", vault_path=str(vault)
    ) as engram:
        yield engram


def plant(mem: Engram, clock: FixedClock) -> dict[str, list[str]]:
    fading = mem.save("The garage code changed last spring")
    clock.advance(days=9)  # power law: score ≈ 0.24, in the danger zone
    tea = [mem.save(t, tags=["drinks"]).id for t in TEA]
    used = mem.save("Atlas runs on PostgreSQL 16", tags=["atlas"])
    for _ in range(5):
        mem.touch(used.id)  # a promotion candidate by use
    work = mem.save("Dana Kim runs the Q3 roadmap review", tags=["work"], entities=["Roadmap"])
    family = mem.save("Dana Kim's daughter plays the violin", tags=["family"])
    linked = mem.save("Dana Kim prefers short meetings", tags=["habits"])
    mem.create_relation(work.id, linked.id)  # already linked: not proposed again
    flights = [
        mem.save("Our flight to Lisbon departs at 9am on Friday").id,
        mem.save("The flight to Lisbon leaves Friday morning at nine").id,
    ]  # related, not near-copies (cohesion ≈ 0.85): the review band
    for text in OTHERS:
        mem.save(text)
    return {
        "flights": sorted(flights),
        "fading": [fading.id],
        "tea": tea,
        "used": [used.id],
        "pair": sorted([work.id, family.id]),
        "linked": sorted([work.id, linked.id]),
    }


def everything(mem: Engram, vault: Path) -> tuple[object, ...]:
    page = mem.read_graph(limit=1000)
    notes = sorted(str(p.relative_to(vault)) for p in vault.rglob("*.md"))
    return page.memories, sorted(page.relations, key=lambda r: r.id), mem.stats().total, notes


def vault_of(mem: Engram) -> Path:
    assert mem.app.settings.vault_path is not None
    return Path(mem.app.settings.vault_path)


def test_a_dry_run_plans_every_agent_and_changes_nothing(ops: Engram, clock: FixedClock) -> None:
    ids = plant(ops, clock)
    before = everything(ops, vault_of(ops))
    plan = ops.run_pipeline()
    assert plan.dry_run and everything(ops, vault_of(ops)) == before
    steps = {(s.agent, s.action, tuple(sorted(s.memory_ids))) for s in plan.steps}
    assert ("DecayAnalyzer", "at_risk", tuple(ids["fading"])) in steps
    assert ("SemanticMerge", "merge", tuple(sorted(ids["tea"]))) in steps
    assert ("LTMPromoter", "promote", tuple(ids["used"])) in steps
    assert ("RelationshipDiscovery", "relate", tuple(ids["pair"])) in steps
    assert not any(
        s.action == "relate" and sorted(s.memory_ids) == ids["linked"] for s in plan.steps
    )
    assert {k for a, _, k in steps if a == "ClusterDetector"} == {tuple(ids["flights"])}
    assert all(s.result == "planned" for s in plan.steps)
    trail = ops.audit(plan.plan_id)
    assert trail.count == len(plan.steps) and all(not e.applied for e in trail.entries)


def test_applying_a_plan_does_what_it_listed_once(ops: Engram, clock: FixedClock) -> None:
    ids = plant(ops, clock)
    plan = ops.run_pipeline()
    done = ops.apply_plan(plan.plan_id)
    results = {(s.action, tuple(sorted(s.memory_ids))): s.result for s in done.steps}
    assert results[("merge", tuple(sorted(ids["tea"])))] == "done"
    assert results[("promote", tuple(ids["used"]))] == "done"
    assert results[("relate", tuple(ids["pair"]))] == "done"
    assert results[("at_risk", tuple(ids["fading"]))] == "reported"
    assert results[("review_cluster", tuple(ids["flights"]))] == "reported"  # for a person
    assert all(m.status == Status.ACTIVE for m in ops.get_many(ids["flights"]))
    assert all(m.status == Status.ARCHIVED for m in ops.get_many(ids["tea"]))
    assert ops.get(ids["used"][0]).status == Status.PROMOTED
    (edge,) = [r for r in ops.relations(ids["pair"][0]) if set(ids["pair"]) == {r.from_id, r.to_id}]
    assert (edge.type, edge.metadata["agent"]) == ("related", "RelationshipDiscovery")
    # docs/consolidation.md: the entities both name, and their overlap as the strength
    # (shared / all, at least 0.1).
    a, b = ({e.casefold() for e in m.entities} for m in ops.get_many(ids["pair"]))
    assert "dana kim" in a & b and edge.metadata["entities"] == sorted(a & b)
    assert edge.strength == pytest.approx(max(0.1, len(a & b) / len(a | b)), abs=1e-3)
    assert edge.strength == 0.5  # "Dana Kim" of "Dana Kim" and "Roadmap"
    applied = [e for e in ops.audit(plan.plan_id, limit=1000).entries if e.applied]
    assert {e.action for e in applied} == {"merge", "promote", "relate"}
    with pytest.raises(ValidationError, match=r"plan_id: .* was applied already"):
        ops.apply_plan(plan.plan_id)
    again = ops.run_pipeline()  # the store is tidy now: nothing left to merge or link
    assert not [s for s in again.steps if s.action in ("merge", "relate", "promote")]


def test_a_step_whose_memories_changed_is_skipped(ops: Engram, clock: FixedClock) -> None:
    ids = plant(ops, clock)
    plan = ops.run_pipeline(["SemanticMerge", "RelationshipDiscovery"])
    ops.update(ids["tea"][1], content="Prefers tea over coffee, green tea mostly")
    done = ops.apply_plan(plan.plan_id)
    merge = next(s for s in done.steps if s.action == "merge")
    assert merge.result == f"skipped: memory {ids['tea'][1]} changed since the plan"
    assert all(m.status == Status.ACTIVE for m in ops.get_many(ids["tea"]))
    assert next(s for s in done.steps if s.action == "relate").result == "done"


def test_a_merge_of_memories_related_as_contradicting_since_the_plan_is_skipped(
    ops: Engram, clock: FixedClock
) -> None:
    """A plan remembered what its memories said, not how they were related: two of them
    marked as contradicting each other after the dry run were merged all the same."""
    ids = plant(ops, clock)
    plan = ops.run_pipeline(["SemanticMerge"])
    ops.create_relation(ids["tea"][0], ids["tea"][1], "contradicts")
    (merge,) = [s for s in ops.apply_plan(plan.plan_id).steps if s.action == "merge"]
    assert merge.result.startswith("skipped: two of them are related as contradicting")
    assert all(m.status == Status.ACTIVE for m in ops.get_many(ids["tea"]))


def test_a_step_the_vault_refuses_is_skipped_and_the_trail_records_every_step(
    ops: Engram, clock: FixedClock
) -> None:
    """The note's folder is a file: the promotion's write fails with an OSError. It aborted
    the whole apply, and the audit kept no record of the steps already done."""
    ids = plant(ops, clock)
    plan = ops.run_pipeline(["LTMPromoter", "RelationshipDiscovery"])
    (vault_of(ops) / ops.app.settings.ltm_folder).write_text("not a folder\n")
    done = ops.apply_plan(plan.plan_id)
    by_action = {s.action: s.result for s in done.steps}
    assert by_action["promote"].startswith("skipped: ") and by_action["relate"] == "done"
    assert ops.get(ids["used"][0]).status == Status.ACTIVE
    trail = ops.audit(plan.plan_id, limit=1000).entries
    results = {e.action: e.result for e in trail if e.result != "planned"}
    assert results == by_action
    assert {e.action for e in trail if e.applied} == {"relate"}


def test_a_real_run_applies_its_own_plan(ops: Engram, clock: FixedClock) -> None:
    ids = plant(ops, clock)
    done = ops.run_pipeline(["SemanticMerge"], dry_run=False)
    assert not done.dry_run and [s.result for s in done.steps] == ["done"]
    assert all(m.status == Status.ARCHIVED for m in ops.get_many(ids["tea"]))
    assert done.summary == {"SemanticMerge": {"done": 1}}


def test_one_pipeline_at_a_time(ops: Engram) -> None:
    with (
        ops.app.context.store.exclusive("pipeline"),
        pytest.raises(StoreError, match="pipeline is already running"),
    ):
        ops.run_pipeline()
    ops.run_pipeline()  # free again


def test_one_pipeline_at_a_time_through_a_symlink_too(tmp_path: Path) -> None:
    """The lock was named after the path as given: a client opening the store through a
    symlink held a lock of its own, and one plan was applied twice at once (audit)."""
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "x.db"
    link = tmp_path / "link.db"
    with Engram.open(str(real), embedding_model="none") as first:
        link.symlink_to(real)
        with Engram.open(str(link), embedding_model="none") as second:
            with (
                first.app.context.store.exclusive("pipeline"),
                pytest.raises(StoreError, match="pipeline is already running"),
            ):
                second.run_pipeline()
            second.run_pipeline()  # free again


def test_untagged_memories_are_not_linked_as_from_different_topics(ops: Engram) -> None:
    """Two untagged memories naming Atlas were linked "from different topics": with no tags
    their topics are unknown (Jaccard 0 of nothing)."""
    for text in ("Atlas ships in May", "Atlas needs a new logo"):
        ops.save(text, entities=["Atlas"])
    for i in range(12):  # a name on most memories is linked nowhere: these keep Atlas rare
        ops.save(f"Unrelated note number {i} about the garden", tags=["home"])
    plan = ops.run_pipeline(["RelationshipDiscovery"])
    assert [s for s in plan.steps if s.action == "relate"] == []


def test_an_agent_named_twice_runs_once(ops: Engram, clock: FixedClock) -> None:
    """Each of its steps was planned twice, and applying them reported two changes for one."""
    ids = plant(ops, clock)
    plan = ops.run_pipeline(["RelationshipDiscovery", "relationshipdiscovery"])
    assert plan.agents == ["RelationshipDiscovery"]
    pairs = [tuple(sorted(s.memory_ids)) for s in plan.steps if s.action == "relate"]
    assert pairs.count(tuple(sorted(ids["pair"]))) == 1
    assert len(pairs) == len(set(pairs))


def test_bad_input_names_the_field(ops: Engram) -> None:
    with pytest.raises(ValidationError, match="agents: 'Gardener' is not an agent"):
        ops.run_pipeline(["Gardener"])
    with pytest.raises(ValidationError, match="agents: 5 is not an agent"):
        ops.run_pipeline([5])  # type: ignore[list-item]
    # an empty list named no agent: it ran all five, and with dry_run=False applied them
    before = ops.stats()
    with pytest.raises(ValidationError, match="agents: name at least one"):
        ops.run_pipeline([], dry_run=False)
    with pytest.raises(ValidationError, match="agents: must be a list"):
        ops.run_pipeline(0, dry_run=False)  # type: ignore[arg-type]
    assert ops.stats() == before
    with pytest.raises(NotFoundError, match="plan not found: plan-nothing"):
        ops.apply_plan("plan-nothing")
    with pytest.raises(ValidationError, match="limit"):
        ops.audit(limit=0)
    # "The audit trail is empty" for a mistyped plan id
    with pytest.raises(NotFoundError, match="plan not found: plan-nothing"):
        ops.audit("plan-nothing")


def test_without_a_vault_the_promoter_says_why(store_url: str, clock: FixedClock) -> None:
    with Engram.open(store_url, clock=clock) as mem:
        result = mem.run_pipeline(["LTMPromoter"])
    assert result.steps == [] and "no vault configured" in result.notes[0]


def test_the_rate_limit_paces_operations_beyond_the_minutes_allowance() -> None:
    """A fake clock: waiting out real minutes in a test is not possible, and the limiter's
    only job is the arithmetic of when to wait."""
    now = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    limit = RateLimit(3, now=lambda: now[0], sleep=sleep)
    for _ in range(3):
        limit.wait()
        now[0] += 1.0
    assert slept == []  # the first three at once
    limit.wait()
    assert slept == [57.0]  # the fourth waits until a minute after the first


def test_the_rate_limit_setting_paces_a_real_run(
    store_url: str, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENGRAM_PIPELINE_RATE_LIMIT=1: the second store-changing step waits out the minute.
    The pause is recorded, not slept (a real minute per test is too slow to run)."""
    slept: list[float] = []
    monkeypatch.setattr("engram.services.pipeline.pause", slept.append)
    with Engram.open(store_url, clock=clock, pipeline_rate_limit=1) as mem:
        for tags in (["work"], ["family"], ["sport"]):
            mem.save(f"Dana Kim note for {tags[0]}", tags=tags)
        for i in range(9):  # a name on every memory is too common to link by
            mem.save(f"the weather was mild on day {i}")
        told: list[tuple[str, int, int | None]] = []
        progress = lambda *said: told.append(said)  # noqa: E731
        done = mem.app.pipeline.run(["RelationshipDiscovery"], False, progress)
    assert [s.result for s in done.steps] == ["done", "done", "done"]
    assert len(slept) == 2 and all(55 < s <= 60 for s in slept)
    # each wait said on a line of its own: the bar stood still for a minute, as if hung
    paced = "paced: at most 1 change a minute (ENGRAM_PIPELINE_RATE_LIMIT)"
    assert [t for t in told if t[0] == paced] == [(paced, 1, None), (paced, 2, None)]


def test_a_name_on_most_memories_links_nothing(ops: Engram) -> None:
    """In a young store the user's name is on most memories: every pair of them was proposed
    as related (95 steps for 21 memories), and the edges then lent each other context."""
    topics = ["work", "food", "pets", "sport", "travel", "music", "books", "health"]
    for topic in topics:
        ops.save(f"Dana talked about {topic} today", tags=[topic])
    ops.save("Pixel the dog chased a ball", tags=["pets"])
    ops.save("Pixel sleeps on the sofa", tags=["home"])
    plan = ops.run_pipeline(["RelationshipDiscovery"])
    assert [s.why for s in plan.steps] == ["both name pixel from different topics: link them"]


def test_memories_naming_only_the_user_are_not_linked(ops: Engram) -> None:
    """Below the share that makes a name too common, a probe's pipeline still linked the
    notes naming Dana, who the store says is the user; two other memories naming Pixel are
    linked as before."""
    ops.save("My name is Dana Whitfield", tags=["profile"])
    ops.save("Dana prefers concise answers", tags=["style"])
    ops.save("Dana works at Northwind Labs", tags=["work"])
    ops.save("Pixel the dog chased a ball", tags=["pets"])
    ops.save("Pixel sleeps on the sofa", tags=["home"])
    for i in range(8):
        ops.save(f"The weather was mild on day {i}", tags=["weather"])
    plan = ops.run_pipeline(["RelationshipDiscovery"])
    assert [s.why for s in plan.steps] == ["both name pixel from different topics: link them"]


def test_a_run_that_plans_nothing_has_no_plan_to_apply(ops: Engram) -> None:
    """A run without steps returned a plan id that `apply_plan` and `audit` then called "plan
    not found"."""
    ops.save("The only memory")
    plan = ops.run_pipeline(["RelationshipDiscovery"])
    assert plan.steps == [] and plan.notes == [NOTHING_PLANNED]
    assert plan.plan_id is None
    assert ops.audit().count == 0


def test_a_memory_changed_while_a_step_waits_its_turn_is_not_acted_on(
    store_url: str, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENGRAM_PIPELINE_RATE_LIMIT makes a step wait up to a minute: it was checked against its
    plan before the wait and carried out after it, so a memory another client archived during
    the wait got the plan's link all the same (audit). The wait is the other client's moment
    here: the pause archives the memory instead of sleeping."""
    with Engram.open(store_url, clock=clock, pipeline_rate_limit=1) as mem:
        for tags in (["work"], ["family"], ["sport"]):
            mem.save(f"Dana Kim note for {tags[0]}", tags=tags)
        for i in range(9):  # a name on every memory is too common to link by
            mem.save(f"the weather was mild on day {i}")
        plan = mem.run_pipeline(["RelationshipDiscovery"])
        later = plan.steps[1].memory_ids[0]
        monkeypatch.setattr("engram.services.pipeline.pause", lambda seconds: mem.archive(later))
        done = mem.apply_plan(plan.plan_id)
        assert done.steps[0].result == "done"
        assert done.steps[1].result == f"skipped: memory {later} changed since the plan"
        step_two = set(plan.steps[1].memory_ids)
        assert not [r for r in mem.relations(later) if {r.from_id, r.to_id} == step_two]


def test_a_step_on_memories_an_earlier_step_merged_says_so(ops: Engram, clock: FixedClock) -> None:
    """The merge agent's step archives the copies; the promoter's step on one of them was
    then skipped as "changed since the plan", a change nobody else made (audit)."""
    tea = [ops.save(t, tags=["drinks"]).id for t in TEA]
    for _ in range(5):
        ops.touch(tea[0])  # a promotion candidate by use, and a copy to merge
    for text in OTHERS:
        ops.save(text)
    plan = ops.run_pipeline(["SemanticMerge", "LTMPromoter"])
    actions = [(s.action, tea[0] in s.memory_ids) for s in plan.steps]
    assert ("merge", True) in actions and ("promote", True) in actions
    done = ops.apply_plan(plan.plan_id)
    merge_at = next(i for i, s in enumerate(done.steps) if s.action == "merge")
    promote = next(s for s in done.steps if s.action == "promote" and tea[0] in s.memory_ids)
    assert (
        promote.result == f"skipped: its memories were changed by step {merge_at + 1} of this plan"
    )


def test_a_link_made_since_the_plan_is_not_made_again(ops: Engram, clock: FixedClock) -> None:
    """Another client linked the pair after the dry run: the step reported "done" and changed
    nothing (audit)."""
    ids = plant(ops, clock)
    plan = ops.run_pipeline(["RelationshipDiscovery"])
    ops.create_relation(*ids["pair"], "related")
    pair = set(ids["pair"])
    (step,) = [s for s in ops.apply_plan(plan.plan_id).steps if set(s.memory_ids) == pair]
    assert step.result == "skipped: they were related since the plan"
    edges = [r for r in ops.relations(ids["pair"][0]) if {r.from_id, r.to_id} == pair]
    assert len(edges) == 1 and "agent" not in edges[0].metadata
    (entry,) = [
        e
        for e in ops.audit(plan.plan_id).entries
        if set(e.memory_ids) == pair and e.result != "planned"
    ]
    assert not entry.applied and entry.result == step.result


@pytest.mark.parametrize("agent", ["SemanticMerge", "RelationshipDiscovery"])
def test_a_step_the_run_stopped_in_is_recorded_as_what_it_did(
    ops: Engram, clock: FixedClock, monkeypatch: pytest.MonkeyPatch, agent: str
) -> None:
    """Ctrl-C just after a step's change landed: the trail said "not applied" for memories
    that were merged (audit)."""
    ids = plant(ops, clock)
    plan = ops.run_pipeline([agent])
    carry_out = ops.app.pipeline._do

    def then_interrupted(step: Step) -> None:
        carry_out(step)
        raise KeyboardInterrupt

    monkeypatch.setattr(ops.app.pipeline, "_do", then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        ops.apply_plan(plan.plan_id)
    trail = [e for e in ops.audit(plan.plan_id, limit=1000).entries if e.result != "planned"]
    first, *rest = sorted(trail, key=lambda e: e.step)
    assert (first.result, first.applied) == ("done", True)
    assert all(e.result == "not applied: the run stopped before this step" for e in rest)
    if agent == "SemanticMerge":
        assert all(m.status == Status.ARCHIVED for m in ops.get_many(ids["tea"]))
    else:
        a, b = first.memory_ids
        assert {a, b} in [{r.from_id, r.to_id} for r in ops.relations(a)]


def test_a_step_the_run_stopped_in_before_its_change_is_not_applied(
    ops: Engram, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    plant(ops, clock)
    plan = ops.run_pipeline(["SemanticMerge"])

    def interrupted(step: Step) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(ops.app.pipeline, "_do", interrupted)
    with pytest.raises(KeyboardInterrupt):
        ops.apply_plan(plan.plan_id)
    (entry,) = [e for e in ops.audit(plan.plan_id).entries if e.result != "planned"]
    assert (entry.result, entry.applied) == ("not applied: the run stopped before this step", False)


KILLED_AFTER_TWO_STEPS = textwrap.dedent(
    """
    import os, signal, sys
    from datetime import datetime
    from engram import Engram, FixedClock
    url, vault, now, plan = sys.argv[1:5]
    clock = FixedClock(datetime.fromisoformat(now))
    with Engram.open(url, clock=clock, save_duplicates="keep", vault_path=vault) as mem:
        pipeline = mem.app.pipeline
        carry_out, done = pipeline._do, []

        def then_killed_after_the_second(step):
            carry_out(step)
            done.append(step)
            if len(done) == 2:  # its change landed; its outcome not yet written
                os.kill(os.getpid(), signal.SIGKILL)

        pipeline._do = then_killed_after_the_second
        mem.apply_plan(plan)
    """
)


def test_a_run_killed_part_way_left_its_outcomes_and_applying_again_finishes_it(
    ops: Engram, clock: FixedClock
) -> None:
    """kill -9 during `apply`: the trail said "planned" for every step although ten memories
    were promoted, and applying the plan again recorded those as "skipped: changed since the
    plan". Each outcome is now written when known, and applying again does the rest."""
    ids = plant(ops, clock)
    plan = ops.run_pipeline()
    assert plan.plan_id is not None
    changing = [s for s in plan.steps if s.action in ("merge", "promote", "relate")]
    assert len(changing) >= 3
    ops.flush()
    killed = subprocess.run(
        [
            sys.executable,
            "-c",
            KILLED_AFTER_TWO_STEPS,
            ops.app.settings.storage_path,
            str(vault_of(ops)),
            clock.now.isoformat(),
            plan.plan_id,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "ENGRAM_EMBEDDING_MODEL": "none"},
    )
    assert killed.returncode == -9, killed.stderr

    def outcomes() -> dict[int, list[str]]:
        found: dict[int, list[str]] = {}
        for e in ops.audit(plan.plan_id, limit=1000).entries:
            if e.result != "planned":
                found.setdefault(e.step, []).append(e.result)
        return found

    first, second = changing[0].step, changing[1].step
    assert outcomes()[first] == ["done"]  # written before the kill
    assert second not in outcomes()  # killed between its change and its record
    again = ops.apply_plan(plan.plan_id)
    by_step = {s.step: s.result for s in again.steps}
    assert by_step[first] == by_step[second] == "done"  # the second's change had landed
    assert all(r != "planned" and not r.startswith("skipped") for r in by_step.values())
    assert {step: len(results) for step, results in outcomes().items()} == {
        s.step: 1 for s in plan.steps
    }  # one outcome a step: none done twice
    a, b = ids["pair"]
    assert [{r.from_id, r.to_id} for r in ops.relations(a)].count({a, b}) == 1
    with pytest.raises(ValidationError, match="applied already"):
        ops.apply_plan(plan.plan_id)


def test_memories_without_vectors_are_named_in_the_notes(store_url: str) -> None:
    """Saved while embeddings were off, six memories (three copies of one) have no vector:
    the merge agents found nothing and said only that nothing was planned (audit). Opened as
    the CLI opens a store: no background catch-up on missing vectors. Copies of the same
    words need none: they are one statement."""
    with Engram.open(store_url, embedding_model="none", save_duplicates="keep") as mem:
        tea = [mem.save(text).id for text in TEA]
        for text in OTHERS[:3]:
            mem.save(text)
    settings = load_settings(storage_path=store_url, save_duplicates="keep")
    with Engram(build_app(settings, recover_vectors=False)) as mem:
        result = mem.run_pipeline(["SemanticMerge", "ClusterDetector"])
        assert [sorted(s.memory_ids) for s in result.steps] == [sorted(tea)]
        assert result.notes[0] == (
            "clustering compared only memories with a vector: 6 have none yet (`engram embed "
            "--backfill` computes those the model can read; a server catches up by itself)"
        )
        mem.embed_backfill()
        result = mem.run_pipeline(["SemanticMerge", "ClusterDetector"])
        assert [s.action for s in result.steps] == ["merge"]
        assert not any("vector" in note for note in result.notes)


def test_a_cluster_whose_memories_disagree_says_so_in_the_plan(ops: Engram) -> None:
    """Near-copies that hold different numbers (a flight there and the one back) are left for
    a person, and clustering says why; the plan's step said only "related but not
    near-copies" (a helper's probe)."""
    there = ops.save("My flight to Tokyo is on June 12").id
    back = ops.save("My flight from Tokyo is on June 26").id
    (view,) = [c for c in ops.clusters().clusters if set(c.member_ids) == {there, back}]
    assert view.action == "review" and view.note is not None
    (step,) = [
        s for s in ops.run_pipeline(["ClusterDetector"]).steps if s.agent == "ClusterDetector"
    ]
    assert step.why.endswith(view.note)
    (entry,) = [e for e in ops.audit(None).entries if e.agent == "ClusterDetector"]
    assert entry.detail["detail"]["note"] == view.note


def test_a_plan_does_not_promote_a_fact_corrected_since(tmp_path: Path, clock: FixedClock) -> None:
    """A plan made on Sunday promoted "My manager is Tom Becker" on Monday, after "My new
    manager is Grace Okafor" had superseded it: a corrected fact is no candidate for a
    permanent note, but the plan checked only the fact's own fields (a probe)."""
    vault = tmp_path / "vault"
    vault.mkdir()
    with Engram.open(str(tmp_path / "s.db"), clock=clock, vault_path=str(vault)) as mem:
        old = mem.save("My manager is Tom Becker", tags=["work"])
        for _ in range(5):
            clock.advance(hours=20)
            mem.touch(old.id)
        plan = mem.run_pipeline(agents=["LTMPromoter"], dry_run=True)
        assert [(s.action, s.memory_ids[0]) for s in plan.steps] == [("promote", old.id)]
        clock.advance(hours=12)
        news = mem.save_result("My new manager is Grace Okafor")
        assert news.supersedes == [old.id]
        (step,) = mem.apply_plan(plan.plan_id).steps
        assert step.result.startswith("skipped") and "supersedes it since the plan" in step.result
        assert mem.get(old.id).status == Status.ACTIVE and not list(vault.rglob("*.md"))


def test_a_reported_cluster_declined_or_merged_since_the_plan_is_skipped(ops: Engram) -> None:
    """An MCP probe's stale plan "reported" a review cluster a person had kept apart since,
    and one merged since: a report of what no longer holds."""
    flights = [
        ops.save("Our flight to Lisbon departs at 9am on Friday").id,
        ops.save("The flight to Lisbon leaves Friday morning at nine").id,
    ]
    standups = [
        ops.save("Daily standup is at 9:30am").id,
        ops.save("Our daily stand-up happens at 9:30 every morning").id,
    ]
    plan = ops.run_pipeline(["ClusterDetector"])
    assert {frozenset(s.memory_ids) for s in plan.steps} >= {
        frozenset(flights),
        frozenset(standups),
    }
    ops.keep_apart(memory_ids=flights)
    ops.consolidate(mode="apply", auto_detect=False, memory_ids=standups)
    results = {frozenset(s.memory_ids): s.result for s in ops.apply_plan(plan.plan_id).steps}
    assert results[frozenset(flights)] == "skipped: they were kept apart since the plan"
    assert results[frozenset(standups)].startswith("skipped: memory")
