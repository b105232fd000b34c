"""What only the PostgreSQL backend has: decay scores in SQL, index-driven threshold queries,
migrations under an advisory lock, URL handling. (The whole storage contract runs on it too.)"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Iterator
from datetime import timedelta
from itertools import pairwise
from pathlib import Path

import numpy as np
import psycopg
import pytest
from click.testing import CliRunner
from psycopg import sql
from tests.postgres import TestPostgres
from tests.postgres import start as start_postgres
from tests.storage.test_contract import NOW, T0, mem, put

from engram import Draft, Engram, ValidationError
from engram.cli.main import cli
from engram.config import Settings
from engram.core.decay import DecayModel, DecayParams
from engram.core.models import Memory, Status
from engram.core.scoring import Policy, memory_schedule, memory_score, score
from engram.core.text import query_terms
from engram.core.timeutil import DAY, to_epoch
from engram.errors import BusyError, ConfigError, StoreError, UnavailableError
from engram.storage.factory import open_store
from engram.storage.postgres import PostgresStore
from engram.storage.postgres import text as postgres_text
from engram.storage.postgres.migrations import MIGRATIONS
from engram.storage.postgres.store import SCHEDULE_SQL
from engram.storage.protocol import Filter

MODELS: tuple[DecayModel, ...] = ("power_law", "exponential", "two_component")


@pytest.fixture
def pg(postgres_url: str) -> Iterator[PostgresStore]:
    store = PostgresStore(postgres_url)
    yield store
    store.close()


def random_memories(rng: np.random.Generator, n: int) -> list[Memory]:
    out = []
    for i in range(n):
        created = T0 - timedelta(days=float(rng.uniform(0, 400)))
        idle = float(rng.uniform(0, (T0 - created).total_seconds()))
        strength = float(rng.choice([0.0, 1e-12, 0.3, 1.0, 1.7, 2.0, rng.uniform(0, 2)]))
        out.append(
            Memory(
                id=f"r{i}",
                content=f"random {i}",
                created_at=created,
                last_used=T0 - timedelta(seconds=idle) + timedelta(microseconds=i),
                use_count=int(rng.integers(0, 60)),
                strength=strength,
            )
        )
    return out


def random_policy(rng: np.random.Generator, model: DecayModel) -> Policy:
    return Policy(
        decay=DecayParams(
            model=model,
            pl_alpha=float(rng.uniform(0.2, 4.0)),
            pl_halflife_days=float(rng.uniform(0.1, 60.0)),
            decay_lambda=float(10 ** rng.uniform(-8, -2)),  # up to exp(-1e5): underflow
            tc_lambda_fast=float(10 ** rng.uniform(-6, -3)),
            tc_lambda_slow=float(10 ** rng.uniform(-8, -5)),
            tc_weight_fast=float(rng.choice([0.0, 1.0, rng.uniform(0, 1)])),
        ),
        beta=float(rng.uniform(0, 2)),
    )


@pytest.mark.parametrize("model", MODELS)
def test_sql_decay_scores_match_the_core_to_1e_9(pg: PostgresStore, model: DecayModel) -> None:
    rng = np.random.default_rng(sum(map(ord, model)))
    memories = random_memories(rng, 300)
    put(pg, *memories)
    ids = [m.id for m in memories]
    uses = np.array([m.use_count for m in memories], dtype=np.float64)
    strengths = np.array([m.strength for m in memories])
    last_used = np.array([to_epoch(m.last_used) for m in memories])
    checked = 0
    for trial in range(8):
        policy = Policy(decay=DecayParams(model=model)) if trial == 0 else random_policy(rng, model)
        # Some moments before the last use (negative Δt counts as 0), most far after it.
        now = NOW + float(rng.uniform(-5, 2_000)) * DAY
        expected = score(policy, uses, strengths, now - last_used)
        got = pg.decay_scores(ids, now, policy)
        assert set(got) == set(ids)
        for ident, want in zip(ids, expected, strict=True):
            assert math.isclose(got[ident], want, rel_tol=1e-9, abs_tol=1e-9), (ident, policy)
            checked += 1
    assert checked == 8 * 300


def test_sql_decay_scores_of_promoted_memories_do_not_fade(pg: PostgresStore) -> None:
    """As `memory_score`: a promoted memory keeps the score of its last use."""
    promoted = mem("kept", strength=1.5, use_count=3, idle_days=90, status=Status.PROMOTED)
    faded = mem("faded", strength=1.5, use_count=3, idle_days=90)
    put(pg, promoted, faded)
    got = pg.decay_scores(["kept", "faded"], NOW, Policy())
    assert got["kept"] == pytest.approx(memory_score(Policy(), promoted, NOW), rel=1e-9)
    assert got["faded"] == pytest.approx(memory_score(Policy(), faded, NOW), rel=1e-9)
    assert got["faded"] < got["kept"]


def test_sql_decay_scores_of_fresh_memories_are_their_strength(pg: PostgresStore) -> None:
    put(pg, mem("fresh", strength=1.5))
    for model in MODELS:
        policy = Policy(decay=DecayParams(model=model))
        assert pg.decay_scores(["fresh", "missing"], NOW, policy) == {"fresh": 1.5}


def test_threshold_queries_are_answered_from_indexes(pg: PostgresStore, postgres_url: str) -> None:
    """With realistic data (most memories fresh) the planner must pick the schedule indexes,
    never a sequential scan of the memories."""
    rng = np.random.default_rng(3)
    memories = [
        mem(f"m{i}", idle_days=float(rng.uniform(0, 1.5)), use_count=int(rng.integers(0, 3)))
        for i in range(3_000)
    ]
    memories += [mem(f"old{i}", idle_days=400) for i in range(20)]
    memories += [mem(f"zone{i}", idle_days=9) for i in range(20)]
    put(pg, *memories)
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("ANALYZE memories")
    params = {
        "due_for_gc": (NOW, 100),
        "near_review_peak": (NOW, 50, NOW, 50),
        "in_danger_zone": (NOW, 100),
        "schedule_counts": (NOW, NOW),
        "in_promotion_window": (NOW, 100),
    }
    assert set(params) == set(SCHEDULE_SQL)
    # The B-tree the planner picks for forget_at may be the browse index (PostgreSQL 18 skip
    # scans); the interval stabbing queries must use the GiST indexes.
    indexes = {
        "due_for_gc": "Index",
        "near_review_peak": "memories_review_at",
        "in_danger_zone": "memories_danger",
        "schedule_counts": "memories_danger",
        "in_promotion_window": "memories_promote",
    }
    for name, query in SCHEDULE_SQL.items():
        plan = pg.explain(query, params[name])
        assert "Seq Scan" not in plan, f"{name}:\n{plan}"
        assert indexes[name] in plan, f"{name}:\n{plan}"
    assert pg.schedule_counts(NOW) == (20, 20)


# -- migrations --------------------------------------------------------------------------------


@pytest.fixture
def blank_url(postgres_server: TestPostgres) -> Iterator[str]:
    """A database of its own, without Engram's schema."""
    name = "engram_blank"
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    yield postgres_server.database_url(name)
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))


def test_a_database_a_newer_engram_migrated_is_refused(blank_url: str) -> None:
    PostgresStore(blank_url).close()
    with psycopg.connect(blank_url, autocommit=True) as conn:
        conn.execute("INSERT INTO schema_migrations(name) VALUES ('9999_from_the_future')")
    with pytest.raises(StoreError, match=r"newer Engram .*9999_from_the_future"):
        PostgresStore(blank_url)


def test_migrate_from_a_database_without_a_store_is_refused_and_writes_nothing(
    blank_url: str, tmp_path: Path
) -> None:
    """A mistyped database name: the source got Engram's tables and extensions, and the
    migration "verified" zero memories."""
    with Engram.open(tmp_path / "target.db", embedding_model="none") as target:
        with pytest.raises(ValidationError) as refused:
            target.migrate_from(blank_url)
        assert refused.value.field == "source" and "no Engram store" in str(refused.value)
    with psycopg.connect(blank_url) as conn:
        assert conn.execute("SELECT to_regclass('schema_migrations')").fetchone() == (None,)


def test_a_command_that_adds_nothing_makes_no_store_in_an_empty_database(blank_url: str) -> None:
    """`engram search` on a database without a store (a mistyped name, the server's default
    one) wrote Engram's schema into it and said "No memories found"; a SQLite path or JSONL
    folder without a store was already refused."""
    result = CliRunner().invoke(
        cli, ["--store", blank_url, "search", "anything"], env={"ENGRAM_EMBEDDING_MODEL": "none"}
    )
    assert result.exit_code != 0 and "there is no store at postgresql://" in result.output
    with psycopg.connect(blank_url) as conn:
        assert conn.execute("SELECT to_regclass('schema_migrations')").fetchone() == (None,)
    saved = CliRunner().invoke(
        cli,
        ["--store", blank_url, "save", "The first memory"],
        env={"ENGRAM_EMBEDDING_MODEL": "none"},
    )
    assert saved.exit_code == 0, saved.output  # a save makes the store, as on SQLite


def test_a_role_with_a_schema_of_its_own_gets_a_store_there(blank_url: str) -> None:
    """Whether a store existed was asked along search_path, while tables are made in the first
    schema on it: a role with a schema of its own ("$user", public) was handed the store in
    public, or refused its tables."""
    with Engram.open(blank_url, embedding_model="none") as shared:
        shared.save("A memory in the shared store")
    with psycopg.connect(blank_url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA alice")
    separator = "&" if "?" in blank_url else "?"
    own = f"{blank_url}{separator}options=-csearch_path%3Dalice,public"
    with Engram.open(own, embedding_model="none") as mine:
        assert mine.stats().total == 0  # not the shared store
        mine.save("A memory of Alice's own")
    with psycopg.connect(blank_url) as conn:
        found = conn.execute("SELECT content FROM alice.memories").fetchall()
        shared_rows = conn.execute("SELECT content FROM public.memories").fetchall()
    assert found == [("A memory of Alice's own",)]
    assert shared_rows == [("A memory in the shared store",)]


def test_a_store_in_public_after_one_in_a_schema_of_its_own(blank_url: str) -> None:
    """The first store, made in a role's own schema, installed `unaccent` there; a store made
    next in public found the extension installed but not its dictionary, and could not be
    created at all (audit). `vector` is installed beforehand, as docs/storage.md says."""
    with psycopg.connect(blank_url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        conn.execute("CREATE SCHEMA alice")
    separator = "&" if "?" in blank_url else "?"
    own = f"{blank_url}{separator}options=-csearch_path%3Dalice,public"
    with Engram.open(own, embedding_model="none") as mine:
        mine.save("Zoë's café order")
    with Engram.open(blank_url, embedding_model="none") as shared:
        shared.save("Zoë prefers the café by the station")
        assert [h.memory.content for h in shared.search("zoe cafe")] == [
            "Zoë prefers the café by the station"  # accents folded, as on every backend
        ]
    with Engram.open(own, embedding_model="none") as mine:
        assert [h.memory.content for h in mine.search("zoe cafe")] == ["Zoë's café order"]


def test_stores_in_two_schemas_of_one_database_do_not_share_their_locks(
    blank_url: str,
) -> None:
    """The lock of an exclusive section was named for the whole database: a pipeline run on
    the store in public made one on a store in another schema "already running" (audit)."""
    with psycopg.connect(blank_url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        conn.execute("CREATE SCHEMA alice")
    separator = "&" if "?" in blank_url else "?"
    shared = PostgresStore(blank_url)
    own = PostgresStore(f"{blank_url}{separator}options=-csearch_path%3Dalice,public")
    again = PostgresStore(blank_url)
    try:
        with shared.exclusive("pipeline"):
            with own.exclusive("pipeline"):
                pass  # another store: free
            with pytest.raises(BusyError), again.exclusive("pipeline"):
                pass  # the same store: taken
    finally:
        for store in (shared, own, again):
            store.close()


def test_a_malformed_connect_timeout_is_refused_before_anything_is_written(
    blank_url: str,
) -> None:
    """The first connection overrode the URL's connect_timeout and made the store; the pool
    used the URL's "5s", never connected, and the open failed after 30 s with the reason only
    in the log (audit). A well-formed one is used by every connection."""
    separator = "&" if "?" in blank_url else "?"
    with pytest.raises(ConfigError, match=r"connect_timeout='5s' .* whole number of seconds"):
        PostgresStore(f"{blank_url}{separator}connect_timeout=5s")
    with psycopg.connect(blank_url) as conn:
        assert conn.execute("SELECT to_regclass('schema_migrations')").fetchone() == (None,)
    with Engram.open(f"{blank_url}{separator}connect_timeout=3", embedding_model="none") as mem:
        assert mem.save("Reached through every connection").content


def test_a_record_postgres_refuses_is_named_and_the_rest_migrated(
    postgres_url: str, tmp_path: Path
) -> None:
    """A hand-edited JSONL line with a NUL character in a meta value loads (JSON holds it; in
    its text the line is quarantined); PostgreSQL cannot store it, and the whole migration
    stopped without saying which record."""
    source = f"jsonl://{tmp_path / 'notes'}"
    with Engram.open(source, embedding_model="none") as mem:
        a, b, c = (mem.save(f"memory {x}") for x in "abc")
        mem.create_relation(a.id, c.id)
        mem.create_relation(a.id, b.id)
    lines = tmp_path / "notes" / "memories.jsonl"
    text = lines.read_text().splitlines(keepends=True)
    second = text[1].replace('"meta": {}', '"meta": {"note": "x\\u0000y"}')
    assert second != text[1]
    lines.write_text(text[0] + second + "".join(text[2:]))
    with Engram.open(postgres_url, embedding_model="none") as target:
        report = target.migrate_from(source)
        assert not report.verified and report.copied == 2
        assert f"1 memory the target refused, with their relations and vectors (first: {b.id}" in (
            report.message
        )
        assert b.id in report.differences
        assert [r.to_id for r in target.relations(a.id)] == [c.id]


def test_a_migration_the_server_fails_stops_with_one_error_not_a_refusal_per_memory(
    blank_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """With the server gone mid-`migrate`, every memory of the batch was tried again alone and
    listed as "refused" (500 warnings, then a 30 s wait): only data the target refuses is
    tried memory by memory. The failure here is the server's own (a trigger refusing every
    insert as a privilege error stands in for a server gone, which a test cannot time)."""
    source = tmp_path / "source.db"
    with Engram.open(str(source), embedding_model="none") as mem:
        mem.save_many([Draft(content=f"memory {i}") for i in range(30)])
    with Engram.open(blank_url, embedding_model="none") as target:
        with psycopg.connect(blank_url, autocommit=True) as conn:
            conn.execute(
                "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                "RAISE EXCEPTION 'inserts are off' USING ERRCODE = 'insufficient_privilege'; "
                "END $$"
            )
            conn.execute(
                "CREATE TRIGGER refuse BEFORE INSERT ON memories "
                "FOR EACH ROW EXECUTE FUNCTION refuse()"
            )
        with caplog.at_level(logging.WARNING), pytest.raises(StoreError, match="inserts are off"):
            target.migrate_from(str(source))
        assert not [r for r in caplog.records if "was not copied" in r.getMessage()]
        assert target.stats().total == 0


def test_a_meta_number_jsonb_gives_back_by_value_still_verifies(
    postgres_url: str, tmp_path: Path
) -> None:
    """jsonb gives -0.0 back as 0.0 and 2.5e16 as an integer: a migration of such a meta was
    "NOT verified: 1 record missing or different" at every run, --overwrite or not."""
    source = tmp_path / "source.db"
    meta = {"zero": -0.0, "big": 2.5e16, "huge": 1e300, "half": 0.5, "n": [1.0, 3]}
    with Engram.open(str(source), embedding_model="none") as mem:
        saved = mem.save("a memory with numbers", meta=meta)
    with Engram.open(postgres_url, embedding_model="none") as target:
        report = target.migrate_from(str(source))
        assert report.verified, report.message
        assert target.get(saved.id).meta["big"] == 25000000000000000  # as jsonb keeps it
        assert target.migrate_from(str(source)).verified  # and again


def test_a_server_that_stops_taking_connections_under_an_open_store_is_named_as_the_reason(
    blank_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """With the server gone under an open handle every call failed with "couldn't get a
    connection after 30.00 sec", the reason only in the pool's log lines on stderr."""
    separator = "&" if "?" in blank_url else "?"
    with Engram.open(f"{blank_url}{separator}connect_timeout=1", embedding_model="none") as mem:
        mem.save("Saved while the database took connections")
        name = psycopg.conninfo.conninfo_to_dict(blank_url)["dbname"]
        with psycopg.connect(blank_url.replace(f"/{name}", "/postgres"), autocommit=True) as c:
            c.execute(
                sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS false").format(
                    sql.Identifier(str(name))
                )
            )
            c.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (name,),
            )
        with caplog.at_level(logging.WARNING), pytest.raises(StoreError) as failed:
            mem.search("saved")
        assert "is unavailable" in str(failed.value)
        assert "not currently accepting connections" in str(failed.value)
        # said once, in the error: not once more for each try of the pool
        assert not [r for r in caplog.records if "error connecting" in r.getMessage()]


def test_a_client_that_found_the_server_gone_works_as_soon_as_it_is_back(blank_url: str) -> None:
    """After an outage a long-running client (an MCP server, a Python session) failed for up
    to half a minute once the server was back: its pool reconnects at growing intervals, and
    each call waited for it (a probe). Until the pool has a connection again, a call now
    opens its own: refused at once while the server is away, answered once it is back."""
    separator = "&" if "?" in blank_url else "?"
    name = str(psycopg.conninfo.conninfo_to_dict(blank_url)["dbname"])

    def allow(allowed: bool) -> None:
        with psycopg.connect(blank_url.replace(f"/{name}", "/postgres"), autocommit=True) as c:
            c.execute(
                sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS {}").format(
                    sql.Identifier(name), sql.SQL("true" if allowed else "false")
                )
            )
            c.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (name,),
            )

    with Engram.open(f"{blank_url}{separator}connect_timeout=1", embedding_model="none") as mem:
        mem.save("Saved before the outage")
        allow(False)
        for _ in range(3):
            with pytest.raises(StoreError, match="not currently accepting connections"):
                mem.search("saved")
        allow(True)
        assert [h.memory.content for h in mem.search("saved")] == ["Saved before the outage"]
        assert mem.save("Saved after it").content == "Saved after it"


def test_a_url_naming_only_a_schema_that_does_not_exist_says_so(blank_url: str) -> None:
    """It failed with raw SQL: "no schema has been selected to create in LINE 1: CREATE
    TABLE IF NOT EXISTS schema_migrations …"."""
    separator = "&" if "?" in blank_url else "?"
    with pytest.raises(StoreError, match="no schema on its search_path exists") as refused:
        PostgresStore(f"{blank_url}{separator}options=-csearch_path%3Dteam")
    assert "CREATE TABLE" not in str(refused.value)


def test_a_relation_postgres_refuses_is_named_and_the_rest_migrated(
    postgres_url: str, tmp_path: Path
) -> None:
    """A relation whose metadata holds a NUL (a hand-edited JSONL line) stopped the migration at
    it, with no relation copied and only "metadata: must not contain NUL characters" said."""
    source = f"jsonl://{tmp_path / 'notes'}"
    with Engram.open(source, embedding_model="none") as mem:
        a, b, c = (mem.save(f"memory {x}") for x in "abc")
        bad = mem.create_relation(a.id, b.id, metadata={"note": "x"})
        mem.create_relation(b.id, c.id, metadata={"note": "fine"})
    lines = tmp_path / "notes" / "relations.jsonl"
    lines.write_text(lines.read_text().replace('"x"', '"x\\u0000y"', 1))
    with Engram.open(postgres_url, embedding_model="none") as target:
        report = target.migrate_from(source)
        assert not report.verified and report.copied == 3
        assert f"1 relation the target refused (first: {bad.id}: metadata" in report.message
        assert [r.to_id for r in target.relations(b.id) if r.from_id == b.id] == [c.id]


def test_a_database_whose_locale_folds_ascii_only_is_reported(
    postgres_server: TestPostgres, caplog: pytest.LogCaptureFixture
) -> None:
    """Tag filters fold case with the database's lower(): in a C-locale database "été" does
    not find "ÉTÉ" (SQLite and JSONL fold Unicode). Nothing said so."""
    name = "engram_c_locale"
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        conn.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE template0 LC_CTYPE 'C' LC_COLLATE 'C'").format(
                sql.Identifier(name)
            )
        )
    try:
        with caplog.at_level(logging.WARNING, logger="engram"):
            PostgresStore(postgres_server.database_url(name)).close()
        assert "knows ASCII letters only" in caplog.text
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="engram"):
            PostgresStore(postgres_server.url).close()  # the suite's own: C.UTF-8
        assert "folds case" not in caplog.text
    finally:
        with psycopg.connect(postgres_server.url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))


def old_row(url: str, ident: str, content: str, entities: str = "{}") -> None:
    """A memory written as an older schema's store wrote it: its columns, no more (a store's
    insert names every column of the head schema)."""
    with psycopg.connect(url) as conn:
        conn.execute(
            "INSERT INTO memories (id, content, entities, created_at, last_used) "
            "VALUES (%s, %s, %s, 0, 0)",
            (ident, content, entities),
        )


def test_rows_written_before_0011_are_indexed_again_by_it(
    blank_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """0011 redefines which entities the search column holds (whole words); the stored
    column of existing rows must be computed again, not kept from 0010's rule."""
    from engram.storage.postgres import migrations

    before = [(n, q) for n, q in migrations.MIGRATIONS if n < "0011"]
    monkeypatch.setattr(migrations, "MIGRATIONS", before)
    old = PostgresStore(blank_url)
    old_row(blank_url, "m", "We always trust the compiler", "{Rust}")
    assert old.text_search(["rust"], Filter(), 5) == []  # 0010: "Rust" is in "trust"
    old.close()
    monkeypatch.undo()
    head = PostgresStore(blank_url)
    assert [m.id for m in head.text_search(["rust"], Filter(), 5)] == ["m"]
    head.close()


def test_rows_written_before_0016_are_found_by_a_word_inside_cjk_text(
    blank_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """0016 indexes each CJK character as a word: the search column of existing rows is
    computed again."""
    from engram.storage.postgres import migrations

    before = [(n, q) for n, q in migrations.MIGRATIONS if n < "0016"]
    monkeypatch.setattr(migrations, "MIGRATIONS", before)
    old = PostgresStore(blank_url)
    old_row(blank_url, "ja", "東京に住んでいます")
    assert old.text_search(query_terms("東京"), Filter(), 5) == []
    old.close()
    monkeypatch.undo()
    head = PostgresStore(blank_url)
    assert [m.id for m in head.text_search(query_terms("東京"), Filter(), 5)] == ["ja"]
    head.close()


def test_rows_written_before_0020_have_no_cues_and_new_ones_are_searched_by_theirs(
    blank_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """0020 adds the cues (`core.cues`) to the search column, computed again for every row."""
    from engram.storage.postgres import migrations

    before = [(n, q) for n, q in migrations.MIGRATIONS if n < "0020"]
    monkeypatch.setattr(migrations, "MIGRATIONS", before)
    PostgresStore(blank_url).close()
    old_row(blank_url, "old", "he passed!! second try", "{Owen}")
    monkeypatch.undo()
    head = PostgresStore(blank_url)
    assert head.get_many(["old"])[0].cues == ()
    assert [m.id for m in head.text_search(["owen"], Filter(), 5)] == ["old"]
    new = Memory(
        id="new", content="yes on thursday", cues=("driving",), created_at=T0, last_used=T0
    )
    head.insert([(new, memory_schedule(Policy(), new))])
    assert [m.id for m in head.text_search(["driving"], Filter(), 5)] == ["new"]
    head.close()


def test_notes_indexed_before_0018_may_name_aliases_and_are_read_again(
    blank_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """0018 indexes a note's aliases with its title; those indexed before hold none, so the
    notes whose frontmatter may name some are marked changed for the next index run."""
    from engram.storage.postgres import migrations

    before = [(n, q) for n, q in migrations.MIGRATIONS if n < "0018"]
    monkeypatch.setattr(migrations, "MIGRATIONS", before)
    PostgresStore(blank_url).close()
    with psycopg.connect(blank_url, autocommit=True) as conn:
        for path, frontmatter in (("js.md", '{"aliases": ["JS"]}'), ("go.md", "{}")):
            conn.execute(
                "INSERT INTO ltm_notes (path, key, name, title, frontmatter, mtime_ns, size, "
                "digest) VALUES (%s, %s, %s, 'T', %s, 5, 9, 'abc')",
                (path, path[:-3], path[:-3], frontmatter),
            )
    monkeypatch.undo()
    head = PostgresStore(blank_url)
    states = {p: (s.mtime_ns, s.digest) for p, s in head.ltm_states().items()}
    head.close()
    assert states == {"js.md": (0, ""), "go.md": (5, "abc")}


def test_clients_opening_a_blank_database_at_once_migrate_it_once(blank_url: str) -> None:
    opened: list[PostgresStore] = []
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            opened.append(PostgresStore(blank_url))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for store in opened:
        store.close()
    assert errors == [] and len(opened) == 4
    with psycopg.connect(blank_url) as conn:
        names = [row[0] for row in conn.execute("SELECT name FROM schema_migrations ORDER BY 1")]
        extensions = {row[0] for row in conn.execute("SELECT extname FROM pg_extension")}
    assert names == sorted(name for name, _ in MIGRATIONS)
    assert {"vector", "unaccent"} <= extensions
    again = PostgresStore(blank_url)  # head already: nothing to do, nothing fails
    again.close()


def test_connections_the_server_dropped_are_replaced(blank_url: str) -> None:
    """After a server restart every pooled connection was dead, and each call failed until all
    of them had been tried."""
    store = PostgresStore(blank_url)
    try:
        put(store, mem("a", "before the restart"))
        with psycopg.connect(blank_url, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        for i in range(6):
            put(store, mem(f"b{i}", "after the restart"))
            assert store.text_search(["restart"], Filter(), 10)
    finally:
        store.close()


def test_a_read_only_database_opens_and_refuses_writes_with_a_store_error(
    blank_url: str,
) -> None:
    """A store at head ran CREATE TABLE IF NOT EXISTS at every open (refused in a read-only
    database), and a refused write escaped as a raw psycopg exception."""
    PostgresStore(blank_url).close()
    with psycopg.connect(blank_url, autocommit=True) as admin:
        admin.execute("ALTER DATABASE engram_blank SET default_transaction_read_only = on")
    store = PostgresStore(blank_url)
    try:
        assert store.get_many(["a"]) == []
        with pytest.raises(StoreError, match="read-only transaction"):
            put(store, mem("a"))
    finally:
        store.close()


def test_the_schema_has_the_designed_columns_and_indexes(
    pg: PostgresStore, postgres_url: str
) -> None:
    with psycopg.connect(postgres_url) as conn:
        columns = dict(
            conn.execute(
                "SELECT column_name, format_type(atttypid, atttypmod) FROM information_schema"
                ".columns JOIN pg_attribute ON attrelid = 'memories'::regclass "
                "AND attname = column_name WHERE table_name = 'memories'"
            ).fetchall()
        )
        indexes = dict(
            conn.execute(
                "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memories'"
            ).fetchall()
        )
        fks = conn.execute(
            "SELECT confdeltype FROM pg_constraint WHERE conrelid = 'relationships'::regclass "
            "AND contype = 'f'"
        ).fetchall()
    assert columns["embed"] == "vector(384)"
    assert columns["tags"] == columns["entities"] == "text[]"
    assert columns["meta"] == "jsonb" and columns["search"] == "tsvector"
    assert columns["created_at"] == "double precision"
    assert "hnsw (embed vector_cosine_ops)" in indexes["memories_embed"]
    assert "gin (search)" in indexes["memories_search"]
    assert "gist (danger_span)" in indexes["memories_danger"]
    assert [row[0] for row in fks] == ["c", "c"]  # ON DELETE CASCADE, both ends


# -- URLs --------------------------------------------------------------------------------------


def test_urls_select_the_postgres_backend(postgres_url: str) -> None:
    # any case of the scheme: URL schemes are case-insensitive
    upper = postgres_url.replace("postgresql://", "POSTGRESQL://", 1)
    for url in (postgres_url, postgres_url.replace("postgresql://", "postgres://", 1), upper):
        store = open_store(url, Settings())
        try:
            assert isinstance(store, PostgresStore)
        finally:
            store.close()
    with Engram.open(postgres_url, embedding_model="none") as engram:
        saved = engram.save("kept in PostgreSQL", tags=["pg"])
        assert engram.get(saved.id) == saved
        assert engram.stats().location == postgres_url


def test_the_password_never_shows_in_the_location(postgres_url: str) -> None:
    # Trust authentication ignores the password; the URL still carries one.
    with_password = postgres_url.replace("postgres:@", "postgres:s3cret@", 1)
    assert "s3cret" in with_password
    store = PostgresStore(with_password)
    try:
        assert "s3cret" not in store.location and "***" in store.location
    finally:
        store.close()


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://sec:Top%ZZSecret@127.0.0.1:1/e1",
        "postgresql://127.0.0.1:1/nodb?user=sec&password=Top%ZZSecret",
        "postgresql://127.0.0.1:1/nodb?user=sec&pass%77ord=Top%ZZSecret",
    ],
)
def test_the_password_never_shows_in_a_connection_error(url: str) -> None:
    """libpq quotes the token it cannot parse: a password with a stray % was printed whole."""
    with pytest.raises(StoreError) as refused:
        PostgresStore(url)
    assert "Top%ZZSecret" not in str(refused.value) and "ZZSecret" not in str(refused.value)


def test_no_piece_of_a_password_holding_an_at_sign_shows_in_a_connection_error() -> None:
    """libpq takes what follows an "@" written in the password for the host, and printed it:
    "failed to resolve host '&3@127.0.0.1'" of "Tr0ub4dor@&3" (a helper's probe)."""
    with pytest.raises(StoreError) as refused:
        PostgresStore("postgresql://sec:Tr0ub4dor@&3@127.0.0.1:1/db?connect_timeout=1")
    said = str(refused.value)
    assert "Tr0ub4dor" not in said and "&3" not in said


def test_an_unreachable_server_is_a_clear_error() -> None:
    with pytest.raises(StoreError, match="cannot open PostgreSQL store"):
        PostgresStore("postgresql://nobody@/nowhere?host=/nonexistent-engram-socket-dir")


def test_memories_round_trip_fractional_seconds_exactly(pg: PostgresStore) -> None:
    m = mem("precise", created_at=T0 + timedelta(microseconds=123_457))
    m = m.model_copy(update={"last_used": T0 + timedelta(days=3, microseconds=999_999)})
    put(pg, m)
    assert pg.get_many(["precise"]) == [m]
    assert to_epoch(pg.get_many(["precise"])[0].last_used) == to_epoch(m.last_used)


def test_an_exclusive_section_is_free_the_moment_it_is_left(
    pg: PostgresStore, postgres_url: str
) -> None:
    """The advisory lock is released before its connection closes. Left to the connection's
    end, the server drops it a moment after `exclusive` returned, and a pipeline run started
    right after the last one ended was refused as "already running" (seen once in the suite).
    An observer connection, already open, looks at the server's lock table at once."""
    with psycopg.connect(postgres_url, autocommit=True) as observer:
        for _ in range(200):
            with pg.exclusive("pipeline"):
                pass
            held = observer.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
            ).fetchone()
            assert held == (0,)


def test_word_weights_in_a_store_too_large_to_count_come_from_the_estimate(
    pg: PostgresStore, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beyond COUNTED_UP_TO memories the total is the planner's estimate (counting every row
    on each search would cost more than the search); made small here so that nine memories
    take that path (after ANALYZE, which the store runs after large imports and autovacuum
    runs as tables grow); the rare word still ranks first."""
    monkeypatch.setattr(postgres_text, "COUNTED_UP_TO", 5)
    turns = [mem(f"kate{i}", f"Kate said hi, Kate waved, Kate left at {i}") for i in range(8)]
    put(pg, *turns, mem("answer", "The zeppelin museum was the best part of the trip"))
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("ANALYZE memories")
        (estimate,) = conn.execute(
            "SELECT reltuples FROM pg_class WHERE oid = 'memories'::regclass"
        ).fetchone()
    assert estimate == 9 and pg.term_counts(["kate"], 100).total == 9
    assert pg.text_search(["kate", "zeppelin"], Filter(), 10)[0].id == "answer"
    put(pg, *(mem(f"later{i}", "Kate again") for i in range(3)))
    assert pg.term_counts(["kate"], 100).total == 9  # the estimate, not a count of every row


def test_word_weights_follow_a_large_delete(
    pg: PostgresStore, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gc emptying most of a large store left the planner's size estimate (and with it every
    word's weight) as it was before; a delete refreshes the statistics as a bulk load does."""
    monkeypatch.setattr(postgres_text, "COUNTED_UP_TO", 5)
    filler = [mem(f"filler{i}", f"Filler note number {i}") for i in range(300)]
    put(pg, *filler)
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("ANALYZE memories")
    turns = [mem(f"kate{i}", f"Kate said hi, Kate waved, Kate left at {i}") for i in range(8)]
    put(pg, *turns, mem("answer", "The zeppelin museum was the best part of the trip"))
    assert pg.delete([m.id for m in filler]) == [m.id for m in filler]
    assert pg.term_counts(["kate"], 100).total == 9
    assert pg.text_search(["kate", "zeppelin"], Filter(), 10)[0].id == "answer"


def test_a_server_gone_while_relations_are_copied_stops_the_migration(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The server stopped during a migration's relations: each edge left waited for the pool
    (a minute), was reported refused, and the next waited in turn, 40 hours for 2,500 (a
    helper's probe). A store that cannot be reached fails every edge alike: the copy stops at
    the first, and says why. A server of this test's own, stopped once the memories are in."""
    source = tmp_path / "source.db"
    with Engram.open(str(source), embedding_model="none") as mem:
        ids = [mem.save(f"fact {i} about the garden").id for i in range(6)]
        for a, b in pairwise(ids):
            mem.create_relation(a, b)
    server = start_postgres()
    stopped = False
    try:
        url = server.url + ("&" if "?" in server.url else "?") + "connect_timeout=1"
        with Engram.open(url, embedding_model="none") as target:

            def report(phase: str, done: int, total: int) -> None:
                nonlocal stopped
                if phase == "memories" and done == total:
                    server.close()
                    stopped = True

            caplog.set_level(logging.WARNING, logger="engram")
            with pytest.raises(UnavailableError, match="PostgreSQL store"):
                target.app.transfer.migrate_from(str(source), progress=report)
    finally:
        if not stopped:
            server.close()
    assert stopped
    assert not [r for r in caplog.records if "was not copied" in r.getMessage()]
