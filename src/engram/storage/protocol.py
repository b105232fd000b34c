"""The storage contract every backend implements.

Backends store and index; they do not decide. Scores, schedules, validation and policy are
computed above (core + services) and handed down, so one conformance suite can hold every
backend to the same behaviour.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple, Protocol

import numpy as np
from numpy.typing import NDArray

from engram.core.models import AuditEntry, Direction, Memory, Relation, Schedule, Status
from engram.core.notes import Note, NoteHit, NoteLinks, NoteState, NoteText
from engram.core.scoring import ScheduleArrays

# Between a cursor's memory id and its position in saving order ("<id>@<position>"); no id
# holds it (engram.services.validation.ID_PATTERN).
CURSOR_MARK = "@"


class Capability(StrEnum):
    """What a backend can do beyond the core methods, tested with `X in store.capabilities`."""

    VECTORS = "vectors"  # stores embeddings and finds nearest neighbours
    LTM = "ltm"  # indexes the vault's notes
    COMPACT = "compact"  # rewrites its files without dead lines (`maintenance.Compactable`)
    # Places in saving order (`position`) are the store's own, the same for every process: a
    # cursor may carry one. A JSONL store's index numbers the memories afresh in each process.
    LASTING_POSITIONS = "lasting_positions"


# change(old) -> (new, schedule) to write, or None to leave the memory as it is.
Change = Callable[[Memory], tuple[Memory, Schedule] | None]

# (memory id, its vectors): one row, or a (rows, dims) array of the whole text and passages.
VectorItems = Sequence[tuple[str, NDArray[np.float32]]]
# Memory id -> its (rows, dims) vectors, as `get_vectors` with `passages` gives them: what a
# vector search may hand back of what it read (`vector_search`'s `rows`).
VectorRows = dict[str, NDArray[np.float32]]


class Stub(NamedTuple):
    """The few columns ranking and candidate rules need, so hot paths can score hundreds of
    memories without building full records; full memories are fetched for the winners only.
    A named tuple: a search builds hundreds, and a tuple is built several times faster than a
    frozen dataclass."""

    id: str
    use_count: int
    strength: float
    last_used: float  # epoch seconds
    created_at: float
    status: Status
    relevance: float = 0.0  # text relevance, higher is better (search only)


class MemoryText(NamedTuple):
    """What a search reads of a memory beyond its stub to judge it: its text (a speaker's
    label, what it says) and its episode. Read for dozens of candidates a search, where a
    whole record (tags, entities and meta decoded) cost a tenth of a search."""

    content: str
    episode: str | None


class EpisodeTail(NamedTuple):
    """The last place an episode has, and a memory at it: what a memory saved next follows."""

    seq: int
    id: str


class TermCounts(NamedTuple):
    """How common some words are in a store: the memories each occurs in (up to a cap), and
    about how many memories there are (an upper bound: deleted ones may count)."""

    total: int
    counts: dict[str, int]


@dataclass(frozen=True)
class Filter:
    """Restrictions shared by text search and browsing."""

    statuses: tuple[Status, ...] = (Status.ACTIVE, Status.PROMOTED)
    tags: tuple[str, ...] = ()  # any of these (case-insensitive); empty = no restriction
    used_since: float | None = None  # epoch seconds; last_used >= used_since


@dataclass(frozen=True)
class ScheduleInputs:
    """The columns a schedule is computed from, for recomputing a whole store at once."""

    use_count: NDArray[np.float64]
    strength: NDArray[np.float64]
    last_used: NDArray[np.float64]
    created_at: NDArray[np.float64]
    active: NDArray[np.bool_]
    kept: NDArray[np.bool_]  # marked to be kept for good (`engram.core.models.KEEP`)

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[float]]) -> ScheduleInputs:
        """From SQL rows (seq, use_count, strength, last_used, created_at, active, kept)."""
        cols = np.array(rows, dtype=np.float64)
        return cls(
            use_count=cols[:, 1],
            strength=cols[:, 2],
            last_used=cols[:, 3],
            created_at=cols[:, 4],
            active=cols[:, 5].astype(bool),
            kept=cols[:, 6].astype(bool),
        )


Rescheduler = Callable[[ScheduleInputs], ScheduleArrays]


@dataclass(frozen=True)
class Hop:
    """A memory reached by graph traversal: its shortest distance from the start, the memory it
    was reached from (the start, or another hop one level closer) and the edge between them.
    Following `parent_id` from any hop leads back to the start: the hops form a shortest-path
    tree."""

    memory_id: str
    depth: int  # 1 = a direct neighbour of the start
    parent_id: str
    via: Relation


class MemoryTable(Protocol):
    """Memories and the indexes that find them without scanning. Every write is atomic;
    `modify` is an atomic read-modify-write."""

    def insert(self, items: Sequence[tuple[Memory, Schedule]]) -> None: ...
    def get_many(self, ids: Sequence[str]) -> list[Memory]: ...
    def texts(self, ids: Sequence[str]) -> dict[str, MemoryText]:
        """Id → text and episode of those of `ids` that exist."""
        ...

    def ids_with_prefix(self, prefix: str, limit: int) -> list[str]:
        """Ids starting with `prefix` (case as given), in id order, at most `limit`: what a
        short id typed in a terminal may stand for."""
        ...

    def modify(self, ids: Sequence[str], change: Change) -> list[tuple[Memory, Memory]]: ...
    def delete(self, ids: Sequence[str], due_before: float | None = None) -> list[str]:
        """Delete and return the ids deleted; with `due_before`, only memories still due for gc
        at that time (so a memory reinforced meanwhile by another client is spared)."""
        ...

    def count(self) -> dict[Status, int]: ...

    # Finding memories without scanning
    def text_search(
        self, terms: Sequence[str], where: Filter, limit: int, *, shallow: bool = False
    ) -> list[Stub]:
        """The best `limit` memories holding any of the words, by full-text relevance.
        `shallow`: where a backend scores the text index's best matches again (SQLite,
        several words, without BM25's length normalisation), only its best `limit` of them,
        not twice as many: for a search whose matches only lend credit, at half the cost."""
        ...

    def term_counts(self, words: Sequence[str], cap: int) -> TermCounts:
        """In how many memories each word occurs (the text index's own stemming, any field,
        any status), counted up to `cap`: a word in half the store then costs no more to count
        than a rare one."""
        ...

    def indexed_terms(self, start: str, limit: int) -> list[str]:
        """Up to `limit` of the words the text index holds (as it stems them) that begin with
        `start` (letters only): what a misspelled query word may have meant
        (`engram.services.spelling`)."""
        ...

    def browse(self, where: Filter, limit: int) -> list[Stub]:
        """For a listing without a query: of each status, the `limit` most durable memories
        (latest forget_at) and the `limit` most recently used, each once. The service ranks
        them by their score now: a fresh memory, used a moment ago, scores highest yet may be
        forgotten before 200 strong old ones, and a pool of the most durable alone left it out
        of the listing (audit)."""
        ...

    def saved_between(self, start: float, end: float, where: Filter, limit: int) -> list[Stub]:
        """Up to `limit` memories saved from `start` (inclusive) to `end` (exclusive), epoch
        seconds, that pass `where`: the latest first."""
        ...

    def stubs(self, ids: Sequence[str], where: Filter) -> list[Stub]:
        """Stubs (relevance 0) of those of `ids` that exist and pass `where`, in any order."""
        ...

    def due_for_gc(self, now: float, limit: int) -> list[str]: ...
    def near_review_peak(self, now: float, limit: int) -> list[Stub]: ...
    def in_danger_zone(self, now: float, limit: int) -> list[Stub]:
        """Up to `limit` memories whose danger zone holds `now`, in no order (perhaps a few
        beyond it: the service keeps those of review priority above 0)."""
        ...

    def schedule_counts(self, now: float) -> tuple[int, int]: ...
    def in_promotion_window(self, now: float, limit: int) -> list[Stub]: ...
    def page(self, after: str | None, limit: int) -> list[Memory]:
        """Memories in saving order after the cursor `after`: a memory id, or
        "<id>@<position>" (CURSOR_MARK), whose position serves if that memory is gone."""
        ...

    def position(self, memory_id: str) -> int | None:
        """A memory's place in saving order (what a cursor carries); None if it is gone."""
        ...

    def page_texts(self, after: str | None, limit: int) -> list[tuple[str, Status, str]]:
        """`page`, reduced to (id, status, content): what a pass over every memory that needs
        only their text reads, without building whole records."""
        ...

    # Schedules (index keys derived from the decay settings)
    def schedule_fingerprint(self) -> str | None: ...
    def reschedule_all(self, compute: Rescheduler, fingerprint: str) -> int: ...

    # Episodes: the memories saved in one conversation, in the order they were saved
    def episode_tails(self, episodes: Sequence[str]) -> dict[str, EpisodeTail]:
        """The highest `episode_seq` of each of these episodes that has a memory, and the id of
        a memory there (the greatest, where several share it)."""
        ...

    def episode_neighbours(self, ids: Sequence[str], radius: int) -> list[tuple[str, str]]:
        """(id, neighbour id) pairs: for each of `ids` that has an episode, the other memories
        of that episode whose `episode_seq` is within `radius` of its own (any status)."""
        ...

    def episode_next(self, ids: Sequence[str]) -> list[tuple[str, str]]:
        """(id, next id) pairs: for each of `ids` that has an episode, the memory of that
        episode saved right after it (`episode_seq` one higher, any status), if any."""
        ...


class VectorStore(Protocol):
    """Vectors (capability VECTORS): per memory and model, a (rows, dims) array of unit
    vectors: row 0 embeds the whole content, the rows after it its passages
    (`core.text.passages`)."""

    def put_vectors(
        self, items: VectorItems, model_id: str, texts: Sequence[str] | None = None
    ) -> int:
        """Store (memory id, vectors) pairs, replacing a memory's earlier rows; a 1-D vector is
        one row. Returns how many memories were stored. Ids that no longer exist are skipped;
        with `texts` (what each vector was computed from), so is a memory whose content changed
        meanwhile: a vector of replaced text never attaches to the new text (the edit's own
        vector follows)."""
        ...

    def vector_search(
        self, vector: NDArray[np.float32], where: Filter, limit: int, rows: VectorRows | None = None
    ) -> list[Stub]:
        """Nearest memories by cosine similarity (in `relevance`: the best of a memory's rows),
        best first, filtered. `rows`: where given, a backend that read the memories' stored
        rows to find them may add them to it, as `get_vectors` with `passages` gives them (a
        search judges its neighbours on them next, and would read them again)."""
        ...

    def vector_neighbours(
        self, vectors: Mapping[str, NDArray[np.float32]], where: Filter, k: int
    ) -> dict[str, list[tuple[str, float]]]:
        """For each (memory id → its vector), up to `k` nearest other memories passing `where`,
        with their cosine similarity as the index gives it (it may be approximate, or a
        passage's: callers that need whole-text similarity compare the vectors). One call for
        many memories: clustering asks for every memory's neighbours, and a batch is far cheaper
        than as many searches."""
        ...

    def get_vectors(
        self, ids: Sequence[str], model_id: str, passages: bool = False
    ) -> dict[str, NDArray[np.float32]]:
        """The stored whole-text vectors (row 0) of these memories for this model; with
        `passages`, every row (2-D). Missing ones are absent."""
        ...

    def missing_vectors(self, model_id: str, limit: int) -> list[tuple[str, str]]:
        """(id, content) of memories without a vector from this model, oldest first."""
        ...

    def vector_counts(self) -> dict[str, int]:
        """How many memories have a vector, per model id."""
        ...


class RelationGraph(Protocol):
    """Typed, weighted edges between memories (deleted with either end)."""

    def add_relation(self, relation: Relation) -> Relation: ...
    def delete_relation(self, relation_id: str) -> Relation | None:
        """Remove one edge; the edge removed, or None when no edge has that id."""
        ...

    def relations(self, memory_ids: Sequence[str]) -> list[Relation]: ...
    def count_relations(self) -> int: ...
    def traverse(
        self, start: str, depth: int, types: Sequence[str], direction: Direction, limit: int
    ) -> list[Hop]:
        """Memories reachable from `start` in 1..`depth` steps along edges of `types` (all types
        when empty) in `direction`, each once, at its shortest distance, reached through the
        earliest edge (by created_at, then id) from a memory one level closer. Cycles are
        safe: a memory already reached is never reported again, and the start never is.
        Ordered by depth, then that edge's (created_at, id); at most `limit`. An unknown start
        has no hops."""
        ...


class PipelineLog(Protocol):
    """The maintenance pipeline's needs: its audit trail, and one pipeline at a time."""

    def audit_append(self, entries: Sequence[AuditEntry]) -> None:
        """Add entries to the audit trail (never changed afterwards); past the store's
        `audit_keep` entries (`rows.AUDIT_KEEP`), the oldest go."""
        ...

    def audit_entries(self, plan_id: str | None, limit: int) -> list[AuditEntry]:
        """The latest `limit` entries (of one plan, when given), newest first."""
        ...

    def exclusive(self, name: str, wait: bool = False) -> AbstractContextManager[None]:
        """Hold the store-wide lock `name` for the block; a StoreError at once if another
        process (or handle) holds it, or with `wait`, once it is let go (for short steps that
        must not interleave across clients: a save's look for a stored copy and its insert).
        The maintenance pipeline runs under "pipeline"."""
        ...


class NoteIndex(Protocol):
    """Long-term memory (capability LTM): the index of the vault's Markdown notes, by path;
    with VECTORS too, one embedding per note."""

    def ltm_states(self) -> dict[str, NoteState]:
        """mtime, size and digest of every indexed note, by vault-relative path."""
        ...

    def ltm_claims(self) -> dict[str, list[str]]:
        """Memory id -> the paths of the indexed notes naming it in `engram_id`, in path order."""
        ...

    def ltm_problems(self) -> dict[str, str]:
        """Path -> problem of the indexed notes that were indexed with one (frontmatter that is
        not YAML, …), in path order."""
        ...

    def ltm_write(
        self,
        upsert: Sequence[Note] = (),
        restate: Sequence[NoteState] = (),
        delete: Sequence[str] = (),
    ) -> None:
        """In one transaction: insert or replace notes (with their tags and links), record new
        states of notes whose content is unchanged, and remove notes by path. A note whose
        title or body changes loses its vectors (they described the old text); a removed
        note's go with it."""
        ...

    def ltm_search(self, terms: Sequence[str], tags: Sequence[str], limit: int) -> list[NoteHit]:
        """Notes containing any of the terms (title, tags, body; stemmed), best first. `tags`
        keeps notes carrying any of them or a tag nested below one (`project` → `project/x`),
        ignoring case. Without terms: the notes with those tags, by path."""
        ...

    def ltm_links(self, path: str) -> NoteLinks:
        """Wikilinks from and to the note at `path`, resolved like Obsidian: `[[Folder/Note]]`
        by path, `[[Note]]` by name, ignoring case and `.md`."""
        ...

    # Note vectors: one per note, of its title and body, with the id of the model that made it
    def ltm_put_vectors(
        self, items: Sequence[tuple[str, str, NDArray[np.float32]]], model_id: str
    ) -> int:
        """Store (note path, digest, vector) triples; returns how many were stored. A vector is
        stored only if the note is indexed and still has that digest, so a vector computed from
        a text replaced meanwhile never attaches to the new text."""
        ...

    def ltm_vector_search(
        self, vector: NDArray[np.float32], model_id: str, tags: Sequence[str], limit: int
    ) -> list[NoteHit]:
        """The notes whose vector of this model is most similar to `vector`: cosine similarity
        in `relevance`, best first, the start of the body as `preview`. `tags` filters as in
        `ltm_search`."""
        ...

    def ltm_missing_vectors(self, model_id: str, limit: int) -> list[NoteText]:
        """Notes without a vector of this model (new, edited, or embedded by another model)."""
        ...

    def ltm_get_vectors(
        self, paths: Sequence[str], model_id: str
    ) -> dict[str, NDArray[np.float32]]:
        """The vectors of this model of the notes at `paths`, by path; a note without one (or
        not indexed) is left out."""
        ...


class Store(MemoryTable, VectorStore, RelationGraph, PipelineLog, NoteIndex, Protocol):
    """A memory store: every concern above, at one location. Backends implement it whole and
    say with `capabilities` which optional parts (vectors, the note index, compaction) work;
    a service may type against the one concern it uses."""

    location: str
    capabilities: frozenset[Capability]

    def close(self) -> None: ...
