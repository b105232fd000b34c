"""Search: full-text and vector candidates from the whole store, fused, the query expanded by
words of the best matches, spread to their episode neighbours and related memories, re-ranked
by decay and diversified, with review candidates blended in (the formula is in
`engram.core.ranking` and docs/search.md).

Two phases keep it fast at scale: the store returns light stubs (id, counters, relevance) for a
few hundred candidates, the core ranks them, and only the winners are read in full.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from engram.core.dates import day_phrases
from engram.core.disagreement import disagreement
from engram.core.meaning import (
    MeaningMatch,
    Probe,
    meaning_matches,
)
from engram.core.models import Memory, Status
from engram.core.ranking import (
    RARITY_COUNTED_TO,
    Candidate,
    Fused,
    SearchHit,
    fuse_matches,
    rank,
)
from engram.core.scoring import review_priority
from engram.core.tastes import asks_for_a_suggestion
from engram.core.text import STOPWORDS, query_terms, worded_query, words
from engram.core.time_asked import asks_about_the_present
from engram.core.timeutil import DAY
from engram.core.word_forms import with_word_forms
from engram.embeddings.background import background
from engram.process_threads import blas_on_one_thread
from engram.services import validation as check
from engram.services.context import Context
from engram.services.search_coverage import text_coverage
from engram.services.search_neighbours import (
    NO_NEIGHBOURS,
    SENTENCE_PROBE_SHRINK,
    Neighbours,
    theirs_as_them,
)
from engram.services.search_query import (
    asked,
    of_others_left_out,
    probe_sentences,
    text_rules,
    turns_meant,
    weighed_by_what_they_say,
    without_chance_matches,
    without_names,
    words_first,
)
from engram.services.search_reads import SearchReads
from engram.services.search_spread import context_credit, expansion_matches, meant_near_matches
from engram.services.search_tastes import tastes_first
from engram.services.search_time import (
    EVENT_CANDIDATES,
    anchored_spans,
    as_of_now_found,
    event_told,
    meant_on_the_day,
    named_day_spans,
    named_days_found,
    successors_found,
)
from engram.services.speakers import Speakers
from engram.services.spelling import respelled_text, respelling_said, with_respellings
from engram.storage.protocol import Filter, Stub

K = TypeVar("K", bound=Hashable)

log = logging.getLogger(__name__)

MODEL_LOADING = "text only: the embedding model is still loading"
# How long a search that found nothing by its words waits for the model to finish loading.
WARM_UP_WAIT = 10.0
# The relevance of a memory found only by being saved on a day the query names: after every
# memory the query matches, by words, meaning or context; that of a full match where the
# query names nothing but days ("What did I tell you last week?"), whose answer is all that
# was saved then: weak context and expansion matches of a day's phrase came first (a probe).
SAVED_THEN_ONLY = 1e-6
SAVED_THEN_ASKED = 1.0
SLACK_SHARE = 0.5  # of SAVED_THEN_ONLY, for one saved a day either side of the named day
# The most text matches a `min_score` search looks through for memories passing its floor.
FLOOR_POOL = 3_200
# Two texts of a word or two ("pangolin" and "emptyimp", "zebra" and "x") are further alike by
# chance than the reference sentences show (z 2.7-3.3), and such a memory was listed first for
# any rare word: between them a match by meaning alone needs z ≥ SHORT_PAIR_MIN_Z on the
# query's side (kin words stand at 4.2-11.7: "allergy" and "peanuts", "dog" and "puppy";
# docs/search.md).
SHORT_TEXT_WORDS = 2
SHORT_PAIR_MIN_Z = 3.5


# What text relevance counts for when every matched word is in most of the store: a little,
# so that it still orders what meaning does not, below every match by meaning.
WORDS_SAY_LITTLE = 0.001
CROWD = 5  # ... and in at least this many memories
# The best text matches whose words show how the store writes a respelled word.
RESPELLED_READ = 10


class SearchService:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def search(
        self,
        query: str | None = None,
        tags: Sequence[str] | None = None,
        status: Sequence[Status | str] | Status | str | None = None,
        window_days: float | None = None,
        min_score: float | None = None,
        limit: int = 10,
    ) -> list[SearchHit]:
        """Does not reinforce: searching is not using. Use touch/observe for that."""
        self.ctx.links_ready()  # news saved a moment ago is above what it replaced
        with blas_on_one_thread():  # its small products gain nothing from a second core
            return self._search(query, tags, status, window_days, min_score, limit)

    def _search(
        self,
        query: str | None,
        tags: Sequence[str] | None,
        status: Sequence[Status | str] | Status | str | None,
        window_days: float | None,
        min_score: float | None,
        limit: int,
    ) -> list[SearchHit]:
        text = check.query(query)
        limit = check.limit(limit)
        window = check.positive(window_days, "window_days")
        floor = check.non_negative(min_score, "min_score")
        now = self.ctx.now_epoch()
        where = Filter(
            statuses=check.statuses(status),
            tags=check.tags(tags),
            used_since=None if window is None else now - window * DAY,
        )
        text = worded_query(text)
        if text is not None and not any(ch.isalnum() for ch in text):
            # Punctuation alone ('"', "!!!", "-") holds no word to match and no meaning: the
            # model still embedded it, and it "matched" a memory at rank 1 by chance, where
            # "?" found nothing.
            return []
        # Meaning is searched unless the model is still loading in the background (a server
        # that just started): then the text alone answers now, and the hits say so.
        by_meaning = not self.ctx.warm_up.running
        loading = text is not None and not by_meaning and self.ctx.embedder is not None
        note = MODEL_LOADING if loading else None
        pool = max(self.ctx.settings.search_candidates, limit * 4)
        # Vectors and texts read while matching: later steps and diversity do not read them again.
        semantic = self.ctx.semantic
        seen = SearchReads(self.ctx.store, semantic.model_id if semantic is not None else None)
        spelled: dict[str, list[str]] = {}  # its words read as others (`respelled`)

        def find() -> tuple[list[tuple[Stub, Candidate]], bool]:
            if text:
                return self._match(text, where, limit, pool, by_meaning, seen, spelled)
            # The most durable and the most recently used (`Store.browse`), ranked by their score
            # now; a floor widens the browse too (min_score 0.5 found nothing where one memory
            # scored 1.0 behind 250 strong old ones).
            browsed = self._browse(where, pool)
            return browsed, len(browsed) >= pool

        found, full = find()
        if text and loading and not found:
            # Nothing shares a word with the query: only meaning can find something, and an
            # empty answer carries no `why` to say it was not searched (an assistant would
            # tell the user nothing is remembered). Worth waiting for the model, briefly.
            self.ctx.warm_up.wait(WARM_UP_WAIT)
            if not self.ctx.warm_up.running:
                note, by_meaning = None, True
                found, full = find()
        candidates = self._with_decay(found, now)
        while floor is not None:
            candidates = [c for c in candidates if c.score >= floor]
            if len(candidates) >= limit or not full or pool >= FLOOR_POOL:
                break
            # The floor left fewer than `limit` of a full pool of text matches: those ranked
            # below it may pass (100 fresh matches were missed behind 300 faded ones). Bounded:
            # unbounded, the whole store was scored for a floor nothing passes.
            pool *= 4
            found, full = find()
            candidates = self._with_decay(found, now)
        settings = self.ctx.settings
        ranked = rank(
            candidates,
            limit,
            decay_weight=settings.search_decay_weight,
            # Review slots are for fading memories a query is about; a browse has no query and
            # lists by score (a weak fading memory was put among the first).
            review_ratio=settings.review_blend_ratio if text else 0.0,
            diversity=settings.search_diversity,
            vectors=self._diversity_vectors(candidates, limit, seen) if text else None,
            distinct=_saying_otherwise(seen),
        )
        note = "; ".join(n for n in (note, respelling_said(spelled)) if n) or None
        memories = {m.id: m for m in self.ctx.store.get_many([r.id for r in ranked])}
        return [
            SearchHit(
                memory=memories[r.id],
                score=r.why.decay,
                rank=r.why.rank,
                reason=r.reason,
                why=r.why if note is None else r.why.model_copy(update={"note": note}),
            )
            for r in ranked
            if r.id in memories  # deleted by another client between the two phases
        ]

    def _browse(self, where: Filter, pool: int) -> list[tuple[Stub, Candidate]]:
        """Every memory equally relevant (no text matched: `why.text` 0), decay orders them."""
        found = self.ctx.store.browse(where, pool)
        return [(s, Candidate(s.id, 1.0, 0.0, 0.0, text=0.0)) for s in found]

    def warm_up(self) -> None:
        """Load what the first search needs — the model, the vector index, the reference
        vectors — so that search does not pay for them (`Context.warm_up` runs this in the
        background)."""
        if self.ctx.semantic is None:
            return
        start = time.perf_counter()
        vector = self.query_vector("warming up")
        if vector is not None:
            self.ctx.calibration(vector, "warming up")
            self.ctx.store.vector_search(vector, Filter(), 1)
        log.info("ready to search by meaning (warmed up in %.2f s)", time.perf_counter() - start)

    def warm_up_in_background(self) -> None:
        self.ctx.warm_up.start(self.warm_up)

    def _match(
        self,
        text: str,
        where: Filter,
        limit: int,
        pool: int,
        by_meaning: bool,
        seen: SearchReads,
        spelled: dict[str, list[str]],
    ) -> tuple[list[tuple[Stub, Candidate]], bool]:
        """The candidates, and whether the text matches filled the pool (there may be more);
        the vectors it reads are kept in `seen`, the words it read as others added to
        `spelled`."""
        settings = self.ctx.settings
        spans = named_day_spans(self.ctx, text)
        told = anchored_spans(self.ctx, text, self._told_in)
        if told is not None:  # "…a month before moving to the Pearl?": its days, its question
            spans, text = told
        worded, meant, first_person, dates_only, own = asked(self.ctx.store, text, bool(spans))
        k = max(settings.search_vector_candidates, limit)
        # Meaning (the query's embedding, the vector index) is searched on another core while
        # the words are read and the text index is searched on this one (docs/performance.md,
        # "Searching on two cores").
        by_vector = (
            # A query naming the user is asked in the first person: by the name, every note
            # naming them came first by meaning too
            self.ctx.ahead(lambda: self._neighbours(first_person or meant, where, k))
            if by_meaning and not dates_only and self._searches_meaning()
            else None
        )
        typed = [] if dates_only else query_terms(worded)
        terms = with_respellings(self.ctx, with_word_forms(typed, STOPWORDS), typed, spelled)
        if spans:
            terms += day_phrases(text, self.ctx.local_now().date())
        lexical = self.ctx.store.text_search(terms, where, pool) if terms else []
        near = by_vector.result() if by_vector is not None else NO_NEIGHBOURS
        if spelled and by_vector is not None:
            # Meant as respelled: "my dauhgter's freind" by meaning, as typed, put a chat's
            # turns about a brother before the one memory of the daughter's friend, found by
            # its words (a helper's probe); "my daughter's friend" finds it first.
            best = [s.id for s in lexical[:RESPELLED_READ]]
            texts = seen.texts(best)
            respelled = respelled_text(
                first_person or meant, spelled, (texts[i].content for i in best if i in texts)
            )
            if respelled is not None:
                near = self._neighbours(respelled, where, k)
        seen.add(near.rows)  # read by the vector search: not read again below
        speakers = Speakers(self.ctx.store, text, seen.texts)
        share = settings.search_other_speakers_share
        as_them = (
            speakers.asked_as_them(first_person or meant, lexical)
            if lexical and share < 1
            else None
        )
        if by_vector is not None and as_them is not None and as_them != (first_person or meant):
            # "What are Fahim's hobbies?" as "What are my hobbies?"; a question the user asks
            # in the first person is asked so already
            asked_so = self.ctx.ahead(lambda: self._neighbours(as_them, where, k))
            speakers.theirs(near.stubs)  # their labels read meanwhile
            near = theirs_as_them(near, asked_so.result(), speakers)
        # Judged after the labels are read, and by the query as the speaker named would ask
        # it: by the name every turn of theirs was like the query, and the other speaker's
        # chance matches told that there were two (docs/search.md, section 1b).
        if near.probes and len(typed) > 1 and lexical:  # the best matched by a word alone
            probe = near.probes[0]
            lexical = without_chance_matches(lexical, terms, probe, seen, 4 * limit)
        shared = {s.id for s in lexical}
        near = self._without_short_pairs(near, meant, shared, seen)
        semantic, z_scores = self._standing_alone(near, shared, seen)
        semantic, z_scores = of_others_left_out(text, semantic, z_scores, shared, seen)
        calibration = near.calibration
        stubs = {s.id: s for s in semantic} | {s.id: s for s in lexical}

        # Words found in most of the store match many memories alike, and normalised by
        # the best of them each was a full text match (a probe's "work" tag on every work
        # memory put them all above the one that answers by meaning).
        text_scale = WORDS_SAY_LITTLE if len(lexical) >= CROWD and self._say_little(terms) else 1.0
        # The words, the query's and the expansion's, count for as much of the query's words
        # as its best text matches hold: the rest is left to meaning (`search_coverage`).
        covered = 1.0
        if calibration is not None and settings.search_text_coverage > 0:
            held = text_coverage(self.ctx.store, text, terms, lexical, spelled)
            covered = held**settings.search_text_coverage
        text_scale *= covered
        expansion_weight = settings.search_expansion_weight * covered

        def fused_with(expanded: Sequence[Stub] = ()) -> dict[str, Fused]:
            return fuse_matches(
                {s.id: s.relevance for s in lexical},
                {s.id: s.relevance for s in semantic},
                calibration,
                settings.search_semantic_weight,
                settings.search_semantic_min_z,
                {s.id: s.relevance for s in expanded},
                expansion_weight,
                z_scores,
                text_scale,
            )

        fused = fused_with()
        # As many expansion matches as vector neighbours: the best of them are what moves a
        # ranking (200 found no more than 50 on the conversational sets, docs/search.md). Not
        # while the model loads: that search answers fast from the text and says so, and its
        # expansion (cold index pages to count in) made the first search after a server's
        # start a third slower (bench/mcp_latency.py).
        expanded = (
            expansion_matches(self.ctx, fused, z_scores, [*terms, *own], where, k, seen)
            if by_meaning
            else []
        )
        if expanded:
            stubs = {s.id: s for s in expanded} | stubs
            fused = fused_with(expanded)
        credit = context_credit(self.ctx, fused, seen)
        best_z = max([*z_scores.values(), *near.z.values()], default=1.0)
        if credit and not dates_only:  # a reply next to a match: less meaning needed
            fused |= meant_near_matches(self.ctx, list(credit), near.probes, fused, best_z, seen)
        stubs |= self._stubs_for([i for i in credit if i not in stubs], where)
        days = named_days_found(self.ctx, spans, where, pool)
        saved_then = days.stubs
        stubs = saved_then | stubs
        if saved_then and near.probes and not dates_only:  # "…my training in late May?"
            alone = [
                i
                for i, stub in saved_then.items()
                if i not in fused and i not in credit and days.on_the_day(stub)
            ]
            weight = settings.search_semantic_weight
            fused |= meant_on_the_day(self.ctx, alone, near.probes[0], best_z, weight)
        lift = 1.0 + settings.search_date_weight
        out: list[tuple[Stub, Candidate]] = []
        for ident, stub in stubs.items():
            f = fused.get(ident)
            extra = credit.get(ident)
            if f is None and extra is None and ident not in saved_then:
                continue
            direct = f.relevance if f is not None else 0.0
            if ident in saved_then and (dates_only or (f is None and extra is None)):
                # Those saved on the day itself first: "what did we decide yesterday?" listed
                # today's memories (in the slack, and fresher) before yesterday's (audit).
                on_the_day = days.on_the_day(stub)
                base = SAVED_THEN_ASKED if dates_only else SAVED_THEN_ONLY
                direct = max(direct, base * (1.0 if on_the_day else SLACK_SHARE))
            day = days.day(stub)
            candidate = Candidate(
                ident,
                (direct + (extra or 0.0)) * (lift if day is not None else 1.0),
                0.0,
                0.0,
                f.text if f is not None else 0.0,
                f.cosine if f is not None else None,
                extra,
                f.expansion if f is not None and f.expansion > 0 else None,
                day,
            )
            out.append((stub, candidate))
        # a query naming the user asks of the user: "Where does Marco work?" as "…I work?"
        rules = text_rules(first_person or text, settings)
        out = words_first(self.ctx, text, weighed_by_what_they_say(seen, out, 4 * limit, rules))
        if near.probes and asks_for_a_suggestion(text):  # "Any ideas for dinner?": tastes
            out = tastes_first(self.ctx, out, near.probes, best_z, seen)
        if share < 1:  # a transcript's speaker named: their own turns first
            out = speakers.named_first(out, share)
        if settings.search_context_weight > 0:  # credit along relations, as context is
            out = successors_found(
                self.ctx.store,
                out,
                lambda i: self._stubs_for(list(i), where),
                lambda i: {k: t.content for k, t in seen.texts(i).items()},
                settings.search_decay_weight,
            )
        if asks_about_the_present(text) and settings.search_present_weight > 0:
            vectors = self._top_vectors([c for _, c in out], limit, seen)
            out = as_of_now_found(
                self.ctx.store, out, vectors or {}, settings.search_present_weight
            )
        return out, len(lexical) >= pool

    def _told_in(self, event: str) -> Memory | None:
        """The memory telling `event` (`event_told`) of the best sharing a word with it: "the
        Berlin conference" of a store without one was the Atlas launch by a faint meaning."""
        hits = self._search(event, None, None, None, None, EVENT_CANDIDATES)
        return event_told([h.memory for h in hits if h.why.text], self.ctx.local_now().tzinfo)

    def _say_little(self, terms: Sequence[str]) -> bool:
        """Whether every query word the store holds is in more than half of its memories, in
        several (one memory of one is no crowd) but not in all (then no memory could be
        buried by them); counted up to `RARITY_COUNTED_TO`, so in a larger store a word is
        never known to be."""
        store = self.ctx.store
        if store.term_counts(terms, 1).total > 2 * RARITY_COUNTED_TO:
            return False  # never known to be in half of it: not counted (a search paid 5 %)
        found = store.term_counts(terms, RARITY_COUNTED_TO)
        held = [n for n in found.counts.values() if n > 0]
        return bool(held) and all(found.total > n >= CROWD and 2 * n > found.total for n in held)

    def _stubs_for(self, ids: list[str], where: Filter) -> dict[str, Stub]:
        """Stubs of memories reached through context, if they pass the search's filter."""
        return {s.id: s for s in self.ctx.store.stubs(ids, where)} if ids else {}

    def _diversity_vectors(
        self, candidates: Sequence[Candidate], limit: int, seen: SearchReads
    ) -> dict[str, NDArray[np.float32]] | None:
        if self.ctx.settings.search_diversity <= 0:
            return None
        return self._top_vectors(candidates, limit, seen)

    def _top_vectors(
        self, candidates: Sequence[Candidate], limit: int, seen: SearchReads
    ) -> dict[str, NDArray[np.float32]] | None:
        """The whole-text vectors of the best 4 × `limit` candidates (None without meaning)."""
        if self.ctx.embedder is None or self.ctx.semantic is None:
            return None
        return seen.whole(c.id for c in sorted(candidates, key=lambda c: -c.relevance)[: 4 * limit])

    def _searches_meaning(self) -> bool:
        return self.ctx.semantic is not None

    def _neighbours(self, text: str, where: Filter, k: int) -> Neighbours:
        """Vector neighbours of the query (their relevance a cosine), what unrelated text looks
        like for it, each neighbour's z: against the query, or against one sentence of a query
        of several less SENTENCE_PROBE_SHRINK, whichever is higher; and the probes searched."""
        if not self._searches_meaning():
            return NO_NEIGHBOURS
        sentences = probe_sentences(text)
        unnamed = None if sentences else without_names(text)
        asked = [text, *sentences, *filter(None, [unnamed])]
        vector, *others = self.ctx.text_vectors(asked)
        unnamed_vector = others.pop() if unnamed else None
        # A query mostly in a script the model cannot read may hold a sentence it can (Amharic,
        # then "By the way, we adopted a puppy"): that sentence is searched all the same.
        base = vector if vector is not None else next((p for p in others if p is not None), None)
        calibration = self.ctx.calibration(base, text) if base is not None else None
        # The memories saved a moment ago have their vectors, whether or not the query has a
        # meaning: context credit reads them to tell related neighbours (a query of unknown
        # words, "neovim", passed credit to every fact saved beside its match).
        self.ctx.vectors_ready()
        if base is None or calibration is None:
            return NO_NEIGHBOURS
        probes = [Probe(vector, calibration, 0.0)] if vector is not None else []
        for other, said in zip(others, asked[1:], strict=False):
            other_calibration = self.ctx.calibration(other, said) if other is not None else None
            if other is not None and other_calibration is not None:
                probes.append(Probe(other, other_calibration, SENTENCE_PROBE_SHRINK))
        found: dict[str, Stub] = {}
        z: dict[str, float] = {}
        rows: dict[str, NDArray[np.float32]] = {}
        for probe in probes:
            for stub in self.ctx.store.vector_search(probe.vector, where, k, rows):
                score = probe.calibration.z(stub.relevance) - probe.shrink
                if score > z.get(stub.id, -np.inf):
                    z[stub.id], found[stub.id] = score, stub  # its cosine: with that probe
        if unnamed_vector is not None:
            shrink = SENTENCE_PROBE_SHRINK
            turns_meant(self.ctx, unnamed_vector, shrink, where, k, rows, found, z, unnamed or "")
        floor = self.ctx.min_cosine(text)
        if floor > 0:
            z = {i: zi for i, zi in z.items() if found[i].relevance >= floor}
            found = {i: found[i] for i in z}
        return Neighbours(found, calibration, z, probes, rows)

    def _without_short_pairs(
        self, near: Neighbours, text: str, shared: set[str], seen: SearchReads
    ) -> Neighbours:
        """`near` less the short memories that would match a short query by meaning alone
        without standing SHORT_PAIR_MIN_Z above unrelated text."""
        min_z = self.ctx.settings.search_semantic_min_z
        if len(words(text)) > SHORT_TEXT_WORDS:
            return near
        weak = [i for i, z in near.z.items() if i not in shared and min_z <= z < SHORT_PAIR_MIN_Z]
        texts = seen.texts(weak)
        short = {i for i, t in texts.items() if len(words(t.content)) <= SHORT_TEXT_WORDS}
        if not short:
            return near
        return near._replace(
            stubs={k: v for k, v in near.stubs.items() if k not in short},
            z={k: v for k, v in near.z.items() if k not in short},
        )

    def _standing_alone(
        self, near: Neighbours, shared: set[str], seen: SearchReads
    ) -> tuple[list[Stub], dict[str, float]]:
        """The neighbours and their z, less those that would match by meaning alone but do not
        stand out for themselves (`judge_alone`), judged on their vectors read into `seen`."""

        def read(ids: list[str], model_id: str) -> dict[str, NDArray[np.float32]]:
            return seen.rows(ids)  # of the model `seen` reads: the search's embedder's

        seen.add(near.rows)  # the search as the named speaker's too (`theirs_as_them`)

        alone, matches = self.judge_alone(near.z, shared, read, near.probes)
        stubs, z = dict(near.stubs), dict(near.z)
        for ident in alone:
            match = matches.get(ident)
            if match is None:
                del stubs[ident], z[ident]
            else:
                z[ident] = match.z
                stubs[ident] = stubs[ident]._replace(relevance=match.cosine)
        return list(stubs.values()), z

    def judge_alone(
        self,
        z: Mapping[K, float],
        shared: Collection[K],
        read: Callable[[list[K], str], Mapping[K, NDArray[np.float32]]],
        probes: Sequence[Probe],
    ) -> tuple[list[K], dict[K, MeaningMatch]]:
        """Of the matches by meaning (`z`: each one's z for the query), those that would match
        by meaning alone — at the floor or above, sharing no word with the query (`shared`) —
        and the matches among them that stand out for themselves too (`engram.core.meaning`),
        judged on the vectors `read(keys, model_id)` returns (a row each, or several). One
        rule for memories and vault notes; a match that shares a word needs only the query's
        side."""
        embedder = self.ctx.embedder
        min_z = self.ctx.settings.search_semantic_min_z
        alone = [key for key, zk in z.items() if zk >= min_z and key not in shared]
        if not alone or embedder is None:
            return [], {}
        rows = read(alone, embedder.model_id)
        return alone, meaning_matches(rows, probes, background(embedder), min_z)

    def query_vector(self, text: str) -> NDArray[np.float32] | None:
        return self.ctx.text_vector(text)

    def _with_decay(self, found: list[tuple[Stub, Candidate]], now: float) -> list[Candidate]:
        if not found:
            return []
        scores = self.ctx.scores([s for s, _ in found], now)
        prios = review_priority(self.ctx.policy, scores).tolist()
        # Built whole, not by `_replace`: its keyword lookups were most of this step.
        return [
            Candidate(
                c.id, c.relevance, score, prio if stub.status == Status.ACTIVE else 0.0, *c[4:]
            )
            for (stub, c), score, prio in zip(found, scores.tolist(), prios, strict=True)
        ]


def _saying_otherwise(seen: SearchReads) -> Callable[[str, str], bool]:
    """Whether two memories alike as near-copies say different things all the same (other
    numbers, a "not", `core.disagreement`), their texts read through `seen`: such a pair is no
    copy for diversity to put last."""

    def distinct(a: str, b: str) -> bool:
        said = seen.texts((a, b))
        return disagreement([said[i].content if i in said else "" for i in (a, b)]) is not None

    return distinct
