"""Enrichment on save and the analyze operations, through the Python API on every backend."""

from __future__ import annotations

import threading
from collections import OrderedDict
from datetime import UTC, datetime, timedelta

import pytest

from engram import Draft, Engram, FixedClock, ValidationError
from engram.core.statement import STATEMENT_CONFIDENCE
from engram.services import context
from engram.services.results import SaveResult, why_summary

DAY = timedelta(days=1)


def test_a_save_adds_the_names_in_its_text_and_says_so(mem: Engram) -> None:
    result = mem.save_result(
        Draft("Dana Kim moved the Atlas launch to Friday", entities=["dana kim"])
    )
    assert result.memory.entities == ("dana kim", "Atlas")  # the caller's first, once
    assert result.enrichment is not None and result.enrichment.entities == ["Atlas"]
    assert [h.memory.id for h in mem.search("atlas")] == [result.memory.id]


def test_strength_comes_from_the_wording_unless_given(mem: Engram) -> None:
    marked = mem.save_result(Draft("Important: never share my phone number!"))
    assert marked.memory.strength == pytest.approx(1.6)
    assert marked.enrichment is not None and len(marked.enrichment.why) == 3
    plain = mem.save("Prefers tea over coffee")
    assert plain.strength == 1.0
    given = mem.save_result(Draft("Important: the demo is on Friday", strength=0.5))
    assert given.memory.strength == 0.5
    assert given.enrichment is not None and given.enrichment.why == []


def test_imports_and_a_disabled_setting_keep_the_record_as_given(
    mem: Engram, store_url: str
) -> None:
    imported = mem.save_result(Draft("Important: Atlas uses JWT", id="imported-1"))
    assert imported.memory.entities == () and imported.memory.strength == 1.0
    assert imported.enrichment is None
    with Engram.open(store_url, enrich_on_save=False) as plain:
        kept = plain.save_result(Draft("Important: Globex pays in March"))
    assert kept.memory.entities == () and kept.memory.strength == 1.0


def test_analyze_message_says_what_to_save(mem: Engram) -> None:
    found = mem.analyze_message("Remember: I prefer TypeScript over JavaScript")
    assert (found.intent, found.should_save, found.phrase) == ("save", True, "Remember")
    assert found.content == "I prefer TypeScript over JavaScript"
    assert found.entities == ["TypeScript", "JavaScript"] and "preference" in found.tags
    assert found.strength is not None and found.strength > 1.0
    assert mem.analyze_message("What's the capital of France?").intent == "none"
    # the content is as written, no capital added ("Buy" was once read as a name)
    milk = mem.analyze_message("Note to self: buy milk")
    assert (milk.content, milk.entities) == ("buy milk", [])
    assert mem.analyze_message("remember: Bob moved to Berlin").entities == ["Bob", "Berlin"]


def test_a_fact_an_assistant_noted_of_the_user_is_said_already_in_the_first_person(
    mem: Engram,
) -> None:
    """An assistant notes the user's facts as "User prefers…"; the user says them as "I
    prefer…": 0.87 alike by meaning, under the bar for a fact said already, and told apart as
    "one says 'i' where another says 'user'", so the fact said again was a second copy to save
    (a helper's probe). "I work as a nurse" stood at 0.67 to its note, not even reported."""
    python = mem.save("User prefers Python over JavaScript for backend work")
    nurse = mem.save("The user works as a nurse at St. Mary's Hospital")
    said = mem.analyze_message("I prefer Python over JavaScript for backend work")
    assert (said.intent, said.should_save, said.touch) == ("save", False, [python.id])
    # the same words in the other voice: a repeat (`test_the_users_words_repeat_a_note_…`)
    again = mem.save_result("I work as a nurse at St. Mary's Hospital")
    assert (again.action, again.duplicate_of) == ("merged", nurse.id)
    other = mem.save_result("I work as a night nurse at St. Mary's Hospital")
    assert nurse.id in [s.id for s in other.similar]
    # what the note does not say is still a save
    more = mem.analyze_message("I prefer Python over JavaScript for backend work and scripts")
    assert (more.should_save, more.touch) == (True, [])


def test_a_confirmation_names_the_recent_memory_it_confirms(mem: Engram) -> None:
    ts = mem.save("Uses TypeScript for every frontend project")
    porto = mem.save("Lives in Porto")
    found = mem.analyze_message("Yes, still using TypeScript", [porto.id, ts.id])
    assert (found.intent, found.touch) == ("reinforce", [ts.id])
    # naming nothing, it confirms the answer given, the first shown: every one shown was
    # touched, the search's other results too (a fifth blind probe's)
    vague = mem.analyze_message("Yes, that's right.", [porto.id, ts.id])
    assert vague.touch == [porto.id]
    # Thanks name nothing either, before or after: one was no confirmation, the other touched
    # nothing (probe).
    for polite in (
        "Thanks, that's right!",
        "That's right, thanks",
        "Perfect, exactly.",
        "thats the one, ta",
        "yes thanks, that matches",
    ):
        thanked = mem.analyze_message(polite, [porto.id, ts.id])
        assert (thanked.intent, thanked.touch) == ("reinforce", [porto.id]), polite
    # An id that names no memory is said, not passed over (probe).
    typo = mem.analyze_message("Yes, that's right.", [porto.id, "no-such-memory"])
    assert (typo.touch, typo.missing) == ([porto.id], ["no-such-memory"])
    assert found.missing == [] and mem.analyze_message("Hello there").missing == []


def test_a_correction_of_a_shown_memory_saves_it_with_the_new_value(mem: Engram) -> None:
    """A third blind probe: "no that's wrong, it was 2018 not 2019" just after "the roof was
    replaced in 2019" was shown was none, and the old year held."""
    roof = mem.save("the roof was replaced in 2019")
    pressure = mem.save("my blood pressure this morning was 135/85")
    found = mem.analyze_message("no that's wrong, it was 2018 not 2019", [roof.id])
    assert (found.intent, found.content) == ("save", "the roof was replaced in 2018")
    # a value inside a longer one is not cut out of it: saved as said
    found = mem.analyze_message("Oops, I meant 125/85, not 135", [pressure.id])
    assert (found.intent, found.content) == ("save", "Oops, I meant 125/85, not 135")
    # with nothing shown holding the old value, or refused, it is no correction
    assert mem.analyze_message("it was 2018 not 2019").intent == "none"
    assert mem.analyze_message("Don't save this: it was 2018 not 2019", [roof.id]).intent == "none"


def test_a_confirmation_of_the_one_shown_names_no_word_of_it(mem: Engram) -> None:
    """A third blind probe: "yes thats the one" reinforced nothing, "the" and "one" read as
    words it named."""
    formula = mem.save("the formula is Similac Pro-Sensitive, 4 scoops per bottle")
    found = mem.analyze_message("yes thats the one", [formula.id])
    assert (found.intent, found.touch) == ("reinforce", [formula.id])


def test_a_question_naming_someone_in_lower_case_searches_the_memory(mem: Engram) -> None:
    """A blind probe: "what dietary restrictions does joan have?" was none and searched
    nothing, "Joan has celiac disease" stored; asked "Joan", it was a recall."""
    mem.save("Joan has celiac disease, strictly gluten-free")
    mem.save("I use vim for everything")
    for question in ("what dietary restrictions does joan have?", "when is joan's birthday?"):
        assert mem.analyze_message(question).intent == "recall", question
        assert mem.analyze_for_recall(question).should_search, question
    # not a name the store holds, or how to do something
    assert mem.analyze_message("how do i exit vim?").intent == "none"
    assert mem.analyze_message("what does paris look like in spring?").intent == "none"


def test_a_bare_yes_after_memories_were_shown_confirms_them(mem: Engram) -> None:
    """A blind probe: "yep", "yes" and "right" just after a memory was shown were none. Said
    then, they confirm it, less surely than "that's right"; with nothing shown, they answer
    anything."""
    dairy = mem.save("We switched dairy to Clover Valley")
    bakery = mem.save("I own Sweet Rise Bakery")
    for said in ("yep", "Yes.", "right", "perfect", "yep cheers", "yes thanks"):
        # the first shown only: a second probe's "yup" after a recall reinforced every hit
        found = mem.analyze_message(said, [dairy.id, bakery.id])
        assert (found.intent, found.touch) == ("reinforce", [dairy.id]), said
        assert found.confidence < mem.analyze_message("that's right", [dairy.id]).confidence
    assert mem.analyze_message("yes").intent == "none"
    assert mem.analyze_message("yes please", [dairy.id]).intent == "none"


def test_a_confirmation_leaves_the_fact_its_news_replaced(mem: Engram) -> None:
    """Shown the replaced fact and the news, "Correct, Tom is still my manager" touched both
    (a helper's probe): the old one shares only words the new one shares too."""
    sarah = mem.save("My manager is Sarah Chen")
    tom = mem.save("Tom is my manager now; Sarah left")
    porto = mem.save("Lives in Porto")
    shown = [sarah.id, tom.id, porto.id]
    found = mem.analyze_message("Correct, Tom is still my manager.", shown)
    assert (found.intent, found.touch) == ("reinforce", [tom.id])
    # two facts confirmed in one breath, a word each: both
    both = mem.analyze_message("Yes, still Tom, and still in Porto.", shown)
    assert both.touch == [tom.id, porto.id]


def test_a_confirmation_naming_nothing_leaves_the_replaced_fact(mem: Engram) -> None:
    """Shown the manager fact and the news that replaced it, "Right, that's still the case."
    reinforced the replaced fact too (an MCP probe)."""
    tom = mem.save("My manager is Tom Becker.")
    car = mem.save("I drive a 2019 Toyota Corolla.")
    sarah = mem.save_result(Draft("Actually my manager is now Sarah Kim."))
    assert sarah.supersedes == [tom.id]
    shown = [tom.id, sarah.memory.id, car.id]
    confirmed = mem.analyze_message("Right, that's still the case.", shown)
    assert (confirmed.intent, confirmed.touch) == ("reinforce", [sarah.memory.id])


def test_a_confirmation_in_other_words_touches_the_memory_it_means(mem: Engram) -> None:
    """Shown "I drive a 2019 Toyota Corolla", "Yes, still the same car" shares no word with
    it and touched nothing (a helper's probe): it is judged by meaning, as search judges it."""
    car = mem.save("I drive a 2019 Toyota Corolla.")
    porto = mem.save("Lives in Porto")
    shown = [porto.id, car.id]
    same_car = mem.analyze_message("Yes, still the same car.", shown)
    assert (same_car.intent, same_car.touch) == ("reinforce", [car.id])
    assert mem.analyze_message("Yep, same city.", shown).touch == [porto.id]
    # what none of them says, in words or in meaning, touches none
    assert mem.analyze_message("Yes, still at Globex.", shown).touch == []


def test_a_confirmation_with_nothing_shown_touches_the_stored_fact_it_names(mem: Engram) -> None:
    """An MCP probe: "Yes, that's right, still allergic to shellfish", with no memory shown,
    touched nothing, while "I am allergic to shellfish." touched the stored fact."""
    shellfish = mem.save("I'm allergic to shellfish")
    mem.save("My daughter is allergic to peanuts")
    tom = mem.save("Tom is vegetarian")
    mem.flush()
    found = mem.analyze_message("Yes, that's right, still allergic to shellfish")
    assert (found.intent, found.touch) == ("reinforce", [shellfish.id])
    said = mem.analyze_message("Exactly, nothing changed, Tom is still vegetarian")
    assert said.touch == [tom.id]
    # naming nothing, or nothing stored, it touches none
    assert mem.analyze_message("Yes, that's right.").touch == []
    assert mem.analyze_message("Yes, still at Globex.").touch == []


def test_a_rule_saves_the_sentence_of_a_long_message_it_read(mem: Engram) -> None:
    """An MCP probe: a rambling message with the landlord's name in its third sentence was
    read as a recall ("what a day … again"), and, read as a save, kept whole."""
    ramble = (
        "Ugh what a day. The bus was late again, it rained the whole way, and my phone died "
        "halfway through the commute. Anyway, my new landlord is called Mr. Okafor and rent is "
        "due on the 3rd of every month. I'll tell you more tomorrow, I'm exhausted."
    )
    found = mem.analyze_message(ramble)
    assert (found.intent, found.content) == (
        "save",
        "my new landlord is called Mr. Okafor and rent is due on the 3rd of every month.",
    )
    # asked to keep it, the user says what is kept: all of it
    asked = mem.analyze_message("Remember this: " + ramble)
    assert asked.content is not None and asked.content.startswith("Ugh what a day.")
    # a short message is kept whole
    short = mem.analyze_message("I moved to Berlin last month. The flat is in Kreuzberg.")
    assert short.content == "I moved to Berlin last month. The flat is in Kreuzberg."


def test_a_confirmation_of_a_memory_not_shown_touches_the_stored_one(mem: Engram) -> None:
    """An MCP probe: after a search that showed other memories, "Yes, that's right, still
    allergic to shellfish" touched nothing."""
    shellfish = mem.save("I'm allergic to shellfish")
    landlord = mem.save("My landlord is Mr. Okafor")
    mem.flush()
    found = mem.analyze_message("Yes, that's right, still allergic to shellfish", [landlord.id])
    assert (found.intent, found.touch) == ("reinforce", [shellfish.id])


def test_a_request_to_forget_lists_the_memories_it_names(mem: Engram) -> None:
    """An MCP probe: "forget what I said about the job" was none, and the assistant had
    nothing to delete by. The memories named are listed, nothing is deleted."""
    job = mem.save("I work as a nurse at St. Mary's hospital")
    mem.save("My sister Ana lives in Montreal")
    mem.save("I'm allergic to shellfish")
    mem.flush()
    for request in (
        "forget what I said about the job",
        "Please forget that I work at St. Mary's",
        "Delete what I told you about my job",
    ):
        found = mem.analyze_message(request)
        assert (found.intent, found.should_save, found.forget) == ("forget", False, [job.id])
    assert mem.get(job.id) is not None and mem.stats().total == 3
    named = mem.analyze_message("Delete my job from your memory, please")
    assert (named.intent, named.forget) == ("forget", [job.id])
    # naming nothing stored, or nothing at all, lists none
    assert mem.analyze_message("Forget what I said about my vintage motorcycle").forget == []
    assert mem.analyze_message("Forget what I just said").forget == []
    assert mem.analyze_message("Forget it, never mind").intent == "none"


def test_a_request_to_forget_lists_only_what_matches_it_itself(mem: Engram) -> None:
    """A probe: "Delete everything about my car" listed the cat, reached through the "name" of
    "My wife's name is Ana" (query expansion), which search may list but the user never
    named."""
    car = mem.save("I drive a 2019 Toyota Corolla")
    for other in (
        "I'm allergic to peanuts",
        "My daughter Emma is 7 years old",
        "My wife's name is Ana",
        "I prefer window seats on flights",
        "We adopted a cat named Miso last year",
        "I'm learning Spanish on Duolingo",
    ):
        mem.save(other)
    mem.flush()
    found = mem.analyze_message("Delete everything about my car")
    assert (found.intent, found.forget) == ("forget", [car.id])


def test_a_request_naming_a_word_lists_what_says_it(mem: Engram) -> None:
    """A second blind probe: "forget the thing about upwork" listed the client list too, which
    never says "upwork" (only like it in meaning), and acting on it lost the list."""
    mem.save(
        "hey, I'm a freelance dev. current clients: Brightline (logistics startup), Harbor & "
        "Co (a law firm), and Okapi Games"
    )
    fee = mem.save("i bill okapi through upwork, 10% fee, annoying")
    mem.save("okapi's producer jun-ho left; new point of contact is ama mensah")
    mem.save("brightline wants to extend the contract through q3, 20 hrs/week")
    mem.save("my laptop is an M2 macbook air 16gb, it struggles with the unity builds")
    mem.flush()
    assert mem.analyze_message("forget the thing about upwork").forget == [fee.id]


def test_forget_said_as_people_say_it_lists_what_it_means(mem: Engram) -> None:
    """A blind probe: "forget that" with the memory shown, "please forget about the book club",
    "Jake paid me back, you can forget about that" and "forget my stipend info, that's private"
    listed nothing, and "forget the book club thing, I quit" was a save of itself."""
    club = mem.save("I'm in a book club that meets the first Thursday")
    jake = mem.save("Jake owes me $45 for the concert tickets")
    stipend = mem.save("My stipend is $2,400 a month from the department")
    mem.save("Prefers the formatting of tables as Markdown")
    mem.flush()
    assert mem.analyze_message("forget that", [club.id]).forget == [club.id]
    assert mem.analyze_message("please forget this one", [jake.id, club.id]).forget == [
        jake.id,
        club.id,
    ]
    for request in (
        "please forget about the book club",
        "forget the book club thing, I quit",
        "delete the book club memory",
        # opened by "actually", its reason a "that" or what was done (fourth and fifth blind
        # probes': none)
        "actually forget the book club thing, that was my sister not me",
        "pls forget the book club stuff, decided to quit after all",
    ):
        found = mem.analyze_message(request)
        assert (found.intent, found.should_save, found.forget) == ("forget", False, [club.id])
    paid = mem.analyze_message("Jake paid me back, you can forget about that")
    assert (paid.intent, paid.forget) == ("forget", [jake.id])
    private = mem.analyze_message("forget my stipend info, that's private")
    assert (private.intent, private.forget) == ("forget", [stipend.id])
    # the conversation's, or the task's: nothing to drop
    for said in (
        "Forget it",
        "The meeting went well, forget about it",
        "Forget about the formatting, just give me the raw numbers.",
    ):
        assert mem.analyze_message(said).forget == [], said


def test_a_request_to_forget_someone_lists_only_what_names_them(mem: Engram) -> None:
    """A third blind probe: "erase what you know about Marco", no Marco stored, listed the
    memories nearest by meaning ("my sister Ana lives in Lisbon"), and the assistant deleted
    three memories so."""
    mem.save("my sister Ana lives in Lisbon")
    mem.save("my favorite coach of all time is Phil Jackson")
    guard = mem.save("our starting point guard is Jaylen Brooks, a junior")
    mem.flush()
    for said in (
        "erase what you know about Marco",
        "ok forget what I said about Tom handling JV, he stepped down from that",
    ):
        assert mem.analyze_message(said).forget == [], said
    assert mem.analyze_message("drop everything you have on Jaylen, he's gone").forget == [guard.id]


def test_forget_and_a_name_the_store_holds_lists_its_memory(mem: Engram) -> None:
    """A probe: "Forget the Subaru, I sold it" was none, and the car stayed the user's. Forget
    and a thing is a request about the memory only where the store names that thing: "Forget
    about the formatting" is the task's."""
    car = mem.save("Owns a 2015 Subaru Outback")
    mem.save("Prefers the formatting of tables as Markdown")
    mem.save("Lives in Denver")
    mem.flush()
    for request in ("Forget the Subaru, I sold it", "Please forget about the Subaru"):
        found = mem.analyze_message(request)
        assert (found.intent, found.should_save, found.forget) == ("forget", False, [car.id])
        assert found.phrase == "the Subaru"
    # typed in lower case, the name a memory holds as an entity (a blind probe's "mazda")
    assert mem.analyze_message("forget the subaru, we got rid of it").forget == [car.id]
    assert mem.get(car.id) is not None  # listed for the assistant to confirm, not deleted
    for task in (
        "Forget about the formatting, just give me the raw numbers.",
        "Forget the Honda, I sold it",  # a name the store never heard of
        "forget about it",
    ):
        assert mem.analyze_message(task).intent == "none", task


def test_what_is_kept_no_longer_is_a_request_to_forget_it(mem: Engram) -> None:
    """A blind probe: "I don't want you to remember my mortgage stuff anymore, please delete
    it" was read as a refusal to save (none, 0.99), and the mortgage stayed; "you can forget
    my gym membership" was none."""
    mortgage = mem.save("My mortgage is with Chase at 6.1%, renews in 2028")
    gym = mem.save("I have a gym membership at Crunch, $40 a month")
    mem.save("I'm allergic to penicillin")
    mem.flush()
    said = "I don't want you to remember my mortgage stuff anymore, please delete it"
    found = mem.analyze_message(said)
    assert (found.intent, found.forget) == ("forget", [mortgage.id])
    found = mem.analyze_message("you can forget my gym membership, I cancelled it")
    assert (found.intent, found.forget) == ("forget", [gym.id])
    # what the user no longer does, and a refusal of what is said now, ask nothing of it
    assert mem.analyze_message("I don't remember my password anymore").intent != "forget"
    assert mem.analyze_message("Don't save this: my PIN is 4471").intent == "none"


def test_a_secret_asked_to_be_forgotten_by_its_keeping_is_listed(mem: Engram) -> None:
    """A coding assistant's probe: "Delete the webhook secret you saved." was none, and the
    secret stayed stored and searchable."""
    secret = mem.save("STRIPE_WEBHOOK_SECRET=whsec_4f8a2c for payments-service")
    mem.save("payments-service runs on Python 3.12")
    mem.flush()
    for request in (
        "Delete the webhook secret you saved.",
        "Forget the webhook secret I just gave you, I don't want that stored.",
        "Remove the Stripe webhook secret from your memory.",
    ):
        found = mem.analyze_message(request)
        assert (found.intent, found.forget) == ("forget", [secret.id]), request


def test_analyze_for_recall_gives_the_query_to_run(mem: Engram) -> None:
    saved = mem.save("Prefers TypeScript over JavaScript", tags=["preferences"])
    found = mem.analyze_for_recall("What did I say about TypeScript last week?")
    # back to last week's Monday (the clock says Thursday)
    assert found.should_search and found.query == "TypeScript?" and found.window_days == 11
    assert found.queries == ["TypeScript?"]  # the name is that one search
    assert [h.memory.id for h in mem.search(found.query)] == [saved.id]
    assert not mem.analyze_for_recall("Translate 'good morning' into Spanish").should_search


def test_the_recall_query_finds_the_answer_first(mem: Engram) -> None:
    """The query is the question less its asking and its when, in its own words: cut to its
    content words, "Where do I work?" searched "work" and found standup memories above the
    employer (an MCP probe). A question for a name finds the one named, not "named" (a
    helper's probe: "a golden retriever named Biscuit" and "My name is Daniel" came first)."""
    work = mem.save("I'm a backend developer at Northwind; I mostly write Python and Go.")
    wife = mem.save("My wife Lisa and I met in Porto.")
    for text in (
        "Team standup is at 9:30am every weekday.",
        "Actually standup moved again, it's at 10:15 now.",
        "My manager is Tom Becker.",
        "We have a golden retriever named Biscuit.",
        "My name is Daniel.",
    ):
        mem.save(text)
    for question, answer in (
        ("Do you remember where I work?", work),
        ("What's my wife's name again?", wife),
    ):
        found = mem.analyze_for_recall(question)
        assert found.should_search and found.query, question
        assert mem.search(found.query)[0].memory.id == answer.id, (question, found.query)


def test_a_question_naming_someone_the_store_knows_is_a_recall(mem: Engram) -> None:
    """A question like "Is Lisa still vegetarian?" has the form of one about the world, and was none
    (a helper's probe); with a memory about Lisa only memory answers it."""
    question = "Is Lisa still vegetarian?"
    assert not mem.analyze_for_recall(question).should_search  # nobody called Lisa yet
    lisa = mem.save("Sister Lisa went vegetarian in March")
    atlas = mem.save("Project Atlas launches on May 3", entities=["Dana Kim"])

    found = mem.analyze_for_recall(question)
    assert found.should_search and found.phrase == "Lisa" and "Lisa" in found.queries
    assert found.confidence < 0.6  # below every rule: the store's reading, not the wording's
    assert found.query is not None
    assert mem.search(found.query)[0].memory.id == lisa.id
    assert mem.analyze_message(question).intent == "recall"
    # a name the memory holds as an entity only, and every word of it
    dana = mem.analyze_for_recall("Does Dana Kim still work at Globex?")
    assert dana.should_search and dana.phrase == "Dana Kim"
    assert mem.search("Dana Kim")[0].memory.id == atlas.id
    assert not mem.analyze_for_recall("Does Dana Scully still work at the FBI?").should_search
    # names it has never heard of, a statement, and a refusal stay as the rules read them
    assert not mem.analyze_for_recall("Where does Taylor Swift live?").should_search
    # and so does a question naming what it knows only to ask how, or about the world
    mem.save("Works in Neovim; the mother lives in Porto")
    for world in ("How do I exit Neovim?", "Where is Porto?", "Is Porto warmer than Lisbon?"):
        assert not mem.analyze_for_recall(world).should_search, world
    assert mem.analyze_message("Lisa is vegan now.").intent == "save"  # news, next test
    # a third probe's questions about someone known, declined at 0.9 before
    for asked in ("Who is Lisa married to?", "What sport does Lisa play?", "Tell me about Lisa."):
        found = mem.analyze_for_recall(asked)
        assert found.should_search and found.phrase == "Lisa", asked
    refused = mem.analyze_message("Don't save this: is Lisa ok?")
    assert refused.intent == "none" and refused.phrase is not None


def test_a_question_of_when_a_thing_the_store_knows_is_a_recall(mem: Engram) -> None:
    """ "When is the launch?" has the form of a question about the world, and was none at 0.9
    to a store holding the launch date (an MCP probe); of a thing the store never spoke of it
    stays none."""
    launch = mem.save("The Q3 design system launch is set for September 15.")
    mem.save("I have a cat named Miso")
    for question in (
        "When is the launch?",
        "When is the design system launch",
        "When's the launch?",
    ):
        found = mem.analyze_for_recall(question)
        assert found.should_search and found.query, question
        assert mem.search(found.query)[0].memory.id == launch.id, question
    for question in ("When is the next full moon?", "When is the Super Bowl?"):
        assert not mem.analyze_for_recall(question).should_search, question


def test_news_about_someone_the_store_knows_is_a_save(mem: Engram) -> None:
    """ "Actually, Lisa works at the library", "Emma is 7 now": corrections of what the
    store holds about someone were none (a helper's probe), and the old fact stayed the only
    one. A statement about a name the store never heard of stays none (a birthday aside: a
    rule of its own keeps whose ever it is)."""
    news = "Actually, Lisa works at the library, not the school."
    assert mem.analyze_message(news).intent == "none"  # Lisa unknown yet
    mem.save("My wife Lisa works at the school")
    mem.save("Daughter Emma is 6")
    found = mem.analyze_message(news)
    assert (found.intent, found.should_save, found.phrase) == ("save", True, "Lisa works")
    # a correction of what the store holds of her: above the form's reading (an MCP probe's
    # assistant, told to weigh 0.6, dropped such corrections at 0.55)
    assert found.confidence > STATEMENT_CONFIDENCE and found.tags == ["personal"]
    assert found.content == "Lisa works at the library, not the school."  # from the name on
    assert found.entities == ["Lisa"]
    assert mem.analyze_message("Emma is 7 now.").content == "Emma is 7 now."
    # news correcting nothing stored: as sure as a statement read from its form
    assert mem.analyze_message("Lisa plays the cello.").confidence == STATEMENT_CONFIDENCE
    # the moment, an opinion, or someone unknown: nothing to keep
    for passing in ("Emma is sick today.", "Lisa thinks we should go.", "Taylor Swift is on tour."):
        assert mem.analyze_message(passing).intent == "none", passing


def test_a_question_about_a_day_to_come_finds_what_is_planned_for_it(
    store_url: str, clock: FixedClock
) -> None:
    """ "Anything happening on Friday?" searched the Friday gone, without the word "Friday":
    the memory of the dinner planned for the coming one was not found (a helper's probe)."""
    with Engram.open(store_url, clock=clock) as mem:  # the clock says Thursday
        dinner = mem.save("Team dinner on Friday at Nando's", created_at=clock.now - DAY * 3)
        mem.save("Ate pasta with the kids", created_at=clock.now - DAY * 6)  # last Friday
        found = mem.analyze_for_recall("Anything happening on Friday?")
        assert found.should_search and found.window_days is None
        assert found.query is not None and "friday" in found.query.casefold().rstrip("?").split()
        assert mem.search(found.query)[0].memory.id == dinner.id


def test_what_the_analysis_returns_fits_the_tools_it_feeds(mem: Engram) -> None:
    """A message may be 50,000 characters; a search query 1,000 and a memory's entities 50.
    The analysis handed back a 3,600-character query and 80 entities, refused by the very
    tools it is meant for."""
    words = " ".join(f"topic{i}" for i in range(400))
    recall = mem.analyze_for_recall(f"Do you remember {words}?")
    assert recall.query is not None and 0 < len(recall.query) <= 1_000
    assert recall.query.split() == [f"topic{i}" for i in range(len(recall.query.split()))]
    for query in recall.queries:
        mem.search(query)  # accepted
    people = ", ".join(f"Person{i} Smith{i}" for i in range(80))
    save = mem.analyze_message(f"Remember that I met {people} at the fair")
    assert save.should_save and len(save.entities) == 50
    mem.save(save.content or "", entities=save.entities)  # accepted

    vague = mem.analyze_for_recall("What did we decide this month?")
    assert vague.should_search and vague.query == "" and vague.queries == []
    assert vague.window_days == 31


def test_remember_alone_is_nothing_to_save(mem: Engram) -> None:
    """It suggested saving the text "Remember:" (strength 1.2)."""
    found = mem.analyze_message("Remember:")
    assert (found.intent, found.should_save, found.content) == ("none", False, None)


def test_bad_messages_are_refused_naming_the_field(mem: Engram) -> None:
    with pytest.raises(ValidationError, match="message"):
        mem.analyze_message("   ")
    with pytest.raises(ValidationError, match="recent_memory_ids"):
        mem.analyze_message("yes still", ["not an id!"])


def test_a_save_reports_memories_that_say_nearly_the_same(mem: Engram, store_url: str) -> None:
    """Not found as a repeat (other spacing splits "9am"), so saved — and reported, cosine
    0.995, for the assistant to update one instead of keeping both."""
    first = mem.save("The flight to Lisbon leaves at 9am on Friday")
    mem.flush()  # its vector stored, as it is a moment after any save
    again = mem.save_result(Draft("The flight to Lisbon leaves at 9 am on Friday!"))
    assert again.action == "saved"
    ((similar),) = again.similar
    assert similar.id == first.id and 0.9 <= similar.similarity <= 1.0
    assert similar.content == first.content
    assert mem.save_result(Draft("Our dog needs a vet appointment")).similar == []
    with Engram.open(store_url, save_similar_threshold=0.0) as quiet:
        assert quiet.save_result(Draft("The Lisbon flight leaves at 9am Friday")).similar == []


def test_a_fact_saved_again_in_other_words_is_reported(store_url: str, clock: FixedClock) -> None:
    """Paraphrases of one fact score cosine 0.74-0.89: at the old 0.9 none was reported, and an
    assistant saving the fact again each session kept three copies (audit). Saved one right
    after another, as an assistant saves several in one turn: the earlier ones' vectors were
    still queued, and none was reported."""
    with Engram.open(store_url, clock=clock) as mem:
        first = mem.save("My daughter Mia is allergic to peanuts")
        other = mem.save("Our standup is at 9:30 every morning")
        again = mem.save_result(Draft("Mia (my daughter) has a peanut allergy"))
        assert [s.id for s in again.similar] == [first.id]
        third = mem.save_result(Draft("Standup happens daily at 9:30am"))
        assert [s.id for s in third.similar] == [other.id]
        fourth = mem.save_result(Draft("Mia can't eat peanuts, she's allergic"))
        assert {s.id for s in fourth.similar} == {first.id, again.memory.id}


def test_a_correction_is_reported_with_the_fact_it_corrects(mem: Engram) -> None:
    """A correction and the fact it corrects are less alike (0.52-0.61) than two versions of
    one fact: "I moved from Berlin to Lisbon" was saved beside "I live in Berlin" without a
    word, and a search found Berlin first (audit). A memory that says something changed is
    compared down to 0.5; one that does not, at the usual 0.8."""
    berlin = mem.save("I live in Berlin")
    coffee = mem.save("My favourite drink is coffee")
    mem.flush()
    moved = mem.save_result(Draft("I moved from Berlin to Lisbon"))
    assert [s.id for s in moved.similar] == [berlin.id]
    tea = mem.save_result(Draft("Actually I prefer tea now"))
    assert [s.id for s in tea.similar] == [coffee.id]
    assert mem.save_result(Draft("My flat in Berlin is near the park")).similar == []  # 0.61


def test_a_correction_supersedes_the_fact_and_is_found_first(mem: Engram, store_url: str) -> None:
    """A helper's probe found every old fact above its correction: "lisa's diet" listed "My
    wife Lisa is vegetarian" and not "Correction: Lisa is no longer vegetarian…". The
    correction now supersedes the fact (a relation), and wherever the fact matches, the news
    is listed just above it."""
    old = mem.save("My wife Lisa is vegetarian and cooks every Sunday")
    other = mem.save("Lisa's birthday is September 3")
    mem.flush()
    assert [h.memory.id for h in mem.search("wife cooks sunday", limit=1)] == [old.id]

    news = mem.save_result(Draft("Correction: Lisa is no longer vegetarian, she eats fish now"))
    assert news.supersedes == [old.id]
    (edge,) = [r for r in mem.relations(old.id) if r.type == "supersedes"]
    assert (edge.from_id, edge.to_id) == (news.memory.id, old.id)
    assert 0 < edge.strength <= 1
    # the query names only the old fact's words: the news comes first, then the fact
    hits = mem.search("wife cooks sunday", limit=3)
    assert [h.memory.id for h in hits][:2] == [news.memory.id, old.id]
    assert hits[0].why.context is not None and hits[0].why.context > 0
    # the old fact says it held before the news
    assert hits[1].why.superseded_by == news.memory.id and hits[0].why.superseded_by is None
    assert f"superseded by {news.memory.id}," in why_summary(hits[1])
    assert other.id not in {h.memory.id for h in hits[:2]}
    # a save that says nothing changed supersedes nothing, nor does a copy saved in bulk
    plain = mem.save_result(Draft("Lisa loves fish tacos"))
    assert plain.supersedes == []
    # nor one whose most similar memory is only loosely like it (reported, not replaced)
    job = mem.save("Works as a backend engineer at a fintech startup called Paylane")
    mem.flush()
    ledger = mem.save_result(
        Draft("Project Atlas: migrating the payments ledger from MySQL to PostgreSQL")
    )
    assert ledger.supersedes == [] and job.id not in {r.to_id for r in mem.relations(job.id)}
    mem.save_many([Draft("Update: Lisa is no longer cooking on Sundays")])
    assert len([r for r in mem.relations(old.id) if r.type == "supersedes"]) == 1
    with Engram.open(store_url, save_supersedes=False) as off:
        assert off.save_result(Draft("Lisa no longer cooks on Sundays")).supersedes == []


def test_news_of_a_fact_found_only_beside_a_match_does_not_take_its_place(mem: Engram) -> None:
    """ "allergies" found "I go bouldering on Tuesdays" by context credit alone (related to
    the allergy), and its news "I quit bouldering and started surfing" took that credit, listed
    as a text match (an MCP probe). News takes the place of a fact the query matched itself."""
    allergy = mem.save("I'm allergic to shellfish and penicillin")
    hobby = mem.save("I go bouldering every Tuesday at the gym")
    mem.create_relation(allergy.id, hobby.id, "related")
    news = mem.save("I quit bouldering and started surfing on weekends")
    mem.create_relation(news.id, hobby.id, "supersedes")  # idempotent where a save made it
    hits = mem.search("allergies", limit=5)
    found = [h.memory.id for h in hits]
    assert found[:2] == [allergy.id, hobby.id] and news.id not in found
    assert hits[1].why.superseded_by == news.id and not hits[1].why.text
    # asked about the hobby itself, the news comes first, its credit said as context
    hits = mem.search("gym on Tuesdays", limit=2)
    assert [h.memory.id for h in hits] == [news.id, hobby.id]
    assert hits[0].why.text == 0 and (hits[0].why.context or 0) > 0


def test_a_fact_replaced_twice_follows_the_news_that_answers(
    store_url: str, clock: FixedClock
) -> None:
    """Both pieces of news superseded the manager fact and both took its place; the move,
    which answers nothing about the manager, came first for "Who is my manager?" and the fact
    named it as what replaced it (an MCP probe)."""
    with Engram.open(store_url, clock=clock) as mem:
        tom = mem.save("My manager is Tom Becker.")
        mem.save("I drive a 2019 Toyota Corolla.")
        sarah = mem.save_result(Draft("Actually my manager is now Sarah Kim."))
        moved = mem.save_result(Draft("Tom Becker moved to the platform team."))
        assert sarah.supersedes == [tom.id] and moved.supersedes == [tom.id]
        hits = {h.memory.id: h for h in mem.search("Who is my manager?")}
        first = next(iter(hits))
        assert first == sarah.memory.id
        assert hits[tom.id].why.superseded_by == sarah.memory.id


def test_news_supersedes_the_fact_said_again_in_other_words(
    store_url: str, clock: FixedClock
) -> None:
    """The paraphrase is 0.43 alike to the news, under the copies' floor, and stayed unmarked
    beside its superseded twin: search listed it as current (an MCP probe). A fact that only
    shares the time is no copy."""
    with Engram.open(store_url, clock=clock) as mem:
        fact = mem.save("Our team standup is at 9:30am every weekday.")
        again = mem.save("Standup for my team happens at 9:30 each morning.")
        retro = mem.save("Retro is every other Friday at 9:30.")
        news = mem.save_result(Draft("We moved standup to 10."))
        assert set(news.supersedes) == {fact.id, again.id}
        hits = mem.search("What time is standup?")
        assert hits[0].memory.id == news.memory.id
        marked = {h.memory.id: h.why.superseded_by for h in hits}
        assert marked[fact.id] == marked[again.id] == news.memory.id
        assert marked.get(retro.id) is None


def test_news_in_other_words_supersedes_the_fact_it_restates(mem: Engram) -> None:
    """A probe: "My new manager is Tom Becker" was not even reported as similar to "My manager
    is Sarah Chen" (0.54: only words of the similar report's change lowered its bar), and a
    restatement with a new value ("…September 5, not the 3rd") superseded nothing."""
    sarah = mem.save("My manager is Sarah Chen")
    birthday = mem.save("My wife Lisa's birthday is September 3")
    mem.flush()
    tom = mem.save_result(Draft("My new manager is Tom Becker."))
    assert [s.id for s in tom.similar][:1] == [sarah.id] and tom.supersedes == [sarah.id]
    mem.flush()
    moved = mem.save_result(Draft("Actually, Lisa's birthday is September 5, not the 3rd."))
    assert moved.supersedes == [birthday.id]
    # the relation is dated when the news was said, not when it was saved
    earlier = datetime(2025, 3, 1, tzinfo=UTC)
    mem.flush()
    dated = mem.save_result(
        Draft("Correction: Tom Becker is no longer my manager", created_at=earlier)
    )
    (edge,) = [r for r in mem.relations(dated.memory.id) if r.type == "supersedes"]
    assert edge.created_at == earlier


def test_a_fact_said_again_with_a_new_value_supersedes_it(mem: Engram) -> None:
    """A probe: "I live in Lisbon now" after "I live in Berlin" (cosine 0.49) said no word
    of a replacement, so it superseded nothing and Berlin stayed the answer."""
    berlin = mem.save("I live in Berlin")
    mem.save("I work as a nurse at the Charité")
    mem.flush()
    lisbon = mem.save_result(Draft("I live in Lisbon now"))
    assert lisbon.supersedes == [berlin.id]
    mem.flush()
    hits = mem.search("where do I live")
    assert [h.memory.id for h in hits][:2] == [lisbon.memory.id, berlin.id]
    # the same words said again, nothing swapped: no news
    assert mem.save_result(Draft("I still work as a nurse at the Charité now")).supersedes == []


def test_news_supersedes_the_copies_of_the_fact_and_not_news_of_the_same_shape(
    mem: Engram,
) -> None:
    """A probe: "Update: I'm no longer vegetarian…" superseded one of two ways the fact was
    said, and the other stayed above it; "Update: Dana no longer runs, she switched to
    swimming" superseded the diet correction, alike to it by its shape and name (0.60)."""
    veggie = mem.save("I'm vegetarian.")
    meat = mem.save("I don't eat meat — vegetarian for ten years.")
    mem.save("Has a beagle called Biscuit.")
    mem.flush()
    news = mem.save_result(Draft("Update: I'm no longer vegetarian, I eat fish and chicken now."))
    assert news.supersedes == [veggie.id, meat.id]
    mem.flush()
    assert mem.search("am I vegetarian")[0].memory.id == news.memory.id
    diet = mem.save_result(Draft("Correction: Dana is no longer vegetarian, she eats fish now."))
    mem.flush()
    runs = mem.save_result(Draft("Update: Dana no longer runs, she switched to swimming."))
    assert diet.memory.id in [s.id for s in runs.similar] and runs.supersedes == []


def test_a_change_naming_the_value_it_left_supersedes_the_fact_holding_it(mem: Engram) -> None:
    """ "We migrated Atlas from MySQL to PostgreSQL" is more alike to a note about PostgreSQL
    (0.66) than to the fact it replaces (0.60): the one holding MySQL is the old fact. A
    probe's "…switched from badminton to pickleball because of her knee" was likewise more
    alike to the knee's news."""
    evaluating = mem.save("The Atlas analytics team is evaluating PostgreSQL extensions.")
    ledger = mem.save("Atlas stores its ledger in MySQL 8.")
    mem.flush()
    news = mem.save_result(Draft("We migrated Atlas from MySQL to PostgreSQL."))
    assert [s.id for s in news.similar][:2] == [evaluating.id, ledger.id]
    assert news.supersedes == [ledger.id]


def test_a_thing_dropped_for_another_supersedes_the_fact_holding_it(mem: Engram) -> None:
    """A coding assistant's probe: "…dropped tRPC for plain REST…" superseded the project's
    stack note (0.562 alike) instead of the tRPC decision (0.560), and search put the
    outdated decision first."""
    stack = mem.save(
        "atlas-web: Next.js 14 app router, TypeScript strict, pnpm workspaces (not npm or yarn)."
    )
    trpc = mem.save(
        "Decision: atlas-web will use tRPC for the API layer between Next.js and the BFF."
    )
    mem.flush()
    news = mem.save_result(
        Draft(
            "atlas-web: dropped tRPC for plain REST with an OpenAPI spec; the client is "
            "generated with openapi-typescript (`pnpm gen:api`)."
        )
    )
    assert {stack.id, trpc.id} <= {s.id for s in news.similar}
    assert news.supersedes == [trpc.id]


def test_a_change_naming_a_value_no_stored_fact_holds_supersedes_nothing(mem: Engram) -> None:
    """A probe: "We switched Atlas CI from Jenkins to GitHub Actions" superseded "Atlas launch
    date is set for February 2" (0.45 alike, for naming Atlas), and search then put the CI
    news above the launch date, marked as replaced. A value left in any form counts:
    "coffees" holds "coffee"."""
    launch = mem.save("Atlas launch date is set for February 2.")
    coffee = mem.save("I drink three coffees a day")
    mem.flush()
    ci = mem.save_result(Draft("We switched Atlas CI from Jenkins to GitHub Actions."))
    assert launch.id in [s.id for s in ci.similar]
    assert ci.supersedes == []
    tea = mem.save_result(Draft("I changed from coffee to green tea"))
    assert tea.supersedes == [coffee.id]


def test_a_food_given_up_supersedes_only_a_fact_holding_it(mem: Engram) -> None:
    """A personal assistant's probe: "stopped eating red meat … (no shellfish)" superseded the
    user's shellfish allergy (0.63 alike), search marked the allergy replaced and promotion
    refused it; "quit coffee" superseded "lactose intolerant". The thing given up is the value
    left: only a fact holding it is replaced."""
    allergy = mem.save(
        "User is allergic to shellfish (had an ER visit after eating it at a wedding). "
        "Never suggest shellfish."
    )
    lactose = mem.save("User is lactose intolerant.")
    mem.flush()
    diet = mem.save_result(
        Draft("User stopped eating red meat; eats mostly chicken and fish (no shellfish).")
    )
    assert allergy.id in [s.id for s in diet.similar] and diet.supersedes == []
    tea = mem.save_result(Draft("User quit coffee and switched to green tea."))
    assert lactose.id in [s.id for s in tea.similar] and tea.supersedes == []
    meat = mem.save("User has a steak most days.")
    mem.flush()
    steak = mem.save_result(Draft("User gave up steak; mostly fish now."))
    assert steak.supersedes == [meat.id]


@pytest.mark.parametrize(
    ("fact", "news"),
    [
        ("User lives in Denver, Colorado.", "User and family moved to Boulder (Maple Street)."),
        (
            "User's manager at Lumina Health is Carla Reyes.",
            "User's new manager at Northwind Analytics is Devin Park.",
        ),
    ],
)
def test_news_the_user_and_family_moved_or_have_a_new_manager_supersedes_the_fact(
    mem: Engram, fact: str, news: str
) -> None:
    """The probe's move was read as a change of the family's, and the new manager as the
    manager's own fact ("new" taken for whose it is): neither replaced the old fact."""
    (old,), result = facts_then_news(mem, [fact], news)
    assert result.supersedes == [old]


def test_a_reading_said_anew_with_other_numbers_supersedes_the_old_reading(mem: Engram) -> None:
    """0.82 alike, "now", and other numbers: a new reading, though it says more than a value
    swapped (the probe's blood pressure stayed two facts, the old one ranked first)."""
    old = mem.save(
        "User's blood pressure was 138/88 (a bit high); doctor advised cutting down on salt."
    )
    mem.flush()
    new = mem.save_result(
        Draft("User's blood pressure is now 124/80 after cutting salt; Dr. Stone is happy with it.")
    )
    assert new.supersedes == [old.id]
    (first, *_) = mem.search("How is my blood pressure?")
    assert first.memory.id == new.memory.id


def test_a_correction_naming_neither_the_old_value_nor_its_words_finds_the_fact(
    mem: Engram,
) -> None:
    """ "I moved to Lisbon last month" is 0.42 alike to "I live in Berlin", below 0.5, and was
    saved without a word; it stands far above unrelated text (z 5.2), as the fact a correction
    corrects does. Unrelated facts saved beside it are not reported."""
    berlin = mem.save("I live in Berlin")
    golf = mem.save("I drive a blue Golf")
    others = [mem.save(t) for t in ("My dog is called Rex", "Standup is at 9:30 every weekday")]
    mem.flush()
    moved = mem.save_result(Draft("I moved to Lisbon last month"))
    assert berlin.id in [s.id for s in moved.similar]
    sold = mem.save_result(Draft("I no longer drive, I sold the car"))  # 0.38
    assert [s.id for s in sold.similar] == [golf.id]
    reported = {s.id for r in (moved, sold) for s in r.similar}
    assert reported.isdisjoint(o.id for o in others)


def test_save_returns_without_waiting_for_an_embedding(
    mem: Engram, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`save` gives back the memory alone, so it does not make the similar report, whose
    embedding of the new text was most of a save's time with embeddings on: its vector comes
    from the background queue after it returns. `save_result`, which reports, waits for it."""
    embedder = mem._app.context.embedder
    assert embedder is not None
    released = threading.Event()
    waited: list[str] = []
    embed_query = embedder.embed_query

    def held(text: str) -> object:
        if not released.wait(timeout=10):  # a save waiting on this would stall until then
            waited.append(text)
        return embed_query(text)

    monkeypatch.setattr(embedder, "embed_query", held)
    # Recent texts' vectors are kept process-wide: another backend's run of this test made it.
    monkeypatch.setattr(context, "_text_vectors", OrderedDict())
    saved = mem.save("The ferry to Tangier leaves at noon on Saturday")
    assert waited == []
    released.set()
    mem.flush()  # the background queue stores its vector
    assert [h.memory.id for h in mem.search("boat trip to Morocco")] == [saved.id]
    reported = mem.save_result(Draft("The ferry to Tangier leaves at noon, Saturday!"))
    assert [s.id for s in reported.similar] == [saved.id]


def test_a_saved_memory_is_never_reported_similar_to_itself(store_url: str) -> None:
    """With vectors stored inside the save (no background worker), the new memory's own vector
    is in the index when the similar report looks: it must not list itself."""
    with Engram.open(store_url, embed_in_background=False) as mem:
        first = mem.save_result(Draft("The train to Porto leaves at 8am on Sunday"))
        assert first.similar == []
        second = mem.save_result(Draft("The train to Porto leaves at 8 am on Sunday!"))
        assert second.action == "saved"
        assert [s.id for s in second.similar] == [first.memory.id]


def test_a_question_whose_words_one_memory_holds_is_a_recall(mem: Engram) -> None:
    """A coding assistant's probe: "How do I run the tests?" and "What port does the dev server
    use?" were none at 0.9 beside "Run the tests with make test" and the port's memory, whose
    search found them first."""
    tests = mem.save("Run the tests with make test; integration tests need Docker")
    port = mem.save("The dev server port moved from 8000 to 8080")
    mem.save("Uses Neovim with the LazyVim config")
    for question, answer in (
        ("How do I run the tests?", tests),
        ("What port does the dev server use?", port),  # all its words but one
    ):
        found = mem.analyze_for_recall(question)
        assert found.should_search and found.confidence < 0.6, question
        assert found.query is not None and mem.search(found.query)[0].memory.id == answer.id
    # trouble told, not asked, that the store knows of
    bug = mem.save("Celery worker drops tasks when prefetch is high; set it to 1")
    told = mem.analyze_for_recall("the celery worker keeps dropping tasks")
    assert told.should_search and told.query is not None
    assert mem.search(told.query)[0].memory.id == bug.id
    # a name of code the store holds, in a pasted error
    rename = mem.save("Renamed module app.settings to app.config; update the imports")
    pasted = "I'm getting ModuleNotFoundError: No module named app.settings, any idea?"
    found = mem.analyze_for_recall(pasted)
    assert found.should_search and found.phrase == "app.settings"
    assert found.query is not None
    assert rename.id in [h.memory.id for h in mem.search(found.query)[:3]]
    # the store holds one of its words, or none; no name of code it holds
    for world in (
        "How do I exit Neovim?",
        "How do I center a div?",
        "What is a port?",
        "My laptop keeps crashing",
        "I'm getting a KeyError in parse_args, any idea?",
        "What does e.g. mean?",
    ):
        assert not mem.analyze_for_recall(world).should_search, world


def test_news_of_a_job_school_or_employer_left_supersedes_the_fact_it_changes(
    mem: Engram,
) -> None:
    """A probe's everyday changes, each sharing only a name with the fact it changes: taken
    for news alike in form only, none was linked, and search listed the old job first."""
    job = mem.save("Maya works as a product designer at Lumen Health in Chicago")
    school = mem.save("Iris goes to Little Acorns preschool")
    mem.flush()
    new_job = mem.save_result(Draft("Maya started a new job at Northwind Studio"))
    assert new_job.supersedes == [job.id]
    moved = mem.save_result(Draft("Iris switched to Sunflower Montessori"))
    assert moved.supersedes == [school.id]
    # the place left, named: the fact holding it is the one replaced
    lead = mem.save_result(
        Draft(
            "Maya accepted a design lead job at Ridgeway, starting September 9; "
            "leaving Lumen Health"
        )
    )
    assert lead.supersedes == [job.id]
    mem.flush()
    assert mem.search("Where does Maya work these days?")[0].memory.id != job.id


def test_a_preference_turned_from_a_habit_supersedes_it(mem: Engram) -> None:
    """ "I prefer tea over coffee now, mostly green tea" replaced nothing (0.54 alike to the
    flat white), and "what do I drink in the morning?" listed the coffee first (an MCP probe)."""
    habit = mem.save("My favourite coffee is a flat white with oat milk")
    mem.flush()
    news = mem.save_result(Draft("I prefer tea over coffee now, mostly green tea"))
    assert news.supersedes == [habit.id]
    hits = mem.search("what do I drink in the morning?", limit=2)
    assert [h.memory.id for h in hits] == [news.memory.id, habit.id]


def test_an_employer_left_by_name_is_replaced_however_unlike_in_meaning(mem: Engram) -> None:
    """ "I left Northwind and joined Contoso in October" stood at 0.36 to "I work at
    Northwind as a data engineer", under the bar of meaning a replacement needs, and "where do
    I work" listed only the old employer (a CLI probe). The name left is the evidence."""
    job = mem.save("I work at Northwind as a data engineer")
    mem.save("Northwind is hosting the team offsite in Lisbon")  # holds the name, is no job
    mem.flush()
    news = mem.save_result(Draft("I left Northwind and joined Contoso in October"))
    assert news.supersedes == [job.id]
    assert mem.search("where do I work")[0].memory.id == news.memory.id
    laid_off = mem.save("I'm a frontend developer at Shopify")
    mem.flush()
    assert mem.save_result(Draft("I got laid off from Shopify last week")).supersedes == [
        laid_off.id
    ]


def test_a_life_fact_said_anew_supersedes_the_value_it_replaces(mem: Engram) -> None:
    """ "I'm vegan now" (0.76 alike to "I'm vegetarian", no word shared) and "Rosa is my new
    boss" were linked to nothing, and search listed the old fact first (a probe). A move to
    where the fact already is agrees with it: "My sister moved to Toronto last year"
    superseded "My sister lives in Toronto". Chat naming the fact in passing replaces none."""
    diet = mem.save("I'm vegetarian")
    boss = mem.save("My boss is Dan")
    sister = mem.save("My sister lives in Toronto")
    work = mem.save("I work at Google as an engineer")
    mem.flush()
    assert mem.save_result(Draft("I'm vegan now")).supersedes == [diet.id]
    assert mem.save_result(Draft("Rosa is my new boss")).supersedes == [boss.id]
    assert mem.save_result(Draft("My sister moved to Toronto last year")).supersedes == []
    assert mem.save_result(Draft("I'm at work right now")).supersedes == []
    assert mem.save_result(Draft("I'm working on a new project at work")).supersedes == []
    mem.flush()
    assert sister.id in [h.memory.id for h in mem.search("Where does my sister live?")[:1]]
    assert work.id in [h.memory.id for h in mem.search("Where do I work?")[:2]]


def test_a_new_thing_told_of_or_a_note_of_the_users_replaces_no_one_elses_fact(
    mem: Engram,
) -> None:
    """An assistant's notes (a probe): "Raising the emergency fund goal to £15k because of the
    new house" superseded the brother's job, the mother's city, the holiday, the football day
    and the standup; "Broadband at the new house: …" the car lease; "Moved into 7 Harbour Lane
    today!" the mother's move. The new house is told of there, not news of itself; and a note
    of what the user did, without its subject, is the user's, not the mother's."""
    for fact in (
        "Brother Owen lives in Manchester and works as an architect.",
        "Mum (Ruth) lives in Leeds, turns 70 on April 19.",
        "Leased a Kia Niro EV: £289/month. Home charger to go in at the new house.",
        "Mum is moving to Bristol - got a place at Oak Lodge assisted living.",
    ):
        mem.save(fact)
    mem.flush()
    for note in (
        "Raising the emergency fund goal to £15k because of the new house.",
        "Broadband at the new house: Virgin Media 500Mb, installed today.",
        "Water bill for the new house is with Bristol Water.",
        "Moved into 7 Harbour Lane today! Boxes everywhere.",
    ):
        assert mem.save_result(Draft(note)).supersedes == [], note
    # a new thing said to be something is still news: "The new manager is Priya"
    boss = mem.save("My manager is Dan Kim")
    mem.flush()
    assert mem.save_result(Draft("The new manager is Priya Shah")).supersedes == [boss.id]


def test_a_life_fact_said_anew_replaces_each_statement_of_the_old_value(mem: Engram) -> None:
    """ "I'm vegan now" replaced "I'm vegetarian" (0.76 alike) and left "I don't eat meat,
    vegetarian for ten years" (0.63), too far below for a copy by likeness alone
    (`bench/supersede_facts.py`); the wife's diet is hers."""
    short = mem.save("I'm vegetarian")
    long = mem.save("I don't eat meat, vegetarian for ten years")
    mem.save("My wife is vegetarian")
    mem.save("I'm allergic to shellfish")
    mem.flush()
    assert set(mem.save_result(Draft("I'm vegan now")).supersedes) == {short.id, long.id}


def test_a_life_fact_said_anew_in_other_words_is_found_by_the_facts_words(mem: Engram) -> None:
    """ "I report to Rosa now" and "My manager is Dan Kim" are 0.20 alike and share no word,
    "…started a new job at Stripe" and "…works at Lumen Health" 0.15: no bar of meaning finds
    them, the life fact's words do ("report" as in "report to", not "the quarterly report")."""
    manager = mem.save("My manager is Dan Kim")
    mem.save("I have to finish the quarterly report by Friday")
    job = mem.save("Priya works at Lumen Health as a PM")
    mem.flush()
    assert mem.save_result(Draft("I report to Rosa now")).supersedes == [manager.id]
    started = mem.save_result(Draft("Priya started a new job at Stripe this week"))
    assert started.supersedes == [job.id]


def test_news_replaces_the_note_it_moves_before_a_less_alike_statement(mem: Engram) -> None:
    """ "My dentist appointment got pushed to June 12" superseded "My dentist is Dr. Patel"
    (0.45 alike), a statement of how something is, not the note it moves (0.74), which says no
    verb (a probe). States come first among the about as alike only."""
    mem.save("My dentist is Dr. Patel")
    note = mem.save("Dentist appointment on May 28 at 3pm")
    mem.flush()
    moved = mem.save_result(Draft("My dentist appointment got pushed to June 12"))
    assert moved.supersedes[:1] == [note.id]


def test_a_second_change_replaces_the_first_news_too(mem: Engram, clock: FixedClock) -> None:
    """ "I report to Tom now" was most alike to "My boss is Dan Whitaker", and "Rosa is my new
    boss", which had replaced it, stayed the current fact: Tom was not in the top 5 of "Who is
    my boss now?" (an MCP probe)."""
    mem.save("I work at Lumen Health as a PM")
    dan = mem.save("My boss is Dan Whitaker")
    mem.flush()
    clock.advance(days=10)
    rosa = mem.save_result(Draft("Rosa is my new boss"))
    assert rosa.supersedes == [dan.id]
    mem.flush()
    clock.advance(days=10)
    tom = mem.save_result(Draft("I report to Tom now"))
    assert set(tom.supersedes) == {dan.id, rosa.memory.id}
    mem.flush()
    assert mem.search("Who is my boss now?", limit=1)[0].memory.id == tom.memory.id


def test_a_question_without_its_question_mark_supersedes_nothing(mem: Engram) -> None:
    """Chat asks without "?": "Do you play any games anymore." superseded three turns about
    games (bench/supersede_chat.py)."""
    mem.save("I play League of Legends with friends most evenings")
    mem.flush()
    asked = mem.save_result(Draft("Do you play any games anymore."))
    assert asked.similar and asked.supersedes == []


def test_a_correction_of_a_stored_fact_no_rule_names_is_a_save(mem: Engram) -> None:
    """ "Actually the dentist appointment is on the 15th, not the 14th" was none: no rule
    names its words, and an assistant saving what analyze_message proposes lost the change
    (a probe). Saving it would supersede a stored fact, so it is a save, as sure as a rule;
    without that fact it is a fact told in specifics (a day, a role), as sure as a statement."""
    news = "Actually the dentist appointment is on the 15th, not the 14th."
    alone = mem.analyze_message(news)
    assert (alone.intent, alone.confidence) == ("save", STATEMENT_CONFIDENCE)
    mem.save("Maya's dentist appointment is on November 14")
    mem.save("Harbor beta launch planned for January 20")
    mem.flush()
    found = mem.analyze_message(news)
    assert (found.intent, found.phrase) == ("save", "Maya's dentist appointment is on November 14")
    # above the form's reading: an assistant saving from 0.6 up keeps the correction (an MCP
    # probe's assistant, told to weigh 0.6, dropped every one at 0.55)
    assert found.confidence > STATEMENT_CONFIDENCE


def test_news_stays_above_the_fact_it_replaced_as_both_fade(mem: Engram, clock: FixedClock) -> None:
    """News took its fact's relevance and 2 % more, and decay then took up to 5 % of its rank:
    two days on, the fact the assistant had used came first again (a probe's year of use: 44
    questions answered with the outdated fact)."""
    fact = mem.save("Vegetarian for ten years, no meat or fish")
    for _ in range(3):
        clock.advance(days=1)
        mem.touch(fact.id)
    clock.advance(days=1)
    news = mem.save_result(Draft("Correction: I'm no longer vegetarian, I eat fish now"))
    assert news.supersedes == [fact.id]
    for days in (0, 3, 30, 365):
        clock.now = news.memory.created_at + timedelta(days=days)
        assert mem.search("do I eat meat")[0].memory.id == news.memory.id, days


def test_a_change_replaces_how_something_is_not_what_happened(
    mem: Engram, clock: FixedClock
) -> None:
    """ "Iris switched to Sunflower Montessori" superseded the outing "Took Iris to Laurelhurst
    Park after preschool", more alike to it than "Iris goes to Little Acorns preschool"; the
    outing said again then superseded the news (a probe's year of use)."""
    fact = mem.save("Iris goes to Little Acorns preschool")
    clock.advance(days=3)
    outing = mem.save("Took Iris to Laurelhurst Park after preschool")
    clock.advance(days=30)
    mem.flush()
    news = mem.save_result(Draft("Iris switched to Sunflower Montessori"))
    assert news.supersedes == [fact.id]
    clock.advance(days=20)
    again = mem.save_result(Draft("Took Iris to Laurelhurst Park after preschool"))
    assert again.memory.id == outing.id and again.supersedes == []


def test_a_move_naming_the_place_left_supersedes_each_statement_of_living_there(
    mem: Engram,
) -> None:
    """ "We moved from Portland to Denver" superseded "We live in the Sellwood neighbourhood of
    Portland" and left "I live in Portland, Oregon", less alike to it, to answer "where do I
    live" first, unmarked (a probe's year of use). A place named as left, held by another
    statement of where one lives, is replaced there too; not by a statement of another kind."""
    home = mem.save("I live in Portland, Oregon")
    area = mem.save("We live in the Sellwood neighbourhood of Portland")
    coffee = mem.save("My favourite coffee roaster is in Portland")
    mem.flush()
    news = mem.save_result(Draft("We moved from Portland to Denver"))
    assert set(news.supersedes) == {home.id, area.id} and coffee.id not in news.supersedes
    assert mem.search("where do I live")[0].memory.id == news.memory.id


def test_a_fact_said_again_is_touched_not_saved_twice(mem: Engram) -> None:
    """Told to save "I am allergic to peanuts." (0.97 alike to "I'm allergic to peanuts"),
    an assistant kept a second copy of the fact. Another person's fact, a word in place of
    another, a word added or news are saves still: a probe found each called said already
    when any memory 0.8 alike without a number or name of its own would do."""
    allergy = mem.save("I'm allergic to peanuts")
    pills = mem.save("I take metformin every morning")
    sister = mem.save("My sister lives in Montreal")
    diet = mem.save("I'm vegetarian")
    mem.flush()
    for again, said in (
        ("I am allergic to peanuts.", allergy),
        ("Remember that I'm allergic to peanuts", allergy),
        ("My sister lives in Montreal!", sister),
    ):
        found = mem.analyze_message(again)
        assert (found.intent, found.should_save, found.touch) == ("save", False, [said.id]), again
    for says_more, like in (
        ("My daughter is allergic to peanuts", allergy),  # another person
        ("I take metformin every evening", pills),  # a word in place of another
        ("Peanuts give me a bad allergic reaction", allergy),  # a word added
        ("My brother lives in Montreal", sister),
        ("I'm vegan now", diet),  # news
    ):
        found = mem.analyze_message(says_more)
        assert found.should_save and like.id not in found.touch, says_more


def test_a_fact_a_merge_holds_is_touched_as_save_finds_it(mem: Engram) -> None:
    """After a merge, the fact merged said again was "save" to analyze while `save` itself
    answered "already saved as merged-…" (a probe): both now find the merged memory."""
    first = mem.save("I'm allergic to peanuts")
    second = mem.save("Remember: I'm allergic to peanuts!")
    (done,) = mem.consolidate(mode="apply", memory_ids=[first.id, second.id]).merged
    merged = done.merged
    found = mem.analyze_message("I'm allergic to peanuts")
    assert (found.should_save, found.touch) == (False, [merged.id])
    assert mem.save_result(Draft("I'm allergic to peanuts")).memory.id == merged.id


def test_a_replaced_fact_said_again_is_a_save(mem: Engram) -> None:
    """An MCP probe: "I'm vegetarian", said after "I'm vegan now" replaced it, was called said
    already, and touching it left the news first; saved, it holds again."""
    diet = mem.save("I'm vegetarian")
    mem.flush()
    assert mem.save_result(Draft("I'm vegan now")).supersedes == [diet.id]
    mem.flush()
    again = mem.analyze_message("I am vegetarian.")
    assert again.should_save and again.touch == []


def facts_then_news(mem: Engram, facts: list[str], news: str) -> tuple[list[str], SaveResult]:
    """The ids of `facts`, saved (with their vectors), and the save report of `news` after."""
    ids = [mem.save(fact).id for fact in facts]
    mem.flush()
    return ids, mem.save_result(Draft(news))


@pytest.mark.parametrize(
    ("facts", "news", "similar", "replaced"),
    [
        # a team's probe: the colleague who was right was marked outdated
        (
            [
                "Customer Acme Corp renews their contract on March 31.",
                "Acme Corp's contract renewal is on April 30.",
            ],
            "Correction: Acme renews on April 30, not March 31 - Bob was right.",
            1,
            0,
        ),
        # ...and a second person's correction of the same fact, the first one's
        (
            [
                "The deploy freeze for the Q3 release starts on Friday.",
                "Correction: the Q3 deploy freeze starts Thursday.",
            ],
            "Actually the deploy freeze is Thursday, not Friday.",
            1,
            0,
        ),
        # a copy by meaning with another number is another fact
        (
            ["Staging database is Postgres 14.", "Production database is Postgres 15."],
            "We upgraded production to Postgres 16.",
            0,
            1,
        ),
        # "not Confluence" replaces what says Confluence, not the owner of the page
        (
            ["Chen owns the on-call runbook wiki page.", "The on-call runbook is in Confluence."],
            "Correction: the on-call runbook lives in the GitHub wiki now, not Confluence.",
            0,
            1,
        ),
    ],
)
def test_a_correction_replaces_the_fact_it_corrects_not_one_alike_to_it(
    mem: Engram, facts: list[str], news: str, similar: int, replaced: int
) -> None:
    """A team's probe found each of these news superseding the other memory too (or alone)."""
    ids, result = facts_then_news(mem, facts, news)
    assert ids[similar] in [s.id for s in result.similar]
    assert result.supersedes == [ids[replaced]]


def test_a_fact_told_in_specifics_is_saved_and_found_by_a_question_of_it(mem: Engram) -> None:
    """A fourth blind probe's manager: "Ravi goes on paternity leave…" was none, and "when
    does ravi come back from leave?" had nothing to find. Kept whole, as sure as a statement;
    asked with the name in lower case, it is the first found."""
    told = "Ravi goes on paternity leave from 4 Aug for 6 weeks, need cover for on-call"
    found = mem.analyze_message(told)
    assert (found.intent, found.should_save, found.content) == ("save", True, told)
    assert found.confidence == STATEMENT_CONFIDENCE
    saved = mem.save(found.content or "")
    mem.save("Team standup is at 9:30 every weekday")
    mem.flush()
    question = "when does ravi come back from leave?"
    assert mem.analyze_message(question).intent == "recall"
    recall = mem.analyze_for_recall(question)
    assert recall.should_search and recall.query is not None
    assert mem.search(recall.query)[0].memory.id == saved.id


def test_a_request_to_forget_wins_over_the_news_before_it_and_names_what_it_means(
    mem: Engram,
) -> None:
    """A sixth blind probe: each of these was saved as a new memory, or deleted a memory that
    only shared a name with what was meant."""
    job = mem.save("thinking of applying for the deputy head job at Kingsway High, deadline 28 Feb")
    flat = mem.save("we saw a flat in Graça, 1650 a month, 2 bedrooms")
    hale = mem.save("a nurse on my unit is filing a grievance against Dr. Hale")
    ivf = mem.save("Tom told me in confidence that he and his wife are doing IVF")
    sick = mem.save("Tom's off long-term sick, Mrs Kowalski has 10 set 3")
    mem.flush()
    for said, meant in (
        (
            "I've decided not to apply to Kingsway after all. you can forget the deputy head stuff",
            job,
        ),
        ("you can delete the old Graça flat stuff, not relevant anymore", flat),
        (
            "HR said the Hale grievance has to stay confidential, "
            "pls delete whatever you have about it",
            hale,
        ),
        ("actually delete the IVF thing about Tom, it's not my info to keep", ivf),
    ):
        found = mem.analyze_message(said)
        assert (found.intent, found.should_save, found.forget) == ("forget", False, [meant.id]), (
            said
        )
    # a task's delete is no request to forget, and every memory naming Tom is his
    assert mem.analyze_message("Delete the unused imports").forget == []
    assert set(mem.analyze_message("forget everything about Tom").forget) == {ivf.id, sick.id}


def test_a_question_with_its_reason_after_it_searches_the_question(mem: Engram) -> None:
    """A sixth blind probe's: the reason after the question was searched too, or made the
    question none ("who's the new technician? need to put her name on the order form", the
    technician stored)."""
    found = mem.analyze_for_recall("hey what's my shift pattern now? want to book a haircut")
    assert found.should_search and found.query is not None
    assert "shift pattern" in found.query and "haircut" not in found.query
    aisha = mem.save("The new lab technician is Aisha Begum, started Monday")
    mem.flush()
    asked = "who's the new technician? need to put her name on the order form"
    assert mem.analyze_message(asked).intent == "recall"
    recall = mem.analyze_for_recall(asked)
    assert recall.query is not None and "order form" not in recall.query
    assert mem.search(recall.query)[0].memory.id == aisha.id


def test_a_name_typed_in_lower_case_is_known_by_its_capital_in_a_memory(mem: Engram) -> None:
    """A seventh blind probe's: "Kasia our pastry chef handed in her notice" holds no entity (a
    name opening a sentence), and "when does kasia finish?" was none."""
    kasia = mem.save("Kasia our pastry chef handed in her notice, last day end of april")
    mem.save("The walk-in fridge gets serviced every March")
    mem.flush()
    assert mem.analyze_message("when does kasia finish?").intent == "recall"
    assert mem.search("when does kasia finish?")[0].memory.id == kasia.id
    # the capital of a word opening a memory names no one asked of ("when does the walk-in …")
    assert mem.analyze_message("how do I defrost a fridge?").intent == "none"
