"""Named, ordered schema migrations for the SQLite store.

Each runs once, inside the same IMMEDIATE transaction that records it, so two processes opening
a fresh file at the same moment cannot both apply it. Append new migrations; never edit old ones.
"""

from __future__ import annotations

import sqlite3

from engram.core.text import cjk_spaced, has_cjk, tag_key, unmentioned
from engram.errors import StoreError
from engram.storage.schema import memory_columns, refuse_newer, relations_table
from engram.storage.sqlite.sql import interruptible

_TEXT_OF = "(SELECT coalesce(group_concat(value, ' '), '') FROM json_each({col}))"
# What every trigger that (re)indexes a memory writes into the full-text table (the same
# text in each migration that creates one).
_FTS_ROW = f"""\
            INSERT INTO memories_fts(rowid, content, tags, entities) VALUES (
                new.seq, new.content, {_TEXT_OF.format(col="new.tags")},
                {_TEXT_OF.format(col="new.entities")});"""

# From 0011: the entities the content does not already mention (a name found in the text, or
# typed by the caller and present in it, counted again lengthened the row and inflated BM25).
_UNMENTIONED_OF = (
    "(SELECT coalesce(group_concat(value, ' '), '') FROM json_each({row}.entities) "
    "WHERE instr(engram_tag_key({row}.content), engram_tag_key(value)) = 0)"
)
_FTS_ROW_0011 = f"""\
            INSERT INTO memories_fts(rowid, content, tags, entities) VALUES (
                new.seq, new.content, {_TEXT_OF.format(col="new.tags")},
                {_UNMENTIONED_OF.format(row="new")});"""

# From 0012: the same, but "contains" means as whole words (0011 compared substrings: "Rust"
# counted as mentioned in "trust" and was not indexed), by `core.text.unmentioned`.
_FTS_ROW_0012 = f"""\
            INSERT INTO memories_fts(rowid, content, tags, entities) VALUES (
                new.seq, new.content, {_TEXT_OF.format(col="new.tags")},
                engram_unmentioned(new.entities, new.content));"""

# From 0015: every field with a space either side of each CJK character, its own word to the
# index (`core.text.cjk_spaced`).
_FTS_ROW_0015 = f"""\
            INSERT INTO memories_fts(rowid, content, tags, entities) VALUES (
                new.seq, engram_cjk_spaced(new.content),
                engram_cjk_spaced({_TEXT_OF.format(col="new.tags")}),
                engram_cjk_spaced(engram_unmentioned(new.entities, new.content)));"""
# From 0019: a memory's cues (`core.cues`) are a field of their own, weighed as the store says.
_FTS_FIELDS_0019 = """
                {row}.seq, engram_cjk_spaced({row}.content),
                engram_cjk_spaced({tags}),
                engram_cjk_spaced(engram_unmentioned({row}.entities, {row}.content)),
                engram_cjk_spaced({cues})"""
_FTS_ROW_0019 = f"""\
            INSERT INTO memories_fts(rowid, content, tags, entities, cues) VALUES ({
    _FTS_FIELDS_0019.format(
        row="new", tags=_TEXT_OF.format(col="new.tags"), cues=_TEXT_OF.format(col="new.cues")
    )
});"""
_CJK_ROWS = (
    "SELECT seq FROM memories WHERE engram_has_cjk(content || ' ' || tags || ' ' || entities)"
)


# From 0017: a note's fields as the index holds them, each CJK character a word of its own.
_NOTE_ROW = (
    "{row}.seq, engram_cjk_spaced({row}.title), engram_cjk_spaced({row}.tags), "
    "engram_cjk_spaced({row}.body)"
)
_NOTE_TRIGGERS_0017 = f"""
        CREATE TRIGGER ltm_notes_text_ai AFTER INSERT ON ltm_notes BEGIN
            INSERT INTO ltm_fts(rowid, title, tags, body) VALUES ({_NOTE_ROW.format(row="new")});
        END;
        CREATE TRIGGER ltm_notes_text_au AFTER UPDATE OF title, tags, body ON ltm_notes BEGIN
            INSERT INTO ltm_fts(ltm_fts, rowid, title, tags, body)
                VALUES ('delete', {_NOTE_ROW.format(row="old")});
            INSERT INTO ltm_fts(rowid, title, tags, body) VALUES ({_NOTE_ROW.format(row="new")});
        END;
        CREATE TRIGGER ltm_notes_text_ad AFTER DELETE ON ltm_notes BEGIN
            INSERT INTO ltm_fts(ltm_fts, rowid, title, tags, body)
                VALUES ('delete', {_NOTE_ROW.format(row="old")});
        END;"""


# From 0018: a note's aliases (frontmatter) are words of its title field.
_NOTE_ROW_0018 = (
    "{row}.seq, engram_cjk_spaced({row}.title || ' ' || {row}.aliases), "
    "engram_cjk_spaced({row}.tags), engram_cjk_spaced({row}.body)"
)
_NOTE_TRIGGERS_0018 = f"""
        CREATE TRIGGER ltm_notes_text_ai AFTER INSERT ON ltm_notes BEGIN
            INSERT INTO ltm_fts(rowid, title, tags, body)
                VALUES ({_NOTE_ROW_0018.format(row="new")});
        END;
        CREATE TRIGGER ltm_notes_text_au AFTER UPDATE OF title, tags, body, aliases ON ltm_notes
        BEGIN
            INSERT INTO ltm_fts(ltm_fts, rowid, title, tags, body)
                VALUES ('delete', {_NOTE_ROW_0018.format(row="old")});
            INSERT INTO ltm_fts(rowid, title, tags, body)
                VALUES ({_NOTE_ROW_0018.format(row="new")});
        END;
        CREATE TRIGGER ltm_notes_text_ad AFTER DELETE ON ltm_notes BEGIN
            INSERT INTO ltm_fts(ltm_fts, rowid, title, tags, body)
                VALUES ('delete', {_NOTE_ROW_0018.format(row="old")});
        END;"""
# The notes whose frontmatter may name aliases, read again at the next index run (the
# index reads a note whose size, time or digest changed): their aliases come from the file.
_NOTES_WITH_ALIASES_READ_AGAIN = """
        UPDATE ltm_notes SET mtime_ns = 0, digest = '' WHERE frontmatter LIKE '%"alias%';"""


def _text_triggers(fts_row: str, indexed: str = "content, tags, entities") -> str:
    """The triggers that index a memory's text and tags as it is written (from 0010 on):
    the same but for the full-text row each migration writes and the `indexed` columns."""
    return f"""\
        DROP TRIGGER memories_text_ai;
        CREATE TRIGGER memories_text_ai AFTER INSERT ON memories BEGIN
{fts_row}
            INSERT INTO memory_tags(seq, tag, folded)
                SELECT new.seq, value, engram_tag_key(value) FROM json_each(new.tags);
        END;
        DROP TRIGGER memories_text_au;
        CREATE TRIGGER memories_text_au AFTER UPDATE OF {indexed} ON memories BEGIN
            DELETE FROM memories_fts WHERE rowid = old.seq;
{fts_row}
            DELETE FROM memory_tags WHERE seq = old.seq;
            INSERT INTO memory_tags(seq, tag, folded)
                SELECT new.seq, value, engram_tag_key(value) FROM json_each(new.tags);
        END;
"""


def _refill_entities(entities: str) -> str:
    """Index again the memories that have entities, their entities field as `entities` (an
    expression over `m`): what a migration changing that field does to the rows before it."""
    return f"""\
        DELETE FROM memories_fts WHERE rowid IN (SELECT seq FROM memories WHERE entities != '[]');
        INSERT INTO memories_fts(rowid, content, tags, entities)
            SELECT m.seq, m.content, {_TEXT_OF.format(col="m.tags")},
                {entities}
            FROM memories m WHERE m.entities != '[]';
"""


def _vector_tables(owner: str, vectors: str, changes: str) -> str:
    """A vector per row of `owner` and the model that made it, and the log of their changes
    (appended in the same transaction) from which a process holding the vectors in memory
    catches up on other processes' writes with one indexed query: for memories (0004) and for
    vault notes (0006), the same."""
    logged = "".join(
        f"""        CREATE TRIGGER {name} AFTER {event} ON {table} BEGIN
            INSERT INTO {changes}(seq) VALUES ({row}.seq);
        END;
"""
        for name, event, table, row in (
            (f"{vectors}_ai", "INSERT", vectors, "new"),
            (f"{vectors}_au", "UPDATE", vectors, "new"),
            (f"{vectors}_ad", "DELETE", vectors, "old"),
            (f"{owner}_vector_ad", "DELETE", owner, "old"),
        )
    )
    return f"""
        CREATE TABLE {vectors} (
            seq INTEGER PRIMARY KEY REFERENCES {owner}(seq) ON DELETE CASCADE,
            model_id TEXT NOT NULL,
            vector BLOB NOT NULL
        );
        CREATE INDEX {vectors}_model ON {vectors}(model_id, seq);
        CREATE TABLE {changes} (
            change INTEGER PRIMARY KEY AUTOINCREMENT,
            seq INTEGER NOT NULL
        );
{logged}"""


MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_memories",
        f"""
        CREATE TABLE memories (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
{memory_columns("sqlite")}
        );
        CREATE INDEX memories_forget_at ON memories(forget_at) WHERE forget_at IS NOT NULL;
        CREATE INDEX memories_review_at ON memories(review_at) WHERE review_at IS NOT NULL;
        CREATE INDEX memories_browse ON memories(status, forget_at, last_used);
        CREATE TABLE memory_tags (
            seq INTEGER NOT NULL REFERENCES memories(seq) ON DELETE CASCADE,
            tag TEXT NOT NULL COLLATE NOCASE
        );
        CREATE INDEX memory_tags_tag ON memory_tags(tag, seq);
        CREATE INDEX memory_tags_seq ON memory_tags(seq);
{relations_table("sqlite", "relations")}
        CREATE INDEX relations_to ON relations(to_id);
        CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """,
    ),
    (
        "0002_full_text",
        f"""
        CREATE VIRTUAL TABLE memories_fts USING fts5(
            content, tags, entities, tokenize = 'porter unicode61 remove_diacritics 2'
        );
        INSERT INTO memories_fts(rowid, content, tags, entities)
            SELECT seq, content, {_TEXT_OF.format(col="tags")},
                   {_TEXT_OF.format(col="entities")} FROM memories;
        CREATE TRIGGER memories_text_ai AFTER INSERT ON memories BEGIN
{_FTS_ROW}
            INSERT INTO memory_tags(seq, tag) SELECT new.seq, value FROM json_each(new.tags);
        END;
        CREATE TRIGGER memories_text_au AFTER UPDATE OF content, tags, entities ON memories BEGIN
            DELETE FROM memories_fts WHERE rowid = old.seq;
{_FTS_ROW}
            DELETE FROM memory_tags WHERE seq = old.seq;
            INSERT INTO memory_tags(seq, tag) SELECT new.seq, value FROM json_each(new.tags);
        END;
        CREATE TRIGGER memories_text_ad AFTER DELETE ON memories BEGIN
            DELETE FROM memories_fts WHERE rowid = old.seq;
        END;
        """,
    ),
    (
        "0003_schedule_rtrees",
        """
        CREATE VIRTUAL TABLE danger_rt USING rtree(id, t0, t1);
        CREATE VIRTUAL TABLE promote_rt USING rtree(id, t0, t1);
        INSERT INTO danger_rt SELECT seq, danger_from, danger_until FROM memories
            WHERE danger_from IS NOT NULL;
        INSERT INTO promote_rt SELECT seq, promote_from, promote_until FROM memories
            WHERE promote_from IS NOT NULL;
        CREATE TRIGGER memories_sched_ai AFTER INSERT ON memories BEGIN
            INSERT INTO danger_rt SELECT new.seq, new.danger_from, new.danger_until
                WHERE new.danger_from IS NOT NULL;
            INSERT INTO promote_rt SELECT new.seq, new.promote_from, new.promote_until
                WHERE new.promote_from IS NOT NULL;
        END;
        CREATE TRIGGER memories_sched_au
            AFTER UPDATE OF danger_from, danger_until, promote_from, promote_until ON memories
        BEGIN
            DELETE FROM danger_rt WHERE id = old.seq;
            DELETE FROM promote_rt WHERE id = old.seq;
            INSERT INTO danger_rt SELECT new.seq, new.danger_from, new.danger_until
                WHERE new.danger_from IS NOT NULL;
            INSERT INTO promote_rt SELECT new.seq, new.promote_from, new.promote_until
                WHERE new.promote_from IS NOT NULL;
        END;
        CREATE TRIGGER memories_sched_ad AFTER DELETE ON memories BEGIN
            DELETE FROM danger_rt WHERE id = old.seq;
            DELETE FROM promote_rt WHERE id = old.seq;
        END;
        """,
    ),
    (
        "0004_vectors",
        _vector_tables("memories", "memory_vectors", "vector_changes")
        + """
        -- A vector describes the text it was computed from: editing the text retires it, and
        -- the service (or `engram embed --backfill`) computes a new one.
        CREATE TRIGGER memories_vector_stale AFTER UPDATE OF content ON memories BEGIN
            DELETE FROM memory_vectors WHERE seq = new.seq;
        END;
        INSERT OR IGNORE INTO store_meta(key, value)
            VALUES ('store_uid', lower(hex(randomblob(16))));
        """,
    ),
    (
        "0005_ltm_notes",
        # The index of the Obsidian vault (long-term memory): one row per Markdown note, its
        # tags and wikilinks (case-folded, maintained by the store), and a full-text index
        # over title, tags and body that reads its text from ltm_notes (external content).
        """
        CREATE TABLE ltm_notes (
            seq INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            key TEXT NOT NULL,
            name TEXT NOT NULL,
            title TEXT NOT NULL,
            tags TEXT NOT NULL DEFAULT '[]',
            links TEXT NOT NULL DEFAULT '[]',
            body TEXT NOT NULL DEFAULT '',
            frontmatter TEXT NOT NULL DEFAULT '{}',
            engram_id TEXT,
            problem TEXT,
            mtime_ns INTEGER NOT NULL,
            size INTEGER NOT NULL,
            digest TEXT NOT NULL
        );
        CREATE INDEX ltm_notes_key ON ltm_notes(key);
        CREATE INDEX ltm_notes_name ON ltm_notes(name);
        CREATE INDEX ltm_notes_engram ON ltm_notes(engram_id) WHERE engram_id IS NOT NULL;
        CREATE TABLE ltm_note_tags (
            seq INTEGER NOT NULL REFERENCES ltm_notes(seq) ON DELETE CASCADE,
            tag TEXT NOT NULL
        );
        CREATE INDEX ltm_note_tags_tag ON ltm_note_tags(tag, seq);
        CREATE INDEX ltm_note_tags_seq ON ltm_note_tags(seq);
        CREATE TABLE ltm_links (
            seq INTEGER NOT NULL REFERENCES ltm_notes(seq) ON DELETE CASCADE,
            key TEXT NOT NULL,
            name TEXT NOT NULL
        );
        CREATE INDEX ltm_links_seq ON ltm_links(seq);
        CREATE INDEX ltm_links_key ON ltm_links(key);
        CREATE INDEX ltm_links_name ON ltm_links(name);
        CREATE VIRTUAL TABLE ltm_fts USING fts5(
            title, tags, body, content = 'ltm_notes', content_rowid = 'seq',
            tokenize = 'porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER ltm_notes_text_ai AFTER INSERT ON ltm_notes BEGIN
            INSERT INTO ltm_fts(rowid, title, tags, body)
                VALUES (new.seq, new.title, new.tags, new.body);
        END;
        CREATE TRIGGER ltm_notes_text_au AFTER UPDATE OF title, tags, body ON ltm_notes BEGIN
            INSERT INTO ltm_fts(ltm_fts, rowid, title, tags, body)
                VALUES ('delete', old.seq, old.title, old.tags, old.body);
            INSERT INTO ltm_fts(rowid, title, tags, body)
                VALUES (new.seq, new.title, new.tags, new.body);
        END;
        CREATE TRIGGER ltm_notes_text_ad AFTER DELETE ON ltm_notes BEGIN
            INSERT INTO ltm_fts(ltm_fts, rowid, title, tags, body)
                VALUES ('delete', old.seq, old.title, old.tags, old.body);
        END;
        """,
    ),
    (
        "0006_ltm_vectors",
        # One embedding per vault note (of its title and body) and the model that made it. Every
        # change is appended to ltm_vector_changes in the same transaction, so a process holding
        # the vectors in memory (engram.storage.sqlite.ltm) catches up on other processes'
        # writes with one indexed query.
        _vector_tables("ltm_notes", "ltm_note_vectors", "ltm_vector_changes")
        + """
        -- A vector describes the text it was computed from: a new title or body retires it,
        -- and `index-ltm` computes a new one.
        CREATE TRIGGER ltm_notes_vector_stale AFTER UPDATE OF title, body ON ltm_notes
            WHEN old.title IS NOT new.title OR old.body IS NOT new.body
        BEGIN
            DELETE FROM ltm_note_vectors WHERE seq = new.seq;
        END;
        """,
    ),
    (
        "0007_episodes",
        # The conversation a memory was saved in and its place in that conversation's saving
        # order; the index finds a memory's neighbours in its episode with one range probe.
        """
        ALTER TABLE memories ADD COLUMN episode TEXT;
        ALTER TABLE memories ADD COLUMN episode_seq INTEGER;
        CREATE INDEX memories_episode ON memories(episode, episode_seq) WHERE episode IS NOT NULL;
        """,
    ),
    (
        "0008_passage_vectors",
        # A vector blob holds `row_count` float32 rows: the whole text, then its passages.
        """
        ALTER TABLE memory_vectors ADD COLUMN row_count INTEGER NOT NULL DEFAULT 1;
        """,
    ),
    (
        "0009_audit",
        # The maintenance pipeline's decisions, append-only; `detail` and `memory_ids` are JSON.
        """
        CREATE TABLE audit (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            plan_id TEXT NOT NULL,
            step INTEGER NOT NULL,
            agent TEXT NOT NULL,
            action TEXT NOT NULL,
            memory_ids TEXT NOT NULL,
            detail TEXT NOT NULL,
            why TEXT NOT NULL,
            applied INTEGER NOT NULL,
            result TEXT NOT NULL,
            at REAL NOT NULL
        );
        CREATE INDEX audit_plan ON audit(plan_id, seq);
        """,
    ),
    (
        "0010_tag_keys",
        # Tag filters compare `core.text.tag_key` (Unicode lower case): COLLATE NOCASE folds
        # ASCII only, so a filter on "été" missed a memory tagged "ÉTÉ" here and not on
        # PostgreSQL. The key comes from `engram_tag_key`, registered on every connection
        # that writes (`migrate`). The table is rebuilt from the memories' tags, which also
        # indexes rows older than 0002's triggers.
        f"""
        ALTER TABLE memory_tags ADD COLUMN folded TEXT NOT NULL DEFAULT '';
        DELETE FROM memory_tags;
        INSERT INTO memory_tags(seq, tag, folded)
            SELECT m.seq, t.value, engram_tag_key(t.value) FROM memories m, json_each(m.tags) t;
        DROP INDEX memory_tags_tag;
        CREATE INDEX memory_tags_folded ON memory_tags(folded, seq);
{_text_triggers(_FTS_ROW)}        """,
    ),
    (
        "0011_entities_not_in_content",
        # A memory's entities are indexed for the names its text does not contain (what the
        # caller typed beyond it). Those found in the text by enrichment were indexed twice:
        # the row grew longer (BM25 normalises by the length of all columns together) and a
        # name counted twice, so an enriched store ranked differently from the same memories
        # without entities (R@10 0.591 against 0.596 on REALTALK, bench/retrieval.py).
        f"""
{_text_triggers(_FTS_ROW_0011)}
{_refill_entities(_UNMENTIONED_OF.format(row="m"))}        """,
    ),
    (
        "0012_entities_mentioned_as_words",
        # 0011 kept an entity out of the full-text row when the text contained it as a
        # substring: "Rust" in "trust", "Go" in "good"; a search for the entity then found
        # nothing. Whole words now (`core.text.mentions`), as PostgreSQL's 0011.
        f"""
{_text_triggers(_FTS_ROW_0012)}
{_refill_entities("engram_unmentioned(m.entities, m.content)")}        """,
    ),
    (
        "0013_memories_by_saving_time",
        # A query that names a day ("what did we decide yesterday?") reads the memories saved
        # on it (`saved_between`): a range of this index, not a scan of the store.
        """
        CREATE INDEX memories_saved ON memories(created_at);
        """,
    ),
    (
        "0014_memories_by_last_use",
        # A listing without a query reads the most recently used memories of each status as
        # well as the most durable (`browse`): a range of this index, not a sort of the store.
        """
        CREATE INDEX memories_recent ON memories(status, last_used);
        """,
    ),
    (
        "0015_cjk_characters_as_words",
        # Chinese, Japanese and Korean write no spaces between words: a sentence was one token
        # and "東京" found nothing in "東京に住んでいます". Each CJK character is a word of its
        # own in the index now; the memories holding one are indexed again.
        f"""
{_text_triggers(_FTS_ROW_0015)}
        DELETE FROM memories_fts WHERE rowid IN ({_CJK_ROWS});
        INSERT INTO memories_fts(rowid, content, tags, entities)
            SELECT m.seq, engram_cjk_spaced(m.content),
                engram_cjk_spaced({_TEXT_OF.format(col="m.tags")}),
                engram_cjk_spaced(engram_unmentioned(m.entities, m.content))
            FROM memories m WHERE m.seq IN ({_CJK_ROWS});
        """,
    ),
    (
        "0016_index_vocabulary",
        # The index's words in order, read by range: what a misspelled query word may have
        # meant (`indexed_terms`). A view of the full-text index, nothing stored.
        """
        CREATE VIRTUAL TABLE memories_vocab USING fts5vocab(memories_fts, 'row');
        """,
    ),
    (
        "0017_cjk_characters_as_words_in_notes",
        # The vault's notes as memories since 0015: each CJK character a word of its own. A
        # note titled "大阪旅行" was found by no query, its own title neither (a helper's
        # probe). The notes holding one are indexed again (their rows were indexed as written).
        f"""
        DROP TRIGGER ltm_notes_text_ai;
        DROP TRIGGER ltm_notes_text_au;
        DROP TRIGGER ltm_notes_text_ad;
        {_NOTE_TRIGGERS_0017}
        INSERT INTO ltm_fts(ltm_fts, rowid, title, tags, body)
            SELECT 'delete', seq, title, tags, body FROM ltm_notes
            WHERE engram_has_cjk(title || ' ' || tags || ' ' || body);
        INSERT INTO ltm_fts(rowid, title, tags, body)
            SELECT seq, engram_cjk_spaced(title), engram_cjk_spaced(tags), engram_cjk_spaced(body)
            FROM ltm_notes WHERE engram_has_cjk(title || ' ' || tags || ' ' || body);
        """,
    ),
    (
        "0018_note_aliases",
        # A note's other names (Obsidian's `aliases:`) were found by nothing: a note titled
        # "JavaScript" with the alias "JS" was not found by "JS" (a helper's probe). They are
        # indexed with its title, as words of the same field.
        f"""
        ALTER TABLE ltm_notes ADD COLUMN aliases TEXT NOT NULL DEFAULT '';
        DROP TRIGGER ltm_notes_text_ai;
        DROP TRIGGER ltm_notes_text_au;
        DROP TRIGGER ltm_notes_text_ad;
        {_NOTE_TRIGGERS_0018}
        {_NOTES_WITH_ALIASES_READ_AGAIN}
        """,
    ),
    (
        "0019_cues",
        # The words of the turn before that a turn answers without saying them ("He passed!"
        # after "How did Owen's driving test go?", `core.cues`): a field of the full-text index
        # of their own, weighted ENGRAM_FTS_WEIGHT_CUES, not as entities. FTS5 adds no column
        # to a table: the index is made again, every memory in it (none has cues yet).
        f"""
        ALTER TABLE memories ADD COLUMN cues TEXT NOT NULL DEFAULT '[]';
        DROP TABLE memories_vocab;
        DROP TABLE memories_fts;
        CREATE VIRTUAL TABLE memories_fts USING fts5(
            content, tags, entities, cues, tokenize = 'porter unicode61 remove_diacritics 2'
        );
        INSERT INTO memories_fts(rowid, content, tags, entities, cues) SELECT {
            _FTS_FIELDS_0019.format(row="m", tags=_TEXT_OF.format(col="m.tags"), cues="''")
        } FROM memories m;
        CREATE VIRTUAL TABLE memories_vocab USING fts5vocab(memories_fts, 'row');
{_text_triggers(_FTS_ROW_0019, "content, tags, entities, cues")}        """,
    ),
]


def register_functions(conn: sqlite3.Connection) -> None:
    """What the schema's triggers call: every connection that writes memories needs it."""
    conn.create_function("engram_tag_key", 1, interruptible(tag_key), deterministic=True)
    conn.create_function("engram_unmentioned", 2, interruptible(unmentioned), deterministic=True)
    conn.create_function("engram_cjk_spaced", 1, interruptible(cjk_spaced), deterministic=True)
    conn.create_function("engram_has_cjk", 1, interruptible(has_cjk), deterministic=True)


def refuse_foreign(conn: sqlite3.Connection) -> None:
    """A SQLite file of another program is not made into a store: opening one (a typo in
    --store, a path that names another tool's database) added Engram's thirty tables to it and
    switched its journal to WAL, even for `engram stats`. Its tables are read before anything
    is written; an empty file, or a store (it has `schema_migrations`), is opened."""
    tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    if tables and "schema_migrations" not in tables:
        shown = ", ".join(sorted(tables)[:5]) + (", …" if len(tables) > 5 else "")
        raise StoreError(
            f"it is a SQLite database of another program, not an Engram store (its tables: "
            f"{shown}); nothing was changed: give Engram a file of its own"
        )


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Bring the schema to head; returns the names applied now. A store at head is only read:
    taking the write lock to find that out made every command wait for another process's
    write, `engram stats` and `search` too, and give up after the busy timeout (a probe)."""
    register_functions(conn)
    if _at_head(conn):
        return []
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at REAL)"
    )
    applied_now: list[str] = []
    conn.execute("BEGIN IMMEDIATE")
    try:
        done = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
        refuse_newer(done, MIGRATIONS)
        for name, sql in MIGRATIONS:
            if name in done:
                continue
            for statement in _split(sql):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations(name, applied_at) "
                "VALUES (?, (julianday('now') - 2440587.5) * 86400.0)",
                (name,),
            )
            applied_now.append(name)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return applied_now


def _at_head(conn: sqlite3.Connection) -> bool:
    """Whether every migration is applied (read without a lock; a newer store is refused)."""
    held = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if held is None:
        return False
    done = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
    refuse_newer(done, MIGRATIONS)
    return done >= {name for name, _ in MIGRATIONS}


def _split(script: str) -> list[str]:
    """Split on statement boundaries, keeping trigger bodies (BEGIN … END;) whole."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements
