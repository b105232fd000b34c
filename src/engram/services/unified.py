"""Unified search: short-term memories and long-term vault notes in one ranked list.

Each layer ranks its own matches: memories by `SearchService` (full-text and vector relevance,
re-ranked by decay, `rank` ∈ (0, 1]), notes by the same fusion of full-text relevance over the
LTM index and cosine similarity of note vectors (`engram.core.ranking.fuse_matches`), normalised
by the best note. A layer's weight scales its ranks into the common list:

    unified rank = stm_weight · s_stm · memory rank   or   ltm_weight · s_ltm · note relevance

where s is 1 unless both layers were searched by meaning: then each layer's best cosine
similarity divided by the better of the two (`_layer_scales`), so a layer whose best match is
weak does not outrank the other's strong one. A promoted memory and its own note (the
note's `engram_id`, or the memory's `promoted_to`) are one result: the better-ranked of the
two, carrying both the memory id and the note path.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime, tzinfo
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import field_serializer

from engram.core.meaning import Probe
from engram.core.notes import NoteHit
from engram.core.ranking import Fused, SearchHit, fuse_matches
from engram.core.text import query_terms
from engram.core.timeutil import day_in
from engram.errors import ConfigError, ValidationError
from engram.services import validation as check
from engram.services.context import Context
from engram.services.ltm import LtmService, require_ltm
from engram.services.maintenance import news_of
from engram.services.results import Result
from engram.services.search import SearchService
from engram.storage.protocol import Capability
from engram.vault.render import obsidian_tag, title_of

log = logging.getLogger(__name__)

# The layers' default weights: equal. Notes weighed 0.7 and a memory that merely shared a
# topic with the question came before the note that answers it: of a helper's 70 questions
# labelled before searching (158 notes, 102 memories), the answer came first for 44 at 0.7 and
# 64 at 1.0, every memory question alike (docs/ltm.md).
STM_WEIGHT = 1.0
LTM_WEIGHT = 1.0

MAX_WEIGHT = 10.0
POOL_EXTRA = 10  # candidates beyond `limit` per layer, so merging duplicates leaves enough
PREVIEW_CHARS = 200

Source = Literal["stm", "ltm"]


class UnifiedWhy(Result):
    """`text`: full-text relevance within its own layer (0–1); `semantic`: cosine similarity
    of query and item, when the item was a vector neighbour; `context` and `expansion`: a
    memory's credit from its neighbours and through the words of the best matches, as
    `search_memory` gives them (a hit with neither text nor meaning looked matched for no
    reason: a probe); `decay`: the memory's score (stm only); `weight`: the layer's weight;
    `rank`: what the list is ordered by; `superseded_by`: the news that replaced the memory
    (or the note's memory), as `search_memory` says it."""

    text: float
    semantic: float | None = None
    context: float | None = None
    expansion: float | None = None
    decay: float | None
    weight: float
    rank: float
    superseded_by: str | None = None

    @field_serializer("text", "semantic", "context", "expansion", "decay", "weight", "rank")
    def _rounded(self, value: float | None) -> float | None:
        return _rounded(value)


class UnifiedHit(Result):
    source: Source
    id: str | None  # the memory id (stm, or the memory a promoted note came from)
    path: str | None  # the note, relative to the vault (ltm, or a promoted memory's note)
    title: str
    preview: str
    tags: list[str]
    # The day, on the asker's calendar, the memory was saved or the note's file last written:
    # which of two things said is the newer.
    saved: str
    rank: float
    why: UnifiedWhy

    @field_serializer("rank")
    def _rounded(self, value: float) -> float | None:
        return _rounded(value)


def _rounded(value: float | None) -> float | None:
    """Three decimals, as `search_memory` gives them: "0.9999998855931452" in every hit of an
    MCP answer cost the assistant's context window and told it nothing more (a probe)."""
    return None if value is None else round(value, 3)


class UnifiedResult(Result):
    """`vault` says what the notes side could see: `not configured` (memories only), `watched`
    (a running server keeps the index in step), `up to date` (re-scanned just now, or within
    ENGRAM_VAULT_REFRESH_SECONDS), or
    `unavailable` (the vault folder is not there now: notes as last indexed)."""

    count: int
    hits: list[UnifiedHit]
    vault: Literal["not configured", "watched", "up to date", "unavailable"]


class UnifiedSearchService:
    def __init__(self, ctx: Context, search: SearchService, ltm: LtmService) -> None:
        self.ctx = ctx
        self.search = search
        self.ltm = ltm

    def search_unified(
        self,
        query: str | None = None,
        tags: Sequence[str] | None = None,
        limit: int = 10,
        stm_weight: float = STM_WEIGHT,
        ltm_weight: float = LTM_WEIGHT,
    ) -> UnifiedResult:
        """Does not reinforce: observe or touch the memories you use."""
        text = (check.query(query) or "").strip()
        wanted = check.tags(tags)
        limit = check.limit(limit)
        stm_w = _weight(stm_weight, "stm_weight")
        ltm_w = _weight(ltm_weight, "ltm_weight")
        if not text and not wanted:
            raise ValidationError("query", "give words to look for, tags, or both")
        pool = min(check.MAX_LIMIT, limit + POOL_EXTRA)
        # The vault first: a rename it finds moves its memory's note (`promoted_to`), and the
        # memories searched after it then name the note where it is now.
        available = self._refresh() if ltm_w else True
        memories = (
            self.search.search(text or None, tags=wanted or None, limit=pool) if stm_w else []
        )
        notes = self._known_memories(self._notes(text, wanted, limit + POOL_EXTRA) if ltm_w else [])
        stm_scale, ltm_scale = _layer_scales(
            [h.why.semantic for h in memories], [f.cosine for _, f in notes]
        )
        # A memory's note as the vault index knows it: the file at `promoted_to` that names
        # the memory (a deleted note's path was given, `vault open` then found nothing).
        claims = (
            self.ctx.store.ltm_claims()
            if self.ltm.live and any(h.memory.promoted_to for h in memories)
            else None
        )
        zone = self.ctx.local_zone()
        hits = [_from_memory(h, zone, stm_w, stm_scale, claims) for h in memories]
        hits += _from_notes(notes, zone, ltm_w, ltm_scale)
        merged = _news_above(_merge_promoted(hits), self._news_of(hits))
        # A memory before a note that ranks the same: the memory is the user's own words; news
        # before the fact it replaced.
        merged.sort(
            key=lambda h: (
                -h.rank,
                h.why.superseded_by is not None,
                h.source != "stm",
                h.id or h.path or "",
            )
        )
        vault = (
            "not configured"
            if not self.ltm.live
            else "unavailable"
            if not available
            else "watched"
            if self.ltm.watching
            else "up to date"
        )
        return UnifiedResult(count=min(limit, len(merged)), hits=merged[:limit], vault=vault)

    def _refresh(self) -> bool:
        """Catch up with edits made in the vault since the last look (if nothing watches it);
        False if the vault is not there now: its notes are then searched as last indexed."""
        try:
            self.ltm.refresh()
        except ConfigError as exc:
            if not self.ltm.live:
                raise
            log.warning("%s", exc)
            return False
        return True

    def _news_of(self, hits: Sequence[UnifiedHit]) -> dict[str, list[str]]:
        """The news replacing each memory of `hits` that news replaced."""
        return news_of(self.ctx.store, [h.id for h in hits if h.id])

    def _known_memories(self, notes: list[tuple[NoteHit, Fused]]) -> list[tuple[NoteHit, Fused]]:
        """A note keeps its `engram_id` after its memory is deleted (a merge undone, a delete):
        the note stays, it is the user's, but its hit must not name a memory that is gone."""
        named = [n.engram_id for n, _ in notes if n.engram_id]
        if not named:
            return notes
        alive = {m.id for m in self.ctx.store.get_many(named)}
        return [
            (n if n.engram_id is None or n.engram_id in alive else replace(n, engram_id=None), f)
            for n, f in notes
        ]

    def _notes(self, text: str, tags: tuple[str, ...], pool: int) -> list[tuple[NoteHit, Fused]]:
        """Notes matching the words or the meaning of `text` (or, without text, the tags)."""
        store = self.ctx.store
        if Capability.LTM not in store.capabilities:
            if self.ctx.settings.vault_path is not None:
                require_ltm(self.ctx)  # a vault the store cannot index: say so, do not hide it
            return []
        note_tags = [t for t in (obsidian_tag(tag) for tag in tags) if t]
        if tags and not note_tags:
            return []
        if not text:
            return [
                (n, Fused(n.relevance, 1.0, None)) for n in store.ltm_search([], note_tags, pool)
            ]
        terms = query_terms(text)
        lexical = store.ltm_search(terms, note_tags, pool) if terms else []
        semantic = self._note_neighbours(text, note_tags, pool)
        settings = self.ctx.settings
        vector = self.search.query_vector(text) if semantic else None
        calibration = None if vector is None else self.ctx.calibration(vector, text)
        if vector is not None and calibration is not None:
            shared = {n.path for n in lexical}
            semantic = self._standing_alone(semantic, shared, Probe(vector, calibration, 0.0))
        fused = fuse_matches(
            {n.path: n.relevance for n in lexical},
            {n.path: n.relevance for n in semantic},
            calibration,
            settings.search_semantic_weight,
            settings.search_semantic_min_z,
        )
        # The text match's snippet is the better preview; a meaning-only match shows its start.
        found = {n.path: n for n in semantic} | {n.path: n for n in lexical}
        return [(found[path], f) for path, f in fused.items()]

    def _standing_alone(self, near: list[NoteHit], shared: set[str], probe: Probe) -> list[NoteHit]:
        """The notes found by meaning, less those that would match by meaning alone but do not
        stand out for themselves, judged as memories are (`SearchService.judge_alone`): a
        short note ("I have a cat named Miso") is nearly as alike to many unrelated questions
        as to its own: "what is the capital of Australia?" found three such notes."""
        store = self.ctx.store

        def read(paths: list[str], model_id: str) -> dict[str, NDArray[np.float32]]:
            return {p: v[None, :] for p, v in store.ltm_get_vectors(paths, model_id).items()}

        z = {n.path: probe.calibration.z(n.relevance) for n in near}
        alone, kept = self.search.judge_alone(z, shared, read, [probe])
        judged = set(alone)
        return [n for n in near if n.path not in judged or n.path in kept]

    def _note_neighbours(self, text: str, note_tags: list[str], pool: int) -> list[NoteHit]:
        embedder = self.ctx.semantic
        if embedder is None:
            return []
        vector = self.search.query_vector(text)
        if vector is None:
            return []
        k = max(self.ctx.settings.search_vector_candidates, pool)
        found = self.ctx.store.ltm_vector_search(vector, embedder.model_id, note_tags, k)
        floor = self.ctx.min_cosine(text)
        return [n for n in found if n.relevance >= floor]


def _weight(value: float, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(field, "must be a number")
    if not 0.0 <= value <= MAX_WEIGHT:  # nan too (and an int beyond a float, 10**400)
        raise ValidationError(field, f"must be between 0 and {MAX_WEIGHT:g}")
    return float(value)


def _layer_scales(
    memories: Sequence[float | None], notes: Sequence[float | None]
) -> tuple[float, float]:
    """How well each layer's best match means the query, relative to the other layer's: each
    layer ranks within itself (its best is 1), so the best memory outranked the best note
    however weakly it matched ("server upgrade runbook": a memory sharing one word at cosine
    0.27 above a runbook note at 0.54). Both layers' best cosine similarity, when both were
    searched by meaning, scales them onto one footing; otherwise they stay as they are."""
    best_stm = max((c for c in memories if c is not None), default=None)
    best_ltm = max((c for c in notes if c is not None), default=None)
    if best_stm is None or best_ltm is None or min(best_stm, best_ltm) <= 0:
        return 1.0, 1.0
    top = max(best_stm, best_ltm)
    return best_stm / top, best_ltm / top


def _from_memory(
    hit: SearchHit,
    zone: tzinfo,
    weight: float,
    scale: float = 1.0,
    claims: dict[str, list[str]] | None = None,
) -> UnifiedHit:
    m = hit.memory
    note = m.promoted_to if claims is None or m.promoted_to in claims.get(m.id, ()) else None
    return UnifiedHit(
        source="stm",
        id=m.id,
        path=note,
        title=title_of(m.content),
        preview=_preview(m.content),
        tags=list(m.tags),
        saved=day_in(m.created_at, zone),
        rank=weight * scale * hit.rank,
        why=UnifiedWhy(
            text=hit.why.text,
            semantic=hit.why.semantic,
            context=hit.why.context,
            expansion=hit.why.expansion,
            decay=hit.score,
            weight=weight,
            rank=weight * scale * hit.rank,
        ),
    )


def _from_notes(
    notes: Sequence[tuple[NoteHit, Fused]], zone: tzinfo, weight: float, scale: float = 1.0
) -> list[UnifiedHit]:
    best = max((f.relevance for _, f in notes), default=0.0) or 1.0
    out = []
    for n, f in notes:
        rank = weight * scale * f.relevance / best
        out.append(
            UnifiedHit(
                source="ltm",
                id=n.engram_id,
                path=n.path,
                title=n.title,
                preview=_preview(n.preview),
                tags=list(n.tags),
                saved=_file_day(n.modified_ns, zone),
                rank=rank,
                why=UnifiedWhy(
                    text=f.text, semantic=f.cosine, decay=None, weight=weight, rank=rank
                ),
            )
        )
    return out


def _file_day(mtime_ns: int, zone: tzinfo) -> str:
    """The day a file was last written, or "" for a time no calendar day can show (a file
    touched to the year 30000)."""
    try:
        return day_in(datetime.fromtimestamp(mtime_ns / 1e9, UTC), zone)
    except (OverflowError, OSError, ValueError):
        return ""


def _merge_promoted(hits: list[UnifiedHit]) -> list[UnifiedHit]:
    """One result per promoted memory and its own note (the one at its `promoted_to`): the
    better-ranked, with both id and path. Another note claiming the memory's id is a result of
    its own: it was merged away, and a copy edited to say more was never found."""
    out = [h for h in hits if h.source == "stm"]
    slot = {h.id: i for i, h in enumerate(out)}
    by_path = {h.path: i for i, h in enumerate(out) if h.path}
    for note in (h for h in hits if h.source == "ltm"):
        i = slot.get(note.id) if note.id else None
        if i is not None and out[i].path and out[i].path != note.path:
            i = None  # a copy of the memory's note (Obsidian's "Make a copy" keeps engram_id)
        if i is None and note.path:
            i = by_path.get(note.path)
        if i is None:
            out.append(note)
            continue
        current = out[i]
        better = note if note.rank > current.rank else current
        # The day its memory was saved: the note's file was written when it was promoted,
        # and a fact corrected since looked newer than its correction (a probe).
        update = {"id": current.id, "path": better.path or note.path, "saved": current.saved}
        if note.why.text > 0:
            # The note's own words matched: its snippet is what matched, and the note may
            # have been edited in the vault since ("due in April" found, the memory's "due in
            # March" shown; a helper's probe).
            update["preview"] = note.preview
        out[i] = better.model_copy(update=update)
    return out


def _news_above(hits: list[UnifiedHit], replaced: Mapping[str, Sequence[str]]) -> list[UnifiedHit]:
    """`hits` with each hit of a replaced memory (it, its note, a copy of the note) naming its
    news (`why.superseded_by`: the best listed, or the first), and that news, if listed,
    lifted to its rank (then sorted just above it), as `search_memory` lists them: a promoted
    fact's note never fades, and it ranked above the news that corrected it, unmarked (a
    probe)."""
    out = list(hits)
    at: dict[str, list[int]] = {}
    for i, hit in enumerate(out):
        if hit.id:
            at.setdefault(hit.id, []).append(i)
    for old, news_ids in replaced.items():
        listed = [k for n in news_ids for k in at.get(n, ())]
        top = max(listed, key=lambda k: out[k].rank, default=None)
        news = news_ids[0] if top is None else out[top].id
        for i in at.get(old, ()):
            fact = out[i]
            out[i] = fact.model_copy(
                update={"why": fact.why.model_copy(update={"superseded_by": news})}
            )
            if top is not None and out[top].rank < fact.rank:
                lifted = {"rank": fact.rank}
                out[top] = out[top].model_copy(
                    update={**lifted, "why": out[top].why.model_copy(update=lifted)}
                )
    return out


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1].rstrip() + "…"
