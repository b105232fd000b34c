"""Named, ordered schema migrations for the PostgreSQL store.

All pending migrations run in one transaction under a transaction-scoped advisory lock, so two
clients opening a fresh database at the same moment cannot both apply one (the second waits,
then finds nothing left to do). PostgreSQL DDL is transactional: a failed migration leaves no
trace. Append new migrations; never edit old ones.
"""

from __future__ import annotations

import psycopg
from psycopg import sql
from psycopg.rows import TupleRow

from engram.config import redact_secrets, redact_url
from engram.core.text import CJK
from engram.errors import StoreError
from engram.storage.schema import memory_columns, refuse_newer, relations_table

# pg_advisory_xact_lock key: any constant shared by every Engram client ("engram" in ASCII).
MIGRATION_LOCK = 0x656E6772616D


def _memory_search(cues: str = "") -> str:
    """The memories' search column from 0016 on: each CJK character a word of its own; from
    0020, with `cues` (the cues' labelled part, `core.cues`) after the entities."""
    return f"""
        ALTER TABLE memories DROP COLUMN search;
        ALTER TABLE memories ADD COLUMN search tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('engram', engram_cjk_spaced(engram_split(content))), 'D')
            || setweight(to_tsvector('engram',
                engram_cjk_spaced(engram_split(engram_words(tags)))), 'A')
            || setweight(to_tsvector('engram', engram_cjk_spaced(engram_split(engram_words(
                engram_unmentioned(entities, content))))), 'B'){cues}
        ) STORED;
        CREATE INDEX memories_search ON memories USING gin (search)
            WITH (gin_pending_list_limit = 256);
        """


# From 0020: a memory's cues searched too, under their own label.
_CUES_SEARCHED = """
            || setweight(to_tsvector('engram',
                engram_cjk_spaced(engram_split(engram_words(cues)))), 'C')"""


def _note_search(title: str) -> str:
    """The notes' search column from 0017 on, with `title` as the words of the title field
    (0018 adds the aliases): each CJK character a word of its own, a body searched by its
    first 250,000 characters (0012)."""
    return f"""
        ALTER TABLE ltm_notes DROP COLUMN search;
        ALTER TABLE ltm_notes ADD COLUMN search tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('engram', engram_cjk_spaced(engram_split({title}))), 'A')
            || setweight(to_tsvector('engram',
                engram_cjk_spaced(engram_split(engram_words(tags)))), 'B')
            || setweight(to_tsvector('engram',
                engram_cjk_spaced(engram_split(left(body, 250000)))), 'D')
        ) STORED;
        CREATE INDEX ltm_notes_search ON ltm_notes USING gin (search);
        """


MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_extensions",
        """
        CREATE EXTENSION IF NOT EXISTS vector;
        CREATE EXTENSION IF NOT EXISTS unaccent;
        """,
    ),
    (
        "0002_memories",
        f"""
        -- Stemming like SQLite's porter tokenizer, accents folded, and no stop words: a query
        -- for "the" finds memories containing it, as on every other backend.
        CREATE TEXT SEARCH DICTIONARY engram_stem (TEMPLATE = snowball, Language = english);
        CREATE TEXT SEARCH CONFIGURATION engram (COPY = pg_catalog.simple);
        ALTER TEXT SEARCH CONFIGURATION engram
            ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
            WITH unaccent, engram_stem;

        -- Closed time intervals of epoch seconds, stabbed by `@> now` through GiST indexes.
        CREATE TYPE engram_span AS RANGE (subtype = float8, subtype_diff = float8mi);

        CREATE FUNCTION engram_lower(text[]) RETURNS text[]
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $$ SELECT ARRAY(SELECT lower(t) FROM unnest($1) AS t) $$;

        -- array_to_string is only STABLE in general (element output functions); on text[]
        -- it is immutable, which a generated column needs.
        CREATE FUNCTION engram_words(text[]) RETURNS text
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $$ SELECT array_to_string($1, ' ') $$;

        CREATE FUNCTION engram_span_of(float8, float8) RETURNS engram_span
            LANGUAGE sql IMMUTABLE PARALLEL SAFE
            AS $$ SELECT CASE WHEN $1 <= $2 THEN engram_span($1, $2, '[]') END $$;

        CREATE TABLE memories (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id text COLLATE "C" NOT NULL UNIQUE,
{memory_columns("postgres")},
            -- The embedding of `content` (all-MiniLM-L6-v2: 384 dimensions) and its model.
            embed vector(384),
            embed_model text,
            -- Derived: kept in step with the columns above by PostgreSQL itself.
            danger_span engram_span
                GENERATED ALWAYS AS (engram_span_of(danger_from, danger_until)) STORED,
            promote_span engram_span
                GENERATED ALWAYS AS (engram_span_of(promote_from, promote_until)) STORED,
            search tsvector GENERATED ALWAYS AS (
                setweight(to_tsvector('engram', content), 'D')
                || setweight(to_tsvector('engram', engram_words(tags)), 'A')
                || setweight(to_tsvector('engram', engram_words(entities)), 'B')
            ) STORED
        );
        -- A small fast-update pending list (256 kB, not 4 MB): searches scan it linearly until
        -- it is merged, and after a bulk load a big one makes the planner give up on the
        -- index; without any, every insert pays for its GIN entries one by one (2x slower).
        CREATE INDEX memories_search ON memories USING gin (search)
            WITH (gin_pending_list_limit = 256);
        CREATE INDEX memories_tags ON memories USING gin (engram_lower(tags))
            WITH (gin_pending_list_limit = 256);
        CREATE INDEX memories_forget_at ON memories (forget_at) WHERE forget_at IS NOT NULL;
        CREATE INDEX memories_review_at ON memories (review_at) WHERE review_at IS NOT NULL;
        CREATE INDEX memories_browse
            ON memories (status, forget_at DESC NULLS LAST, last_used DESC);
        CREATE INDEX memories_danger ON memories USING gist (danger_span)
            WHERE danger_span IS NOT NULL;
        CREATE INDEX memories_promote ON memories USING gist (promote_span)
            WHERE promote_span IS NOT NULL;
        CREATE INDEX memories_embed ON memories USING hnsw (embed vector_cosine_ops);

        -- A vector describes the text it was computed from: editing the text retires it (the
        -- service, or `engram embed --backfill`, computes a new one).
        CREATE FUNCTION engram_retire_vector() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                NEW.embed := NULL;
                NEW.embed_model := NULL;
                RETURN NEW;
            END $$;
        CREATE TRIGGER memories_retire_vector BEFORE UPDATE OF content ON memories
            FOR EACH ROW WHEN (OLD.content IS DISTINCT FROM NEW.content)
            EXECUTE FUNCTION engram_retire_vector();

{relations_table("postgres", "relationships")}
        CREATE INDEX relationships_to ON relationships (to_id);

        CREATE TABLE store_meta (key text PRIMARY KEY, value text NOT NULL);
        """,
    ),
    (
        "0003_decay_functions",
        # engram.core.scoring.score in SQL: one function per forgetting curve and a dispatcher,
        # with every parameter passed in, so one database serves any settings. Plain SQL
        # functions, which the planner inlines into the calling query.
        #
        # PostgreSQL raises an error where a float8 result underflows (exp(-800), 1e-300 *
        # 1e-30) while numpy returns 0 or a subnormal: every factor below e^-700 (1e-304) is
        # taken as 0, which changes no score by more than 1e-300.
        """
        CREATE FUNCTION engram_exp(x float8) RETURNS float8
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $$ SELECT CASE WHEN x < -700 THEN 0::float8 ELSE exp(x) END $$;

        -- a · b for a, b >= 0, without the underflow error.
        CREATE FUNCTION engram_mul(a float8, b float8) RETURNS float8
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $$ SELECT CASE WHEN a = 0 OR b = 0 OR ln(a) + ln(b) < -700 THEN 0::float8
                              ELSE a * b END $$;

        CREATE FUNCTION engram_retention_power_law(dt float8, alpha float8, t0 float8)
            RETURNS float8 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $$ SELECT CASE WHEN alpha * ln(1::float8 + greatest(dt, 0::float8) / t0) > 700
                              THEN 0::float8
                              ELSE power(1::float8 + greatest(dt, 0::float8) / t0, -alpha) END $$;

        CREATE FUNCTION engram_retention_exponential(dt float8, lambda float8)
            RETURNS float8 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $$ SELECT engram_exp(-lambda * greatest(dt, 0::float8)) $$;

        CREATE FUNCTION engram_retention_two_component(
            dt float8, weight_fast float8, lambda_fast float8, lambda_slow float8
        )
            RETURNS float8 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $$ SELECT
                engram_mul(weight_fast, engram_exp(-lambda_fast * greatest(dt, 0::float8)))
                + engram_mul(1::float8 - weight_fast,
                             engram_exp(-lambda_slow * greatest(dt, 0::float8))) $$;

        CREATE FUNCTION engram_score(
            use_count float8, strength float8, dt float8, model text, beta float8,
            pl_alpha float8, pl_t0 float8, decay_lambda float8,
            tc_weight_fast float8, tc_lambda_fast float8, tc_lambda_slow float8
        )
            RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE
            AS $$ SELECT engram_mul(power(use_count + 1::float8, beta) * strength, CASE model
                WHEN 'power_law' THEN engram_retention_power_law(dt, pl_alpha, pl_t0)
                WHEN 'exponential' THEN engram_retention_exponential(dt, decay_lambda)
                WHEN 'two_component' THEN engram_retention_two_component(
                    dt, tc_weight_fast, tc_lambda_fast, tc_lambda_slow)
            END) $$;
        """,
    ),
    (
        "0004_ltm_notes",
        # The index of the Obsidian vault (long-term memory): one row per Markdown note, with
        # its case-folded tags and wikilink keys as arrays and a full-text vector over title
        # (A), tags (B) and body (D).
        """
        CREATE TABLE ltm_notes (
            path text COLLATE "C" PRIMARY KEY,
            key text COLLATE "C" NOT NULL,
            name text COLLATE "C" NOT NULL,
            title text NOT NULL,
            tags text[] NOT NULL DEFAULT '{}',
            tag_keys text[] NOT NULL DEFAULT '{}',
            links text[] NOT NULL DEFAULT '{}',
            link_keys text[] NOT NULL DEFAULT '{}',
            bare_links text[] NOT NULL DEFAULT '{}',
            body text NOT NULL DEFAULT '',
            frontmatter text NOT NULL DEFAULT '{}',
            engram_id text,
            problem text,
            mtime_ns bigint NOT NULL,
            size bigint NOT NULL,
            digest text NOT NULL,
            search tsvector GENERATED ALWAYS AS (
                setweight(to_tsvector('engram', title), 'A')
                || setweight(to_tsvector('engram', translate(engram_words(tags), '/#', '  ')), 'B')
                || setweight(to_tsvector('engram', body), 'D')
            ) STORED
        );
        CREATE INDEX ltm_notes_key ON ltm_notes (key);
        CREATE INDEX ltm_notes_name ON ltm_notes (name);
        CREATE INDEX ltm_notes_engram ON ltm_notes (engram_id) WHERE engram_id IS NOT NULL;
        CREATE INDEX ltm_notes_search ON ltm_notes USING gin (search);
        CREATE INDEX ltm_notes_tag_keys ON ltm_notes USING gin (tag_keys);
        CREATE INDEX ltm_notes_link_keys ON ltm_notes USING gin (link_keys);
        CREATE INDEX ltm_notes_bare_links ON ltm_notes USING gin (bare_links);
        """,
    ),
    (
        "0005_ltm_vectors",
        # One embedding per vault note (of its title and body, all-MiniLM-L6-v2: 384
        # dimensions) and the model that made it, under an HNSW index like the memories'. A new
        # title or body retires the vector through the memories' trigger function (same column
        # names); deleting the row deletes it.
        """
        ALTER TABLE ltm_notes ADD COLUMN embed vector(384), ADD COLUMN embed_model text;
        CREATE INDEX ltm_notes_embed ON ltm_notes USING hnsw (embed vector_cosine_ops);
        CREATE TRIGGER ltm_notes_retire_vector BEFORE UPDATE OF title, body ON ltm_notes
            FOR EACH ROW
            WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.body IS DISTINCT FROM NEW.body)
            EXECUTE FUNCTION engram_retire_vector();
        """,
    ),
    (
        "0006_episodes",
        # The conversation a memory was saved in and its place in that conversation's saving
        # order; the index finds a memory's neighbours in its episode with one range probe.
        """
        ALTER TABLE memories ADD COLUMN episode text, ADD COLUMN episode_seq bigint;
        CREATE INDEX memories_episode ON memories (episode, episode_seq)
            WHERE episode IS NOT NULL;
        """,
    ),
    (
        "0007_passage_vectors",
        # The vectors of a memory's passages (rows 1.. of its vectors; row 0 is `embed`), of
        # the memory's `embed_model`, under their own HNSW index. Editing the content retires
        # them with the memory's own vector; deleting the memory deletes them.
        """
        CREATE TABLE memory_passages (
            memory_id text COLLATE "C" NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
            part int NOT NULL,
            embed vector(384) NOT NULL,
            PRIMARY KEY (memory_id, part)
        );
        CREATE INDEX memory_passages_embed ON memory_passages USING hnsw (embed vector_cosine_ops);
        CREATE FUNCTION engram_retire_passages() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                DELETE FROM memory_passages WHERE memory_id = NEW.id;
                RETURN NULL;
            END $$;
        CREATE TRIGGER memories_retire_passages AFTER UPDATE OF content ON memories
            FOR EACH ROW WHEN (OLD.content IS DISTINCT FROM NEW.content)
            EXECUTE FUNCTION engram_retire_passages();
        """,
    ),
    (
        "0008_audit",
        # The maintenance pipeline's decisions, append-only.
        """
        CREATE TABLE audit (
            seq bigserial PRIMARY KEY,
            id text COLLATE "C" NOT NULL UNIQUE,
            plan_id text COLLATE "C" NOT NULL,
            step int NOT NULL,
            agent text NOT NULL,
            action text NOT NULL,
            memory_ids jsonb NOT NULL,
            detail jsonb NOT NULL,
            why text NOT NULL,
            applied boolean NOT NULL,
            result text NOT NULL,
            at float8 NOT NULL
        );
        CREATE INDEX audit_plan ON audit (plan_id, seq);
        """,
    ),
    (
        "0009_words_split_at_punctuation",
        # PostgreSQL's parser keeps "next.js", "v2.5.1-beta", URLs, paths and e-mail addresses
        # whole, as one token each, while SQLite (and the query's words, core.text) split them
        # at every punctuation mark: a search for "next" or "github" found nothing here. ASCII
        # punctuation becomes a space before parsing (translate: the same on every locale),
        # so the tokens are the ones every other backend has.
        r"""
        CREATE FUNCTION engram_split(text) RETURNS text
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $$ SELECT translate($1, '!"#$%&''()*+,-./:;<=>?@[\]^_`{|}~', repeat(' ', 32)) $$;
        ALTER TABLE memories DROP COLUMN search;
        ALTER TABLE memories ADD COLUMN search tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('engram', engram_split(content)), 'D')
            || setweight(to_tsvector('engram', engram_split(engram_words(tags))), 'A')
            || setweight(to_tsvector('engram', engram_split(engram_words(entities))), 'B')
        ) STORED;
        CREATE INDEX memories_search ON memories USING gin (search)
            WITH (gin_pending_list_limit = 256);
        ALTER TABLE ltm_notes DROP COLUMN search;
        ALTER TABLE ltm_notes ADD COLUMN search tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('engram', engram_split(title)), 'A')
            || setweight(to_tsvector('engram', engram_split(engram_words(tags))), 'B')
            || setweight(to_tsvector('engram', engram_split(body)), 'D')
        ) STORED;
        CREATE INDEX ltm_notes_search ON ltm_notes USING gin (search);
        """,
    ),
    (
        "0010_entities_not_in_content",
        # A memory's entities are indexed for the names its text does not contain (what the
        # caller typed beyond it). Those found in the text by enrichment counted twice, so an
        # enriched store ranked differently from the same memories without entities; as on
        # SQLite (its migration 0011).
        """
        CREATE FUNCTION engram_unmentioned(text[], text) RETURNS text[]
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $$
                SELECT ARRAY(SELECT e FROM unnest($1) AS e WHERE strpos(lower($2), lower(e)) = 0)
            $$;
        ALTER TABLE memories DROP COLUMN search;
        ALTER TABLE memories ADD COLUMN search tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('engram', engram_split(content)), 'D')
            || setweight(to_tsvector('engram', engram_split(engram_words(tags))), 'A')
            || setweight(to_tsvector('engram', engram_split(engram_words(
                engram_unmentioned(entities, content)))), 'B')
        ) STORED;
        CREATE INDEX memories_search ON memories USING gin (search)
            WITH (gin_pending_list_limit = 256);
        """,
    ),
    (
        "0011_entities_mentioned_as_words",
        # 0010 kept an entity out of the search column when the text contained it as a
        # substring ("Rust" in "trust"); whole words now, as SQLite's 0012 and
        # `core.text.mentions`: non-alphanumeric runs become one space on both sides. The
        # stored column is recomputed for the memories with entities.
        r"""
        CREATE OR REPLACE FUNCTION engram_unmentioned(text[], text) RETURNS text[]
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $$
                SELECT ARRAY(
                    SELECT e FROM unnest($1) AS e
                    WHERE strpos(
                        ' ' || btrim(regexp_replace(lower($2), '[^[:alnum:]]+', ' ', 'g')) || ' ',
                        ' ' || btrim(regexp_replace(lower(e), '[^[:alnum:]]+', ' ', 'g')) || ' '
                    ) = 0
                )
            $$;
        UPDATE memories SET entities = entities WHERE cardinality(entities) > 0;
        """,
    ),
    (
        "0012_note_search_bounded",
        # A tsvector holds at most 1 MB: one vault note of many distinct words (a 1.5 MB word
        # list) failed the whole index run, and no note was found. A note's body is searched
        # by its first 250,000 characters here (positions past 16,383 words are one position
        # in a tsvector anyway); SQLite and JSONL search it whole. docs/storage.md says so.
        r"""
        ALTER TABLE ltm_notes DROP COLUMN search;
        ALTER TABLE ltm_notes ADD COLUMN search tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('engram', engram_split(title)), 'A')
            || setweight(to_tsvector('engram', engram_split(engram_words(tags))), 'B')
            || setweight(to_tsvector('engram', engram_split(left(body, 250000))), 'D')
        ) STORED;
        CREATE INDEX ltm_notes_search ON ltm_notes USING gin (search);
        """,
    ),
    (
        "0013_words_with_digits_folded",
        # A word holding a digit ("Zürich2025", "café2", "v1") is the parser's `numword`,
        # which kept the `simple` mapping of the configuration copied in 0002: no accents
        # folded, no stemming, so "zurich2025" found nothing here and its memory on SQLite.
        # The stored columns are computed again for the rows with a letter next to a digit.
        r"""
        ALTER TEXT SEARCH CONFIGURATION engram
            ALTER MAPPING FOR numword, numhword, hword_numpart WITH unaccent, engram_stem;
        UPDATE memories SET content = content
            WHERE content ~ '[[:alpha:]][[:digit:]]|[[:digit:]][[:alpha:]]'
               OR engram_words(tags) ~ '[[:alpha:]][[:digit:]]|[[:digit:]][[:alpha:]]'
               OR engram_words(entities) ~ '[[:alpha:]][[:digit:]]|[[:digit:]][[:alpha:]]';
        UPDATE ltm_notes SET body = body
            WHERE title || ' ' || left(body, 250000) || ' ' || engram_words(tags)
                ~ '[[:alpha:]][[:digit:]]|[[:digit:]][[:alpha:]]';
        """,
    ),
    (
        "0014_memories_by_saving_time",
        # A query that names a day ("what did we decide yesterday?") reads the memories saved
        # on it (`saved_between`): a range of this index, not a scan of the store.
        """
        CREATE INDEX memories_saved ON memories (created_at);
        """,
    ),
    (
        "0015_memories_by_last_use",
        # A listing without a query reads the most recently used memories of each status as
        # well as the most durable (`browse`): a range of this index, not a sort of the store.
        """
        CREATE INDEX memories_recent ON memories (status, last_used DESC);
        """,
    ),
    (
        "0016_cjk_characters_as_words",
        # Chinese, Japanese and Korean write no spaces between words: a sentence was one token
        # and "東京" found nothing in "東京に住んでいます". Each CJK character is a word of its
        # own, as on SQLite (its 0015, `core.text.cjk_spaced`: the same ranges); the stored
        # column is computed again for the memories holding one.
        rf"""
        CREATE FUNCTION engram_cjk_spaced(text) RETURNS text
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $$ SELECT regexp_replace($1, '([{CJK}])', ' \1 ', 'g') $$;
        """
        + _memory_search(),
    ),
    (
        "0017_cjk_characters_as_words_in_notes",
        # The vault's notes as memories since 0016: a note titled "大阪旅行" was found by no
        # query, its own title neither (a helper's probe, on SQLite: its 0017). Otherwise as
        # 0012 (a body searched by its first 250,000 characters).
        _note_search("title"),
    ),
    (
        "0018_note_aliases",
        # A note's other names (Obsidian's `aliases:`) searched as its title is, as on SQLite
        # (its 0018). The notes whose frontmatter may name some are read again at the next
        # index run (it reads a note whose size, time or digest changed).
        "ALTER TABLE ltm_notes ADD COLUMN aliases text NOT NULL DEFAULT '';"
        + _note_search("title || ' ' || aliases")
        + """UPDATE ltm_notes SET mtime_ns = 0, digest = '' WHERE frontmatter LIKE '%"alias%';""",
    ),
    (
        "0019_final_sigma_as_sigma",
        # Greek ends a word in ς, which PostgreSQL's lower() does not make of a capital Σ: a
        # text in capitals was indexed "νικοσ", and the query's "νικος" (Python's lower case)
        # found nothing, "ΝΙΚΟΣ" typed exactly neither (a helper's probe). Both sides read ς as
        # σ now (engram_split, which text and query both pass); SQLite and JSONL found it.
        r"""
        CREATE OR REPLACE FUNCTION engram_split(text) RETURNS text
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $$ SELECT translate($1, '!"#$%&''()*+,-./:;<=>?@[\]^_`{|}~ς',
                                   repeat(' ', 32) || 'σ') $$;
        """
        + _memory_search()
        + _note_search("title || ' ' || aliases"),
    ),
    (
        "0020_cues",
        # The words of the turn before that a turn answers without saying them, as on SQLite
        # (its 0019, `core.cues`): under their own label, weighted ENGRAM_FTS_WEIGHT_CUES.
        "ALTER TABLE memories ADD COLUMN cues text[] NOT NULL DEFAULT '{}';"
        + _memory_search(_CUES_SEARCHED),
    ),
]


# Whether the schema a connection creates its tables in holds a store. Not `to_regclass(
# 'schema_migrations')`, which looks along search_path: a role with a schema of its own
# ("$user", public) found the store in public and used it (or was refused its tables).
STORE_HERE = "SELECT to_regclass(quote_ident(current_schema()) || '.schema_migrations')"


def holds_a_store(url: str, connect_timeout: float = 10.0) -> bool:
    """Whether the database at `url` holds an Engram store (its migrations table), asked
    without writing: a migration's source that is not one must not be made one."""
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=round(connect_timeout)) as c:
            return c.execute(STORE_HERE).fetchone() != (None,)
    except psycopg.Error as exc:  # the server's reason, without the password
        reason = redact_secrets(str(exc), url)
        raise StoreError(f"cannot open PostgreSQL store {redact_url(url)}: {reason}") from exc


def _extensions_in_sight(conn: psycopg.Connection[TupleRow]) -> None:
    """For this transaction, the schemas of the extensions the migrations use go on the
    search path, after the store's own. CREATE EXTENSION puts an extension in the first schema
    of the path: a store made first in a schema of its own took `unaccent` there, and a store
    made next in public found the extension installed but not its dictionary, and could not be
    created (audit)."""
    schemas = [
        row[0]
        for row in conn.execute(
            "SELECT DISTINCT n.nspname FROM pg_extension e "
            "JOIN pg_namespace n ON n.oid = e.extnamespace "
            "WHERE e.extname IN ('vector', 'unaccent') ORDER BY 1"
        )
    ]
    if schemas:
        (path,) = conn.execute("SELECT current_setting('search_path')").fetchall()[0]
        names = sql.SQL(", ").join(sql.Identifier(s) for s in schemas).as_string(conn)
        conn.execute("SELECT set_config('search_path', %s, true)", (f"{path}, {names}",))


def migrate(conn: psycopg.Connection[TupleRow]) -> list[str]:
    """Bring the schema to head; returns the names applied now. `conn` must be in autocommit."""
    applied_now: list[str] = []
    # A store at head is opened without writing anything: a read-only database, or a role
    # without CREATE on the schema, can still read (and say why a write fails).
    if conn.execute(STORE_HERE).fetchone() != (None,):
        done = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
        refuse_newer(done, MIGRATIONS)
        if all(name in done for name, _ in MIGRATIONS):
            return applied_now
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations "
            "(name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
        refuse_newer(done, MIGRATIONS)
        _extensions_in_sight(conn)
        for name, script in MIGRATIONS:
            if name in done:
                continue
            conn.execute(script)
            conn.execute("INSERT INTO schema_migrations(name) VALUES (%s)", (name,))
            applied_now.append(name)
    return applied_now
