"""A query that names a day lifts the memories saved on it, on every backend, and says so in
`why.day`; a query naming no day, or the setting at 0, ranks as before."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest
from tests.support import KIDS_CHAT, MOVE_CHAT, NEW_JOB, OLD_JOB, OTHER_FACTS, at_hour, save_facts

from engram import Draft, Engram, FixedClock
from engram.services.results import why_summary
from engram.services.search_time import named_day_spans, saved_on
from engram.storage.protocol import Filter

LAMP = "Bought a brass lamp at the flea market"


def _two_copies(mem: Engram, clock: FixedClock) -> tuple[str, str, str]:
    """The same memory saved twice (`save_many` keeps both), 20 and 10 days ago: equal in
    words and meaning, so only their days tell them apart. Returns the older's id, the
    fresher's, and the older's day as a query writes it."""
    older_at = clock.now - timedelta(days=20)
    older, fresher = mem.save_many(
        [
            Draft(content=LAMP, created_at=older_at),
            Draft(content=LAMP, created_at=clock.now - timedelta(days=10)),
        ]
    )
    return older.id, fresher.id, f"{older_at:%d %B %Y}"


def test_the_memory_saved_on_the_day_a_query_names_comes_first(
    store_url: str, clock: FixedClock
) -> None:
    with Engram.open(store_url, clock=clock) as mem:
        older, fresher, day = _two_copies(mem, clock)
        # Without a day the fresher copy leads: decay breaks the tie.
        assert [h.memory.id for h in mem.search("what did I buy at the flea market")] == [
            fresher,
            older,
        ]
        hits = mem.search(f"what did I buy at the flea market on {day}")
        assert [h.memory.id for h in hits] == [older, fresher]
        named = (clock.now - timedelta(days=20)).date().isoformat()
        assert hits[0].why.day == named and hits[1].why.day is None
        assert hits[0].rank > hits[1].rank
        assert f"saved near {named}" in why_summary(hits[0])


def test_relative_days_count_back_from_the_clock(store_url: str, clock: FixedClock) -> None:
    with Engram.open(store_url, clock=clock) as mem:
        older, fresher = mem.save_many(
            [
                Draft(content=LAMP, created_at=clock.now - timedelta(days=3)),
                Draft(content=LAMP, created_at=clock.now - timedelta(hours=1)),
            ]
        )
        hits = mem.search("what did I buy three days ago")
        assert [h.memory.id for h in hits] == [older.id, fresher.id]


def test_the_date_weight_zero_leaves_the_ranking_alone(store_url: str, clock: FixedClock) -> None:
    with Engram.open(store_url, clock=clock, search_date_weight=0.0) as mem:
        older, fresher, day = _two_copies(mem, clock)
        hits = mem.search(f"what did I buy at the flea market on {day}")
        assert [h.memory.id for h in hits] == [fresher, older]
        assert all(h.why.day is None for h in hits)


def test_a_query_naming_only_a_day_finds_what_was_saved_on_it(
    store_url: str, clock: FixedClock
) -> None:
    """No memory of that day says "decide": the query found nothing though it named the day.
    The day's memories are its candidates, after every memory the query matches."""
    with Engram.open(store_url, clock=clock) as mem:
        yesterday = clock.now - timedelta(days=1)
        older = clock.now - timedelta(days=6)
        lunch, plan = mem.save_many(
            [
                Draft(content="Lunch with Dana at the noodle bar", created_at=yesterday),
                Draft(content="Billing moves to the new provider in March", created_at=yesterday),
            ]
        )
        mem.save_many([Draft(content="The staging server was rebooted", created_at=older)])
        hits = mem.search("what did we decide yesterday?")
        assert {h.memory.id for h in hits} == {lunch.id, plan.id}
        assert all(h.why.day == yesterday.date().isoformat() for h in hits)
        # a memory the query matches comes before those found by their day alone
        decided = mem.save_many(
            [Draft(content="We decided to keep the noodle bar", created_at=older)]
        )[0]
        assert mem.search("what did we decide yesterday?")[0].memory.id == decided.id


def test_the_days_own_memories_come_before_those_of_the_day_after(
    store_url: str, clock: FixedClock
) -> None:
    """A memory counts as saved on a day a day either side of it (told the day after, or in
    another time zone), and today's are fresher: "what did we decide yesterday?" listed ten of
    today's memories and not yesterday's one (audit)."""
    with Engram.open(store_url, clock=clock) as mem:
        yesterday = clock.now - timedelta(days=1)
        (lamp,) = mem.save_many([Draft(content=LAMP, created_at=yesterday)])
        mem.save_many([Draft(content=f"Todo item {i}") for i in range(12)])  # today
        hits = mem.search("what did we decide yesterday?")
        assert hits[0].memory.id == lamp.id and len(hits) == 10


def test_days_are_the_askers_not_utcs(store_url: str) -> None:
    """Saturday 08:00 in Tokyo is still Friday in UTC: "last Friday" was read as the Friday a
    week before, and lifted that copy over yesterday's."""
    tokyo = timezone(timedelta(hours=9))
    clock = FixedClock(datetime(2024, 1, 13, 8, 0, tzinfo=tokyo))
    with Engram.open(store_url, clock=clock) as mem:
        yesterday, week_before = mem.save_many(
            [
                Draft(content=LAMP, created_at=datetime(2024, 1, 12, 12, tzinfo=tokyo)),
                Draft(content=LAMP, created_at=datetime(2024, 1, 5, 12, tzinfo=tokyo)),
            ]
        )
        hits = mem.search("what did I buy at the flea market last Friday?")
        assert [h.memory.id for h in hits] == [yesterday.id, week_before.id]
        assert hits[0].why.day == "2024-01-12"


def test_a_recall_request_naming_a_day_finds_what_was_saved_on_it(
    store_url: str, clock: FixedClock
) -> None:
    """`analyze_for_recall` dropped the day: "on may 5" became "may 5" (the word "may"), "three
    days ago" a window with nothing to look for; each search missed the memory of that day."""
    with Engram.open(store_url, clock=clock) as mem:
        day = clock.now - timedelta(days=3)
        (lunch,) = mem.save_many(
            [Draft(content="Lunch with Dana at the noodle bar", created_at=day)]
        )
        mem.save_many([Draft(content=f"Todo item {i}") for i in range(12)])  # fresher, unrelated
        for message in (
            f"Do you remember what we decided on {day:%B} {day.day}?".lower(),
            "What did I say three days ago?",
        ):
            analysis = mem.analyze_for_recall(message)
            assert analysis.query == f"{day.day} {day:%B %Y}", message
            hits = mem.search(analysis.query, window_days=analysis.window_days)
            assert hits[0].memory.id == lunch.id and hits[0].why.day == day.date().isoformat()


def test_a_query_of_dates_alone_finds_the_days_memories_not_others_about_dates(
    store_url: str, clock: FixedClock
) -> None:
    """`analyze_for_recall` turns "what did I tell you 3 days ago?" into the day written out;
    searched by meaning too, that query found a memory about another date first, above the
    day's own memories (audit)."""
    with Engram.open(store_url, clock=clock) as mem:
        day = clock.now - timedelta(days=3)
        on_the_day = mem.save_many(
            [
                Draft(content="I moved to Lisbon", created_at=day),
                Draft(content="I prefer tea now", created_at=day),
            ]
        )
        mem.save_many(
            [
                Draft(
                    content="We postponed the Atlas launch to April 14",
                    created_at=clock.now - timedelta(days=1),
                )
            ]
        )
        hits = mem.search(f"{day.day} {day:%B %Y}", window_days=4)
        assert {h.memory.id for h in hits} == {m.id for m in on_the_day}


def test_a_recall_request_naming_only_last_week_finds_last_weeks_memories_first(
    store_url: str, clock: FixedClock
) -> None:
    """ "What did we decide last week?" gave no query and an 11-day window: the search listed
    this week's freshest memories, last week's behind them (audit). It gives last week's days
    now, and the search lifts what was saved on them."""
    with Engram.open(store_url, clock=clock) as mem:
        analysis = mem.analyze_for_recall("What did we decide last week?")
        today = clock.now.date()
        monday = today - timedelta(days=today.weekday() + 7)
        assert analysis.query == " ".join(
            f"{d.day} {d:%B %Y}" for d in (monday + timedelta(days=i) for i in range(7))
        )
        assert analysis.window_days == (today - monday).days + 1
        (decision,) = mem.save_many(
            [
                Draft(
                    content="We decided to drop the GraphQL gateway",
                    created_at=clock.now - timedelta(days=today.weekday() + 5),
                )
            ]
        )
        mem.save_many(
            [
                Draft(content=f"Todo item {i}", created_at=clock.now - timedelta(hours=i))
                for i in range(12)
            ]
        )
        hits = mem.search(analysis.query, window_days=analysis.window_days)
        assert hits[0].memory.id == decision.id


def test_what_was_said_on_a_day_asked_in_so_many_words_is_that_days_memories(
    store_url: str, clock: FixedClock
) -> None:
    """A probe: "What did I tell you last week?" searched "tell" and "week", found "physio is
    now every other week" first and last week's five memories at 16-25; "What did we discuss
    on April 24?" listed context and expansion matches of the day's phrase above the day's
    own memories."""
    with Engram.open(store_url, clock=clock) as mem:
        today = clock.now.date()
        last_week = clock.now - timedelta(days=today.weekday() + 5)
        said = mem.save_many(
            [
                Draft(content="Biscuit had surgery on his paw", created_at=last_week),
                Draft(content="I got promoted to senior product manager", created_at=last_week),
            ]
        )
        mem.save_many(
            [
                Draft(
                    content="Physio is now only every other week, tell the clinic",
                    created_at=clock.now - timedelta(days=60),
                ),
                Draft(
                    content=f"The beta deadline moved to {last_week:%B} {last_week.day}",
                    created_at=clock.now - timedelta(days=40),
                    episode="planning",
                ),
                Draft(
                    content="The beta has 40 clinics signed up",
                    created_at=clock.now - timedelta(days=40),
                    episode="planning",
                ),
            ]
        )
        hits = mem.search("What did I tell you last week?")
        assert {h.memory.id for h in hits} == {m.id for m in said}
        day = f"{last_week:%B} {last_week.day}"
        hits = mem.search(f"What did we discuss on {day}?")
        assert {h.memory.id for h in hits[:2]} == {m.id for m in said}


def test_what_happened_or_was_worked_on_then_is_that_days_memories(
    store_url: str, clock: FixedClock
) -> None:
    """A probe: "what happened on March 17" listed the memories saying "March 31" first and
    none of that day's in the top six; "what did I work on last week" found "gopls works fine"
    first by "work"; "what did I save …" and "remind me what I noted …" searched their verbs."""
    with Engram.open(store_url, clock=clock) as mem:
        today = clock.now.date()
        last_week = clock.now - timedelta(days=today.weekday() + 5)
        said = mem.save_many(
            [
                Draft(content="The payments outage lasted two hours", created_at=last_week),
                Draft(content="Rewrote the billing worker's retries", created_at=last_week),
            ]
        )
        other = 28 if last_week.day != 28 else 27
        mem.save_many(
            [
                Draft(
                    content=f"The {last_week:%B} {other} release happened without the new checkout",
                    created_at=clock.now - timedelta(days=50),
                ),
                Draft(
                    content=f"Invoices for {last_week:%B} are due on the {other}th",
                    created_at=clock.now - timedelta(days=50),
                ),
                Draft(
                    content="Switched my editor to Neovim; gopls works fine at work, saved me time",
                    created_at=clock.now - timedelta(days=50),
                ),
                Draft(content="I noted to remind the team of the demo", created_at=clock.now),
            ]
        )
        day = f"{last_week:%B} {last_week.day}"
        expected = {m.id for m in said}
        for asked in (
            f"What happened on {day}?",
            "What did I work on last week?",
            f"What did I save on {day}?",
            f"Remind me what I noted on {day}",
            # the month is no search word beside its day: it matched the other days' memories
            f"Anything important on {day}?",
        ):
            assert {h.memory.id for h in mem.search(asked)[:2]} == expected, asked


def test_a_question_asking_how_things_stand_now_is_not_searched_by_those_words(
    store_url: str, clock: FixedClock
) -> None:
    """A probe: "where do I work these days" found "…work starts in May" by "days" first and
    the new job seventh; "now" asks the same and was never a search word. Another: "What's my
    current diet?" found turns saying "currently" first."""
    with Engram.open(store_url, clock=clock) as mem:
        renovation = mem.save("The renovation work starts in a few days")
        office = mem.save("I work from the Rotterdam office")
        mem.save("The current in the river was strong today")
        plain = {h.memory.id: h.why.text for h in mem.search("where do I work?")}
        assert {office.id, renovation.id} <= set(plain)  # each by "work" alone
        for asked in (
            "where do I work these days?",
            "where do I work currently?",
            "where is my current work?",
        ):
            assert {h.memory.id: h.why.text for h in mem.search(asked)} == plain, asked


def test_days_to_come_and_a_month_said_in_find_their_memories(
    store_url: str, clock: FixedClock
) -> None:
    """A probe's "What's on my calendar next week?" and "What did we talk about in March?"
    named no day: found by words alone, the dentist and March's memories came after others."""
    with Engram.open(store_url, clock=clock) as mem:
        today = clock.now.date()
        next_week = today + timedelta(days=7 - today.weekday() + 2)  # its Wednesday
        month_ago = (today.replace(day=1) - timedelta(days=1)).replace(day=10)
        dentist = mem.save(f"Dentist appointment with Dr. Lin on {next_week:%B} {next_week.day}")
        said = mem.save_many(
            [
                Draft(content="Biscuit had surgery on his paw", created_at=at_hour(month_ago)),
                Draft(content="We booked the Lisbon flights", created_at=at_hour(month_ago)),
            ]
        )
        mem.save("Team retro happens every other week; we talk about what went well")
        assert mem.search("What's on my calendar next week?")[0].memory.id == dentist.id
        assert mem.search("Is anything coming up?")[0].memory.id == dentist.id
        asked = f"What did we talk about in {month_ago:%B}?"
        assert {h.memory.id for h in mem.search(asked)[:2]} == {m.id for m in said}


def test_a_part_of_a_month_asked_of_the_past_lifts_what_was_saved_then(
    store_url: str, clock: FixedClock
) -> None:
    """A probe's "What problem did I have in my garden in early June?" named no day: the turn
    saved then came 37th, below the turns about the garden saved at other times."""
    with Engram.open(store_url, clock=clock) as mem:
        year = _year_of_the_last(6, clock)
        kale = Draft(
            content="Something is eating the kale in my garden, holes all over the leaves",
            created_at=at_hour(date(year, 6, 4)),
        )
        others = [
            Draft(content="I planted tomatoes in my new raised garden beds", created_at=at_hour(d))
            for d in (date(year, 4, 20), date(year, 6, 25))
        ]
        eaten, *_ = mem.save_many([kale, *others])
        mem.flush()
        asked = "What problem did I have in my garden in early June?"
        best = mem.search(asked)[0]
        assert best.memory.id == eaten.id
        assert best.why.day == f"{year}-06-04"


def test_a_question_of_a_month_alone_lists_what_was_saved_then(
    store_url: str, clock: FixedClock
) -> None:
    """A held-out probe's "What did I get up to last March?": its words found the plan made in
    February for the March trip first, and the turns saved in March came ninth. Asking of
    that month alone, it lists them; a question asking more keeps its words."""
    with Engram.open(store_url, clock=clock) as mem:
        year = _year_of_the_last(3, clock)
        plan, back, *_ = mem.save_many(
            [
                Draft(
                    content="We're going to Lisbon for a long weekend in March",
                    created_at=at_hour(date(year, 2, 18)),
                ),
                Draft(
                    content="We're back from Lisbon! The guesthouse in Alfama was gorgeous",
                    created_at=at_hour(date(year, 3, 19)),
                ),
                Draft(content="Started a pottery class", created_at=at_hour(date(year, 5, 2))),
            ]
        )
        mem.flush()
        for asked in ("What did I get up to last March?", "What did we do in March?"):
            best = mem.search(asked)[0]
            assert (best.memory.id, best.why.day) == (back.id, f"{year}-03-19"), asked
        ids = [h.memory.id for h in mem.search("What did I book in March for Lisbon?")]
        assert plan.id in ids[:2]


def test_a_memory_of_a_named_day_needs_less_meaning_to_match(
    store_url: str, clock: FixedClock
) -> None:
    """A probe's "What did I report about my training in late May?" found the turn of May 25
    ("Lifting update: …") nowhere in the top 50: it shares no word with the question, its
    meaning was below the bar, and every turn about training elsewhere matched by words, so it
    came after them all. On the day the query names, more like it than unrelated text is
    enough to match."""
    with Engram.open(store_url, clock=clock) as mem:
        year = _year_of_the_last(5, clock)
        lifts = Draft(
            content="Hit a new personal best on bench press today",
            created_at=at_hour(date(year, 5, 25)),
        )
        elsewhere = [
            Draft(content=text, created_at=at_hour(date(year, month, 10)))
            for text, month in (
                ("My training plan this spring is three runs a week", 3),
                ("Training for the half marathon is going well", 4),
                ("I want a training app that tracks my sleep", 4),
                ("Training partner Sam moved away, so I train alone", 2),
            )
        ]
        mem.save("I bought a new espresso machine")
        update, *_ = mem.save_many([lifts, *elsewhere])
        mem.flush()
        hits = mem.search("What did I report about my training in late May?")
        found = {h.memory.id: h for h in hits}
        assert found[update.id].why.day == f"{year}-05-25"
        # a match by meaning, on its day: no longer listed after every match as saved then
        assert found[update.id].why.semantic is not None


def test_a_plan_asked_for_by_a_word_it_does_not_share_is_found_by_meaning(
    store_url: str, clock: FixedClock
) -> None:
    """ "any operations coming up" found nothing: "coming up" was taken out of its meaning too,
    and "any operations" alone is not near the surgery (assistant-facts benchmark)."""
    with Engram.open(store_url, clock=clock) as mem:
        surgery = mem.save("Cataract surgery scheduled for January")
        mem.save("Bought new running shoes")
        mem.flush()
        hits = mem.search("any operations coming up")
        assert hits[0].memory.id == surgery.id
        assert hits[0].why.semantic is not None


def test_last_month_names_the_days_of_the_month_before_this_one(
    store_url: str, clock: FixedClock
) -> None:
    """An MCP probe: "What did we decide about Atlas last month?" put a decision of two months
    ago first, "last month" naming no day."""
    with Engram.open(store_url, clock=clock) as mem:
        first = clock.now.date().replace(day=1)
        in_last_month = first - timedelta(days=10)
        before = (first - timedelta(days=1)).replace(day=1) - timedelta(days=10)
        old, recent = mem.save_many(
            [
                Draft(content="Decision: Atlas will use PostgreSQL 16", created_at=at_hour(before)),
                Draft(
                    content="Atlas decided on Kafka for the event bus",
                    created_at=at_hour(in_last_month),
                ),
            ]
        )
        hits = mem.search("What did we decide about Atlas last month?")
        assert hits[0].memory.id == recent.id
        assert hits[0].why.day == in_last_month.isoformat()
        assert old.id in [h.memory.id for h in hits]


def _year_of_the_last(month: int, clock: FixedClock) -> int:
    """The year of the last such month gone by, as a question of the past reads it."""
    return clock.now.year if clock.now.month > month else clock.now.year - 1


def test_a_query_naming_many_days_reads_a_bounded_number_of_them(
    store_url: str, clock: FixedClock
) -> None:
    """Each range of named days was read up to the search's pool: thirty days named read
    6,000 memories. The pool is shared now."""
    with Engram.open(store_url, clock=clock, embedding_model="none") as mem:
        days = [clock.now - timedelta(days=4 * i + 3) for i in range(12)]  # apart: 12 ranges
        mem.save_many(
            [Draft(content=f"note {i} of that day", created_at=d) for d in days for i in range(5)]
        )
        query = " ".join(f"{d:%d %B %Y}" for d in days)
        spans = named_day_spans(mem.app.context, query)
        assert len(spans) == 12
        assert len(saved_on(mem.app.context.store, spans, Filter(), 24)) == 24  # 2 a day, not 5
        assert len(mem.search(query, limit=10)) == 10


def test_a_days_number_and_year_find_no_memory_by_their_digits(
    store_url: str, clock: FixedClock
) -> None:
    """ "What did I buy on 3 March?" searched "3", "March" and "2026" as words: the parking
    spot numbered 3 and the 2026 roadmap came first, and what was bought that day after them
    (found only by its day, and "bought" is not a form Porter joins with "buy"). The numbers
    are searched by the day alone; the month is still a word."""
    with Engram.open(store_url, clock=clock) as mem:
        day = clock.now - timedelta(days=6)
        bought, ordered = mem.save_many(
            [
                Draft(content="Bought a new standing desk for the home office", created_at=day),
                Draft(content="Ordered running shoes online", created_at=day),
            ]
        )
        parking, roadmap, _ = mem.save_many(
            [
                Draft(content=f"Parking spot is number {day.day} on level 2"),
                Draft(content=f"The {day.year} roadmap has three pillars"),
                Draft(content=f"Standup moved to 9:30 from {day:%B} onwards"),
            ]
        )
        asked = (f"What did I buy on {day.day} {day:%B}?", f"what did I buy on {day:%Y-%m-%d}")
        for query in asked:
            hits = mem.search(query)
            assert hits[0].memory.id == bought.id, query
            assert hits[0].why.text > 0 and hits[0].why.day == day.date().isoformat()
            found = {h.memory.id for h in hits}
            assert ordered.id in found and not found & {parking.id, roadmap.id}, query


def test_a_query_about_the_present_puts_the_later_fact_first(
    store_url: str, clock: FixedClock
) -> None:
    """Both facts stay true of their time; asked how things stand now, the later one leads,
    though the older matches the question better ("works")."""
    with Engram.open(store_url, clock=clock) as mem:
        save_facts(mem, clock, *OTHER_FACTS)
        old, new = save_facts(mem, clock, OLD_JOB, NEW_JOB)
        asked = [h.memory.id for h in mem.search("which company does the user work for")]
        assert asked.index(old) < asked.index(new)  # without "currently": the better match
        now = [h.memory.id for h in mem.search("which company does the user work for currently")]
        assert now.index(new) < now.index(old)
    with Engram.open(store_url, clock=clock, search_present_weight=0.0) as mem:
        now = [h.memory.id for h in mem.search("which company does the user work for currently")]
        assert now.index(old) < now.index(new)


def test_news_about_someone_else_does_not_replace_the_users_fact(
    store_url: str, clock: FixedClock
) -> None:
    """ "Sister Clara went vegetarian last month" is as alike to the user's fact as true news
    (cosine 0.51) but answers "is the user still vegetarian?" far worse: it was listed first."""
    with Engram.open(store_url, clock=clock) as mem:
        user, _ = mem.save_many(
            [
                Draft(
                    content="User has been vegetarian since 2019",
                    created_at=clock.now - timedelta(days=250),
                ),
                Draft(
                    content="Sister Clara went vegetarian last month",
                    created_at=clock.now - timedelta(days=12),
                ),
            ]
        )
        assert mem.search("is the user still vegetarian?")[0].memory.id == user.id


def test_the_present_asked_of_a_store_without_an_answer_finds_nothing(
    store_url: str, clock: FixedClock
) -> None:
    """A question about how things stand now that nothing matches ("What car do I drive these
    days?" of a store that holds no car) raised "min() arg is an empty sequence" (a helper's
    probe), and so did one whose filter left nothing."""
    with Engram.open(store_url, clock=clock) as mem:
        mem.save("My dog is named Biscuit", tags=["pets"])
        mem.save("I live in Paris")
        assert mem.search("What car do I drive these days?") == []
        assert mem.search("Where do I live now?", tags=["nothing"]) == []
        assert [h.memory.content for h in mem.search("Where do I live now?")] == ["I live in Paris"]


def test_news_of_someone_else_is_no_news_of_the_users_own_fact(
    store_url: str, clock: FixedClock
) -> None:
    """ "My sister lives in Montreal", saved last, resembles the user's own "I live in Paris
    now" as news does and was listed first for "Where do I live now?" (a helper's probe)."""
    with Engram.open(store_url, clock=clock) as mem:
        for days, text in (
            (0, "I live in Lyon"),
            (14, "I moved from Lyon to Paris last month"),
            (9, "I live in Paris now, in the 11th arrondissement"),
            (0.05, "My sister lives in Montreal"),
        ):
            clock.advance(days=days)
            mem.save(text)
        clock.advance(days=7)
        first = mem.search("Where do I live now?")[0].memory.content
        assert first == "I live in Paris now, in the 11th arrondissement"


def test_news_of_the_users_people_is_no_news_of_the_users_fact_said_in_third_person(
    store_url: str, clock: FixedClock
) -> None:
    """As an assistant writes the user's facts ("User lives in Berlin"), the user was not
    told from their people: "User's best friend lives in Vienna", saved last, came first for
    "where does the user live now?"."""
    with Engram.open(store_url, clock=clock) as mem:
        home = mem.save("User lives in Berlin")
        for text in ("User's sister lives in Munich", "User's best friend lives in Vienna"):
            clock.advance(days=20)
            mem.save(text)
        clock.advance(days=7)
        assert mem.search("where does the user live now?")[0].memory.id == home.id


def test_a_day_to_come_lifts_nothing_saved_today(store_url: str, clock: FixedClock) -> None:
    """Nothing is saved on a day to come: "what's the weather tomorrow" listed every memory of
    today (in the day's slack before tomorrow) in a store about nothing of the kind (the
    abstention benchmark). What names the day is still found by it."""
    with Engram.open(store_url, clock=clock) as mem:
        for text in (
            "Allergic to peanuts: never suggest recipes that use them",
            "Sold the old Golf and bought an electric bike",
            "The Lisbon office Wi-Fi is slow on Monday mornings",
        ):
            mem.save(text)
        assert mem.search("what's the weather tomorrow") == []
        tomorrow = clock.now.date() + timedelta(days=1)
        dinner = mem.save(f"Team dinner on {tomorrow:%B} {tomorrow.day} at Nando's")
        assert [h.memory.id for h in mem.search("What's happening tomorrow?")] == [dinner.id]


def test_what_was_said_the_day_before_of_tomorrow_is_found_for_that_day(
    store_url: str, clock: FixedClock
) -> None:
    """ "Dentist appointment tomorrow at 3pm", saved today, names tomorrow as plans name it;
    asked of tomorrow it comes first, and nothing else saved today is listed. Said a day
    earlier, its "tomorrow" was today: not listed."""
    with Engram.open(store_url, clock=clock) as mem:
        dentist = mem.save("Dentist appointment tomorrow at 3pm")
        mem.save("Had a great burrito for lunch")
        mem.save("Haircut the day after tomorrow")
        mem.save_many(
            [
                Draft(
                    content="Parents' evening at school tomorrow",
                    created_at=clock.now - timedelta(days=1),
                )
            ]
        )
        (hit,) = mem.search("What's happening tomorrow?")
        assert hit.memory.id == dentist.id
        assert hit.why.day == (clock.now.date() + timedelta(days=1)).isoformat()


def test_the_present_asked_of_one_person_lists_the_answer_not_the_latest_memory(
    store_url: str, clock: FixedClock
) -> None:
    """A probe: every memory about Maya answered "Where does Maya work these days?" nearly
    as well as her job, by her name; the latest, her diet, came first, and with limit 3 the
    job was not listed at all."""
    with Engram.open(store_url, clock=clock) as mem:
        job = mem.save("Maya works as a product designer at Lumen Health in Chicago")
        mem.save("Maya's husband Daniel teaches high school chemistry")
        mem.save("Maya has two kids, Theo and Iris")
        clock.advance(days=110)
        mem.save("Maya's dentist is Dr. Hale")
        clock.advance(days=36)
        mem.save("Maya went fully vegan in November")
        clock.advance(days=10)
        for limit in (1, 3, 10):
            hits = mem.search("Where does Maya work these days?", limit=limit)
            assert hits[0].memory.id == job.id, limit


# A user's five months with an assistant (a helper's probe, over MCP): days after the first
# save, and what the assistant saved.
MAYA = [
    (0.000, "Maya works as a product designer at Lumen Health in Chicago"),
    (0.002, "Maya has two kids: Theo (7) and Iris (4)"),
    (0.004, "Maya's husband Daniel teaches high school chemistry"),
    (0.006, "Maya is vegetarian (for about five years)"),
    (0.008, "Maya leads the redesign of Lumen Health's patient onboarding flow, codename Bluebird"),
    (0.008, "Bluebird deadline: September 15"),
    (
        0.010,
        "Bluebird: decided to use Figma variables for design tokens instead of Style Dictionary",
    ),
    (0.015, "Maya prefers bullet-point summaries, not long paragraphs"),
    (18.103, "Theo plays soccer: camp on Mondays and Wednesdays (started late July)"),
    (18.105, "Iris is allergic to peanuts: never suggest peanut snacks for her"),
    (18.107, "Bluebird deadline pushed back to October 1 because of legal review"),
    (18.109, "Maya's team standup is at 9:45am"),
    (18.111, "Maya's mom's birthday is August 12"),
    (18.113, "Priya Nair is the lead engineer on Bluebird"),
    (18.115, "Maya doesn't eat meat (vegetarian)"),
    (18.117, "Maya likes answers as bullet points rather than paragraphs"),
    (
        53.913,
        "Maya accepted a design lead job at Northwind Studio, starting September 9; "
        "leaving Lumen Health",
    ),
    (53.915, "Bluebird is being handed off to Carlos since Maya is leaving Lumen Health"),
    (
        53.917,
        "Maya's family is moving from Chicago to Denver in October; "
        "Daniel got a teaching job there",
    ),
    (53.919, "Maya eats fish again: pescatarian now (no longer vegetarian)"),
    (53.922, "Theo turned 8 in late August 2026"),
    (110.038, "Maya now lives in the Wash Park neighborhood of Denver (moved October 2026)"),
    (110.040, "At Northwind Maya leads the redesign of the Harbor mobile app"),
    (110.040, "Harbor beta launch planned for January 20"),
    (110.042, "Decision: Harbor supports dark mode from day one"),
    (
        110.044,
        "For design reviews Maya now prefers detailed write-ups with rationale, not just bullets",
    ),
    (110.047, "Iris goes to Little Acorns preschool, Tuesdays through Fridays"),
    (110.049, "Maya's manager at Northwind is Sam Whitaker"),
    (110.051, "Maya's dentist is Dr. Hale; appointment on November 14"),
    (146.132, "The Harbor beta slipped to February 3"),
    (146.134, "Maya and Daniel are training for a half marathon in April 2027"),
    (146.136, "Theo quit soccer and does swimming now"),
    (146.138, "Sam Whitaker left Northwind; Maya's new manager is Rosa Lindqvist"),
    (146.140, "Maya went fully vegan in November 2026"),
]


def test_a_question_about_now_finds_the_current_fact_whatever_the_limit(
    store_url: str, clock: FixedClock
) -> None:
    """In a probe's store, "Where does Maya work these days?" listed another memory first with
    limit 1 than with 5 or 10, and with each a replaced fact or news of something else: her old
    manager (replaced, yet taking her old job's relevance by resemblance) or her move (news of
    her family's move, taken for news of her job). The answer is her new job, at any limit."""
    start = clock.now
    with Engram.open(store_url, clock=clock) as mem:
        for days, text in MAYA:
            clock.now = start + timedelta(days=days)
            mem.save_result(Draft(content=text))
        clock.now = start + timedelta(days=156)
        for question, answer in (
            ("Where does Maya work these days?", "Maya accepted a design lead job at Northwind"),
            ("Who is Maya's manager now?", "Sam Whitaker left Northwind; Maya's new manager"),
            ("Where does Maya live now?", "Maya now lives in the Wash Park neighborhood"),
        ):
            for limit in (1, 5, 10):
                first = mem.search(question, limit=limit)[0].memory.content
                assert first.startswith(answer), (question, limit, first)


@pytest.mark.parametrize(
    ("chat", "asking", "not_asking", "answer", "other"),
    [
        (
            MOVE_CHAT,
            "When did Siobhan move into her new flat?",
            "Did Siobhan move into her new flat?",
            MOVE_CHAT[2],  # "on the 1st of april"
            MOVE_CHAT[4],
        ),
        (
            KIDS_CHAT,
            "How many kids does Tomas have?",
            "Does Tomas have kids?",
            KIDS_CHAT[3],  # "three kids under six"
            KIDS_CHAT[1],
        ),
    ],
)
def test_a_question_asking_when_or_how_many_puts_the_turn_saying_it_first(
    store_url: str,
    clock: FixedClock,
    chat: list[str],
    asking: str,
    not_asking: str,
    answer: str,
    other: str,
) -> None:
    """A helper's blind chats: the answer to a question asking when says a date and little
    else, the answer to "how many" a number, and a turn about the same thing without one came
    first by its words. A question not asking when or how many leaves them as they were."""
    with Engram.open(store_url, clock=clock) as mem:
        mem.save_many([Draft(content=t, episode="chat") for t in chat])
        mem.flush()
        assert [h.memory.content for h in mem.search(asking, limit=2)] == [answer, other]
        assert [h.memory.content for h in mem.search(not_asking, limit=2)] == [other, answer]
