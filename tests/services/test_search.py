"""Search through the public API: finds by meaning of words across the whole store."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from tests.support import START, SUMMIT_CHAT

from engram import Draft, Engram, FixedClock, ValidationError
from engram.services.users_name import users_names


def test_finds_an_old_exact_match_among_many_fresh_unrelated_memories(
    mem: Engram, clock: FixedClock
) -> None:
    """The upstream re-ranked only the 30 most recent memories and never found older ones."""
    old = mem.save(
        "Our wifi password is stored in the blue notebook", created_at=START - timedelta(days=60)
    )
    for i in range(300):
        mem.save(f"Daily standup note {i}: shipped feature {i} to staging")
    hits = mem.search("wifi password")
    assert hits[0].memory.id == old.id


def test_a_query_that_matches_nothing_returns_nothing(mem: Engram) -> None:
    mem.save("I like green tea")
    assert mem.search("quantum chromodynamics") == []
    assert mem.search("?!") == []


def test_a_code_finds_the_memory_holding_it_before_those_of_codes_alike(mem: Engram) -> None:
    """To the model a code is its pieces: "zebra0x0" is 0.6 alike to every "zebra…" code, and
    those found so lent their words to the search (expansion) and credit to their episode,
    which put them all above the one memory holding the code (93rd in a library probe)."""
    for t in range(8):
        for i in range(40):
            mem.save(f"Thread {t} note number {i} about topic {i % 7} zebra{t}x{i}")
            if i % 10 == 0:
                mem.save_many(
                    [
                        Draft(f"Batch {t}-{i}-{k} zebra{t}b{i}k{k}", episode=f"ep-{t}")
                        for k in range(3)
                    ]
                )
    for code in ("zebra0x0", "zebra1x5", "zebra5x7"):
        hits = mem.search(code, limit=5)
        assert code in hits[0].memory.content, [h.memory.content for h in hits]
        assert [h.why.text > 0 for h in hits] == [True] + [False] * (len(hits) - 1)


def test_relevance_beats_freshness(mem: Engram, clock: FixedClock) -> None:
    exact = mem.save("Alice's birthday is on March 3rd")
    clock.advance(days=20)
    fresh = mem.save("Bob mentioned a birthday party")
    hits = mem.search("Alice birthday")
    assert [h.memory.id for h in hits] == [exact.id, fresh.id]


def test_decay_reranks_equally_relevant_matches(mem: Engram, clock: FixedClock) -> None:
    stale = mem.save("Deploy checklist for the API")
    clock.advance(days=10)
    fresh = mem.save("Deploy checklist for the API, v2")  # not a repeat: a memory of its own
    assert [h.memory.id for h in mem.search("deploy checklist")] == [fresh.id, stale.id]


def test_search_does_not_reinforce(mem: Engram) -> None:
    m = mem.save("the spare key is under the mat")
    mem.search("spare key")
    assert mem.get(m.id).use_count == 0


def test_tag_status_window_and_min_score_filters(mem: Engram, clock: FixedClock) -> None:
    a = mem.save("project alpha kickoff", tags=["work"])
    b = mem.save("project alpha dinner", tags=["Home"])
    clock.advance(days=20)
    c = mem.save("project alpha retro", tags=["work"])
    mem.archive(b.id)
    assert {h.memory.id for h in mem.search("alpha", tags=["WORK"])} == {a.id, c.id}
    assert {h.memory.id for h in mem.search("alpha")} == {a.id, c.id}
    assert {h.memory.id for h in mem.search("alpha", status="archived")} == {b.id}
    assert {h.memory.id for h in mem.search("alpha", status="all")} == {a.id, b.id, c.id}
    # "all" with others is still all (it was refused, naming "all" among the values allowed)
    assert len(mem.search("alpha", status=["all", "active"])) == 3
    assert {h.memory.id for h in mem.search("alpha", window_days=7)} == {c.id}
    assert {h.memory.id for h in mem.search("alpha", min_score=0.5)} == {c.id}


def test_min_score_reaches_past_the_candidate_pool(mem: Engram) -> None:
    """The floor was applied to the best 200 text matches only: 300 faded short matches hid
    100 fresh ones that pass it, and the search returned nothing."""
    old = START - timedelta(days=60)
    faded = [Draft(f"kayak trip {i}", created_at=old, last_used=old) for i in range(300)]
    mem.save_many(faded)
    fresh = mem.save_many(
        [
            Draft(f"kayak {i}: then we paddled along the river for hours, all of us")
            for i in range(100)
        ]
    )
    hits = mem.search("kayak", min_score=0.5, limit=10)
    assert len(hits) == 10
    assert {h.memory.id for h in hits} <= {m.id for m in fresh}
    assert all(h.score >= 0.5 for h in hits)


def test_min_score_reaches_past_the_pool_of_a_search_without_a_query(mem: Engram) -> None:
    """A search without a query reads the most durable memories first, which is not the best
    scored first: 250 strong ones fading slowly outlast a fresh one, and `min_score` 0.5
    found nothing where the fresh one scored 1.0 (the floor did not widen a browse)."""
    old = START - timedelta(days=40)
    strong = [
        Draft(f"strong old memory {i}", strength=2.0, created_at=old, last_used=old)
        for i in range(250)
    ]
    mem.save_many(strong)
    fresh = mem.save("fresh ordinary memory")
    hits = mem.search(min_score=0.5, limit=10)
    assert [h.memory.id for h in hits] == [fresh.id] and hits[0].score == 1.0


def test_an_empty_status_list_is_refused(mem: Engram) -> None:
    """It searched `status IN ()` and answered nothing, which reads as "nothing remembered"."""
    mem.save("project alpha kickoff")
    for query in ("alpha", None):
        with pytest.raises(ValidationError, match="status"):
            mem.search(query, status=[])


def test_tags_a_save_keeps_apart_are_filtered_apart(mem: Engram) -> None:
    """A save de-duplicated tags by case-folding ("STRASSE" dropped as "Straße"), the filter by
    lower-casing (which keeps them apart): --tag STRASSE then found nothing."""
    m = mem.save("Road works in Köln", tags=["Straße", "STRASSE", "straße"])
    assert m.tags == ("Straße", "STRASSE")
    for tag in ("STRASSE", "strasse", "Straße", "STRAẞE"):
        assert [h.memory.id for h in mem.search("road", tags=[tag])] == [m.id], tag


def test_browse_without_query_lists_most_durable_first(mem: Engram, clock: FixedClock) -> None:
    old = mem.save("first")
    clock.advance(days=5)
    new = mem.save("second")
    assert [h.memory.id for h in mem.search(limit=5)] == [new.id, old.id]


def test_browse_blends_in_no_review_and_claims_no_text_match(
    mem: Engram, clock: FixedClock
) -> None:
    """Without a query, review slots went to fading memories all the same: the least durable
    memory was listed third, its `why` saying "text 1" for a match that never happened."""
    durable = [mem.save(f"durable note {i}") for i in range(8)]
    clock.advance(days=3)
    fading = mem.save("fading note", strength=0.3)  # a score of 0.3: in the danger zone
    assert mem.review_candidates(10)[0].memory.id == fading.id  # it is a review candidate
    hits = mem.search(limit=5)
    assert all(h.reason == "match" and h.why.text == 0 for h in hits)
    assert fading.id not in [h.memory.id for h in hits]
    assert {h.memory.id for h in hits} <= {d.id for d in durable}


def test_browse_orders_memories_above_full_strength_by_their_score(
    mem: Engram, clock: FixedClock
) -> None:
    """Every memory at a score of 1 or more had the same rank value (the decay factor is
    capped at 1), and the tie went to the id: a random UUID. A search without words returned
    a fresh memory before one used twenty times, in no particular order."""
    used = mem.save("used every day", strength=2.0)
    for _ in range(20):
        mem.touch(used.id)
    clock.advance(hours=1)
    fresh = [mem.save(f"fresh note {i}") for i in range(5)]
    hits = mem.search(limit=6)
    assert hits[0].memory.id == used.id
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert {h.memory.id for h in hits[1:]} == {m.id for m in fresh}
    assert mem.search(limit=1)[0].memory.id == used.id


def test_review_candidates_are_blended_into_results(mem: Engram, clock: FixedClock) -> None:
    fading = mem.save("garden: tomatoes need watering twice a week")
    clock.advance(days=9)  # power law: score ≈ 0.24, mid danger zone
    topics = "compost trellis seedlings harvest pruning mulch shade soil stakes slugs seeds pots"
    fresh = [mem.save(f"garden plan: tomatoes need watering, beds and {t}") for t in topics.split()]
    hits = mem.search("garden tomatoes", limit=10)
    assert len(hits) == 10
    reviews = [h for h in hits if h.reason == "review"]
    assert [h.memory.id for h in reviews] == [fading.id]
    assert reviews[0].why.review > 0.9
    assert {h.memory.id for h in hits if h.reason == "match"} <= {m.id for m in fresh}


def test_blend_ratio_zero_turns_review_blending_off(tmp_path: Path, clock: FixedClock) -> None:
    """The same store, searched with the default ratio and with 0: the fading near-miss that
    takes a review slot by default is not listed at all with 0."""
    path = str(tmp_path / "x.db")
    with Engram.open(path, clock=clock) as mem:
        fading = mem.save("garden: tomatoes need watering twice a week")
        clock.advance(days=9)
        topics = "compost trellis seedlings harvest pruning mulch shade soil stakes slugs seeds"
        for t in [*topics.split(), "pots"]:
            mem.save(f"garden plan: tomatoes need watering, beds and {t}")
        hits = mem.search("garden tomatoes", limit=10)
        assert [h.memory.id for h in hits if h.reason == "review"] == [fading.id]
    with Engram.open(path, clock=clock, review_blend_ratio=0.0) as mem:
        hits = mem.search("garden tomatoes", limit=10)
        assert len(hits) == 10 and all(h.reason == "match" for h in hits)
        assert fading.id not in [h.memory.id for h in hits]


def test_why_is_reported(mem: Engram) -> None:
    mem.save("postgres tuning notes")
    (hit,) = mem.search("postgres")
    assert hit.why.text == 1.0 and hit.why.decay == hit.score == 1.0
    assert hit.rank == hit.why.rank


@pytest.mark.parametrize("query", ['"', "'", "-", "!!!", ")(*&^%$", "?", "...", "→"])
def test_a_query_without_a_letter_or_digit_finds_nothing(tmp_path: Path, query: str) -> None:
    """'"', "-" or "!!!" found a memory at rank 1 through the embedding of the punctuation,
    while "?" found nothing: no word, no meaning, nothing found, the same for every one."""
    with Engram.open(str(tmp_path / "x.db")) as mem:
        mem.save("Loves 🍕 pizza on Fridays")
        mem.save("我们决定使用 PostgreSQL 数据库")
        mem.save("Decided on PostgreSQL 16 for Atlas")
        assert mem.search(query) == []
        assert mem.search("pizza " + query)[0].memory.content == "Loves 🍕 pizza on Fridays"


def test_a_query_of_emoji_alone_is_searched_by_their_names(store_url: str) -> None:
    """ "🍕" found nothing beside "I love 🍕 pizza" (an MCP probe): neither the index nor the
    model reads an emoji. Searched by its name ("slice of pizza"), it finds the pizza."""
    with Engram.open(store_url) as mem:
        pizza = mem.save("I love 🍕 pizza with pineapple")
        party = mem.save("Birthday party on Saturday 🎂")
        mem.save("Decided on PostgreSQL 16 for Atlas")
        assert [h.memory.id for h in mem.search("🍕", limit=1)] == [pizza.id]
        assert [h.memory.id for h in mem.search("🎂🎉", limit=1)] == [party.id]


@pytest.mark.parametrize("durable", [199, 200])
def test_a_listing_puts_a_fresh_memory_first_however_many_strong_old_ones(
    store_url: str, clock: FixedClock, durable: int
) -> None:
    """The listing's pool was the 200 most durable memories: a memory saved a moment ago,
    the highest score of all, was listed first behind 199 strong old ones and not at all
    behind 200 (audit)."""
    old = clock.now - timedelta(days=20)
    with Engram.open(store_url, clock=clock, embedding_model="none") as mem:
        mem.save_many(
            [
                Draft(content=f"Old note {i}", strength=2.0, created_at=old, last_used=old)
                for i in range(durable)
            ]
        )
        fresh = mem.save("Just saved: the new office code is 4711")
        listed = mem.search(limit=3)
        assert listed[0].memory.id == fresh.id
        assert [h.score for h in listed] == sorted((h.score for h in listed), reverse=True)


def test_news_of_one_part_of_a_fact_takes_its_place_only_where_asked(mem: Engram) -> None:
    """A coding assistant's probe: "Ruff line-length was raised from 100 to 120" superseded
    the lint note (ruff, mypy --strict, CI) and was listed first for "is mypy strict?", which
    it says nothing of. It stays first where the query asks what it says, and the note says
    it was superseded."""
    lint = mem.save(
        "Linting: make lint runs ruff (line-length 100) and mypy --strict on atlas/. "
        "CI fails on any ruff warning."
    )
    mem.save("Run the tests with make test; integration tests need docker compose up first.")
    news = mem.save_result(Draft(content="Ruff line-length was raised from 100 to 120."))
    assert news.supersedes == [lint.id]
    mypy = mem.search("is mypy strict?")
    assert mypy[0].memory.id == lint.id and mypy[0].why.superseded_by == news.memory.id
    assert mem.search("what is the ruff line length?")[0].memory.id == news.memory.id


def test_a_note_is_found_by_the_word_it_opens_with_to_say_its_kind(mem: Engram) -> None:
    """A coding assistant's probe: "TODO: finish moving the schemas to v2" was found by "TODO"
    and by no question with another word ("what TODOs are open?"): the label matched and the
    meaning was unlike, and the match was dropped as one by chance."""
    todo = mem.save("TODO: finish moving the remaining schemas from pydantic v1 to v2")
    mem.save("Run the tests with make test; integration tests need docker compose up first.")
    mem.save("Local Postgres runs in docker-compose on host port 5433.")
    mem.flush()
    for question in ("what TODOs are open?", "todo list"):
        assert [h.memory.id for h in mem.search(question)][:1] == [todo.id], question
    # "Postgres" is PostgreSQL by its short name
    upgrade = mem.save("Upgraded PostgreSQL from 15 to 16 in every environment")
    mem.flush()
    assert upgrade.id in [h.memory.id for h in mem.search("what Postgres version are we on?")][:2]


def test_a_query_naming_the_user_lists_their_peoples_facts_after_theirs(mem: Engram) -> None:
    """Asked of the user by name, as "Where do I work?" is: "Where does Marco work?" listed
    "My sister works at a bakery" above "I work at Globex" (a probe)."""
    mem.save("My name is Marco.")
    job = mem.save("I work at Globex as a data engineer")
    sister = mem.save("My sister works at a bakery")
    mem.flush()
    assert [h.memory.id for h in mem.search("Where does Marco work?")] == [job.id, sister.id]


def test_a_query_naming_the_user_finds_what_they_said_in_the_first_person(mem: Engram) -> None:
    """A probe: "Where does Priya work?" listed every note naming Priya (matched by that word
    alone, at full text relevance) above "I work as a product manager…". Once the store says
    Priya is the user ("My name is Priya Sharma"), the name is not searched as a word, and the
    query is asked by meaning in the first person too."""
    job = mem.save("I work as a product manager at Lumen Health")
    notes = [
        mem.save("Priya commutes to work by streetcar, about 25 minutes each way"),
        mem.save("Priya's mother Lakshmi lives in Chennai"),
        mem.save("Priya is no longer vegetarian; she eats fish now"),
    ]
    mem.flush()
    before = [h.memory.id for h in mem.search("Where does Priya work?")]
    assert before[0] != job.id  # a note naming her comes first
    mem.save("My name is Priya Sharma")
    mem.flush()
    hits = mem.search("Where does Priya work?")
    assert hits[0].memory.id == job.id
    # a note about her is still found by what it says
    assert mem.search("Who is Priya's mother?")[0].memory.id == notes[1].id
    # another name is searched as before
    assert mem.search("Where does Lakshmi live?")[0].memory.id == notes[1].id
    # a query that names the user and nothing else by its words is searched as asked (without
    # the name it found nothing), and a name given in no so many words is no user's
    assert mem.search("What does Priya do?")
    mem.save("Ask the plumber to call me. Tom said Monday works")
    tom = mem.save("Tom fixes the boiler on Monday")
    mem.flush()
    assert tom.id in [h.memory.id for h in mem.search("When is Tom coming?")[:2]]
    # a name given with an apostrophe is found as the index reads it, on every backend
    mem.save("The user's name is Dana")
    store = mem.app.context.store
    assert users_names(store, ["Dana", "Tom", "Lakshmi"]) == ["Dana"]


def test_a_possessive_in_the_query_finds_the_memory_naming_its_word(mem: Engram) -> None:
    """A probe: "What's my wife's name?" found "Our dog is a border collie named Biscuit"
    first ("name" matched "named"; "wife's" matched nothing)."""
    wife = mem.save("My wife is Maya; we have two kids, Leo and Ava")
    mem.save("Our dog is a border collie named Biscuit")
    mem.flush()
    hits = mem.search("What's my wife's name?")
    assert hits[0].memory.id == wife.id
    assert hits[0].why.text > 0


def test_a_query_naming_a_kind_of_tool_finds_the_memory_naming_one(mem: Engram) -> None:
    """A probe's thirty memories answered "database" and "which database did we pick" with
    nothing: "Project Atlas uses PostgreSQL 16" shares no word with them and is at cosine
    0.17. Only the kind brings its names: "postgresql" does not find Redis."""
    atlas = mem.save("Project Atlas uses PostgreSQL 16")
    laptops = mem.save("Our laptops run Fedora Linux with GNOME")
    redis = mem.save("We chose Redis for caching session tokens")
    mem.save("Standup is at 9:30 every weekday")
    mem.flush()
    for query in ("which database did we pick", "database"):
        hits = mem.search(query)
        assert {h.memory.id for h in hits[:2]} == {atlas.id, redis.id}, query
        assert all(h.why.text > 0 for h in hits[:2])
    assert mem.search("which operating system do we use")[0].memory.id == laptops.id
    assert redis.id not in [h.memory.id for h in mem.search("postgresql")]


def test_a_food_asked_of_finds_the_allergy_naming_its_kind(mem: Engram) -> None:
    """A fifteenth blind probe: "Can I eat the shrimp paella at the department dinner?" found
    nothing, and the assistant would have said yes to a shellfish allergy."""
    allergy = mem.save("He gets hives from shellfish (mild allergy).")
    lactose = mem.save("Arjun is lactose intolerant.")
    mem.save("Runs Snakemake pipelines on the university HPC cluster")
    mem.save("Likes explanations with the equations written out")
    mem.flush()
    assert mem.search("Can I eat the shrimp paella at the department dinner?")[0].memory.id == (
        allergy.id
    )
    assert mem.search("is a cheese board ok for the party?")[0].memory.id == lactose.id
    assert mem.search("crab cakes")[0].memory.id == allergy.id
    assert mem.search("favorite football team") == []  # what names no food finds none


def test_a_person_asked_of_by_their_place_in_the_users_life_is_searched_by_name(
    mem: Engram,
) -> None:
    """A probe: "What does my husband do for a living?" found "Daan is a high school chemistry
    teacher" fifth, through its session alone: it never says "husband"."""
    mem.save("I live in Rotterdam with my husband Daan and our two kids.")
    job = mem.save("Daan is a high school chemistry teacher.")
    for filler in (
        "The plumber comes on Tuesday",
        "Pushkin the cat needs his vaccinations",
        "Book club meets on the first Monday",
        "Renew the passport before June",
        "Running 5K three times a week",
        "Prefers window seats on flights",
    ):
        mem.save(filler)
    hits = mem.search("What does my husband do for a living?")
    assert job.id in [h.memory.id for h in hits[:2]]
    by_id = {h.memory.id: h for h in hits}
    assert by_id[job.id].why.text > 0  # by the name
    # ... and by the other words for the same person: a held-out probe's "What does my wife
    # do?" found nothing of "my partner Sam" and "Sam's a vet nurse"
    mem.save("Moving in with my partner Sam next spring")
    nurse = mem.save("Sam works night shifts as a vet nurse")
    found = {h.memory.id: h for h in mem.search("What does my wife do for a living?")[:2]}
    assert nurse.id in found and found[nurse.id].why.text > 0


def test_a_spouse_asked_of_is_the_wife_or_husband_the_store_names(mem: Engram) -> None:
    """A personal assistant's probe: "Does my spouse eat meat?" was asked of the user (no one
    writes "my spouse Priya"), and "User's wife Priya is vegetarian" came fifth, below the
    user's own diet and allergy. It is now searched as "my wife" is."""
    mem.save("User stopped eating red meat; eats mostly chicken and fish now.")
    mem.save("User is allergic to shellfish. Never suggest shellfish.")
    mem.save("Jordan lives in Denver with his wife Priya and their two kids: Leo and Mia.")
    wife = mem.save("User's wife Priya is vegetarian; recipe suggestions must be vegetarian.")
    mem.save("User's sister Hannah is a teacher in Portland.")
    mem.save("User's neighbor Lena has a golden retriever named Biscuit.")
    hits = mem.search("Does my spouse eat meat?")
    assert hits[0].memory.id == wife.id
    assert hits[0].why.semantic is not None and hits[0].why.semantic > 0.7
    as_wife = mem.search("Does my wife eat meat?")
    assert [h.memory.id for h in hits] == [h.memory.id for h in as_wife]


def test_a_question_of_one_of_the_users_people_finds_nothing_of_the_others(mem: Engram) -> None:
    """A twelfth blind probe's: "what's my brother's name?" and "who is my dentist?" found "my
    mom's name is Helen…" first by meaning alone, where no brother and no dentist was stored;
    an assistant would have answered with the mother's name."""
    mom = mem.save("my mom's name is Helen and she lives in Leeds")
    mem.save("I need to renew my driving licence")
    cousin = mem.save("my cousin Raj is getting married in Goa in February")
    mem.flush()
    assert mem.search("what's my brother's name?") == []
    assert mem.search("who is my dentist?") == []
    assert [h.memory.id for h in mem.search("what's my mother called?")][:1] == [mom.id]
    assert cousin.id in [h.memory.id for h in mem.search("what's my cousin's phone number?")]


def test_a_question_of_the_user_alone_puts_the_users_own_facts_first(
    mem: Engram, clock: FixedClock
) -> None:
    """An MCP probe: "Where do I live?" listed the sister's two cities above the user's own."""
    mem.save("User's sister Ana lives in Montreal")
    home = mem.save("User lives in Munich with partner Jonas")
    clock.advance(days=25)
    mem.save("User's sister Ana moved to Toronto for a new job")
    moved = mem.save("User moved to Berlin with Jonas")
    clock.advance(days=20)
    assert mem.search("Where do I live?")[0].memory.id in {home.id, moved.id}
    sister = [h.memory.content for h in mem.search("where does my sister live")]
    assert "Ana" in sister[0]  # asked of her, she leads


def test_a_word_in_most_memories_is_no_full_text_match(mem: Engram) -> None:
    """A tag on every work memory ("work") matched "… at work" in each at full text
    relevance, and all of them came before the memory that answers by meaning, tagged
    otherwise (a probe). Words found in most of the store say little: meaning decides."""
    facts = [
        "The Harbor beta slipped to February 3",
        "Decision: Harbor supports dark mode from day one",
        "Bluebird deadline pushed back to October 1 because of legal review",
        "Figma variables chosen for design tokens",
        "Carlos took over the Bluebird project",
        "Priya Nair is the lead engineer on Bluebird",
    ]
    for text in facts:
        mem.save(text, tags=["work"])
    boss = mem.save("Rosa Lindqvist is my new boss", tags=["people"])
    mem.flush()
    first, *rest = mem.search("who manages me at work")
    assert first.memory.id == boss.id
    assert rest and all(h.why.text < 0.01 for h in rest)
    # nor do those matches lend their words to expand the query with
    assert all(h.why.expansion is None for h in mem.search("who do I report to at work?"))
    # a word fewer memories hold counts in full
    assert mem.search("Bluebird deadline")[0].why.text == 1.0


PET_NOTES = [
    "Happy new year! Hoping this year is a calmer one than last year",
    "Took in a scruffy ginger cat named Pilchard",
    "The boiler needs servicing before winter",
    "Adopted a spaniel called Biscuit from the shelter",
    "Booked the train to Utrecht for the holidays",
]


@pytest.mark.parametrize(
    "query", ["What pets did I adopt over the year?", "Which pets have I taken in this year?"]
)
def test_a_question_over_the_whole_record_is_not_searched_by_its_span(
    mem: Engram, query: str
) -> None:
    """A helper's blind chats: "year" in "…over the year?" found "Happy new year!" first.
    The span is all that was said: the pets are the answer, and nothing else matches."""
    for note in PET_NOTES:
        mem.save(note)
    mem.flush()
    found = [h.memory.content for h in mem.search(query, limit=3)]
    assert sorted(found) == sorted([PET_NOTES[1], PET_NOTES[3]])


def test_a_hedge_in_a_question_is_no_word_to_match(mem: Engram) -> None:
    """ "Would Hana likely…?" asks what can be inferred: "likely" names nothing of the answer,
    and found a forecast that says it of the rain."""
    mem.save("It will likely rain all weekend, so the barbecue is probably off")
    board = mem.save("Hana fell off her new skateboard at the park yesterday")
    mem.save("The dentist appointment moved to Thursday")
    found = mem.search("Would Hana likely try another board sport?")
    assert [h.memory.id for h in found] == [board.id]


@pytest.mark.parametrize("coverage", [1.0, 0.0])
def test_a_text_match_counts_for_as_much_of_the_question_as_it_holds(
    store_url: str, coverage: float
) -> None:
    """Normalised by the best text match, a turn holding only "Siobhan" and "up" of the
    question was a full text match and came before the answer, which matched by meaning alone
    (`search_text_coverage`; 0 turns it off)."""
    with Engram.open(store_url, search_text_coverage=coverage) as mem:
        saved = mem.save_many([Draft(content=turn, episode="s1") for turn in SUMMIT_CHAT])
        mem.flush()
        found = mem.search("Which Irish summit did Siobhan trek up with her father?", limit=3)
    hike, chance = saved[3].id, saved[7].id  # "…hiked croagh patrick…", "…come up…"
    assert found[0].memory.id == (hike if coverage else chance)
