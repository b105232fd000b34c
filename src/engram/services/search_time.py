"""The parts of search that read time: the days a query names (the memories saved on them
are candidates, `Context.local_now` says which days), the ranking of a query about how things
stand now, and news listed before the facts it supersedes. The formulas are in
`engram.core.dates` and `engram.core.ranking`; docs/search.md, sections 2b and 2c."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from datetime import date, timedelta, tzinfo
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from engram.core.anchors import anchor, anchored_days, event_day
from engram.core.dates import (
    SLACK_DAYS,
    covering,
    day_of,
    day_spans,
    named_days,
    on_a_named_day,
)
from engram.core.meaning import Probe
from engram.core.merge import SUPERSEDES_WHOLE
from engram.core.models import Memory, Relation
from engram.core.ranking import Candidate, Fused, as_of_now
from engram.core.text import said_by_the_assistant, speaker_label, statements
from engram.core.timeutil import DAY
from engram.core.whose import about_other_people
from engram.services.context import Context
from engram.storage.protocol import Filter, Store, Stub

Spans = list[tuple[float, float, str]]
Found = list[tuple[Stub, Candidate]]

# How many of the best matches are looked up for news that supersedes them.
SUCCESSOR_SOURCES = 20
# News ranks this much above the best fact it supersedes, wherever that fact matched.
SUCCESSOR_LIFT = 0.02


def named_day_spans(ctx: Context, text: str) -> Spans:
    """The days the query names, as spans of saving times (none with the date weight 0)."""
    if ctx.settings.search_date_weight <= 0:
        return []
    # The asker's days are this machine's: "last Friday" on a Saturday morning in Tokyo is
    # the day before, though UTC still says Friday.
    now = ctx.local_now()
    assert now.tzinfo is not None
    return day_spans(named_days(text, now.date()), now.tzinfo)


# How many of the best matches of an event are read for the one that names its day: a
# wedding told of in a dozen memories named its day in the sixth ("…the wedding date is…").
EVENT_CANDIDATES = 10


def event_told(matches: Sequence[Memory], zone: tzinfo | None) -> Memory | None:
    """Of the best matches of an event (best first), the first that names the event's day
    (`event_day`: a plan, or what was told soon after), else the best. "The wedding" was "Bought
    my wedding dress" (12 July, the best match by its words), not "Signed the contract with
    Wave Hill, the wedding date is September 20, 2025": "a month before the wedding" listed June
    (a probe)."""
    for memory in matches:
        saved = memory.created_at.astimezone(zone).date()
        if event_day(memory.content, saved) != saved:
            return memory
    return matches[0] if matches else None


def anchored_spans(
    ctx: Context, text: str, told_in: Callable[[str], Memory | None]
) -> tuple[Spans, str] | None:
    """The days a question names by an event ("about a month before moving to the Pearl"),
    and what it asks besides; None where it names none, or its event is not found. The event
    is a day where it names one ("the weekend before February 19"), else the day its memory
    (`told_in`: the best match) gives it (`event_day`)."""
    told = anchor(text) if ctx.settings.search_date_weight > 0 else None
    if told is None:
        return None
    now = ctx.local_now()
    assert now.tzinfo is not None
    written = named_days(told.event, now.date(), weeks=False)
    if written:
        day = written[0]
    else:
        memory = told_in(told.event)
        if memory is None:
            return None
        day = event_day(memory.content, memory.created_at.astimezone(now.tzinfo).date())
    return day_spans(anchored_days(told, day), now.tzinfo), told.asked


def saved_on(store: Store, spans: Spans, where: Filter, limit: int) -> dict[str, Stub]:
    """The memories saved on the days the query names: candidates even where nothing else
    finds them ("what did we decide yesterday?" found nothing when no memory of that day said
    "decide"), each after every memory that matches the query."""
    found: dict[str, Stub] = {}
    ranges = covering(spans)
    each = max(1, limit // len(ranges))  # `limit` in all: thirty days named read 6,000
    for start, end in ranges:
        for stub in store.saved_between(start, end, where, each):
            found.setdefault(stub.id, stub)
    return found


# The bar of meaning for a memory saved on a day the query names that nothing else matched:
# more like the query than unrelated text is on average (z 0), where a match elsewhere needs
# ENGRAM_SEARCH_SEMANTIC_MIN_Z. The day makes it a likely answer: "What did I report about my
# training in late May?" found the turn of May 25 ("Lifting update: 5/3/1 is working…") nowhere
# in the top 50, after every turn about training (a probe's own chats).
DAY_MIN_Z = 0.0


def meant_on_the_day(
    ctx: Context, ids: Sequence[str], probe: Probe, best_z: float, weight: float
) -> dict[str, Fused]:
    """Of the memories saved on a named day itself that no words, meaning or context matched
    (`ids`; not a day either side: "what did we decide yesterday?" listed today's to-dos, more
    like it than unrelated text, above yesterday's one memory), those from `DAY_MIN_Z` up, as
    matches by meaning: `weight` × their z against the best match's (`best_z`, at least 1)."""
    embedder = ctx.semantic
    if not ids or embedder is None:
        return {}
    out: dict[str, Fused] = {}
    for ident, vector in ctx.store.get_vectors(ids, embedder.model_id).items():
        cosine = float(vector @ probe.vector)
        z = probe.calibration.z(cosine)
        if z >= DAY_MIN_Z:
            out[ident] = Fused(weight * min(1.0, z / max(best_z, 1.0)), 0.0, cosine)
    return out


class NamedDays(NamedTuple):
    """What the days a query names add to its search: the memories saved on those gone by
    (`saved_on`), or said of one to come the day before (`said_the_day_before`). A day to come
    has nothing saved on it yet: "what's the weather tomorrow" lifted what was saved today (a
    day's slack before it) in a store about nothing of the kind; what is planned for it is
    found by the phrases naming it ("Dinner on December 5")."""

    gone: Spans
    stubs: dict[str, Stub]
    said_of: dict[str, str]  # memory id -> the day to come it calls "tomorrow"

    def day(self, stub: Stub) -> str | None:
        """The named day the memory was saved on or next to, or calls "tomorrow"."""
        if stub.id in self.said_of:
            return self.said_of[stub.id]
        return day_of(stub.created_at, self.gone) if self.gone else None

    def on_the_day(self, stub: Stub) -> bool:
        """Saved on a named day itself (not in its slack), or said of it the day before."""
        return stub.id in self.said_of or on_a_named_day(stub.created_at, self.gone)


def named_days_found(ctx: Context, spans: Spans, where: Filter, limit: int) -> NamedDays:
    if not spans:
        return NamedDays([], {}, {})
    today = ctx.local_now().date()
    gone = [span for span in spans if span[2] <= today.isoformat()]
    found = saved_on(ctx.store, gone, where, limit) if gone else {}
    eve = said_the_day_before(ctx.store, spans, today, where, limit)
    return NamedDays(
        gone, found | {i: s for i, (s, _) in eve.items()}, {i: d for i, (_, d) in eve.items()}
    )


# How a memory saved the day before a day names it ("the day after tomorrow" is another day).
_TOMORROW = re.compile(r"(?<!after )\b(?:tomorrow|tmrw)\b", re.IGNORECASE)


def said_the_day_before(
    store: Store, spans: Spans, today: date, where: Filter, limit: int
) -> dict[str, tuple[Stub, str]]:
    """The memories saved on the eve of a day to come that call it "tomorrow", each with that
    day: "Dentist appointment tomorrow at 3pm", saved today, is what "What's happening
    tomorrow?" asks for, and the rest of today's memories are not (a day to come lifts nothing
    saved near it, `NamedDays`)."""
    found: dict[str, tuple[Stub, str]] = {}
    for start, _, iso in spans:
        day = date.fromisoformat(iso)
        if not today < day <= today + timedelta(days=1):
            continue  # gone by (saved on it), or its eve is still to come
        eve_end = start + SLACK_DAYS * DAY
        stubs = store.saved_between(eve_end - DAY, eve_end, where, limit)
        saying = {
            m.id for m in store.get_many([s.id for s in stubs]) if _TOMORROW.search(m.content)
        }
        for stub in stubs:
            if stub.id in saying:
                found.setdefault(stub.id, (stub, iso))
    return found


def as_of_now_found(
    store: Store,
    found: list[tuple[Stub, Candidate]],
    vectors: Mapping[str, NDArray[np.float32]],
    weight: float,
) -> list[tuple[Stub, Candidate]]:
    """The matches of a query about how things stand now, their relevance as of now
    (`core.ranking.as_of_now`, given the best matches' `vectors`; their texts are read to
    tell the user's facts from other people's). "Where does the user live now?" found "User
    lives in Berlin" far above "Moved from Berlin to Lisbon in January": the older fact says
    "live", the newer only means it."""
    texts = {m.id: m.content for m in store.get_many(list(vectors))}
    news = {r.from_id for r in store.relations(list(vectors)) if r.type == "supersedes"}
    relevance = as_of_now(
        {c.id: c.relevance for _, c in found},
        {s.id: s.created_at for s, _ in found},
        vectors,
        weight,
        {c.id: c.semantic for _, c in found if c.semantic is not None},
        lambda later, earlier: _not_news_of(texts.get(later, ""), texts.get(earlier, "")),
        {c.id for _, c in found if c.superseded_by is not None},
        news,
    )
    return [(s, c._replace(relevance=relevance[c.id])) for s, c in found]


def _not_news_of(later: str, earlier: str) -> bool:
    """Whether `later` cannot be news of `earlier`: about other people, or the assistant's
    turn against the user's or the user's against the assistant's. An assistant's echo of news
    ("Congratulations — two trucks!") took the relevance of the user's older fact, undoing
    the lowering of the assistant's turns, and ranked first (a helper's blind chats; the user's
    "I bought the second truck!" came sixth)."""
    others = speaker_label(later).casefold() != speaker_label(earlier).casefold()
    echoed = said_by_the_assistant(later) or said_by_the_assistant(earlier)
    return (others and echoed) or about_other_people(later, earlier)


def _matched_itself(candidate: Candidate) -> bool:
    """Whether the query matched `candidate` itself, not only its neighbours (context credit):
    news of a fact found beside an allergy ("I quit bouldering and started surfing") took its
    place for "allergies", listed as a text match (an MCP probe)."""
    return (
        bool(candidate.text)
        or candidate.semantic is not None
        or bool(candidate.expansion)
        or candidate.day is not None  # saved on a day the query names
    )


def successors_found(
    store: Store,
    found: Found,
    stubs_for: Callable[[Sequence[str]], dict[str, Stub]],
    texts: Callable[[Sequence[str]], Mapping[str, str]],
    decay_weight: float = 0.0,
) -> Found:
    """The matches, with news listed above the fact it supersedes (a `supersedes` relation,
    made by a save that says something changed): "lisa's diet" found "My wife Lisa is
    vegetarian" and not the later "Correction: Lisa is no longer vegetarian…" (a helper's
    probe). The news takes the fact's relevance and a little more (`SUCCESSOR_LIFT`, shown as
    context in `why`), and joins the matches if it was not among them (`stubs_for` reads it,
    under the search's filter); the fact says by what it is superseded (`why.superseded_by`).
    Older news first: a chain of corrections ends with the latest on top. A fact superseded
    by several pieces of news follows the one that matches the query best on its own (the
    latest on a tie): "Actually my manager is now Sarah Kim" and "Tom Becker moved to the
    platform team" both replaced "My manager is Tom Becker", and both took its place, the
    move first, for "Who is my manager?" (a helper's probe). Of a fact of several sentences
    the news may change one: it takes the fact's place only where it shares a word with the
    query itself ("Ruff line-length was raised to 120" of "make lint runs ruff (line-length
    100) and mypy --strict. CI fails on any ruff warning." was listed first for "is mypy
    strict?" and "what runs in CI?": a coding assistant's probe); it is marked all the same
    (`texts` reads the facts' content). A merge of copies the news replaced each is replaced
    whole (`SUPERSEDES_WHOLE`)."""
    by_id = {c.id: (s, c) for s, c in found}
    top = sorted(by_id, key=lambda i: -by_id[i][1].relevance)[:SUCCESSOR_SOURCES]
    edges = sorted(
        (r for r in store.relations(top) if r.type == "supersedes" and r.to_id in by_id),
        key=lambda r: (r.created_at, r.id),
    )
    if not edges:
        return found
    own = {ident: candidate.relevance for ident, (_, candidate) in by_id.items()}
    followed: dict[str, Relation] = {}
    for edge in edges:
        before = followed.get(edge.to_id)
        if before is None or own.get(edge.from_id, 0.0) >= own.get(before.from_id, 0.0):
            followed[edge.to_id] = edge
    edges = [edge for edge in edges if followed[edge.to_id] is edge]
    joining = stubs_for([r.from_id for r in edges if r.from_id not in by_id])
    said = texts([r.to_id for r in edges])
    for edge in edges:
        if edge.from_id in by_id:
            stub, news = by_id[edge.from_id]
        elif edge.from_id in joining:
            stub, news = joining[edge.from_id], Candidate(edge.from_id, 0.0, 0.0, 0.0)
        else:
            continue  # outside the search's filter
        old_stub, old = by_id[edge.to_id]
        # More than decay can take away (it scales a rank by 1 − w at the least): unused,
        # news fell below the fact it replaced two days on, and below a promoted fact (its
        # score held at 1) for good (a probe's year of use: 44 questions answered outdated).
        lifted = old.relevance * (1.0 + SUCCESSOR_LIFT) / (1.0 - min(decay_weight, 0.5))
        whole = (
            len(statements(said.get(edge.to_id, ""))) <= 1
            or (news.text or 0.0) > 0
            or edge.metadata.get(SUPERSEDES_WHOLE) is True  # a merge of copies it replaced
        )
        if lifted > news.relevance and whole and _matched_itself(old):
            credit = (news.context or 0.0) + lifted - news.relevance
            news = news._replace(relevance=lifted, context=credit)
        if news.relevance > 0:  # not listed at nothing, where it took no place
            by_id[edge.from_id] = (stub, news)
        by_id[edge.to_id] = (old_stub, old._replace(superseded_by=edge.from_id))
    return list(by_id.values())
