"""Facts and requests to forget told in passing, read by what the store holds, on every backend
(an eighth blind probe's misses: a truck driver, a teacher, a retired librarian)."""

from __future__ import annotations

import threading

from engram import Engram


def test_news_of_someone_named_in_lower_case_is_a_save(mem: Engram) -> None:
    """ "bev is retiring at easter" and "mateo made the travel soccer team…" were none, Bev and
    Mateo stored."""
    mem.save("Bev my TA has been with me 6 years")
    mem.save("my son Mateo is 11 and Lucia is 7")
    mem.flush()
    for news in (
        "bev is retiring at easter :( we're doing a collection for her",
        "mateo made the travel soccer team, practices tues and thurs",
    ):
        found = mem.analyze_message(news)
        assert found.intent == "save" and found.should_save, news
    # a word the store does not hold as a name tells nothing of anyone
    assert mem.analyze_message("pottery is so relaxing").intent == "none"


def test_a_forget_of_what_the_clause_before_it_says_lists_that_memory(mem: Engram) -> None:
    """ "I've stopped volunteering at the food shelf, please forget about that" saved itself
    word for word, and the volunteering stayed."""
    shelf = mem.save("I volunteer at the food shelf on wednesdays")
    mem.save("Book club meets on the first Thursday")
    mem.flush()
    found = mem.analyze_message(
        "I've stopped volunteering at the food shelf, please forget about that"
    )
    assert (found.intent, found.forget) == ("forget", [shelf.id])
    # what the store never held drops nothing
    assert mem.analyze_message("The meeting went well, forget about it").intent != "forget"


def test_a_new_thing_that_will_be_supersedes_the_one_it_replaces(mem: Engram) -> None:
    """ "new truck at crete will be a volvo vnl, unit 8820" was none, and the old unit number
    ranked first for "whats my unit number now"."""
    old = mem.save("truck is a 2021 freightliner cascadia, unit number 4471")
    mem.flush()
    news = "new truck at crete will be a volvo vnl, unit 8820"
    found = mem.analyze_message(news)
    assert found.intent == "save" and found.content is not None
    saved = mem.save_result(found.content)
    assert saved.supersedes == [old.id]
    assert mem.search("whats my unit number now")[0].memory.id == saved.memory.id


def test_a_name_the_store_holds_typed_in_lower_case_counts_among_a_facts_specifics(
    mem: Engram,
) -> None:
    """ "the boiler guy said beth's flat needs a new valve on the 20th": a day alone is no fact,
    a day and someone named is (a ninth blind probe's)."""
    mem.save("tenant in clifton st is a nurse called Beth, been there since 2021")
    mem.flush()
    told = "the boiler guy said beth's flat needs a new valve on the 20th"
    found = mem.analyze_message(told)
    assert (found.intent, found.content) == ("save", told)
    # a word no memory holds as a name is none of that
    assert mem.analyze_message("the boiler guy said the valve needs doing on the 20th").intent == (
        "none"
    )


def test_a_forget_of_someones_thing_lists_what_says_the_thing(mem: Engram) -> None:
    """ "delete the note about beth's extractor fan, all sorted now", the fan never kept,
    listed Beth's tenancy, which the probe's assistant deleted."""
    beth = mem.save("tenant in clifton st is a nurse called Beth, pays £850 pcm")
    claim = mem.save("my van got nicked last week. insurance claim ref is AV-99321")
    number = mem.save("Beth's new number is 07700 900123")
    mem.flush()
    found = mem.analyze_message("delete the note about beth's extractor fan, all sorted now")
    assert (found.intent, found.forget) == ("forget", [])
    assert mem.analyze_message("forget beth's number").forget == [number.id]
    wiped = mem.analyze_message("pls wipe the insurance claim stuff, its all settled now")
    assert (wiped.intent, wiped.forget) == ("forget", [claim.id])
    assert beth.id not in wiped.forget


def test_news_saved_without_its_report_still_supersedes_the_fact_it_changes(
    mem: Engram,
) -> None:
    """`Engram.save` leaves the similar report to the background, and linked news to nothing: a
    tenth blind probe's four changes (a price "now £2800", a manager who retired, a jar "going
    up to £8") each ranked below the value they replaced."""
    old = mem.save("i charge £2400 for a full day package, £1200 for elopements")
    mem.flush()
    news = mem.save("raised prices for 2026: full day now £2800, elopements stay the same")
    # linked just after the save returns; a search waits for it, and so does `flush`
    assert mem.search("my full day rate")[0].memory.id == news.id
    mem.flush()
    assert [(r.type, r.from_id, r.to_id) for r in mem.relations(old.id)] == [
        ("supersedes", news.id, old.id)
    ]
    # a statement marking no change is saved without waiting, and links nothing
    other = mem.save("second shooter is Tamsin, she charges £300 a day")
    assert mem.relations(other.id) == []


def test_news_linked_after_the_save_replaces_only_what_was_stored_before_it(mem: Engram) -> None:
    """Linked on its own thread, news was compared with the store as it was by then: a fact
    saved after it could be replaced by it, and whether it was depended on the threads'
    timing (the same bench run gave two results). The linking thread is held here until the
    later fact is written, as a busy machine holds it."""
    old = mem.save("i charge £2400 for a full day package, £1200 for elopements")
    mem.flush()
    gate = threading.Event()
    mem._app.context.news.submit(lambda later: gate.wait(30))
    news = mem.save("raised prices for 2026: full day now £2800, elopements stay the same")
    after = mem.save("for 2027 the full day package will be £2900, elopements £1400")
    gate.set()
    mem.flush()
    assert [(r.type, r.from_id) for r in mem.relations(old.id)] == [("supersedes", news.id)]
    assert [r for r in mem.relations(after.id) if r.from_id == news.id] == []


def test_a_forget_naming_a_kind_of_thing_lists_only_what_says_which_one(mem: Engram) -> None:
    """ "pls delete the thing about my insurance date", the insurance date never kept, listed a
    couple's wedding date by the word "date", and the probe's assistant deleted it."""
    wedding = mem.save("ellie and sam moved their date!! now 21 june, same venue")
    knee = mem.save("i have a torn meniscus in my left knee")
    birthday = mem.save("Lisa's birthday is May 3")
    mem.flush()
    asked = "pls delete the thing about my insurance date, i set a calendar reminder instead"
    assert mem.analyze_message(asked).forget == []
    assert wedding.id not in mem.analyze_message("forget my insurance date").forget
    assert mem.analyze_message("forget about my knee injury").forget == [knee.id]
    assert mem.analyze_message("delete my wife's birthday from your memory").forget == [birthday.id]


def test_news_saved_just_before_closing_is_linked_when_the_store_opens_again(
    store_url: str,
) -> None:
    """The link is made after `save` returns; closing the handle waits for it, as it waits for
    the vectors, so nothing a save acknowledged is lost."""
    with Engram.open(store_url) as mem:
        old = mem.save("my honey sells at £7 a jar at the farmers market in ludlow")
        mem.flush()
        news = mem.save("honey is now £8 a jar at the farmers market")  # "now": maybe news
    with Engram.open(store_url) as mem:
        assert [(r.type, r.from_id) for r in mem.relations(old.id)] == [("supersedes", news.id)]


def test_a_thing_to_delete_with_why_it_goes_lists_the_memory_holding_it(mem: Engram) -> None:
    """ "delete my dentist appointment, i cancelled it" was none (an eleventh blind probe's)."""
    dentist = mem.save("dentist appt thursday 3pm at smile dental")
    mem.save("the van's MOT is due in march")
    mem.flush()
    found = mem.analyze_message("delete my dentist appointment, i cancelled it")
    assert (found.intent, found.forget) == ("forget", [dentist.id])
    # a thing the store never held is the task's
    assert mem.analyze_message("delete the old config file, it is stale").intent == "none"
