"""What a save finds alike among the stored memories: the similar report (near-copies in other
words, or an older version of the fact) and the fact a save that says something changed
supersedes. Written over `Context`, for `MemoryService.save` (docs/consolidation.md)."""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence

from engram.core.disagreement import disagreement
from engram.core.fact_values import (
    changed_again,
    fact_terms,
    holds_a_part,
    holds_value,
    named_old_value,
    shared_terms,
)
from engram.core.keeping import (
    life_fact_replaced,
    life_fact_words,
    may_be_news,
    replaces_a_fact,
)
from engram.core.life_facts import attributes, same_life_fact, states_now
from engram.core.merge import SUPERSEDES_WHOLE
from engram.core.models import Memory, Relation, Status, new_id
from engram.core.own_name import told_the_other_way
from engram.core.text import query_terms
from engram.core.thing_changed import owned_before_the_sale, thing_sold
from engram.core.value_moves import value_moved
from engram.core.whose import about_other_people
from engram.services.context import Context
from engram.services.results import SimilarMemory
from engram.storage.protocol import Filter, Stub

SIMILAR_REPORTED = 5  # at most this many similar memories in a save result
# A new memory that says something changed is compared down to this similarity: a correction
# and the fact it corrects are less alike than two versions of one fact ("I live in Berlin" /
# "I moved from Berlin to Lisbon" 0.61, coffee / "Actually I prefer tea now" 0.52).
CHANGE_SIMILAR = 0.5
# ...or to where it means the stored memory far more than unrelated text: z against the
# reference sentences, as search calibrates meaning (`core.meaning.Calibration`). "I moved to
# Lisbon last month" / "I live in Berlin" is 0.42 (z 5.2), "I switched to coffee" / "I prefer
# tea over coffee" 0.48 (z 3.9), "I no longer drive, I sold the car" / "I drive a blue Golf"
# 0.38 (z 3.6); the unrelated facts beside them at most z 2.5 (docs/consolidation.md).
CHANGE_MIN_Z = 3.0
# ...but never below this: the least alike a correction stood to its fact in the probes ("I no
# longer drive, I sold the car" / "I drive a blue Golf", 0.38). Code notes are alike to each
# other by their form: a coding assistant's note saying "instead" listed memories at 0.22-0.31
# as saying nearly the same, each at z 3 or more (a probe).
CHANGE_FLOOR = 0.35
# ...and supersedes the most similar of them from this similarity up: a replacement is a
# stronger claim than a report. On the assistant-facts set's eleven changes, the nine replaced
# facts stood at 0.41-0.87, the two memories wrongly taken for them at 0.26 and 0.39 ("Project
# Atlas: migrating the ledger from MySQL to PostgreSQL" -> "Works as a backend engineer").
SUPERSEDE_SIMILAR = 0.4
# ...with the copies of that fact: as close to the news as it, less COPY_MARGIN, from
# COPY_SIMILAR up, saying a word both say. Three ways of saying "I'm vegetarian" (0.77, 0.71
# to "Update: I'm no longer vegetarian…"), Orion's database as planned and as done (0.81,
# 0.76 to "Actually we moved Orion to CockroachDB"). Chat's turns are alike by their speaker's
# label and manner (REALTALK turn by turn: within 0.1 of the best alone, 390 links instead of
# 112; with these bounds 163).
COPY_MARGIN = 0.1
COPY_SIMILAR = 0.6
# A fact that says how something is comes before what happened, from this far below the most
# alike of them up (`facts_replaced`).
STATE_MARGIN = 0.1


def reports_similar(ctx: Context, has_own_id: bool) -> bool:
    """Whether a save looks for similar memories: not an import (its own id), not with the
    threshold 0, not without a model."""
    return not has_own_id and ctx.settings.save_similar_threshold > 0 and ctx.semantic is not None


def near(ctx: Context, text: str) -> list[Stub]:
    """Stored memories at least ENGRAM_SAVE_SIMILAR_THRESHOLD similar to `text` by meaning
    (the best of their vectors: a memory that repeats one sentence of a longer one counts),
    or CHANGE_SIMILAR when the text says something changed; best first. The memories saved
    before it by this process are compared too: their vectors are stored first. Without
    that, an assistant saving three ways of saying one fact in a row was told of none of the
    others (their vectors still queued), and they stayed three copies."""
    # Told of the user the other way too: "I prefer Python…" and the note "User prefers
    # Python…" were 0.87 alike, under the bar for a fact said already, and "I work as a nurse"
    # 0.67 to "User works as a nurse" (a helper's probe); as said the same way, 0.97.
    other = told_the_other_way(text)
    vector, *other_vectors = ctx.text_vectors([text] if other is None else [text, other])
    if vector is None:
        return []
    ctx.vectors_ready()
    threshold = ctx.settings.save_similar_threshold
    changed = may_be_news(text)
    calibration = ctx.calibration(vector, text) if changed else None
    if calibration is not None:
        floor = min(CHANGE_SIMILAR, calibration.mean + CHANGE_MIN_Z * calibration.spread)
        threshold = min(threshold, max(floor, CHANGE_FLOOR))
    live = Filter(statuses=(Status.ACTIVE, Status.PROMOTED))
    best: dict[str, Stub] = {}
    for probe in [vector, *(v for v in other_vectors if v is not None)]:
        for stub in ctx.store.vector_search(probe, live, SIMILAR_REPORTED + 1):
            if stub.id not in best or stub.relevance > best[stub.id].relevance:
                best[stub.id] = stub
    found = sorted(best.values(), key=lambda s: -s.relevance)
    return [s for s in found if s.relevance >= threshold]


def similar_report(ctx: Context, found: list[Stub], own_id: str) -> list[SimilarMemory]:
    """The similar report: the `found` memories but the new one, with their text."""
    found = [s for s in found if s.id != own_id][:SIMILAR_REPORTED]
    memories = {m.id: m for m in ctx.store.get_many([s.id for s in found])}
    return [
        SimilarMemory(id=s.id, content=memories[s.id].content, similarity=round(s.relevance, 4))
        for s in found
        if s.id in memories
    ]


def already_said(ctx: Context, text: str) -> list[SimilarMemory]:
    """The stored memories that say what `text` says, as consolidation would merge them by
    its rules: alike in meaning from ENGRAM_CLUSTER_MERGE_COHESION up, with nothing told apart
    (`core.disagreement`: a negation, a number, a word in place of another), of the same person,
    and no word `text` adds (`fact_terms`: "Peanuts give me a bad allergic reaction" adds how bad,
    which touching the memory would lose); and `text` marks no change. "I am allergic to peanuts."
    of "I'm allergic to peanuts" (0.97). At the save report's bar (0.8) a probe found other
    facts called said already: "My daughter is allergic to peanuts" (0.83), "I'm vegan" of
    "I'm vegetarian", "…every evening" of "…every morning" (0.97, a word in place of another)."""
    if not reports_similar(ctx, False) or may_be_news(text):
        return []
    bar = max(ctx.settings.save_similar_threshold, ctx.settings.cluster_merge_cohesion)
    found = [s for s in similar_report(ctx, near(ctx, text), "") if s.similarity >= bar]
    # A fact news replaced, said again, holds again: a save (it supersedes the news), not a
    # touch of the outdated memory ("I'm vegetarian" after "I'm vegan now": an MCP probe).
    replaced = {
        r.to_id
        for r in ctx.store.relations([s.id for s in found])
        if r.type == "supersedes" and r.to_id in {s.id for s in found}
    }
    return [
        s
        for s in found
        if s.id not in replaced
        and disagreement([text, s.content]) is None
        and not about_other_people(text, s.content)
        and not fact_terms(text) - fact_terms(s.content)  # a word added: a save
    ]


def facts_replaced(text: str, similar: Sequence[SimilarMemory]) -> list[SimilarMemory]:
    """Of the `similar` memories, most similar first, those `text` is news about: from
    `SUPERSEDE_SIMILAR` up, and `replaces_a_fact`."""
    left = named_old_value(text)
    # A change naming the value it left replaces a fact holding that value, or none: not one
    # alike in other ways ("…because of her knee" is 0.56 alike to the knee's news, the
    # badminton fact 0.33; "We switched Atlas CI from Jenkins to GitHub Actions" replaced
    # "Atlas launch date is set for February 2", 0.45, in a probe). Where the value is held by
    # a life fact, the value is the evidence, and any memory the save reports as similar will
    # do: "I left Northwind and joined Contoso" stood at 0.36 to "I work at Northwind as a data
    # engineer" (a CLI probe), and at 0.39 to "Northwind is hosting the team offsite".
    candidates = [
        s
        for s in similar
        if (s.similarity >= SUPERSEDE_SIMILAR and left is None)
        # a thing both name moved to another value, from the floor of news: "bumped Node to 22
        # today" stood at 0.37 to "Node 18 LTS is required" (a thirteenth blind probe's)
        or (s.similarity >= CHANGE_FLOOR and value_moved(text, s.content))
        or (
            left is not None
            and holds_a_part(s.content, left)
            and (s.similarity >= SUPERSEDE_SIMILAR or bool(attributes(s.content)))
        )
    ]
    replaced = [old for old in candidates if replaces_a_fact(text, old.similarity, old.content)]
    # A change replaces how something is, before what happened: "Iris switched to Sunflower
    # Montessori" superseded "Took Iris to the park after preschool", more alike to it than
    # "Iris goes to Little Acorns preschool" (a probe's year of use). Among those about as
    # alike only: "My dentist appointment got pushed to June 12" superseded "My dentist is Dr.
    # Patel" (0.45), not the note it moves, "Dentist appointment on May 28 at 3pm" (0.74),
    # which says no verb (a later probe).
    best = max((old.similarity for old in replaced), default=0.0)
    return sorted(
        replaced,
        key=lambda old: (old.similarity < best - STATE_MARGIN, not states_now(old.content)),
    )


def _alike(ctx: Context, text: str, memories: Sequence[Memory]) -> dict[str, float]:
    """How alike in meaning each of `memories` is to `text` (cosine, by its stored vector);
    those without a vector, or all without a model, left out."""
    embedder = ctx.semantic
    news = ctx.text_vector(text) if memories and embedder is not None else None
    if news is None or embedder is None:
        return {}
    ctx.vectors_ready()  # a memory saved a moment ago has its vector
    vectors = ctx.store.get_vectors([m.id for m in memories], embedder.model_id)
    return {ident: round(float(vector @ news), 4) for ident, vector in vectors.items()}


# The stored statements of a life fact read for the one news replaces, where none is alike
# enough in meaning (`life_facts_replaced`)...
LIFE_FACTS_READ = 20
# ...and how alike in meaning it must be all the same: the changes of a probe stood at
# 0.15-0.20 to their facts; a chat turn naming work in passing ("…not working and now I have
# 3 useless flash drives") at 0.03 to the one it superseded (bench/supersede_chat.py).
LIFE_FACT_MIN_SIMILAR = 0.1


def life_facts_replaced(
    ctx: Context, text: str, own_id: str = "", skip: Container[str] = frozenset()
) -> list[SimilarMemory]:
    """The stored statements of a life fact that `text` says anew, found by the fact's
    words, not by meaning: "I report to Rosa now" and "My manager is Dan Kim" are 0.20 alike,
    "Started a new job at Stripe this week" and "I work at Lumen Health" 0.15, far below any
    bar of meaning, and share no word (`core.keeping.life_fact_words`). The value must be
    swapped for another (`life_fact_replaced`)."""
    words = life_fact_words(text)
    if not words:
        return []
    return _found_by_words(ctx, text, words, life_fact_replaced, own_id, skip)


def things_sold_replaced(
    ctx: Context, text: str, own_id: str = "", skip: Container[str] = frozenset()
) -> list[SimilarMemory]:
    """The stored states of a thing `text` says was sold, found by its words
    (`core.thing_changed.owned_before_the_sale`): "Sold the Camry in September; now uses the
    community shuttle" stands at 0.30 to "Drives a 2015 Toyota Camry", below any bar of
    meaning (a fifteenth blind probe's)."""
    thing = thing_sold(text)
    if thing is None:
        return []
    return _found_by_words(ctx, text, query_terms(thing), owned_before_the_sale, own_id, skip)


def _found_by_words(
    ctx: Context,
    text: str,
    words: Sequence[str],
    replaced_by: Callable[[str, str], bool],
    own_id: str,
    skip: Container[str],
) -> list[SimilarMemory]:
    """The live memories matching `words` that `text` replaces (`replaced_by`), from
    `LIFE_FACT_MIN_SIMILAR` up in meaning, most alike first; not `own_id` nor those in
    `skip`."""
    live = Filter(statuses=(Status.ACTIVE, Status.PROMOTED))
    read = ctx.store.text_search(words, live, LIFE_FACTS_READ)
    found = [s.id for s in read if s.id != own_id and s.id not in skip]
    facts = [m for m in ctx.store.get_many(found) if replaced_by(text, m.content)]
    alike = _alike(ctx, text, facts)
    replaced = [
        SimilarMemory(id=m.id, content=m.content, similarity=alike[m.id])
        for m in facts
        if alike.get(m.id, 0.0) >= LIFE_FACT_MIN_SIMILAR
    ]
    return sorted(replaced, key=lambda old: -old.similarity)


def supersede(
    ctx: Context,
    memory: Memory,
    similar: Sequence[SimilarMemory],
    skip: Container[str] = frozenset(),
) -> list[str]:
    """A save that says something changed ("Correction: Lisa is no longer vegetarian")
    replaces the stored memory most like it that it is news about ("My wife Lisa is
    vegetarian"; `replaces_a_fact`), from `SUPERSEDE_SIMILAR` up, and the copies of that fact
    within `COPY_MARGIN` of it ("I don't eat meat — vegetarian for ten years"): a `supersedes`
    relation each says so, and search lists the news first wherever an old fact matches. A
    helper's probe found every old fact above its correction; and, when only the most
    similar was replaced, the fact's other copies above it. A change naming the value it left
    ("switched from badminton") replaces only one holding that value, where one is alike
    enough.
    The old memories stay: what held before is still a fact. The ids of the memories
    superseded, most similar first; none in `skip` (saved after `memory`)."""
    if not ctx.settings.save_supersedes:
        return []
    left = named_old_value(memory.content)
    similar = [s for s in similar if s.id not in skip]
    replaced = (
        facts_replaced(memory.content, similar)
        or life_facts_replaced(ctx, memory.content, memory.id, skip)
        or things_sold_replaced(ctx, memory.content, memory.id, skip)
    )
    if not replaced:
        return []
    fact = replaced[0]
    floor = max(COPY_SIMILAR, fact.similarity - COPY_MARGIN)
    replaced = [fact] + [
        old
        for old in replaced[1:]
        if (
            old.similarity >= floor
            and shared_terms(memory.content, fact.content, old.content)
            and states_now(old.content) >= states_now(fact.content)  # a copy of a state is one
        )
        # The value left, named, held by another statement of the same life fact: "We moved
        # from Portland to Denver" replaced "We live in the Sellwood neighbourhood of
        # Portland" and left "I live in Portland, Oregon", less alike to it (a probe's year).
        or (
            left is not None
            and states_now(old.content)
            and same_life_fact(memory.content, old.content)
        )
        # ...or told by the last news of a change made again (`changed_again`)
        or changed_again(memory.content, old.content)
        # Another statement of the life fact said anew, with the old value: "I'm vegan now"
        # replaced "I'm vegetarian" (0.76) and left "I don't eat meat, vegetarian for ten
        # years" (0.63, a probe).
        or life_fact_replaced(memory.content, old.content)
    ]
    taken = {memory.id, *(old.id for old in replaced)}  # the fact among them
    replaced += _copies_of(ctx, fact, memory, left, taken)
    replaced += _news_since(ctx, memory, replaced, left)
    replaced = [old for old in replaced if old.id not in skip]  # found by their look-ups too
    for old in replaced:
        # the last news of a change made again is outdated whole, each of its sentences: search
        # lists this in its place for any of them (`search_time.successors_found`)
        whole = {SUPERSEDES_WHOLE: True} if changed_again(memory.content, old.content) else {}
        ctx.store.add_relation(
            Relation(
                id=new_id(),
                from_id=memory.id,
                to_id=old.id,
                type="supersedes",
                strength=min(1.0, max(0.0, old.similarity)),
                metadata=whole,
                # when the news was said: a history imported out of order still ends with its
                # latest news on top (search orders chains by this)
                created_at=memory.created_at,
            )
        )
    return [old.id for old in replaced]


# How far a chain of news is followed (`_news_since`).
CHAIN_MAX = 20


def _news_since(
    ctx: Context, memory: Memory, replaced: Sequence[SimilarMemory], left: str | None
) -> list[SimilarMemory]:
    """The news that already replaced the facts `memory` replaces, and the news of that news,
    still live: a second change replaces the first. "I report to Tom now" was most alike to
    "My boss is Dan" (0.45), and "Rosa is my new boss" (0.41), which had replaced it, stayed
    the current fact (an MCP probe: Tom was not in the top 5 of "Who is my boss now?"). Each
    as alike to `memory` as their vectors say (0 without them)."""
    seen = {memory.id, *(old.id for old in replaced)}
    frontier = [old.id for old in replaced]
    found: list[Memory] = []
    for _ in range(CHAIN_MAX):
        newer = {
            r.from_id
            for r in ctx.store.relations(frontier)
            if r.type == "supersedes" and r.to_id in frontier and r.from_id not in seen
        }
        if not newer:
            break
        live = [m for m in ctx.store.get_many(sorted(newer)) if m.status != Status.ARCHIVED]
        found += live
        seen |= newer
        frontier = [m.id for m in live]
    alike = _alike(ctx, memory.content, found)
    # news of the same fact, not other news of what it names: "Tom Becker moved to the
    # platform team" replaces his being the manager, not "Actually my manager is now Sarah"
    return [
        SimilarMemory(id=m.id, content=m.content, similarity=alike.get(m.id, 0.0))
        for m in found
        if replaces_a_fact(memory.content, alike.get(m.id, 0.0), m.content)
        and (
            same_life_fact(memory.content, m.content)
            or bool(shared_terms(memory.content, m.content))
        )
        # naming the value it left, only news holding that value ("…; leaving Lumen Health")
        and (left is None or holds_value(m.content, left))
    ]


def _copies_of(
    ctx: Context, fact: SimilarMemory, news: Memory, left: str | None, taken: set[str]
) -> list[SimilarMemory]:
    """The stored memories that say the replaced fact in other words, as the save reports a
    repeat (ENGRAM_SAVE_SIMILAR_THRESHOLD alike to the fact), saying a word the fact and the
    news both say (and the value the news says it left, if it names one); not news
    themselves. "Standup for my team happens at 9:30 each morning" is 0.43 alike to "We
    moved standup to 10", under the copies' floor, and stayed unmarked beside its superseded
    twin "Our team standup is at 9:30am every weekday" (a helper's probe)."""
    embedder = ctx.semantic
    threshold = ctx.settings.save_similar_threshold
    if embedder is None or threshold <= 0:
        return []
    stored = ctx.store.get_vectors([fact.id], embedder.model_id)
    if fact.id not in stored:
        return []
    live = Filter(statuses=(Status.ACTIVE, Status.PROMOTED))
    near = ctx.store.vector_search(stored[fact.id], live, SIMILAR_REPORTED + 1)
    alike = [s.id for s in near if s.relevance >= threshold and s.id not in taken]
    copies = [
        m
        for m in ctx.store.get_many(alike)
        if shared_terms(news.content, fact.content, m.content)
        and (left is None or holds_value(m.content, left))
        and not may_be_news(m.content)
        # a copy says the fact's numbers: "Staging database is Postgres 14" is no copy of
        # "Production database is Postgres 15", and was marked replaced by the upgrade of
        # production (a team's probe)
        and disagreement([fact.content, m.content], near_copies=False) is None
    ]
    to_news = _alike(ctx, news.content, copies)
    return [
        SimilarMemory(id=m.id, content=m.content, similarity=to_news[m.id])
        for m in copies
        if m.id in to_news
    ]


def said_again(ctx: Context, fact: Memory) -> list[str]:
    """A fact said again, word for word, after news superseded it holds again: the news's
    `supersedes` relations to it go, and it supersedes the news now (dated now). A CLI probe's
    "Lisa is vegetarian", said after "Correction: Lisa is no longer vegetarian", was merged
    into the outdated memory as a use, and search still listed the correction first. The ids
    of the news it supersedes now."""
    news = [
        r for r in ctx.store.relations([fact.id]) if r.type == "supersedes" and r.to_id == fact.id
    ]
    for relation in news:
        ctx.store.delete_relation(relation.id)
    now = ctx.now()
    for news_id in dict.fromkeys(r.from_id for r in news):
        ctx.store.add_relation(
            Relation(
                id=new_id(),
                from_id=fact.id,
                to_id=news_id,
                type="supersedes",
                strength=1.0,
                created_at=now,
            )
        )
    return list(dict.fromkeys(r.from_id for r in news))
