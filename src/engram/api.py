"""The public Python API: `Engram.open(...)` and one method per operation."""

from __future__ import annotations

import functools
import inspect
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Concatenate, ParamSpec, TypeVar

from engram.app import App, build_app
from engram.clock import Clock
from engram.config import load_settings, redact_url
from engram.core.models import Memory, Relation
from engram.errors import ConfigError, NotFoundError, ValidationError
from engram.services.backup import BackupResult
from engram.services.consolidation import ConsolidationService
from engram.services.drafts import Draft
from engram.services.embeddings import EmbeddingStatus, Similar
from engram.services.graph import GraphService
from engram.services.ltm import IndexReport, Progress
from engram.services.memories import MemoryService
from engram.services.pipeline import AuditTrail, PipelineResult
from engram.services.promotion import PromotionResult
from engram.services.results import (
    ClusterResult,
    ConsolidateResult,
    GcResult,
    GraphPage,
    KeepApartResult,
    MessageAnalysis,
    ObserveResult,
    PromotionCandidate,
    RecallAnalysis,
    RelatedMemory,
    ReviewCandidate,
    SaveResult,
    SearchHit,
    Stats,
    TouchResult,
    UndoResult,
)
from engram.services.search import SearchService
from engram.services.storage_maintenance import CompactionReport, StorageReport
from engram.services.transfer.cortexgraph import ImportReport
from engram.services.transfer.migrate import MigrationReport
from engram.services.transfer.restore import RestoreReport
from engram.services.unified import UnifiedResult, UnifiedSearchService
from engram.services.validation import MAX_IDS
from engram.services.vault_import import VaultImportResult

T = TypeVar("T")
P = ParamSpec("P")


def _takes_as(
    method: Callable[Concatenate[Any, P], T],
) -> Callable[[Callable[..., T]], Callable[Concatenate[Engram, P], T]]:
    """A facade method that passes its arguments on to a service method takes that method's
    parameters: their names, order and defaults are kept in one place, the service, and both
    type checkers (for callers) and `help()` (for readers) see them on the facade, which keeps
    its own docstring and return type."""

    def adopt(facade: Callable[..., T]) -> Callable[Concatenate[Engram, P], T]:
        own, theirs = inspect.signature(facade), inspect.signature(method)
        (this, *_), (_, *passed) = own.parameters.values(), theirs.parameters.values()
        signature = own.replace(parameters=[this, *passed])

        @functools.wraps(facade)
        def checked(*args: Any, **kwargs: Any) -> T:
            # Arguments it does not take are refused here, naming the facade: they reached
            # the service, and the TypeError named `MemoryService.update()` (a probe).
            try:
                signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise TypeError(f"Engram.{facade.__name__}() {exc}") from None
            return facade(*args, **kwargs)

        checked.__signature__ = signature  # type: ignore[attr-defined]
        return checked

    return adopt


class Engram:
    """A memory store with decay. Use as a context manager, or call `close()`."""

    def __init__(self, app: App) -> None:
        self._app = app
        self._closed = False

    def __del__(self) -> None:
        # As an unclosed file does: a handle dropped open keeps its files and its worker thread
        # until the process ends (a library probe: 5 descriptors and a thread a handle, unsaid)
        if not getattr(self, "_closed", True):
            warnings.warn(
                f"Engram store {redact_url(self._app.settings.storage_path)} was not closed: "
                "call close() or use `with Engram.open(...)`",
                ResourceWarning,
                stacklevel=2,
                source=self,
            )

    @classmethod
    def open(
        cls,
        path_or_url: str | os.PathLike[str] | None = None,
        clock: Clock | None = None,
        **settings: Any,
    ) -> Engram:
        """Open (creating if needed) a store; `settings` override any setting by name.

        Memories a killed process left without a vector are embedded in the background, after
        this handle's own saves; `close` does not wait for that catch-up."""
        if path_or_url is not None:
            if not isinstance(path_or_url, str | os.PathLike):
                # `mem.open([id])`, as `engram open ID` reads memories, reached this class method
                hint = "; to read memories by id, use get_many(ids)"
                listed = isinstance(path_or_url, list | tuple)
                raise ValidationError(
                    "path_or_url", "must be a path or a URL string" + (hint if listed else "")
                )
            given = settings.get("storage_path")
            if given is not None and os.fspath(given) != os.fspath(path_or_url):
                # Two places named: one was opened and the other ignored (a probe's /a.db).
                raise ConfigError(
                    f"the store is named twice: {redact_url(os.fspath(path_or_url))} "
                    f"(path_or_url) and {redact_url(os.fspath(given))} (storage_path); give one"
                )
            settings["storage_path"] = os.fspath(path_or_url)
        if clock is not None and not callable(clock):  # a number for a clock failed every save
            raise ValidationError("clock", "must be a function returning an aware datetime")
        opened = load_settings(keywords=True, **settings)
        return cls(build_app(opened, clock=clock, recover_vectors=True, library=True))

    @property
    def app(self) -> App:
        """The services behind this handle (for what the API does not cover yet)."""
        return self._app

    def close(self) -> None:
        """Store the vectors still waiting, save the vector index, close the store. Anything
        that reads or writes the store afterwards raises StoreError (what needs no store, such
        as `analyze_for_recall` or `score`, still answers; `analyze_message` looks in the store
        for what a message repeats); closing twice is harmless."""
        self._closed = True
        self._app.close()

    def __enter__(self) -> Engram:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # -- memories -----------------------------------------------------------------------------

    def save(
        self,
        content: str,
        *,
        tags: Sequence[str] = (),
        entities: Sequence[str] = (),
        source: str | None = None,
        context: str | None = None,
        meta: dict[str, Any] | None = None,
        strength: float | None = None,
        created_at: datetime | str | None = None,
        last_used: datetime | str | None = None,
        episode: str | None = None,
        keep: bool | None = None,
    ) -> Memory:
        """`strength` None: from the words that mark importance (1.0 with none; see
        docs/activation.md); names found in the text join `entities` (ENGRAM_ENRICH_ON_SAVE).
        `keep` marks it to be kept for good (`keep` below), for what must never be forgotten
        though it may not be needed for months: a blood type, an allergy, a passport's expiry;
        None: kept where its words name such a fact (ENGRAM_KEEP_VITAL); False: not by its
        words (news of a kept fact is kept all the same).
        `episode` names the conversation this comes from: search credits the memories saved
        next to a match in the same episode (see docs/search.md). A repeat of a stored memory
        (the same words, any case or punctuation) returns that memory, merged and reinforced
        (`ENGRAM_SAVE_DUPLICATES`; `save_result` says which happened, and which stored
        memories the new one nearly repeats: finding those embeds the text before returning,
        which `save` leaves to the background)."""
        return self._app.memories.save(
            Draft(
                content=content,
                tags=tags,
                entities=entities,
                source=source,
                context=context,
                meta={} if meta is None else meta,
                strength=strength,
                created_at=created_at,
                last_used=last_used,
                episode=episode,
                keep=keep,
            ),
            report_similar=False,
        ).memory

    def save_result(self, draft: Draft | str) -> SaveResult:
        """`save` of a `Draft` (or of a text alone, as `save("...")`), saying what it did:
        saved, or merged into / reinforced a stored repeat (`duplicate_of` names it), and the
        stored memories it nearly repeats (`similar`)."""
        return self._app.memories.save(Draft(content=draft) if isinstance(draft, str) else draft)

    def save_many(self, drafts: Sequence[Draft]) -> list[Memory]:
        """Bulk import in one transaction (all or nothing; on JSONL one append, which a crash
        in the middle of leaves out whole, docs/reliability.md).
        Unlike `save`, it looks for nothing stored: a repeat of a memory is saved again, to be
        merged by consolidation (its same-words clusters, docs/consolidation.md)."""
        return self._app.memories.save_many(drafts)

    def flush(self) -> None:
        """Wait until the vectors of everything saved through this handle are stored.

        A save returns as soon as the memory is committed; its vector is computed just after,
        on a worker thread (`ENGRAM_EMBED_IN_BACKGROUND`). This handle's own searches wait for
        it; call `flush` before another handle or process should find the memory by meaning.
        News it supersedes is linked then too."""
        self._app.context.vectors_ready()
        self._app.context.links_ready()

    def get(self, memory_id: str) -> Memory:
        """One memory by id (or a unique start of one); NotFoundError if there is none.
        Reading is not using: nothing is reinforced."""
        return self._by_id(memory_id, self._app.memories.get)

    def get_many(self, memory_ids: Sequence[str]) -> list[Memory]:
        """The memories of these ids (or unique starts of ids, as `get` takes) that exist, in
        the order given; missing ones are left out. Any number of ids: the store is read a
        hundred at a time (the limit of the calls that change memories, `delete`, `archive`,
        `observe`; a probe's 150 ids were refused)."""
        if isinstance(memory_ids, list | tuple) and len(memory_ids) > MAX_IDS:
            parts = [memory_ids[i : i + MAX_IDS] for i in range(0, len(memory_ids), MAX_IDS)]
            return list({m.id: m for part in parts for m in self.get_many(part)}.values())
        found = self._app.memories.get_many(memory_ids)
        if isinstance(memory_ids, list | tuple) and len(found) < len(set(memory_ids)):
            # a short id among them: `get` took it, this left it out (a probe)
            found = self._app.memories.get_many(self._whole_ids(memory_ids))
        return found

    @_takes_as(MemoryService.update)
    def update(self, memory_id: str, **changes: Any) -> Memory:
        """Change the fields given (the others stay); new text gets a new vector. A promoted
        memory's note follows. Not a use: counters and decay are untouched."""
        return self._app.memories.update(self._whole_id(memory_id), **changes)

    def delete(self, memory_ids: str | Iterable[str]) -> list[str]:
        """Delete for good, with their relations and vectors; returns the ids deleted (ids
        not found are left out). An id may be given by its unique start (4 characters at
        least), as everywhere: check what it stands for first where that matters."""
        return self._app.memories.delete(self._whole_ids(memory_ids))

    def archive(self, memory_ids: str | Iterable[str]) -> list[Memory]:
        """Keep but stop searching and forgetting them (status archived); `search(status=
        "archived")` still finds them."""
        return self._app.memories.archive(self._whole_ids(memory_ids))

    def keep(self, memory_ids: str | Iterable[str], keep: bool = True) -> list[Memory]:
        """Mark memories to be kept for good (`meta.keep`), or with `keep=False` fading again:
        gc never forgets a kept memory nor offers it for review, while its score still fades
        and ranks it as any other (docs/decay.md). Every id must exist. Not a use."""
        return self._app.memories.keep(self._whole_ids(memory_ids), keep)

    def unarchive(self, memory_ids: str | Iterable[str]) -> list[Memory]:
        """Archived memories back in search: active again (promoted, if they were written to
        the vault). Every id must exist; a memory not archived is left as it is."""
        return self._app.memories.unarchive(self._whole_ids(memory_ids))

    def score(self, memory: Memory) -> float:
        """The memory's decay score now."""
        return self._app.memories.score(memory)

    # -- search and reinforcement -------------------------------------------------------------

    @_takes_as(SearchService.search)
    def search(self, *args: Any, **options: Any) -> list[SearchHit]:
        """The best `limit` matches by words and meaning, re-ranked by decay (docs/search.md);
        without a query, the memories passing the filters, highest decay score now first. Not
        a use: call `touch` or `observe` for what helped.

        `query`: words or a question, at most 1,000 characters. `tags`: only memories
        carrying any of them (as written, any case). `status`: "active", "promoted",
        "archived" or "all", one or a list (default active and promoted). `window_days`: only
        memories saved or used in the last N days (by last use, not by when they were said; a
        day is asked for by naming it in the query: "what did I say last Tuesday?").
        `min_score`: only memories whose decay score is at least this. `limit`: 1 to 100.
        Each hit has the memory, its decay `score`, the `rank` the list is ordered by (the
        best 1), its `reason` ("match", or "review" for a fading memory given a slot) and `why`
        (the parts of its rank); `print(hit)` shows them in one line."""
        return self._app.search.search(*args, **options)

    def touch(self, memory_id: str, boost: bool = False) -> TouchResult:
        """A use: one more use, last used now (so it fades more slowly); `boost` also adds
        strength. Returns the score before and after."""
        return self._by_id(memory_id, lambda i: self._app.memories.touch(i, boost=boost))

    def observe(
        self, memory_ids: Sequence[str], context_tags: Sequence[str]
    ) -> list[ObserveResult]:
        """These memories were used in a conversation about `context_tags`: a review is
        counted and they are reinforced, more so when used outside their own tags' domain."""
        return self._app.memories.observe(self._whole_ids(memory_ids), context_tags)

    def similar(self, memory_id: str, min_cosine: float = 0.88, limit: int = 10) -> list[Similar]:
        """Near-duplicates of a memory by embedding (for clustering and consolidation)."""
        return self._app.embeddings.similar(self._whole_id(memory_id), min_cosine, limit)

    # -- maintenance --------------------------------------------------------------------------

    def gc(
        self, dry_run: bool = True, archive_instead: bool = False, limit: int = 1000
    ) -> GcResult:
        """Forget what faded below the forget threshold (a dry run by default: it only lists
        them); `archive_instead` keeps them archived. `has_more` when `limit` cut the run."""
        return self._app.maintenance.gc(
            dry_run=dry_run, archive_instead=archive_instead, limit=limit
        )

    def promotion_candidates(self, limit: int = 10) -> list[PromotionCandidate]:
        """Memories that earned long-term storage (used often, or strong and lasting), usage
        first."""
        return self._app.maintenance.promotion_candidates(limit)

    def review_candidates(self, limit: int = 10) -> list[ReviewCandidate]:
        """Memories in the danger zone, most urgent first: worth a look before they fade."""
        return self._app.maintenance.review_candidates(limit)

    def stats(self) -> Stats:
        """Counts by status, relations, and what is due for gc or in the danger zone now."""
        return self._app.maintenance.stats()

    def storage_stats(self) -> StorageReport:
        """The store's own files: their sizes, and how many lines are dead (older versions of
        a memory, relations and vectors of deleted ones) — a JSONL store's; other backends say
        they have nothing to compact."""
        return self._app.storage.stats()

    def compact(self) -> CompactionReport:
        """Rewrite a JSONL store's files without their dead lines, atomically and under the
        store's lock, so clients using the store meanwhile lose nothing."""
        return self._app.storage.compact()

    # -- natural-language activation ----------------------------------------------------------

    def analyze_message(
        self, message: str, recent_memory_ids: Sequence[str] = ()
    ) -> MessageAnalysis:
        """Is this user message worth remembering (and as what), or does it confirm one of the
        `recent_memory_ids` memories (named as in the MCP tool)? See docs/activation.md."""
        return self._app.activation.analyze_message(message, recent_memory_ids)

    def analyze_for_recall(self, message: str) -> RecallAnalysis:
        """Does this user message ask for something remembered, and what to search for."""
        return self._app.activation.analyze_for_recall(message)

    # -- the maintenance pipeline -------------------------------------------------------------

    def run_pipeline(
        self, agents: Sequence[str] | None = None, dry_run: bool = True
    ) -> PipelineResult:
        """Run the maintenance agents (all, or the named ones): a dry run (the default)
        records their plan in the audit trail and changes nothing; otherwise the plan is
        applied. See docs/consolidation.md#the-maintenance-pipeline."""
        return self._app.pipeline.run(agents, dry_run)

    def apply_plan(self, plan_id: str) -> PipelineResult:
        """Apply exactly what a dry run planned; a step whose memories changed is skipped."""
        return self._app.pipeline.apply(plan_id)

    def audit(self, plan_id: str | None = None, limit: int = 50) -> AuditTrail:
        """The pipeline's decisions, newest first (of one plan, when given)."""
        return self._app.pipeline.audit(plan_id, limit)

    # -- consolidation ------------------------------------------------------------------------

    def clusters(
        self, memory_ids: Sequence[str] | None = None, similarity_threshold: float | None = None
    ) -> ClusterResult:
        """Clusters of active memories that say the same thing, most cohesive first, each with
        its action (merge, review, keep) and, for merge and review, the merged memory it would
        give. Changes nothing."""
        return self._app.consolidation.clusters(memory_ids, similarity_threshold)

    @_takes_as(ConsolidationService.consolidate)
    def consolidate(self, *args: Any, **options: Any) -> ConsolidateResult:
        """Merge clusters (preview by default: nothing changes until mode="apply"); see
        docs/consolidation.md for the merge rules. Originals are archived, never deleted.
        `merged_content`: your own text for one merge (memory_ids or one cluster id).
        `similarity_threshold`: what links memories into clusters, as in `clusters` (give the
        one a cluster id was found at)."""
        return self._app.consolidation.consolidate(*args, **options)

    @_takes_as(ConsolidationService.keep_apart)
    def keep_apart(
        self, memory_ids: Sequence[str] | None = None, *args: Any, **options: Any
    ) -> KeepApartResult:
        """Say that alike memories (these, or a cluster's) are different facts: clustering
        never joins them again, so a review-band cluster a person declined stops coming back.
        Each pair gets a `distinct_from` relation; delete it to undo."""
        wanted = None if memory_ids is None else self._whole_ids(memory_ids)
        return self._app.consolidation.keep_apart(wanted, *args, **options)

    def undo_consolidation(self, merged_id: str, force: bool = False) -> UndoResult:
        """Restore the originals of a merge and remove the merged memory. Refused when the
        merged memory was merged again or promoted, and (unless `force`) when it was edited or
        related to other memories after the merge: that work would be deleted with it. The
        merged memory's id, or its unique start."""
        return self._by_id(merged_id, lambda ident: self._app.consolidation.undo(ident, force))

    def export(self, fmt: str = "jsonl") -> Iterator[str]:
        r"""Every memory and relation as lines: `jsonl` (one JSON object a line, memories then
        relations) or `markdown`; read page by page, so a big store streams. Each line comes
        without its line break, as `str.splitlines` gives them: write them with one
        (`f.writelines(line + "\n" for line in mem.export())`), or `writelines` alone runs
        them together (a probe's file was then refused by `import_export`)."""
        if fmt not in ("jsonl", "markdown"):
            raise ValidationError("fmt", "must be jsonl or markdown")
        return self._app.transfer.export_lines("markdown" if fmt == "markdown" else "jsonl")

    def migrate_from(self, source: str | Path, overwrite: bool = False) -> MigrationReport:
        """Copy every memory, relation and vector of the store at `source` (a path or URL, any
        backend) into this one and verify the copy; safe to re-run (memories already here are
        kept, or replaced with `overwrite`). Stop other clients of the source first."""
        if not isinstance(source, str | os.PathLike):  # None was searched for as "None"
            raise ValidationError("source", "must be a path or URL of a store")
        return self._app.transfer.migrate_from(os.fspath(source), overwrite=overwrite)

    def import_cortexgraph(self, directory: str | Path) -> ImportReport:
        """Import a CortexGraph (mnemex) JSONL data directory; safe to run again (ids already
        here are left as they are)."""
        return self._app.transfer.import_cortexgraph(directory)

    def import_export(self, path: str | Path) -> RestoreReport:
        """Read back an export (`export("jsonl")`, `engram export`, the file `engram
        backup` commits): how a backup is restored. Memories keep their ids, counters and
        times; ids already here are left as they are, so it is safe to run again."""
        return self._app.transfer.import_export(path)

    def embedding_status(self) -> EmbeddingStatus:
        """Vectors per model, memories, how many lack a vector of the model in use
        (`missing`: the work of `embed_backfill`), and how many this handle is computing."""
        return self._app.embeddings.status()

    def embed_backfill(self, progress: Callable[[int], None] | None = None) -> int:
        """Compute every missing vector of the current model (resumable); returns how many."""
        return self._app.embeddings.backfill(progress=progress)

    # -- long-term memory: the Obsidian vault -------------------------------------------------

    def import_vault(self, apply: bool = False) -> VaultImportResult:
        """Notes marked `engram: memory` in their frontmatter become promoted memories (a
        memory already holding a note's text is promoted to it, not copied), their wikilinks
        relations (docs/ltm.md); a dry run unless `apply`."""
        return self._app.vault_import.run(apply)

    def promote(
        self, memory_id: str | None = None, auto_detect: bool = False, dry_run: bool = False
    ) -> PromotionResult:
        """Write a memory (or, with auto_detect, every promotion candidate) as a note in the
        vault (`vault_path`) and mark it promoted; promoting twice is a no-op, unless its note
        was deleted meanwhile: then it gets a new one."""
        return self._app.promotion.promote(memory_id, auto_detect=auto_detect, dry_run=dry_run)

    @_takes_as(UnifiedSearchService.search_unified)
    def search_unified(self, *args: Any, **options: Any) -> UnifiedResult:
        """One ranked list over memories and the vault's notes (index them with index_ltm)."""
        return self._app.unified.search_unified(*args, **options)

    def index_ltm(self, progress: Progress | None = None) -> IndexReport:
        """Bring the index of the vault's notes up to date (only changed files are read)."""
        return self._app.ltm.index(progress)

    def backup(
        self, repo: str | Path, include_vault: bool = False, force: bool = False
    ) -> BackupResult:
        """Commit an export of the store (and the vault's LTM folder) to a git repository."""
        return self._app.backup.backup(repo, include_vault=include_vault, force=force)

    # -- graph --------------------------------------------------------------------------------

    @_takes_as(GraphService.create_relation)
    def create_relation(self, from_id: str, to_id: str, *args: Any, **options: Any) -> Relation:
        """A typed edge from one memory to another; the same (from, to, type) again returns
        the edge already there."""
        create = self._app.graph.create_relation
        try:  # the relation's own checks first, as for whole ids ("x" to "x" is a loop)
            return create(from_id, to_id, *args, **options)
        except NotFoundError:
            whole = self._whole_id(from_id, "from_id"), self._whole_id(to_id, "to_id")
            if whole == (from_id, to_id):
                raise
            return create(*whole, *args, **options)

    def delete_relation(self, relation_id: str) -> Relation:
        """Remove one edge by its id and return it; NotFoundError when no edge has that id.
        Its two memories stay."""
        return self._app.graph.delete_relation(relation_id)

    def relations(self, memory_id: str) -> list[Relation]:
        """Every edge from or to this memory, oldest first."""
        return self._app.graph.relations(self._whole_id(memory_id))

    def read_graph(self, cursor: str | None = None, limit: int = 100) -> GraphPage:
        """One page of memories in saving order with every relation that touches them (its
        other end may be on another page); pass `next_cursor` for the next page."""
        return self._app.graph.read_graph(cursor, limit)

    @_takes_as(GraphService.related)
    def related(self, memory_id: str, *args: Any, **options: Any) -> list[RelatedMemory]:
        """Memories reachable through relations, closest first (multi-hop, cycle-safe)."""
        return self._app.graph.related(self._whole_id(memory_id), *args, **options)

    # -- ids as people type them ---------------------------------------------------------------

    def _whole_id(self, memory_id: str, field: str = "memory_id") -> str:
        """The id itself, or the one whole id it is a unique start of (at least 4 characters),
        as the CLI prints them: `get` took a short id and `touch`, `update` and the rest said
        "memory not found" for the same one (a probe)."""
        if not isinstance(memory_id, str):
            return memory_id  # refused by the service, naming the field
        return self._app.memories.resolve(memory_id, field)

    def _by_id(self, memory_id: str, act: Callable[[str], T]) -> T:
        """`act` on the id; on a short one, on the whole id it stands for (a whole id, the
        usual case, pays for no look-up of its start)."""
        try:
            return act(memory_id)
        except NotFoundError:
            whole = self._whole_id(memory_id)
            if whole == memory_id:
                raise
            return act(whole)

    def _whole_ids(self, memory_ids: str | Iterable[str]) -> list[str]:
        """Each id, or the whole id a short one stands for; one standing for none stays as
        given, for the service to report as it reports a missing id (`delete(["ffb139ba"])`
        deleted nothing and said so by an empty list: a probe)."""
        out = []
        for ident in _ids(memory_ids):
            try:
                out.append(self._whole_id(ident, "memory_ids"))
            except NotFoundError:
                out.append(ident)
        return out


def _ids(value: str | Iterable[str]) -> list[str]:
    """One id or several. Anything else is refused as the services refuse a bad list (None
    raised a bare TypeError from `list`)."""
    if isinstance(value, str):
        return [value]
    # None, a number; a set or a generator is fine, a mapping is not (`delete` took a dict's
    # keys for ids, where `get_many` refused it)
    if not isinstance(value, Iterable) or isinstance(value, Mapping):
        raise ValidationError("memory_ids", "must be a non-empty list of ids")
    return list(value)
