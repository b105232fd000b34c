"""Migration between backends, the CortexGraph import and export, on every backend pair."""

from __future__ import annotations

import json
import os
import threading
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from tests.services.conftest import STORE_URLS

from engram import Draft, Engram, FixedClock, Status
from engram.core.models import Memory, Relation, Schedule
from engram.errors import ValidationError
from engram.services.transfer import restore
from engram.services.transfer.common import Writer, canonical_memory
from engram.services.transfer.cortexgraph import ImportReport, import_cortexgraph
from engram.services.transfer.export import ExportCount, export_lines
from engram.services.transfer.migrate import migrate
from engram.services.transfer.restore import read_export

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "cortexgraph"


def cortexgraph_into(mem: Engram, folder: Path) -> ImportReport:
    """Import a CortexGraph folder into `mem`'s store, as `engram import cortexgraph` does."""
    ctx = mem.app.context
    return import_cortexgraph(folder, Writer(ctx.store, ctx.scheduled_many), now=ctx.now())


def fill(mem: Engram, clock: FixedClock) -> list[str]:
    """Memories with every field set, reinforced, archived, promoted, related, embedded."""
    a = mem.save(
        "Project Atlas uses PostgreSQL 16",
        tags=["decision", "atlas"],
        entities=["Atlas"],
        source="meeting",
        context="kickoff",
        meta={"ticket": "ATL-1", "nested": {"k": [1, 2.5, None]}},
        strength=1.4,
        episode="kickoff-chat",
    )
    b = mem.save("Prefers concise answers", tags=["preference"], episode="kickoff-chat")
    c = mem.save("Old VPN endpoint", created_at=clock.now - timedelta(days=40))
    d = mem.save('Ünïcode ✓ content, "quoted"\nsecond line of text')  # two passages
    clock.advance(days=2, microseconds=123_457)
    mem.touch(a.id, boost=True)
    mem.observe([b.id], context_tags=["cooking"])
    mem.archive([c.id])
    ctx = mem.app.context

    def promote(m: Memory) -> tuple[Memory, Schedule]:
        return ctx.scheduled(
            m.model_copy(
                update={
                    "status": Status.PROMOTED,
                    "promoted_at": clock.now,
                    "promoted_to": "Engram/concise.md",
                }
            )
        )

    ctx.store.modify([d.id], promote)
    mem.create_relation(a.id, b.id, "supports", strength=0.7, metadata={"why": "x"})
    mem.create_relation(b.id, d.id)
    mem.flush()  # the vectors too: migrate reads the store, not this handle
    return [a.id, b.id, c.id, d.id]


def everything(engram: Engram) -> tuple[list[Memory], list[object]]:
    page = engram.read_graph(limit=1000)
    return page.memories, sorted(page.relations, key=lambda r: r.id)


# Backends whose every store in a test is the same database (a server): never paired with
# themselves, since a migration needs two stores.
ONE_STORE_PER_TEST = {"postgres"}
PAIRS = [
    (a, b)
    for a in sorted(STORE_URLS)
    for b in sorted(STORE_URLS)
    if not (a == b and a in ONE_STORE_PER_TEST)
]


@pytest.mark.parametrize(("source_kind", "target_kind"), PAIRS)
def test_migrate_copies_every_field_relation_and_vector(
    clock: FixedClock,
    source_kind: str,
    target_kind: str,
    request: pytest.FixtureRequest,
    tmp_path: Path,
) -> None:
    source_url = STORE_URLS[source_kind](request, tmp_path / "source")
    target_url = STORE_URLS[target_kind](request, tmp_path / "target")
    with Engram.open(source_url, clock=clock) as mem, Engram.open(target_url, clock=clock) as dst:
        ids = fill(mem, clock)
        source = mem.app.context.store
        report = migrate(source, dst.app.context.store, dst.app.context.scheduled_many, batch=3)
        assert report.verified, report.differences
        assert (report.memories, report.copied, report.skipped, report.relations) == (4, 4, 0, 2)
        assert report.checksum_source == report.checksum_target
        assert everything(dst) == everything(mem)
        model = next(iter(source.vector_counts()))
        assert report.vectors == {model: 4}
        theirs = dst.app.context.store.get_vectors(ids, model, passages=True)
        ours = source.get_vectors(ids, model, passages=True)
        assert ours[ids[3]].shape == (3, 384)  # the whole text and its two passages
        assert {k: v.tolist() for k, v in theirs.items()} == {
            k: v.tolist() for k, v in ours.items()
        }
        # the copy behaves: schedules were computed for it, search and gc work
        hits = dst.search("postgresql")
        assert hits[0].memory.id == ids[0] and hits[0].why.text == 1.0
        # the rest come through the copied relations (context), not through the word
        assert all(h.why.text == 0.0 and h.why.context for h in hits[1:])
        assert dst.stats().by_status == mem.stats().by_status

        again = migrate(source, dst.app.context.store, dst.app.context.scheduled_many)
        assert again.verified and (again.copied, again.skipped) == (0, 4)
        # run again, it copies no vector, and says the memories kept theirs ("0 vectors are
        # identical" read as none there: a probe)
        assert "the vectors of 4 memories there already were kept" in again.message


def test_a_rerun_keeps_diverged_memories_unless_told_to_overwrite(
    mem: Engram, clock: FixedClock, tmp_path: Path
) -> None:
    ids = fill(mem, clock)
    with Engram.open(f"jsonl://{tmp_path / 'copy'}", clock=clock) as dst:
        target = dst.app.context.store
        migrate(mem.app.context.store, target, dst.app.context.scheduled_many)
        dst.touch(ids[0])  # the copy moves on
        kept = migrate(mem.app.context.store, target, dst.app.context.scheduled_many)
        assert not kept.verified and kept.differences == [ids[0]]
        assert "--overwrite" in kept.message
        assert dst.get(ids[0]).use_count == mem.get(ids[0]).use_count + 1
        replaced = migrate(
            mem.app.context.store, target, dst.app.context.scheduled_many, overwrite=True
        )
        assert replaced.verified and replaced.overwritten == 1
        assert dst.get(ids[0]) == mem.get(ids[0])


def test_a_kept_memory_keeps_its_vector_and_a_shared_edge_verifies(
    mem: Engram, clock: FixedClock, tmp_path: Path
) -> None:
    """A memory changed in the source and kept as it was in the target took the source's
    vector (of another text: found by meaning for what it no longer says). And an edge made in
    both stores under other ids could never verify, --overwrite or not."""
    ids = fill(mem, clock)
    with Engram.open(f"jsonl://{tmp_path / 'copy'}", clock=clock) as dst:
        source, target = mem.app.context.store, dst.app.context.store
        model = next(iter(source.vector_counts()))
        migrate(source, target, dst.app.context.scheduled_many)
        before = target.get_vectors([ids[1]], model, passages=True)[ids[1]]
        mem.update(ids[1], content="The quarterly tax filing deadline is April 15")
        mem.flush()
        kept = migrate(source, target, dst.app.context.scheduled_many)
        assert kept.differences == [ids[1]] and "--overwrite" in kept.message
        # what --overwrite costs, said where it is offered: the target's copy may be in use
        # (a live server's: its uses there would be lost; a concurrency probe)
        assert "their uses and edits there too, is lost" in kept.message
        after = target.get_vectors([ids[1]], model, passages=True)[ids[1]]
        assert after.tolist() == before.tolist()  # the target's own text, its own vector
        replaced = migrate(source, target, dst.app.context.scheduled_many, overwrite=True)
        assert replaced.verified  # the source's text, and then its vector
        mem.create_relation(ids[2], ids[3], "supports")
        dst.create_relation(ids[2], ids[3], "supports")  # the same edge, another id
        same = migrate(source, target, dst.app.context.scheduled_many)
        assert same.verified, same.differences


def test_an_edge_of_another_strength_in_the_target_is_replaced_when_told_to_overwrite(
    mem: Engram, clock: FixedClock, tmp_path: Path
) -> None:
    """--overwrite replaced memories but never an edge: one of the same ends and type with
    another strength stayed, "NOT verified", at every run (a helper's probe)."""
    ids = fill(mem, clock)
    with Engram.open(f"jsonl://{tmp_path / 'copy'}", clock=clock) as dst:
        source, target = mem.app.context.store, dst.app.context.store
        migrate(source, target, dst.app.context.scheduled_many)
        mem.create_relation(ids[2], ids[3], "supports", strength=0.9)
        dst.create_relation(ids[2], ids[3], "supports", strength=0.2)  # made there meanwhile
        kept = migrate(source, target, dst.app.context.scheduled_many)
        assert not kept.verified and "--overwrite" in kept.message
        replaced = migrate(source, target, dst.app.context.scheduled_many, overwrite=True)
        assert replaced.verified, replaced.differences
        (edge,) = [r for r in dst.relations(ids[2]) if r.type == "supports"]
        assert edge.strength == 0.9


def test_a_rerun_leaves_the_targets_own_vectors_and_fills_missing_ones(
    mem: Engram, clock: FixedClock, tmp_path: Path
) -> None:
    """A memory the target holds identical, re-embedded there by another model, lost that
    vector to the source's on a re-run that reported it "skipped and kept" (audit). One
    whose vector never arrived (a run stopped before the vectors) still gets it."""
    ids = fill(mem, clock)
    with Engram.open(f"jsonl://{tmp_path / 'copy'}", clock=clock) as dst:
        source, target = mem.app.context.store, dst.app.context.store
        model = next(iter(source.vector_counts()))
        # As a run stopped before the vectors leaves it: the memory there, its vector not.
        target.insert(dst.app.context.scheduled_many(source.get_many([ids[1]])))
        first = migrate(source, target, dst.app.context.scheduled_many)
        assert (first.copied, first.skipped, first.vectors) == (3, 1, {model: 4})
        vectors = source.get_vectors([ids[1]], model, passages=True)[ids[1]]
        assert target.get_vectors([ids[1]], model, passages=True)[ids[1]].tolist() == (
            vectors.tolist()
        )
        own = np.full(384, 1 / np.sqrt(384), dtype=np.float32)
        target.put_vectors([(ids[0], own)], "newer-model/1")  # replaces its copied vector
        again = migrate(source, target, dst.app.context.scheduled_many)
        assert again.verified and again.skipped == 4 and again.vectors == {}
        assert target.get_vectors([ids[0]], "newer-model/1")[ids[0]].tolist() == own.tolist()
        assert ids[0] not in target.get_vectors([ids[0]], model)


def test_migration_round_trip_through_every_backend_changes_nothing(
    tmp_path: Path, clock: FixedClock, request: pytest.FixtureRequest
) -> None:
    preferred = ["sqlite", "postgres", "jsonl"]  # SQLite -> PostgreSQL -> JSONL -> SQLite
    kinds = [k for k in preferred if k in STORE_URLS] + sorted(set(STORE_URLS) - set(preferred))
    chain = [*kinds, kinds[0]]
    urls = [STORE_URLS[k](request, tmp_path / f"hop{i}") for i, k in enumerate(chain)]
    with Engram.open(urls[0], clock=clock) as first:
        fill(first, clock)
        original = everything(first)
        digests = sorted(canonical_memory(m) for m in original[0])
    for src_url, dst_url in pairwise(urls):  # through the Python API: it opens the source
        with Engram.open(dst_url, clock=clock) as dst:
            report = dst.migrate_from(src_url)
            assert report.verified and report.copied == len(original[0])
    with Engram.open(urls[-1], clock=clock) as last:
        assert everything(last) == original
        assert sorted(canonical_memory(m) for m in last.read_graph(limit=1000).memories) == digests


def test_migration_says_the_vault_index_is_built_again_not_copied(
    mem: Engram, store_url: str, clock: FixedClock, tmp_path: Path
) -> None:
    """The vault index is a cache of the vault's files: a migration does not copy it, and
    unified search in the new store found no note without a word of why."""
    vault = tmp_path / "vault"
    vault.mkdir()
    for name in ("kayak", "dentist"):
        (vault / f"{name}.md").write_text(f"# {name}\nA note about the {name}.\n")
    source_path = tmp_path / "source.db"
    with Engram.open(source_path, clock=clock, vault_path=str(vault)) as source:
        source.save("Booked the kayak for Saturday")
        assert source.index_ltm().added == 2
    report = mem.migrate_from(source_path)
    assert report.verified
    assert "the vault index (2 notes) is not copied: `engram index-ltm`" in report.message
    with Engram.open(store_url, clock=clock, vault_path=str(vault)) as target:
        target.index_ltm()
        assert "vault index" not in target.migrate_from(source_path).message


def test_migrate_from_a_missing_store_or_into_itself_is_refused(
    mem: Engram, tmp_path: Path
) -> None:
    with pytest.raises(ValidationError) as missing:
        mem.migrate_from(tmp_path / "nothing-here.db")
    assert missing.value.field == "source" and "no store at" in str(missing.value)
    assert not (tmp_path / "nothing-here.db").exists()
    with pytest.raises(ValidationError) as itself:
        mem.migrate_from(mem.app.context.store.location)
    assert itself.value.field == "target"


def test_cortexgraph_import(mem: Engram) -> None:
    store = mem.app.context.store
    report = cortexgraph_into(mem, FIXTURE)
    assert (report.memory_lines, report.memories, report.imported) == (14, 10, 8)
    assert (report.deleted, report.superseded, report.renamed) == (1, 2, 1)
    assert (report.relations, report.relations_imported, report.relations_dropped) == (5, 3, 1)
    reasons = {(s.file, s.line): s.reason for s in report.skipped_records}
    assert reasons[("memories.jsonl", 14)].startswith("not valid JSON")  # torn last line
    assert reasons[("memories.jsonl", 11)] == "content: must be non-blank text"
    assert reasons[("memories.jsonl", 12)].startswith("status: 'forgotten'")
    assert reasons[("relations.jsonl", 5)].startswith("relation_type:")

    atlas = mem.get("mem-123")  # the last of its two lines
    assert (atlas.use_count, atlas.strength, atlas.review_priority) == (3, 1.3, 0.42)
    assert atlas.last_used == datetime.fromtimestamp(1736208000, tz=UTC)
    assert atlas.created_at == datetime.fromtimestamp(1735862400, tz=UTC)
    assert atlas.tags == ("decision", "atlas") and atlas.entities == ("Atlas", "PostgreSQL")
    assert atlas.source == "meeting" and atlas.meta == {"ticket": "ATL-42"}
    assert (atlas.review_count, atlas.cross_domain_count) == (1, 1)
    alice = mem.get("c9a8b7c6-1111-4d2e-9f30-a1b2c3d4e5f6")
    assert alice.status == Status.PROMOTED and alice.promoted_to == "STM/alice-owns-billing.md"
    assert alice.context == "#billing" and alice.meta == {"channel_id": "C024BE91L"}
    assert mem.get("d0e1f2a3-2222-4b4c-8d5e-6f7a8b9c0d1e").status == Status.ARCHIVED
    assert mem.get_many(["f1a2b3c4-4444-4d5e-8f6a-7b8c9d0e1f2a"]) == []  # tombstoned
    tea = mem.search("green tea")[0].memory
    assert tea.meta == {"cortexgraph_id": "note about tea"}

    (billing,) = mem.relations("c9a8b7c6-1111-4d2e-9f30-a1b2c3d4e5f6")
    assert (billing.id, billing.strength, billing.metadata["confirmed"]) == ("rel-1", 0.8, True)
    assert [r.to_id for r in mem.relations(tea.id)] == ["6f1c2a9e-3b7d-4e1a-9c55-0d2f8a4b7e10"]
    assert store.count_relations() == 3

    before = everything(mem)
    rerun = cortexgraph_into(mem, FIXTURE)
    assert (rerun.imported, rerun.already_present, rerun.relations_present) == (0, 8, 3)
    assert everything(mem) == before


def test_a_cortexgraph_relation_without_a_time_dates_from_its_later_end(
    mem: Engram, tmp_path: Path
) -> None:
    """It was dated 1970-01-01, decades before either of its memories."""
    lines = [
        {"id": "older", "content": "an older memory", "created_at": 1700000000},
        {"id": "newer", "content": "a newer memory", "created_at": 1700086400},
    ]
    edge = {"id": "r1", "from_memory_id": "older", "to_memory_id": "newer"}
    (tmp_path / "memories.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (tmp_path / "relations.jsonl").write_text(json.dumps(edge) + "\n")
    report = cortexgraph_into(mem, tmp_path)
    assert report.relations_imported == 1
    (relation,) = mem.relations("older")
    assert relation.created_at == mem.get("newer").created_at


def test_cortexgraph_import_skips_records_no_backend_can_store(mem: Engram, tmp_path: Path) -> None:
    """One record with a counter beyond 64 bits or a lone surrogate used to abort the whole
    import with a traceback, the good records included."""
    lines = [
        {"id": "fine", "content": "a fine memory", "created_at": 1700000000},
        {"id": "big", "content": "b", "created_at": 1700000000, "use_count": 10**23},
        {"id": "wide", "content": "c", "created_at": 1700000000, "cross_domain_count": 2**40},
        {"id": "lone", "content": "lone \ud800", "created_at": 1700000000},
        {"id": "odd id \ud800", "content": "d", "created_at": 1700000000},
        {"id": "note", "content": "e", "created_at": 1700000000, "promoted_to": "x\ud800.md"},
        {"id": "nul", "content": "f", "created_at": 1700000000, "promoted_to": "x\u0000.md"},
        {"id": "long", "content": "g", "created_at": 1700000000, "promoted_to": "x" * 1001},
        # a year ahead of the clock: a save refuses it, an import stored it with score 1
        {"id": "future", "content": "h", "created_at": 1700000000 + 5 * 365 * 86400},
    ]
    relations = [
        {"id": "rel \ud800", "from_memory_id": "fine", "to_memory_id": "fine2"},
    ]
    lines.append({"id": "fine2", "content": "another fine memory", "created_at": 1700000000})
    deep = "[" * 100_000 + "]" * 100_000  # nested beyond Python's stack: RecursionError
    (tmp_path / "memories.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in lines) + deep + "\n"
    )
    (tmp_path / "relations.jsonl").write_text("".join(json.dumps(x) + "\n" for x in relations))
    report = cortexgraph_into(mem, tmp_path)
    assert report.imported == 2 and mem.get("fine").content == "a fine memory"
    reasons = {s.id: s.reason for s in report.skipped_records}
    assert reasons["big"].startswith("use_count: ")
    assert reasons["wide"].startswith("cross_domain_count: ")
    assert reasons["lone"].startswith("content: must be valid Unicode text")
    # An id that is not valid text was renamed through its UTF-8 bytes: UnicodeEncodeError;
    # it is reported escaped (the CLI failed printing it).
    assert reasons["odd id \\ud800"].startswith("id: must be valid Unicode")
    assert reasons["note"].startswith("promoted_to: must be valid Unicode")
    assert reasons["nul"].startswith("promoted_to: must not contain NUL")
    assert reasons["long"].startswith("promoted_to: is ")
    assert reasons["long"].endswith("characters; the limit is 1,000")
    assert reasons["future"].startswith("created_at: must not be more than a day later than now")
    assert report.relations_imported == 0 and len(report.skipped_records) == 10
    assert any(s.reason.startswith("not valid JSON") for s in report.skipped_records)


def test_cortexgraph_import_refuses_every_time_more_than_a_day_ahead(
    mem: Engram, tmp_path: Path
) -> None:
    """Only the creation and the last use were checked: a promotion, a review or a relation
    dated 2100 was imported, and a review date ahead kept every later review from moving it
    (audit)."""
    later = 4_102_444_800  # 2100-01-01
    lines = [
        {"id": "promoted", "content": "a", "created_at": 1700000000, "promoted_at": later},
        {"id": "reviewed", "content": "b", "created_at": 1700000000, "last_review_at": later},
        {"id": "fine", "content": "c", "created_at": 1700000000},
        {"id": "fine2", "content": "d", "created_at": 1700000000},
    ]
    relation = {"id": "r1", "from_memory_id": "fine", "to_memory_id": "fine2", "created_at": later}
    (tmp_path / "memories.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (tmp_path / "relations.jsonl").write_text(json.dumps(relation) + "\n")
    report = cortexgraph_into(mem, tmp_path)
    assert report.imported == 2 and report.relations_imported == 0
    reasons = {s.id: s.reason for s in report.skipped_records}
    assert reasons["promoted"].startswith("promoted_at: must not be more than a day later")
    assert reasons["reviewed"].startswith("last_review_at: must not be more than a day later")
    assert reasons["r1"].startswith("created_at: must not be more than a day later")


def test_a_cortexgraph_line_too_long_for_any_record_is_skipped_unread(
    mem: Engram, tmp_path: Path
) -> None:
    """What a crash can leave (a run of NUL bytes after the last line) was read as one line
    whatever its size: 300 MB took a gigabyte, then a MemoryError with a traceback and an empty
    store (audit). It is passed over a piece at a time, as an export's is."""
    from engram.services.transfer.common import MAX_LINE_BYTES

    good = {"id": "fine", "content": "a fine memory", "created_at": 1700000000}
    with (tmp_path / "memories.jsonl").open("wb") as f:
        f.write(json.dumps(good).encode() + b"\n" + b"\0" * (MAX_LINE_BYTES + 10) + b"\n")
        f.write(json.dumps(good | {"id": "after"}).encode() + b"\n")
    report = cortexgraph_into(mem, tmp_path)
    assert report.imported == 2 and mem.get("after").content == "a fine memory"
    (skipped,) = report.skipped_records
    assert skipped.line == 2 and skipped.reason == f"longer than {MAX_LINE_BYTES:,} bytes"


def test_cortexgraph_import_keeps_history_a_clock_ahead_or_a_rounding_wrote(
    mem: Engram, tmp_path: Path
) -> None:
    """A last use 90 s ahead of this clock (another machine's clock) and one half a second
    before the creation (one time a whole second, the other not) dropped both memories;
    `import jsonl` keeps the first already."""
    now = mem.app.context.now().timestamp()
    lines = [
        {"id": "ahead", "content": "a", "created_at": int(now) - 60, "last_used": now + 90},
        {"id": "rounded", "content": "b", "created_at": 1700000000.5, "last_used": 1700000000},
        {"id": "apart", "content": "c", "created_at": 1700000100, "last_used": 1700000000},
    ]
    (tmp_path / "memories.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    report = cortexgraph_into(mem, tmp_path)
    assert report.imported == 2
    rounded = mem.get("rounded")
    assert rounded.last_used == rounded.created_at
    assert mem.get("ahead").last_used.timestamp() > now
    (apart,) = report.skipped_records  # 100 s apart is no rounding
    assert apart.id == "apart" and apart.reason.startswith("last_used: must not be before")


def test_cortexgraph_import_keeps_tags_and_entities_beyond_engrams_limits(
    mem: Engram, tmp_path: Path
) -> None:
    """CortexGraph has no limit on them: a memory with 60 entities was skipped, all of it lost.
    The first 50 stay entities (tags likewise), the rest go to meta; nothing is dropped."""
    names = [f"Name{i}" for i in range(60)]
    tags = [f"tag{i}" for i in range(55)]
    line = {
        "id": "crowded",
        "content": "a memory of many names",
        "created_at": 1700000000,
        "entities": [*names, "name0"],  # a repeat in other case counts once
        "meta": {"tags": tags},
    }
    (tmp_path / "memories.jsonl").write_text(json.dumps(line) + "\n")
    report = cortexgraph_into(mem, tmp_path)
    assert (report.imported, report.skipped) == (1, 0)
    crowded = mem.get("crowded")
    assert list(crowded.entities) == names[:50] and list(crowded.tags) == tags[:50]
    assert crowded.meta["cortexgraph_entities"] == names[50:]
    assert crowded.meta["cortexgraph_tags"] == tags[50:]


def test_cortexgraph_import_keeps_a_memory_whose_tag_engram_cannot_hold(
    mem: Engram, tmp_path: Path
) -> None:
    """A blank tag or one of 101 characters skipped the whole memory and its relations: a
    probe's "allergic to peanuts" at strength 1.5 was lost for it. A blank one names nothing;
    a long one is kept in meta with those beyond the limit."""
    long_tag = "t" * 101
    line = {
        "id": "allergy",
        "content": "allergic to peanuts",
        "created_at": 1700000000,
        "strength": 1.5,
        "meta": {"tags": ["health", "", "  ", long_tag, "food"]},
    }
    (tmp_path / "memories.jsonl").write_text(json.dumps(line) + "\n")
    report = cortexgraph_into(mem, tmp_path)
    assert (report.imported, report.skipped) == (1, 0)
    allergy = mem.get("allergy")
    assert list(allergy.tags) == ["health", "food"] and allergy.strength == 1.5
    assert allergy.meta["cortexgraph_tags"] == [long_tag]


def test_cortexgraph_lines_without_a_usable_id_say_why(mem: Engram, tmp_path: Path) -> None:
    """A number for an id, or a line that is no object, was reported as "id: missing"."""
    lines = ['{"id": 123, "content": "numeric id", "created_at": 1700000000}', "[1, 2]", "{}"]
    (tmp_path / "memories.jsonl").write_text("\n".join(lines) + "\n")
    report = cortexgraph_into(mem, tmp_path)
    assert [s.reason for s in report.skipped_records] == [
        "id: must be text, not int",
        "not a record (a JSON object)",
        "id: missing",
    ]


def test_cortexgraph_import_refuses_what_is_not_a_data_directory(
    mem: Engram, tmp_path: Path
) -> None:
    from engram.errors import ValidationError

    with pytest.raises(ValidationError, match=r"no memories\.jsonl"):
        cortexgraph_into(mem, tmp_path)


def test_an_export_cut_short_is_imported_with_a_warning(
    mem: Engram, clock: FixedClock, tmp_path: Path
) -> None:
    """An export stopped between two lines (Ctrl-C, a full disk) read as a whole one: its
    memories came back, its relations, written last, all silently missing."""
    fill(mem, clock)
    lines = list(export_lines(mem.app.context.store, "jsonl"))
    whole, cut, edited = (tmp_path / name for name in ("whole", "cut", "edited"))
    whole.write_text("\n".join(lines) + "\n")
    cut.write_text("\n".join(lines[:4]) + "\n")  # the memories, no relation, no end line
    edited.write_text("\n".join(lines[:4] + lines[-1:]) + "\n")  # the end line counts 2 more
    with Engram.open(str(tmp_path / "a.db"), embedding_model="none") as target:
        assert target.import_export(whole).warning is None
    with Engram.open(str(tmp_path / "b.db"), embedding_model="none") as target:
        report = target.import_export(cut)
        assert report.imported == 4 and "no end line: it may have been cut short" in str(
            report.warning
        )
        assert "warning: the export has no end line" in report.message
    with Engram.open(str(tmp_path / "c.db"), embedding_model="none") as target:
        warning = target.import_export(edited).warning
        assert warning == "its end line counts 2 relations, 0 read: lines were removed from it"
    # One line torn in the middle, the end line there: not "cut short" (it said so)
    torn = tmp_path / "torn"
    torn.write_text("\n".join([*lines[:1], '{"kind": "memory", "id": "to', *lines[2:]]) + "\n")
    with Engram.open(str(tmp_path / "d.db"), embedding_model="none") as target:
        warning = target.import_export(torn).warning
        assert warning == "its end line counts 4 memories, 3 read: 1 of its lines could not be read"


def test_export_jsonl_and_markdown(mem: Engram, clock: FixedClock) -> None:
    ids = fill(mem, clock)
    count = ExportCount()
    rows = [json.loads(line) for line in export_lines(mem.app.context.store, "jsonl", count)]
    assert [r["kind"] for r in rows] == ["memory"] * 4 + ["relation"] * 2 + ["end"]
    assert rows[-1] == {"kind": "end", "memories": 4, "relations": 2}  # says it is whole
    assert [r["id"] for r in rows[:4]] == ids and (count.memories, count.relations) == (4, 2)
    assert rows[0]["meta"]["nested"] == {"k": [1, 2.5, None]}
    # keys in order, whatever the backend keeps (jsonb reorders them): the same store
    # exports the same bytes on every backend
    lines = list(export_lines(mem.app.context.store, "jsonl"))
    assert '"meta": {"nested": {"k": [1, 2.5, null]}, "ticket": "ATL-1"}' in lines[0]
    markdown = "\n".join(export_lines(mem.app.context.store, "markdown"))
    assert "## Project Atlas uses PostgreSQL 16" in markdown
    assert '> Ünïcode ✓ content, "quoted"\n> second line' in markdown
    assert f"- supports → `{ids[1]}` (strength 0.7)" in markdown
    # every field a person may want to read (episode and meta were left out)
    assert "- **episode**: kickoff-chat (#0)" in markdown
    assert '- **meta**: `{"nested": {"k": [1, 2.5, null]}, "ticket": "ATL-1"}`' in markdown


def test_an_export_restores_every_record_into_an_empty_store(
    mem: Engram, clock: FixedClock, tmp_path: Path
) -> None:
    """A backup (`engram backup` commits an export) could not be restored: no command read
    an export back. `import_export` brings back every memory with its id, counters, times and
    status, every relation, and computes the vectors; a second run adds nothing."""
    fill(mem, clock)
    backup = tmp_path / "export.jsonl"
    backup.write_text("".join(line + "\n" for line in mem.export("jsonl")))
    with Engram.open(str(tmp_path / "restored.db"), clock=clock) as restored:
        report = restored.import_export(backup)
        assert (report.memories, report.imported, report.relations) == (4, 4, 2)
        assert (report.relations_imported, report.skipped) == (2, 0)
        before, after = everything(mem), everything(restored)
        assert [canonical_memory(m) for m in after[0]] == [canonical_memory(m) for m in before[0]]
        assert after[1] == before[1]
        restored.flush()
        status = restored.embedding_status()
        assert status.model_id is not None and status.vectors[status.model_id] == 4
        again = restored.import_export(backup)
        assert (again.imported, again.already_present, again.relations_present) == (0, 4, 2)
        assert everything(restored) == after


def test_a_conversation_imported_beside_one_of_the_same_name_follows_it(
    mem: Engram, clock: FixedClock, tmp_path: Path
) -> None:
    """Imported as exported, its memories took the places of the store's own conversation of
    that name (two memories at each place), and search took one's turns for the other's
    neighbours. An import cut short and run again places the rest where the first run would
    have; run once more it moves nothing."""
    own = [mem.save(f"own turn {i}", episode="chat") for i in range(2)]
    with Engram.open(tmp_path / "source.db", clock=clock, embedding_model="none") as source:
        theirs = [source.save(f"their turn {i}", episode="chat") for i in range(3)]
        lines = [line + "\n" for line in source.export("jsonl")]
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    whole.write_text("".join(lines))
    cut.write_text(lines[0])  # the first memory only, as a run killed after its first batch
    mem.import_export(cut)
    assert mem.import_export(whole).imported == 2
    ids = [m.id for m in own + theirs]
    places = {m.content: m.episode_seq for m in mem.get_many(ids)}
    assert places == {
        "own turn 0": 0, "own turn 1": 1, "their turn 0": 2, "their turn 1": 3, "their turn 2": 4
    }  # fmt: skip
    assert mem.import_export(whole).imported == 0
    assert {m.content: m.episode_seq for m in mem.get_many(ids)} == places


def nested(depth: int) -> dict[str, object]:
    value: dict[str, object] = {}
    for _ in range(depth):
        value = {"k": value}
    return value


def test_a_bad_line_of_an_export_is_skipped_and_named(
    mem: Engram, tmp_path: Path, clock: FixedClock
) -> None:
    good = {"kind": "memory", **mem.save("kept memory").model_dump(mode="json")}
    mem.delete([good["id"]])
    lines = [
        json.dumps(good),
        '{"kind": "memory", "id": "torn", "content": "cut he',
        json.dumps({**good, "id": "nul", "content": "a\u0000b"}),
        json.dumps({**good, "id": "naive", "created_at": "2026-01-01T00:00:00"}),
        json.dumps({**good, "id": "what", "kind": "note"}),
        json.dumps(
            {
                **good,
                "id": "later",
                "created_at": "2099-01-01T00:00:00+00:00",
                "last_used": "2099-01-01T00:00:00+00:00",
            }
        ),
        '{"kind": "memory", "deep": ' + "[" * 100_000 + "]" * 100_000 + "}",
        json.dumps(
            {
                "kind": "relation",
                "id": "deep-meta",
                "from_id": good["id"],
                "to_id": "elsewhere",
                "type": "related",
                "metadata": nested(300),
                "created_at": "2026-01-01T00:00:00+00:00",
            }
        ),
        json.dumps(
            {
                "kind": "relation",
                "id": "r",
                "from_id": good["id"],
                "to_id": "ghost",
                "type": "related",
                "created_at": "2026-01-01T00:00:00+00:00",
            }
        ),
    ]
    # an older export's blank episode is no episode now (it grouped unrelated memories)
    lines.append(json.dumps({**good, "id": "blank-episode", "episode": " ", "episode_seq": 0}))
    # "never" as the largest date rounds to the year 10000 in epoch seconds, and every read of
    # the memory failed (its delete too); a use before the memory existed a save refuses
    lines.append(json.dumps({**good, "id": "never", "last_used": "9999-12-31T23:59:59.999999Z"}))
    lines.append(json.dumps({**good, "id": "year0", "created_at": "0001-01-01T00:30:00+01:00"}))
    lines.append(json.dumps({**good, "id": "early", "last_used": "2000-01-01T00:00:00Z"}))
    skewed = (clock.now + timedelta(hours=2)).isoformat()  # another machine's clock
    lines.append(json.dumps({**good, "id": "skewed", "created_at": skewed, "last_used": skewed}))
    lines.append(json.dumps({**good, "id": "nan", "strength": float("nan")}))  # JSON's NaN
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join(lines) + "\n")
    report = mem.import_export(path)
    assert report.imported == 3 and mem.get(good["id"]).content == "kept memory"
    assert mem.get("skewed").created_at.isoformat() == skewed  # comes back as it was
    assert mem.get("blank-episode").episode is None
    reasons = {s.line: s.reason for s in report.skipped_records}
    assert reasons[2].startswith("not valid JSON")
    assert reasons[3].startswith("content: must not contain NUL")
    assert reasons[4].startswith("created_at: must be timezone-aware")
    assert reasons[5].startswith("kind: 'note'")
    # A day ahead is another machine's clock; decades ahead, a memory that never fades (a
    # year-9999 one came back with a score of 1.0 that gc never collected and touch kept)
    assert reasons[6].startswith("created_at: must not be more than a day later than now")
    assert reasons[7].startswith("not valid JSON")  # nested beyond Python's stack: a traceback
    assert reasons[8].startswith("metadata: nests deeper than 32")  # unchecked before
    assert "ghost" in reasons[9]
    assert reasons[11] == "last_used: must be a date from the year 1 to 9999 in UTC"
    assert reasons[12].startswith("created_at: must be")
    assert reasons[13] == "last_used: must not be before created_at"
    # not "should be less than or equal to 2", as if NaN were a number too large
    assert reasons[15].startswith("strength: Input should be a finite number")
    assert report.imported == 3 and len(mem.search()) == 3  # every memory readable
    with pytest.raises(ValidationError, match="path"):
        mem.import_export(tmp_path / "missing.jsonl")


def test_an_imported_record_is_stored_as_a_save_stores_it(mem: Engram, tmp_path: Path) -> None:
    """Tags, entities and texts were checked but stored as read: a tag "  Project " no tag
    filter matched, 60 tags that are two in two cases, a blank source (audit)."""
    good = {"kind": "memory", **mem.save("kept memory").model_dump(mode="json")}
    mem.delete([good["id"]])
    record = {
        **good,
        "tags": ["  Project ", *(["x"] * 30), *(["X"] * 30)],
        "entities": ["Ann", "ann", "Cafe\u0301"],
        "source": "   ",
        "context": "\t",
    }
    path = tmp_path / "export.jsonl"
    path.write_text(json.dumps(record) + "\n")
    assert mem.import_export(path).imported == 1
    stored = mem.get(good["id"])
    assert stored.tags == ("Project", "x") and stored.entities == ("Ann", "Café")
    assert stored.source is None and stored.context is None
    assert [h.memory.id for h in mem.search(tags=["project"])] == [good["id"]]


def test_a_relation_line_no_command_could_make_is_skipped_and_the_rest_restored(
    mem: Engram, tmp_path: Path
) -> None:
    """Relation lines were checked for their metadata only: a lone surrogate in an id stopped
    the restore with a traceback (UnicodeEncodeError) and lost every relation after it, and a
    self-loop or an id with spaces was stored although `relate` refuses them."""
    a, b = mem.save("one end"), mem.save("other end")
    edge = {
        "kind": "relation",
        "from_id": a.id,
        "to_id": b.id,
        "type": "related",
        "strength": 1.0,
        "created_at": "2026-01-01T00:00:00+00:00",
    }
    lines = [
        {**edge, "id": "lone\ud800"},
        {**edge, "id": "loop", "to_id": a.id},
        {**edge, "id": "has space / slash"},
        {**edge, "id": "nul", "from_id": "a\u0000b"},
        {**edge, "id": "kept"},
    ]
    path = tmp_path / "export.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    report = mem.import_export(path)
    reasons = {s.line: s.reason for s in report.skipped_records}
    assert reasons[1].startswith("id: ") and reasons[3].startswith("id: ")
    assert reasons[2] == "to_id: a memory cannot relate to itself"
    assert reasons[4].startswith("from_id: ")
    assert report.relations_imported == 1
    assert [r.id for r in mem.relations(a.id)] == ["kept"]


def test_a_relation_given_again_keeps_its_last_line_in_order(mem: Engram, tmp_path: Path) -> None:
    """Each repeated relation id rebuilt the whole list (two merged backups: 16,000 lines took
    14 s); the last line of each id wins, in the order of its last line."""
    a, b = mem.save("one end"), mem.save("other end")
    path = tmp_path / "export.jsonl"
    with path.open("w") as f:
        for round_ in range(2):
            for i in range(3):
                line = {
                    "kind": "relation",
                    "id": f"r{i}",
                    "from_id": a.id,
                    "to_id": b.id,
                    "type": ["related", "supports", "causes"][i],
                    "strength": 0.5 + 0.1 * round_,
                    "created_at": "2026-01-01T00:00:00+00:00",
                }
                f.write(json.dumps(line) + "\n")
    data = read_export(path)
    assert [(r.id, r.strength) for r in data.relations] == [
        ("r0", 0.6),
        ("r1", 0.6),
        ("r2", 0.6),
    ]
    assert data.superseded == 3 and data.relation_lines["r0"] == ("export.jsonl", 4)


def test_an_export_holding_a_memory_twice_restores_its_last_line(
    mem: Engram, tmp_path: Path
) -> None:
    """Two backups merged in git keep both lines of a memory: the restore stopped at the
    second with a UNIQUE constraint error, and a re-run never got further."""
    kept = mem.save("twice")
    line = {"kind": "memory", **kept.model_dump(mode="json")}
    mem.delete([kept.id])
    newer = {**line, "use_count": 4}
    path = tmp_path / "export.jsonl"
    path.write_text(json.dumps(line) + "\n" + json.dumps(newer) + "\n")
    other = mem.save("other")
    first = {
        "kind": "relation",
        "id": "r",
        "from_id": kept.id,
        "to_id": other.id,
        "type": "related",
        "strength": 1.0,
        "created_at": "2026-01-01T00:00:00+00:00",
    }
    later = {**first, "strength": 0.5}
    odd = {**line, "id": "has space"}
    path.write_text("".join(json.dumps(x) + "\n" for x in (line, newer, first, later, odd)))
    report = mem.import_export(path)
    assert (report.imported, report.superseded, report.skipped) == (1, 2, 1)
    assert mem.get(kept.id).use_count == 4
    assert [r.strength for r in mem.relations(kept.id)] == [0.5]  # the last line, as memories
    assert report.skipped_records[0].reason.startswith("id: ")  # no command could name it


def test_an_export_can_be_read_from_a_pipe(mem: Engram, tmp_path: Path) -> None:
    """`import jsonl <(git show HEAD~1:engram/export.jsonl)` was refused: "not a file"."""
    source = mem.save("through a pipe")
    text = "".join(line + "\n" for line in mem.export("jsonl")).encode()
    mem.delete([source.id])
    read, write = os.pipe()

    def feed() -> None:
        with os.fdopen(write, "wb") as out:
            out.write(text)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        report = mem.import_export(Path(f"/dev/fd/{read}"))
    finally:
        writer.join()
        os.close(read)
    assert report.imported == 1 and mem.get(source.id).content == "through a pipe"


def _cortexgraph_line(ident: str, content: str, **fields: object) -> str:
    record = {"id": ident, "content": content, "created_at": 1735689600, "last_used": 1735689600}
    return json.dumps(record | fields) + "\n"


def test_a_cortexgraph_line_that_does_not_read_leaves_the_one_before(
    mem: Engram, tmp_path: Path
) -> None:
    """An import probe: a later line of a memory with a bad field dropped the memory, and its
    relations with it, where `import jsonl` keeps the line before."""
    folder = tmp_path / "cg"
    folder.mkdir()
    (folder / "memories.jsonl").write_text(
        _cortexgraph_line("m1", "Standup is at 9:30")
        + _cortexgraph_line("m2", "Atlas uses PostgreSQL")
        + _cortexgraph_line("m1", "Standup is at 10", use_count="9")
    )
    (folder / "relations.jsonl").write_text(
        json.dumps({"id": "r1", "from_memory_id": "m1", "to_memory_id": "m2"}) + "\n"
    )
    report = cortexgraph_into(mem, folder)
    assert (report.memories, report.imported, report.relations_imported) == (2, 2, 1)
    assert mem.get("m1").content == "Standup is at 9:30"
    (skipped,) = report.skipped_records
    assert (skipped.line, skipped.id) == (3, "m1") and skipped.reason.startswith("use_count")


def test_a_cortexgraph_folder_in_utf16_is_refused_whole(mem: Engram, tmp_path: Path) -> None:
    """An import probe: a UTF-16 folder was imported but for its first memory, exit 0."""
    folder = tmp_path / "cg"
    folder.mkdir()
    text = _cortexgraph_line("m1", "one") + _cortexgraph_line("m2", "two")
    (folder / "memories.jsonl").write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))
    with pytest.raises(ValidationError, match="UTF-16"):
        mem.import_cortexgraph(folder)
    assert mem.stats().total == 0


def test_an_import_says_what_is_wrong_in_the_words_of_json(mem: Engram, tmp_path: Path) -> None:
    """An import probe: a run of NULs was "'utf-32-be' codec can't decode…", a string for the
    tags "Input should be a valid tuple"."""
    mem.save("one")
    lines = list(mem.export("jsonl"))
    record = json.loads(lines[0])
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(
        b"\x00" * 16 + b"\n" + json.dumps(record | {"tags": "notalist"}).encode() + b"\n"
    )
    read = read_export(bad)
    reasons = [s.reason for s in read.skipped]
    assert reasons[0].startswith("not valid JSON") and "utf-32" not in reasons[0]
    assert reasons[1] == "tags: Input should be a list"


def test_an_import_says_what_the_file_gave_twice(mem: Engram, tmp_path: Path) -> None:
    """An import probe: a relation id reused for another edge lost the first edge with exit 0
    and no word, and one edge given twice under two ids was "already present" in a new store."""
    a, b, c = mem.save("a fact"), mem.save("b fact"), mem.save("c fact")
    mem.create_relation(a.id, b.id, "related")
    lines = list(mem.export("jsonl"))
    relation = json.loads(next(line for line in lines if '"relation"' in line))
    again = relation | {"id": "another-id"}  # the same edge, another id
    # one id, two edges: the later line wins
    first = relation | {"id": "r2", "to_id": c.id}
    later = relation | {"id": "r2", "from_id": b.id, "to_id": c.id}
    export = tmp_path / "twice.jsonl"
    records = [*lines[:-1], *(json.dumps(r) for r in (again, first, later))]  # no end line
    export.write_text("".join(line + "\n" for line in records))
    with Engram.open(str(tmp_path / "new.db")) as fresh:
        report = fresh.import_export(export)
        edges = {(r.from_id, r.to_id) for m in (a, b) for r in fresh.relations(m.id)}
    assert report.relations_imported == 2 and edges == {(a.id, b.id), (b.id, c.id)}
    assert "replaced by a later line of the same id" in report.message
    assert "the file gives again under another id" in report.message
    assert "already present" not in report.message


def test_what_is_not_an_export_is_refused_whole(mem: Engram, tmp_path: Path) -> None:
    """A UTF-16 export (PowerShell's `>`) was restored garbled and its first memory dropped;
    a file of something else gave a wall of per-line errors and exit code 0."""
    mem.save("one")
    text = "".join(line + "\n" for line in mem.export("jsonl"))
    wide = tmp_path / "wide.jsonl"
    wide.write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))
    with pytest.raises(ValidationError, match="UTF-16"):
        mem.import_export(wide)
    other = tmp_path / "memories.jsonl"
    other.write_text('{"id": "a", "content": "not an export line"}\n')
    with pytest.raises(ValidationError, match="not an Engram export"):
        mem.import_export(other)
    with pytest.raises(ValidationError, match="path"):
        mem.import_export(Path("/dev/zero"))  # read as one endless line before


def test_a_line_longer_than_any_export_holds_is_skipped_unread(
    mem: Engram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 300 MB line was read whole (a gigabyte of memory, then a MemoryError). The bound is
    lowered here so the test need not write megabytes; the code path is the same."""
    monkeypatch.setattr(restore, "MAX_LINE_BYTES", 1_000)
    first, second = mem.save("kept one"), mem.save("kept two")
    lines = list(mem.export("jsonl"))
    mem.delete([first.id, second.id])
    huge = json.dumps({"kind": "memory", "id": "huge", "content": "x" * 5_000})
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join([lines[0], huge, *lines[1:]]) + "\n")
    data = read_export(path)
    assert {m.id for m in data.memories} == {first.id, second.id}
    (skipped,) = data.skipped
    assert (skipped.line, skipped.reason) == (2, "line: longer than 1,000 bytes, no export's")


def test_a_missing_export_is_said_to_be_missing(mem: Engram, tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="does not exist"):
        mem.import_export(tmp_path / "no-such-export.jsonl")


def test_the_python_api_imports_and_exports_like_the_cli(mem: Engram) -> None:
    """`Engram.import_cortexgraph` and `Engram.export` go through the same service as the CLI;
    imported memories are embedded as they are written (found by meaning at once)."""
    report = mem.import_cortexgraph(FIXTURE)
    assert (report.imported, report.relations_imported) == (8, 3)
    rows = [json.loads(line) for line in mem.export()]
    assert sum(r["kind"] == "memory" for r in rows) == mem.stats().total
    assert mem.import_cortexgraph(FIXTURE).imported == 0  # safe to run again
    assert mem.export("markdown").__next__() == "# Engram export"
    with pytest.raises(ValidationError, match="fmt: must be jsonl or markdown"):
        mem.export("csv")


def test_an_edge_whose_id_names_another_edge_here_is_copied_under_a_new_id(
    mem: Engram, store_url: str, tmp_path: Path, clock: FixedClock
) -> None:
    """Imported relation ids ("rel-1") are not unique across stores: a migration whose
    source had one the target used for another edge stopped halfway on the database's
    "UNIQUE constraint failed", and an import skipped the edge with that message."""
    target = mem.app.context.store
    # each its own episode, the same in both stores (saved in batches without one, they would
    # join episodes by the time they were saved, other ones in each store)
    for ident in ("m-a", "m-b", "m-c", "m-d"):
        mem.save_many([Draft(id=ident, content=f"memory {ident}", episode=ident)])
    target.add_relation(Relation(id="rel-1", from_id="m-a", to_id="m-b", type="related",
                                 created_at=clock.now))  # fmt: skip
    with Engram.open(tmp_path / "source.db", clock=clock, embedding_model="none") as source:
        source.save_many([Draft(id=i, content=f"memory {i}", episode=i) for i in ("m-c", "m-d")])
        source.app.context.store.add_relation(
            Relation(id="rel-1", from_id="m-c", to_id="m-d", type="related", created_at=clock.now)
        )
    for _ in range(2):  # a second run finds the edge under its new id
        report = mem.migrate_from(tmp_path / "source.db")
        assert report.verified, report
    with Engram.open(store_url, clock=clock) as again:  # as stored, read back
        edges = {(r.from_id, r.to_id) for m in ("m-a", "m-c") for r in again.relations(m)}
        assert edges == {("m-a", "m-b"), ("m-c", "m-d")}
        (copied,) = again.relations("m-c")
        assert copied.id != "rel-1"


def test_an_export_is_read_by_the_stores_clock(tmp_path: Path) -> None:
    """A store on a FixedClock (a simulation) took a record dated 300 days after its clock,
    judged by the wall clock instead, and held it at full strength all year; and one whose
    clock ran ahead of the wall refused a record 30 days older than it (a probe)."""

    def line(ident: str, when: datetime) -> str:
        record = {
            "kind": "memory",
            "id": ident,
            "content": f"Car insurance renews in March ({ident[:1]})",
            "created_at": when.isoformat(),
            "last_used": when.isoformat(),
        }
        return json.dumps(record) + "\n"

    then = datetime(2024, 6, 1, tzinfo=UTC)
    ahead = datetime.now(UTC) + timedelta(days=400)
    export = tmp_path / "export.jsonl"
    for start, when, taken in (
        (then, then + timedelta(days=300), 0),
        (ahead, ahead - timedelta(days=30), 1),
    ):
        export.write_text(line("11111111-1111-1111-1111-111111111111", when))
        with Engram.open(str(tmp_path / f"{start.year}.db"), clock=FixedClock(start)) as mem:
            report = mem.import_export(export)
            assert report.imported == taken, report.message
            assert len(report.skipped_records) == 1 - taken
