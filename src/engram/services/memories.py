"""Saving, reading, editing and reinforcing memories."""

from __future__ import annotations

import logging
from collections.abc import Callable, Container, Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from typing import Any

from engram.core import reinforce
from engram.core.episodes import a_turn
from engram.core.keeping import may_be_news, replaces_a_fact
from engram.core.merge import MARK, merge_originals
from engram.core.models import (
    KEEP,
    MAX_STRENGTH,
    Memory,
    Schedule,
    Status,
    is_kept,
    new_id,
)
from engram.core.scoring import memory_score, review_priority, score
from engram.core.short_ids import MIN_PREFIX, PREFIX_PAGE, abbreviable
from engram.core.timeutil import to_epoch
from engram.core.wording import counted
from engram.errors import DamagedStoreError, NotFoundError, ValidationError
from engram.services import merged_use, repeats, save_report
from engram.services import validation as check
from engram.services.context import Context
from engram.services.drafts import Draft, checked_fields
from engram.services.enrichment import enrich, merged_names, reenriched
from engram.services.episodes import in_episode_order, with_implicit_episodes
from engram.services.results import (
    DeleteResult,
    Enrichment,
    ObserveResult,
    OpenResult,
    SaveResult,
    TouchResult,
)

log = logging.getLogger(__name__)


class MemoryService:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        # Called with (before, after) when an update changed a memory: a promoted memory's
        # note follows it (`PromotionService.sync_note`, wired by the App).
        self.on_update: Callable[[Memory, Memory], None] | None = None
        self.on_supersede: Callable[[Memory, list[str]], None] | None = None  # news, replaced

    # -- create / read ------------------------------------------------------------------------

    def save(self, draft: Draft, *, report_similar: bool = True) -> SaveResult:
        """One memory; a repeat of a stored one (the same words in the same order, any case or
        punctuation between them) is merged into it, counted as a use of it, or saved as a copy, by
        ENGRAM_SAVE_DUPLICATES. A draft with its own id (an import) is always saved.

        `report_similar=False` is for a caller that drops the similar report: the report embeds
        the new text before the save returns, which is most of a save's time with embeddings on
        (docs/performance.md); without it the vector is computed after the acknowledgement,
        unless the text says outright that a fact was replaced (`core.keeping.replaces_a_fact`),
        which is compared all the same for the fact it supersedes; a text that may otherwise say
        a fact changed (`core.keeping.may_be_news`) is compared just after the save returns
        (`engram.services.news_links`)."""
        mode = self.ctx.settings.save_duplicates
        built, added = self._enriched(self._build(draft, self.ctx.now(), index=None), draft)
        # The new text is embedded and its near memories found (the similar report) while the
        # repeat check and the write run: the save then costs about the longer of the two, not
        # their sum (bench/scale.py --embeddings: the search after the write added 1-2 ms).
        # Without the report, what says outright that a fact was replaced ("switched",
        # "renamed", "no longer") still supersedes it: `Engram.save` linked none, and the
        # outdated fact ranked first (a probe). Only such a text waits for its vector: chat
        # says "now" and "actually" of anything, and waiting for every one of them took a
        # save's p50 from 1.7 to 3.1 ms on REALTALK's turns (bench/save_latency.py). What may
        # otherwise be news ("full day now £2800") is linked just after the save returns.
        # A save given its time replays history (a transcript saved turn by turn), and so does
        # a chat's turn saved now ("Lena: i got it!!", an adapter replaying one without its
        # times): without an episode it joins one by that time, as a batch does. A note saved
        # now does not (`core.episodes.a_turn`).
        by_time = draft.created_at is not None or a_turn(built.content)
        news = report_similar or replaces_a_fact(built.content)
        near = (
            self.ctx.ahead(lambda: save_report.near(self.ctx, built.content))
            if news and save_report.reports_similar(self.ctx, draft.id is not None)
            else None
        )
        if draft.id is not None:  # its own id (an import): new, as `save_many` checks it
            with self.ctx.store.exclusive("save", wait=True):
                self._check_new_ids([draft], [built])
                (memory,) = self._write([built], by_time=by_time)
        elif mode != "keep":
            # Looking for a stored copy and writing must be one step across clients: two
            # servers saving the same words at once both found none and both wrote one.
            with self.ctx.store.exclusive("save", wait=True):
                for _ in range(merged_use.ATTEMPTS):  # again if merged away meanwhile
                    repeat = self.repeat_of(built.content)
                    if repeat is None:
                        break
                    dated = draft.created_at is not None or draft.last_used is not None
                    try:
                        result = self._absorb(repeat, built, mode == "merge", dated)
                    except merged_use.Moved:
                        continue
                    # said again after the news that replaced it: it holds again
                    again = [] if dated else save_report.said_again(self.ctx, result.memory)
                    return result.model_copy(update={"enrichment": added, "supersedes": again})
                (memory,) = self._write([built], queue_vectors=near is None, by_time=by_time)
        else:
            (memory,) = self._write([built], queue_vectors=near is None, by_time=by_time)
        if near is None:
            if may_be_news(memory.content) and save_report.reports_similar(self.ctx, False):
                self.ctx.news.submit(lambda later: self._link_news(memory, later))
            return SaveResult(memory=memory, action="saved", enrichment=added)
        try:
            found = near.result()  # before queueing: the background worker reuses the vector
        except DamagedStoreError as exc:
            # Found while the memory was written: said as the error it is, not as a traceback
            # in the log before "Saved" (a probe), and no vector is queued for a damaged file.
            raise DamagedStoreError(
                f"{exc} (the memory {memory.id} was written just before the damage was found)"
            ) from exc
        except Exception:  # the memory is saved: its vector is computed again in the queue
            log.exception("embedding the new memory for its similar report failed")
            found = []
        self.ctx.embed_later([(memory.id, memory.content)])
        similar = save_report.similar_report(self.ctx, found, memory.id)
        replaced = save_report.supersede(self.ctx, memory, similar)
        if replaced and self.on_supersede is not None:  # a promoted fact's note says so
            self.on_supersede(memory, replaced)
        memory = self._kept_as_the_fact_it_replaces(memory, replaced)
        return SaveResult(
            memory=memory, action="saved", enrichment=added, similar=similar, supersedes=replaced
        )

    def _link_news(self, memory: Memory, later: Container[str]) -> None:
        """`save`'s supersede links for news saved without its report, on the linking thread
        (a tenth blind probe's "raised prices for 2026: full day now £2800" ranked below the
        £2400 it replaced), to what was stored before it (not `later`). Gone by then
        (deleted, merged), it links nothing."""
        if not self.ctx.store.get_many([memory.id]):
            return
        similar = save_report.similar_report(
            self.ctx, save_report.near(self.ctx, memory.content), memory.id
        )
        replaced = save_report.supersede(self.ctx, memory, similar, later)
        if replaced and self.on_supersede is not None:
            self.on_supersede(memory, replaced)
        self._kept_as_the_fact_it_replaces(memory, replaced)

    def _kept_as_the_fact_it_replaces(self, news: Memory, replaced: Sequence[str]) -> Memory:
        """News of a fact kept for good is kept too: "New passport expires 2036" matters as
        the expiry it replaces did. The old fact keeps its mark (a wrong supersede link must
        not let a vital fact be forgotten); taking it off is the caller's to do."""
        if not replaced or is_kept(news.meta):
            return news
        if not any(is_kept(m.meta) for m in self.ctx.store.get_many(list(replaced))):
            return news
        try:
            return self.keep([news.id])[0]
        except NotFoundError:  # deleted meanwhile by another client
            return news

    def _enriched(self, built: Memory, draft: Draft) -> tuple[Memory, Enrichment | None]:
        """With enrichment on, a new memory (not an import, which keeps its record) takes the
        names in its text as entities and, unless given, a strength from its wording, and is
        kept for good where its words name a fact wanted for good (ENGRAM_KEEP_VITAL) and the
        draft does not say `keep` itself."""
        settings = self.ctx.settings
        if not settings.enrich_on_save or draft.id is not None:
            return built, None
        given = None if draft.strength is None else built.strength  # as checked
        judge_keep = settings.keep_vital and draft.keep is None and KEEP not in draft.meta
        added = enrich(built.content, built.entities, given, judge_keep)
        update: dict[str, Any] = {
            "entities": check.entities(added.all_entities),
            "strength": added.strength,
        }
        if added.kept_for is not None:
            update["meta"] = check.kept_for_good(built.meta, True)
        return built.model_copy(update=update), added

    def repeat_of(self, content: str) -> Memory | None:
        """The stored memory `content` repeats, if any (`services.repeats`)."""
        return repeats.repeat_of(self.ctx, content)

    def _absorb(
        self, existing: Memory, draft: Memory, merge_labels: bool, dated: bool = False
    ) -> SaveResult:
        """Saving it again is a use of it; merging, nothing the caller said is lost: it takes
        the new tags (refused past the limit, not cut), entities (as many as fit: most are
        names found in the text), meta keys (a key given again takes the new value), and a
        source or context where the stored memory had none. A `dated` repeat (the caller gave
        its times: an import) was used when it says, not now; one created at the same moment
        as the stored memory is that record imported again, and counts no use: re-running an
        import of a 200-day-old memory made it fresh, and promotion took it."""
        now = self.ctx.now()
        used = draft.last_used if dated else now
        same_record = dated and draft.created_at == existing.created_at
        policy, rules = self.ctx.policy, self.ctx.rules

        def change(old: Memory) -> tuple[Memory, Schedule]:
            if merge_labels:
                tags = merged_names(old.tags, draft.tags)
                if len(tags) > check.MAX_TAGS:
                    raise ValidationError(
                        "tags",
                        f"merged into the memory it repeats ({old.id}), they would be "
                        f"{len(tags)}; the limit is {check.MAX_TAGS}",
                    )
                old = old.model_copy(
                    update={
                        "tags": check.tags(tags),
                        "entities": check.entities(
                            merged_names(old.entities, draft.entities)[: check.MAX_ENTITIES]
                        ),
                        "meta": check.meta({**old.meta, **draft.meta}) if draft.meta else old.meta,
                        "source": old.source or draft.source,
                        "context": old.context or draft.context,
                        "strength": min(MAX_STRENGTH, max(old.strength, draft.strength)),
                    }
                )
            if is_kept(draft.meta) and not is_kept(old.meta):  # said again to be kept
                old = old.model_copy(update={"meta": check.kept_for_good(old.meta, True)})
            if same_record:
                return self.ctx.scheduled(old)
            return self.ctx.scheduled(reinforce.touch(policy, rules, old, used, False))

        live = {existing.id} if existing.status != Status.ARCHIVED else set()
        try:
            with self._note_follows(existing) if merge_labels else nullcontext():
                ((before, new),) = self.ctx.store.modify(
                    [existing.id], merged_use.live_guard(change, live)
                )
                if merge_labels and self.on_update is not None:  # its note follows
                    self.on_update(before, new)
        except NotFoundError:  # deleted meanwhile by another client: save it after all
            return SaveResult(memory=self._write([draft])[0], action="saved")
        action = "merged" if merge_labels else "reinforced"
        return SaveResult(memory=new, action=action, duplicate_of=existing.id)

    def save_many(self, drafts: Sequence[Draft], *, by_time: bool = True) -> list[Memory]:
        """Validate (and enrich, as `save` does) everything first, then write all in one
        transaction. Those without an episode join one by the time they were saved
        (`services.episodes`: a transcript saved in one call is a conversation), unless not
        `by_time` (notes imported from a vault were not said in one). A single note saved now
        is left without one: unrelated facts saved a minute apart passed each other context
        credit."""
        now = self.ctx.now()
        drafts = check.sequence(drafts, "drafts")
        built = [self._enriched(self._build(d, now, index=i), d)[0] for i, d in enumerate(drafts)]
        if not any(d.id for d in drafts):
            return self._write(built, by_time=by_time)
        # Ids given: checked and written as one step across clients, as a save's look for a
        # stored copy is (two processes saving one id at once: SQLite's own error for one).
        with self.ctx.store.exclusive("save", wait=True):
            self._check_new_ids(drafts, built)
            return self._write(built, by_time=by_time)

    def _check_new_ids(self, drafts: Sequence[Draft], built: Sequence[Memory]) -> None:
        """Ids given by the caller are new, and given once: a taken one failed in the store,
        as SQLite's "UNIQUE constraint failed" on one backend and by name on another."""
        given: dict[str, int] = {}
        for i, (d, m) in enumerate(zip(drafts, built, strict=True)):
            if not d.id:
                continue
            if m.id in given:
                where = f" (item {i})" if i else ""
                raise ValidationError(f"id{where}", f"{m.id!r} is given to item {given[m.id]} too")
            given[m.id] = i
        for m in self.ctx.store.get_many(list(given)) if given else []:
            i = given[m.id]
            where = f" (item {i})" if i else ""
            raise ValidationError(f"id{where}", f"{m.id!r} already exists")

    def _write(
        self, built: list[Memory], queue_vectors: bool = True, by_time: bool = False
    ) -> list[Memory]:
        """Insert validated memories (review priority, episodes, their places and schedules
        computed here) in one transaction, then queue their vectors (unless the caller will).
        `by_time`: those saved without an episode join one by the time they were saved
        (`services.episodes`)."""
        t = self.ctx.now_epoch()
        scores = score(
            self.ctx.policy,
            [m.use_count for m in built],
            [m.strength for m in built],
            [t - to_epoch(m.last_used) for m in built],
        )
        prios = review_priority(self.ctx.policy, scores).tolist()
        memories = [
            m.model_copy(update={"review_priority": p}) if p else m
            for m, p in zip(built, prios, strict=True)
        ]
        if by_time:
            memories = with_implicit_episodes(self.ctx, memories)
        memories = in_episode_order(self.ctx.store, memories)
        self.ctx.news.writing(m.id for m in memories)  # not replaced by news saved before
        self.ctx.store.insert(self.ctx.scheduled_many(memories))
        # Saved first, embedded second (just after this returns, see EmbeddingQueue): a crash in
        # between leaves a memory that text search finds and the next open embeds; never a
        # vector without its memory.
        if queue_vectors:
            self.ctx.embed_later([(m.id, m.content) for m in memories])
        return memories

    def _build(self, d: Draft, now: datetime, index: int | None) -> Memory:
        """`index`: the draft's place in a batch, which errors name (item 0 as well: only the
        others were named, a probe), or None for a single save."""
        where = "" if index is None else f" (item {index})"
        if not isinstance(d, Draft):  # save_many(["text"]): an AttributeError deep inside
            field = "draft" if index is None else f"drafts{where}"
            raise ValidationError(field, f"must be a Draft, not {type(d).__name__}")
        created = (
            check.moment(d.created_at, "created_at" + where) if d.created_at is not None else now
        )
        last = (
            check.moment(d.last_used, "last_used" + where) if d.last_used is not None else created
        )
        check.lifetime(created, last, now, where)
        return Memory(
            id=check.memory_id(d.id, "id" + where) if d.id else new_id(),
            created_at=created,
            last_used=last,
            **checked_fields(d, where),
        )

    def get(self, memory_id: str) -> Memory:
        found = self.ctx.store.get_many([check.memory_id(memory_id)])
        if not found:
            raise NotFoundError("memory", memory_id)
        return found[0]

    def resolve(self, id_or_prefix: str, field: str = "memory_id") -> str:
        """The id a short id stands for, as git resolves an abbreviated hash: the id itself if
        a memory has it, else the one id Engram made (`abbreviable`) starting with it (at least
        MIN_PREFIX characters). For people typing ids; the MCP tools take whole ids only."""
        ident = check.memory_id(id_or_prefix, field)
        if self.ctx.store.get_many([ident]):
            return ident
        if len(ident) < MIN_PREFIX:
            raise NotFoundError("memory", ident, f"a short id needs {MIN_PREFIX} characters")
        found: list[str] = []
        asked = PREFIX_PAGE
        while True:  # past the ids a start cannot stand for, however many
            page = self.ctx.store.ids_with_prefix(ident, asked)
            found = [i for i in page if abbreviable(i)]
            if len(found) >= PREFIX_PAGE or len(page) < asked:
                break
            asked *= 16
        if not found:
            raise NotFoundError("memory", ident)
        if len(found) > 1:
            shown = ", ".join(found[:3]) + (", …" if len(found) > 3 else "")
            raise ValidationError(field, f"{ident} is the start of several ids ({shown})")
        return found[0]

    def get_many(self, memory_ids: Sequence[str]) -> list[Memory]:
        """The memories that exist, in the order asked; missing ids are simply absent."""
        return self.ctx.store.get_many(check.memory_ids(memory_ids))

    def open(self, memory_ids: Sequence[str]) -> OpenResult:
        """`get_many`, and which of the ids matched nothing (each once, in the order asked)."""
        found = self.get_many(memory_ids)
        present = {m.id for m in found}
        missing = [i for i in dict.fromkeys(memory_ids) if i not in present]
        return OpenResult(memories=found, missing=missing)

    def score(self, memory: Memory) -> float:
        if not isinstance(memory, Memory):  # None or an id: an AttributeError from inside
            raise ValidationError("memory", "must be a Memory (as get or save return it)")
        return memory_score(self.ctx.policy, memory, self.ctx.now_epoch())

    # -- edit ---------------------------------------------------------------------------------

    def update(
        self,
        memory_id: str,
        *,
        content: str | None = None,
        tags: Sequence[str] | None = None,
        entities: Sequence[str] | None = None,
        source: str | None = None,
        context: str | None = None,
        meta: dict[str, Any] | None = None,
        strength: float | None = None,
        keep: bool | None = None,
    ) -> Memory:
        """`keep` None leaves the mark of a memory kept for good (`meta.keep`) as it is, even
        where a `meta` without that key replaces the rest; True or False sets or clears it."""
        changes: dict[str, Any] = {}
        if content is not None:
            changes["content"] = check.content(content)
        if tags is not None:
            changes["tags"] = check.tags(tags)
        if entities is not None:
            changes["entities"] = check.entities(entities)
        # None: unchanged; "" or blank: cleared (`engram update --source ""` said "give at
        # least one field to change"); the MCP tool, whose "" means unchanged, passes None.
        for name, given in (("source", source), ("context", context)):
            if given is not None:
                changes[name] = check.short_text(given, name)
        if meta is not None:
            changes["meta"] = check.own_meta(meta)
        if strength is not None:
            changes["strength"] = check.strength(strength)
        if keep is not None:
            keep = check.flag(keep, "keep")
        if not changes and keep is None:
            raise ValidationError("update", "give at least one field to change")
        follow = "content" in changes and entities is None and self.ctx.settings.enrich_on_save

        def change(m: Memory) -> tuple[Memory, Schedule]:
            update = changes
            given = changes.get("meta", {})
            if keep is not None or (is_kept(m.meta) and "meta" in changes and KEEP not in given):
                meta = changes.get("meta", m.meta)
                update = {**update, "meta": check.kept_for_good(meta, keep is not False)}
            if "meta" in changes and MARK in m.meta and MARK not in changes["meta"]:
                # A merged memory's record of its merge is Engram's: without it the merge
                # could never be undone (its originals stayed archived for good).
                update = {**update, "meta": check.with_merge_record(update["meta"], m.meta[MARK])}
            if follow:  # the names found in the text follow the text (enrichment.reenriched)
                found = reenriched(m.entities, m.content, changes["content"])
                update = {**update, "entities": check.entities(found)}
            return self.ctx.scheduled(m.model_copy(update=update))

        ident = check.memory_id(memory_id)
        with self._note_follows(ident):
            ((before, updated),) = self.ctx.store.modify([ident], change)
            if self.on_update is not None:
                self.on_update(before, updated)
        if "content" in changes:  # the store retired the old vector with the old text
            self.ctx.embed_later([(updated.id, updated.content)])
        return updated

    def _note_follows(self, memory: Memory | str) -> AbstractContextManager[None]:
        """A promoted memory's update and its note's rewrite, one step across clients: two
        clients rewrote its note out of order, each taking the other's text for an edit made
        in the vault (a probe: old values kept under #engram-conflict, 5 runs of 6)."""
        if self.on_update is None:
            return nullcontext()
        found = [memory] if isinstance(memory, Memory) else self.ctx.store.get_many([memory])
        if not found or found[0].promoted_to is None:
            return nullcontext()
        return self.ctx.store.exclusive("promoted-note", wait=True)

    def archive(self, memory_ids: Sequence[str]) -> list[Memory]:
        ids = check.memory_ids(memory_ids)
        done = self.ctx.store.modify(
            ids, lambda m: self.ctx.scheduled(m.model_copy(update={"status": Status.ARCHIVED}))
        )
        return [new for _, new in done]

    def keep(self, memory_ids: Sequence[str], keep: bool = True) -> list[Memory]:
        """Mark memories to be kept for good (`keep`), or fading again: gc never forgets a
        kept memory, and it is never offered for review (docs/decay.md). Every id must exist.
        Not a use: its score and counters stay as they are."""
        ids = check.memory_ids(memory_ids)
        keep = check.flag(keep, "keep")

        def change(m: Memory) -> tuple[Memory, Schedule]:
            return self.ctx.scheduled(
                m.model_copy(update={"meta": check.kept_for_good(m.meta, keep)})
            )

        return [new for _, new in self.ctx.store.modify(ids, change)]

    def unarchive(self, memory_ids: Sequence[str]) -> list[Memory]:
        """Archived memories back in search (and in decay's care): active, or promoted if they
        were written to the vault; bringing one back is a use of it (`reinforce.touch`), or a
        memory archived as it faded was deleted for good by the next gc (a probe). Every id
        must exist; one not archived is left as it is. Nothing brought an archived memory
        back but an export edited and imported again."""
        ids = check.memory_ids(memory_ids)
        now = self.ctx.now()
        policy, rules = self.ctx.policy, self.ctx.rules

        def back(m: Memory) -> tuple[Memory, Schedule]:
            if m.status != Status.ARCHIVED:
                return self.ctx.scheduled(m)
            return self.ctx.scheduled(reinforce.touch(policy, rules, m, now, boost=False))

        return [new for _, new in self.ctx.store.modify(ids, back)]

    def delete(self, memory_ids: Sequence[str]) -> list[str]:
        """Delete for good (with their relations); returns the ids that existed."""
        return self.ctx.store.delete(check.memory_ids(memory_ids))

    def remove(self, memory_ids: Sequence[str], archive: bool = False) -> DeleteResult:
        """`delete` (unknown ids skipped) or, with `archive`, `archive` (every id must exist),
        as one result."""
        if archive:
            ids = [m.id for m in self.archive(memory_ids)]
            return DeleteResult(action="archived", count=len(ids), memory_ids=ids)
        ids = check.memory_ids(memory_ids)
        left = self._left_behind(self.ctx.store.get_many(ids))
        deleted = self.delete(ids)
        return DeleteResult(
            action="deleted",
            count=len(deleted),
            memory_ids=deleted,
            left_behind=[line for ident in deleted for line in left.get(ident, [])],
        )

    def left_by_deleting(self, memory_id: str) -> list[str]:
        """What deleting this memory would leave (`remove` says it once done): a page that asks
        "Delete for good?" said nothing of the promoted memory's note that stays."""
        return self._left_behind(self.ctx.store.get_many([memory_id])).get(memory_id, [])

    def _left_behind(self, memories: Sequence[Memory]) -> dict[str, list[str]]:
        """What deleting each memory leaves: its note in the vault (deleting a promoted memory
        said nothing of it), the originals a merge archived (a merged memory deleted, they
        stayed archived out of search, and its undo was gone)."""
        merged = [m.id for m in memories if MARK in m.meta]
        relations = self.ctx.store.relations(merged) if merged else []
        out: dict[str, list[str]] = {}
        for m in memories:
            lines = out.setdefault(m.id, [])
            if m.status == Status.PROMOTED and m.promoted_to:
                lines.append(f"{m.id}: its note {m.promoted_to} stays in the vault")
            originals = merge_originals(m, relations) if m.id in merged else []
            if originals:
                lines.append(
                    f"{m.id}: the {counted(len(originals), 'memory')} it was merged from "
                    f"stay archived (unarchive to bring them back): {', '.join(originals)}"
                )
        return out

    # -- reinforcement ------------------------------------------------------------------------

    def touch(self, memory_id: str, boost: bool = False) -> TouchResult:
        """Atomic read-modify-write: concurrent touches from other processes all count."""
        boost = check.flag(boost, "boost")
        now = self.ctx.now()
        policy, rules = self.ctx.policy, self.ctx.rules

        def change(old: Memory) -> tuple[Memory, Schedule]:
            return self.ctx.scheduled(reinforce.touch(policy, rules, old, now, boost))

        named = check.memory_id(memory_id)
        done, holders = merged_use.use(self.ctx.store, [named], change)
        old, new = done[0]
        t = to_epoch(now)
        return TouchResult(
            memory=new,
            old_score=memory_score(policy, old, t),
            new_score=memory_score(policy, new, t),
            memory_id=new.id,
            use_count=new.use_count,
            strength=new.strength,
            unarchived=old.status == Status.ARCHIVED and new.status != Status.ARCHIVED,
            instead_of=named if named in holders else None,
        )

    def observe(
        self, memory_ids: Sequence[str], context_tags: Sequence[str]
    ) -> list[ObserveResult]:
        ids = check.memory_ids(memory_ids)
        context = check.tags(context_tags, "context_tags")
        now = self.ctx.now()
        policy, rules = self.ctx.policy, self.ctx.rules
        crossed: dict[str, bool] = {}

        def change(old: Memory) -> tuple[Memory, Schedule]:
            new, cross = reinforce.observe(policy, rules, old, now, context)
            crossed[new.id] = cross
            return self.ctx.scheduled(new)

        done, holders = merged_use.use(self.ctx.store, ids, change)
        named: dict[str, list[str]] = {}
        for ident in ids:
            if ident in holders:
                named.setdefault(holders[ident], []).append(ident)
        t = to_epoch(now)
        return [
            ObserveResult(
                memory=new,
                cross_domain=crossed[new.id],
                new_score=memory_score(policy, new, t),
                instead_of=named.get(new.id, []),
            )
            for _, new in done
        ]
