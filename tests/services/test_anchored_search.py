"""A question that counts days from an event ("a week before the grandkids came") names the
days counted from the day the event's memory was saved, on every backend; the event's own words
are not what it asks for."""

from __future__ import annotations

from datetime import date, timedelta

from tests.support import at_hour

from engram import Draft, Engram, FixedClock


def test_a_question_counting_from_an_event_lifts_what_was_saved_that_far_from_it(
    store_url: str, clock: FixedClock
) -> None:
    """A probe's "What changed with my medication about a week before the grandkids came?":
    every turn about medication matched alike, and the one of that week came third."""
    came = clock.now.date() - timedelta(days=60)
    with Engram.open(store_url, clock=clock) as mem:
        saved = mem.save_many(
            [
                Draft(
                    content="The grandkids arrived today, the house is full",
                    created_at=at_hour(came),
                ),
                Draft(
                    content="Dr. Ames changed the dose of my blood pressure medication",
                    created_at=at_hour(came - timedelta(days=7)),
                ),
                Draft(
                    content="The pharmacy changed the brand of my medication",
                    created_at=at_hour(came + timedelta(days=30)),
                ),
                Draft(
                    content="I keep forgetting my medication when I travel",
                    created_at=at_hour(came - timedelta(days=40)),
                ),
            ]
        )
        mem.flush()
        lowered = saved[1].id
        hits = mem.search("What changed with my medication about a week before the grandkids came?")
        assert hits[0].memory.id == lowered
        assert hits[0].why.day == (came - timedelta(days=7)).isoformat()
        # the same words without the event rank by words alone
        plain = mem.search("What changed with my medication?")
        assert plain[0].memory.id == saved[2].id


def test_the_weekend_before_a_written_date_names_its_saturday_and_sunday(
    store_url: str, clock: FixedClock
) -> None:
    """ "What happened on the weekend before February 19?" named February 19 itself: the
    weekend's memories came after that Monday's."""
    monday = date(clock.now.year - 1, 2, 19)
    while monday.weekday() != 0:  # a Monday, whatever the year
        monday += timedelta(days=1)
    saturday = monday - timedelta(days=2)
    with Engram.open(store_url, clock=clock) as mem:
        recital, *_ = mem.save_many(
            [
                Draft(
                    content="Played the Chopin prelude at the recital", created_at=at_hour(saturday)
                ),
                Draft(content="Back at work, a long planning meeting", created_at=at_hour(monday)),
                Draft(content="Practised scales for an hour", created_at=at_hour(monday, 20)),
            ]
        )
        mem.flush()
        asked = f"What happened on the weekend before {monday:%B} {monday.day}?"
        hits = mem.search(asked)
        assert hits[0].memory.id == recital.id
        assert hits[0].why.day in {saturday.isoformat(), (saturday + timedelta(days=1)).isoformat()}


def test_an_event_nothing_matches_or_a_plan_to_come_leaves_the_question_as_it_is(
    store_url: str, clock: FixedClock
) -> None:
    """No memory of the event: nothing to count from, the question's words all searched. A
    question of what to do before an event asks for the plan that names it."""
    with Engram.open(store_url, clock=clock) as mem:
        packing = mem.save("Pack the kitchen boxes a week before the move to Denver")
        mem.save_many(
            [
                Draft(
                    content="What should I pack for the beach? Sunscreen and towels",
                    created_at=clock.now - timedelta(days=3),
                ),
            ]
        )
        mem.flush()
        planned = mem.search("What should I pack a week before the move?")
        assert planned[0].memory.id == packing.id
        assert planned[0].why.day is None
        assert mem.search("What did I eat two days after the zebra parade?") == []


def test_a_question_counting_from_an_event_is_a_recall_whose_query_keeps_the_event(
    store_url: str, clock: FixedClock
) -> None:
    """An MCP client asks `analyze_for_recall` first: "Two weeks after I changed units, what
    trip were we planning?" read as no recall (a question's first word is not "what"), and the
    query of "…a month before moving to the Pearl?" lost its "before" (a word of asking), so
    the search it advised counted from nothing."""
    moved = clock.now.date() - timedelta(days=90)
    with Engram.open(store_url, clock=clock) as mem:
        saved = mem.save_many(
            [
                Draft(content="We moved into the Pearl apartment today", created_at=at_hour(moved)),
                Draft(
                    content="Ordered a standing desk and a monitor arm",
                    created_at=at_hour(moved - timedelta(days=30)),
                ),
                Draft(
                    content="Ordered new running shoes and a water bottle",
                    created_at=at_hour(moved + timedelta(days=20)),
                ),
            ]
        )
        mem.flush()
        for question in (
            "What did I order about a month before moving to the Pearl?",
            "A month before we moved to the Pearl, what did I order?",
        ):
            advice = mem.analyze_for_recall(question)
            assert advice.should_search and advice.window_days is None
            assert advice.query is not None and "month before" in advice.query
            hits = mem.search(advice.query)
            assert hits[0].memory.id == saved[1].id, question
        for not_asked_of_the_store in (
            "What should I pack a week before the move?",  # what to do
            "Is it safe to fly a week after surgery?",  # of the world (a probe: 8 of 9 were)
            "What did the band do two weeks after the zebra parade?",  # no memory of it
        ):
            assert not mem.analyze_for_recall(not_asked_of_the_store).should_search


def test_an_event_no_memory_names_counts_no_days(store_url: str, clock: FixedClock) -> None:
    """A probe: "the Berlin conference", in a store that never heard of one, was the Atlas
    launch by a faint meaning, and the memories saved two weeks after that came first as
    the answer."""
    with Engram.open(store_url, clock=clock) as mem:
        mem.save_many(
            [
                Draft(
                    content="My top priority this quarter is the Atlas launch",
                    created_at=clock.now - timedelta(days=40),
                ),
                Draft(
                    content="Notion pricing: $10 per month after the trial",
                    created_at=clock.now - timedelta(days=26),
                ),
            ]
        )
        mem.flush()
        hits = mem.search("What did I note two weeks after the Berlin conference?")
        assert all(h.why.day is None for h in hits)


def test_an_event_planned_on_a_day_counts_from_that_day(store_url: str, clock: FixedClock) -> None:
    """A probe: "Knee surgery scheduled for May 5", saved in February, made "the day before
    my knee surgery" a day in February, and what was done on May 4 was never found."""
    surgery = clock.now.date() - timedelta(days=30)
    with Engram.open(store_url, clock=clock) as mem:
        saved = mem.save_many(
            [
                Draft(
                    content=f"Knee surgery scheduled for {surgery:%B} {surgery.day}",
                    created_at=at_hour(surgery - timedelta(days=80)),
                ),
                Draft(
                    content="Stocked up on frozen soups and bought a shower chair",
                    created_at=at_hour(surgery - timedelta(days=1)),
                ),
                Draft(
                    content="Bought a new desk lamp and some shelves",
                    created_at=at_hour(surgery - timedelta(days=81)),
                ),
            ]
        )
        mem.flush()
        hits = mem.search("What did I buy the day before my knee surgery?")
        assert hits[0].memory.id == saved[1].id
        assert hits[0].why.day == (surgery - timedelta(days=1)).isoformat()


# What a busy life says on other days: alike in meaning to "what did I do …?", as a probe's
# three memories were, that came first for any day so asked.
DAYS_OF_A_LIFE = (
    "Told my parents about the engagement on a video call, Mom cried",
    "Biscuit chewed up my running shoes",
    "Back to work after the honeymoon, 400 unread emails",
    "Took the car in for its winter tyres",
    "Baked sourdough for the neighbours",
)


def test_what_i_did_on_a_day_counted_or_named_lists_that_days_memories_first(
    store_url: str, clock: FixedClock
) -> None:
    """A time probe: "what did I do the day before yesterday?" and "…on the 2nd?" were searched
    by the meaning of "what did I do", and three memories of other days came first; the day's
    own came at rank 0. Asked "What happened …" the same day came first."""
    today = clock.now.date()
    two_back = today - timedelta(days=2)
    second = next(
        today - timedelta(days=n) for n in range(1, 40) if (today - timedelta(days=n)).day == 2
    )
    with Engram.open(store_url, clock=clock) as mem:
        for i, text in enumerate(DAYS_OF_A_LIFE):
            mem.save(text, created_at=at_hour(today - timedelta(days=60 + 9 * i)))
        viewing = mem.save("Saw the apartment on Prospect Park West", created_at=at_hour(two_back))
        harness = mem.save("Bought Biscuit a new harness", created_at=at_hour(second))
        mem.flush()
        for question in ("what did I do the day before yesterday?", "What happened two days ago?"):
            assert mem.search(question)[0].memory.id == viewing.id, question
        assert mem.search("What did I do on the 2nd?")[0].memory.id == harness.id


def test_an_event_is_dated_by_the_memory_naming_its_day_among_those_telling_of_it(
    store_url: str, clock: FixedClock
) -> None:
    """A time probe: "a month before the wedding" counted from "Bought my wedding dress" (the
    best match of "wedding"), not from "…the wedding date is September 20": June came back."""
    year = clock.now.year - 1
    wedding = date(year, 9, 20)
    with Engram.open(store_url, clock=clock) as mem:
        mem.save("Bought my wedding dress at Lovely Bride", created_at=at_hour(date(year, 7, 12)))
        mem.save(
            "Our photographer for the wedding is Ana Ruiz", created_at=at_hour(date(year, 6, 25))
        )
        mem.save(
            f"Signed the contract with Wave Hill, the wedding date is September 20, {year}",
            created_at=at_hour(date(year, 5, 30)),
        )
        kafka = mem.save(
            "Kafka migration finished, payments on the new cluster",
            created_at=at_hour(wedding - timedelta(days=29)),
        )
        mem.save(
            "Adopted a sourdough starter from a coworker", created_at=at_hour(date(year, 6, 12))
        )
        mem.flush()
        hits = mem.search("What happened a month before the wedding?")
        assert hits[0].memory.id == kafka.id
