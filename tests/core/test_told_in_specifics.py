"""Facts told in specifics (`engram.core.specifics`), and the rules a fourth blind probe's
users (a farmer, an engineering manager, a daughter caring for her mother) showed missing."""

from __future__ import annotations

import pytest

from engram.core.forget_request import said_then_dropped, thing_to_drop, what_to_forget
from engram.core.intent import classify, classify_by_rules
from engram.core.message import asked, plain
from engram.core.specifics import SPECIFICS_CONFIDENCE, fact_in_specifics


@pytest.mark.parametrize(
    "message",
    [
        # of the user's people, by name
        "Ravi goes on paternity leave from 4 Aug for 6 weeks, need cover for on-call",
        "Dafydd's mum Gwen comes to help with weeding every Thursday",
        "Aiyana started on Monday, she's frontend, came from a fintech",
        # without a subject, or under a label
        "tractor is a 1972 Massey Ferguson 135, runs on prayer mostly",
        "GP is dr hussain at chapel allerton surgery",
        "her meds: donepezil 5mg at night, amlodipine 5mg in the morning",
        "Gym: push/pull/legs 4x a week at PureGym, 7am before work",
        # with "we" after what is done, or a count
        "Saturdays we do Ludlow market, stall 22, setup by 7am",
        "we've got 40 laying hens, mostly Light Sussex and a few Marans",
        # prices, a deadline someone set, advice reported
        "basic service is £65 and full service £120, labour £40/hr",
        "Prof de Vries wants the draft of chapter 2 by end of April",
        "coach said my long runs should stay under 32k this block",
        # a count as it stands after what changed it
        "we lost 3 hens to a fox last night, so 37 now",
        # a due day in a later clause
        "Ugh what a day. The bus was late again and rent is due on the 3rd of every month",
    ],
)
def test_a_fact_told_in_names_days_and_amounts_is_kept(message: str) -> None:
    found = classify(message)
    assert found.intent == "save", found


@pytest.mark.parametrize(
    "message",
    [
        # asked, requested, supposed
        "What did Ravi say about the 4 Aug release",
        "Can you draft an email to Ravi about the 4 Aug release",
        "imagine if we had 40 more hens and a stall at Ludlow",
        # a story, a quote, history
        "In Hoosiers, Coach Dale makes the team pass four times before shooting",
        "As Gandalf said, all we have to decide is what to do with the time given us",
        # the work narrated, or its trouble
        "I changed the port to 8080.",
        "We bumped React to 18.3 this morning.",
        "The API returns a 500 for Ravi's account since Monday",
        # the moment, the weather, a chat
        "I'm so tired tonight. she was up 4 times",
        "it's so hot today, 98 degrees, the AC guy is gonna be busy",
        "My cat just knocked my coffee over",
        # a year corrected with nothing it corrects, an opinion
        "it was 2018 not 2019",
        "Lisa thinks we should go on Friday",
        "I would love 2 tickets for the 8pm show",
    ],
)
def test_specifics_in_what_asks_plays_or_passes_are_no_fact(message: str) -> None:
    assert fact_in_specifics(message) is None, message


@pytest.mark.parametrize(
    ("message", "kept"),
    [
        (
            "My younger brother Minh has his entrance exam in June… do you have tips how I can "
            "support him?",
            "My younger brother Minh has his entrance exam in June",
        ),
        (
            "landlord emailed, rent is going up to £1,450 a month from August, is that legal?",
            "landlord emailed, rent is going up to £1,450 a month from August",
        ),
    ],
)
def test_a_fact_told_before_a_question_is_kept_without_it(message: str, kept: str) -> None:
    """A fifth blind probe's: the question decided, and the fact was none."""
    found = classify(message)
    assert (found.intent, found.about) == ("save", kept)


@pytest.mark.parametrize(
    "message",
    [
        "Tour de France this year - who's favourite?",  # a topic, no fact
        "Write a poem about my dog Max who is 5, can you?",  # a request
        "What is 2+2? I have 3 apples",  # asked first
    ],
)
def test_what_comes_before_a_question_and_tells_nothing_is_not_kept(message: str) -> None:
    assert classify(message).intent != "save"


def test_the_form_is_read_last_and_no_surer_than_a_statement() -> None:
    """The rules leave the fact as none; only the last reading keeps it, as sure as a
    statement of the user, for the store to read first (a name it holds, a fact replaced)."""
    message = "Ravi goes on paternity leave from 4 Aug for 6 weeks"
    assert classify_by_rules(message).intent == "none"
    found = classify(message)
    assert (found.intent, found.confidence) == ("save", SPECIFICS_CONFIDENCE)
    assert found.phrase is not None and "when" in found.phrase and "name" in found.phrase


@pytest.mark.parametrize(
    ("message", "intent"),
    [
        # news of the user's people, a name typed in lower case or none
        ("my sister just moved to austin", "save"),
        ("my dad retired in june", "save"),
        ("my code just started failing", "none"),
        ("Tomasz got the promotion to staff!!", "save"),
        # what the user must do by a day, and the questions of it
        ("I have to renew my passport before March", "save"),
        ("gotta get the car inspected before the 30th", "save"),
        ("I need to fix this bug before Friday", "none"),
        ("what do i need to do before march", "recall"),
        ("What do I need to do to get a visa?", "none"),
        # a question typed without its apostrophe
        ("whats the difference between a roth and a traditional ira", "none"),
        # questions of the user's people, by role or pronoun; not advice, not someone else's
        ("what time does mum take the apixaban?", "recall"),
        ("who takes mum on sundays", "recall"),
        ("how much donepezil is she on now?", "recall"),
        ("What should I get my mum for her birthday?", "none"),
        ("How many siblings did Queen Victoria have?", "none"),
        ("Who was Napoleon's wife?", "none"),
        ("What I did today was great", "none"),
        # an allergy found out, a plan changed (not the work narrated)
        ("my hand swelled up a lot, turns out i'm a bit allergic", "save"),
        ("Actually we changed our minds, we're staying at the Memmo Alfama instead", "save"),
        # a confirmation that repeats what it confirms; not a yes to an offer
        ("yes penicillin, good", "reinforce"),
        ("yes twice a day, thats right", "reinforce"),
        ("right, pre-read doc it is", "reinforce"),
        ("right, feb 28. ok good", "reinforce"),
        ("yes thanks, that matches", "reinforce"),
        ("ok cool, see you tomorrow, great", "none"),
        # "im" for "I'm"
        ("im vegan btw so dont suggest bacon", "save"),
        ("yes please, sounds good", "none"),
        # a reminder by when keeps the fact it follows; a role played is no fact
        ("my wife Lena's birthday is 2 november, remind me a week before", "save"),
        ("explain the difference between p50 and p99 latency like I'm a PM", "none"),
    ],
)
def test_the_fourth_blind_probes_misses_are_read_as_meant(message: str, intent: str) -> None:
    assert classify(message).intent == intent


@pytest.mark.parametrize(
    ("message", "intent"),
    [
        # a sixth blind probe's: a case supposed, a question without its mark, a vent, a
        # distance read as money were saves; a salary was none
        ("if I picked up one extra 12h shift a week at $48/hr, how much is that a year", "none"),
        ("whats a good high protein snack i can eat in like 2 min standing up", "none"),
        ("ugh. 3 traumas back to back today and a kid coded. just need to vent", "none"),
        ("ran 28k today, legs are toast", "none"),
        ("salary offer is €52k plus relocation", "save"),
        # a question with its reason after it, and "how much … again"
        ("hey what's my shift pattern now? want to book a haircut", "recall"),
        ("how much was the consumables budget again?", "recall"),
        ("What's the capital of France? I forgot", "none"),
        # the value, then the word that confirms it; not a question
        ("yes Rua dos Remédios, thats it", "reinforce"),
        ("20th march, right. thanks", "reinforce"),
        ("I live in Lisbon, right?", "none"),
    ],
)
def test_the_sixth_blind_probes_misses_are_read_as_meant(message: str, intent: str) -> None:
    assert classify(message).intent == intent


def test_a_question_with_its_reason_after_it_is_searched_as_the_question() -> None:
    found = classify("hey what's my shift pattern now? want to book a haircut")
    assert found.about == "hey what's my shift pattern now?"


@pytest.mark.parametrize(
    ("message", "intent"),
    [
        # a seventh blind probe's: a yes and its value were saved as new memories, or none
        ("yes 9 april, thx", "reinforce"),
        ("Sorry, yes. Wednesday. Silly me.", "reinforce"),
        ("right, coldwater. cheers", "reinforce"),
        ("Yes, Alfie. Thank you.", "reinforce"),
        ("yes, book it", "none"),
        ("yes, I'm vegan", "save"),
        # a lapse is no habit, a mood no fact
        ("What is the capital of Alberta? Calgary or Edmonton, I always forget.", "none"),
        ("I always take the train", "save"),
        ("honestly so stressed today, rahul and me argued about pricing for 2 hours", "none"),
    ],
)
def test_the_seventh_blind_probes_misses_are_read_as_meant(message: str, intent: str) -> None:
    assert classify(message).intent == intent


@pytest.mark.parametrize(
    ("message", "question"),
    [
        ("when does priya start", True),
        ("where does jenna work", True),
        ("When I was a kid I lived in Oslo", False),
        ("Where I grew up it snows a lot", False),
    ],
)
def test_a_short_question_typed_without_its_mark_is_one(message: str, question: bool) -> None:
    """ "when does priya start" (a seventh blind probe's) had no mark, so the store was never
    asked whether it knows Priya."""
    assert asked(plain(message)).endswith("?") is question


@pytest.mark.parametrize(
    ("message", "kept"),
    [
        # an eighth blind probe's: a fact bundled with a request for work was none
        (
            "Book club is reading Demon Copperhead this month and I'm hosting on the 18th, "
            "could you suggest some discussion questions?",
            "Book club is reading Demon Copperhead this month and I'm hosting on the 18th",
        ),
        (
            "team offsite is in Lisbon on May 12, draft an agenda for it",
            "team offsite is in Lisbon on May 12",
        ),
        # told after the request and pointing back to it: kept with it
        (
            "can u write a short bday msg for lucia, shes turning 8 on friday and ill be away",
            "can u write a short bday msg for lucia, shes turning 8 on friday and ill be away",
        ),
        (
            "could you draft the letter to parents about the trip? it's £8 each, they need lunch",
            "could you draft the letter to parents about the trip? it's £8 each, they need lunch",
        ),
    ],
)
def test_a_fact_beside_a_request_for_work_is_kept(message: str, kept: str) -> None:
    found = classify(message)
    assert (found.intent, found.about) == ("save", kept)
    assert found.confidence == SPECIFICS_CONFIDENCE


@pytest.mark.parametrize(
    "message",
    [
        "what should I cook tonight, we have 4 people coming at 7",  # the moment's
        "Write a limerick about a cat, make it 5 lines",  # all request
        "could you convert 5 miles to km, thanks",
        "What is 2+2? I have 3 apples",  # a question posed
        "Tour de France this year - can you list the favourites?",  # a topic, no fact
    ],
)
def test_a_request_with_no_fact_beside_it_keeps_nothing(message: str) -> None:
    assert classify(message).intent != "save"


@pytest.mark.parametrize(
    ("message", "intent"),
    [
        # an eighth blind probe's
        ("home time is every other weekend, next one is the 22nd", "save"),  # a schedule
        ("we've booked the class trip to the museum in halifax for 12 march", "save"),
        ("ugh traffic on i-44 is brutal today", "none"),  # a road is no one
        ("Can you recommend me a novel like the ones my favourite author writes?", "recall"),
        ("any books like my favourite author's?", "recall"),
        ("My favourite author is Louise Penny, can you recommend something like her?", "save"),
        ("what's mum after for her birthday", "recall"),
    ],
)
def test_the_eighth_blind_probes_misses_are_read_as_meant(message: str, intent: str) -> None:
    assert classify(message).intent == intent


def test_a_question_of_six_words_or_a_slash_is_one_without_its_mark() -> None:
    assert asked(plain("whats mateo got going on tues/thurs")).endswith("?")


@pytest.mark.parametrize(
    ("message", "intent"),
    [
        # a ninth blind probe's: confirmations in the words people use
        ("spot on ta", "reinforce"),
        ("bang on, cheers", "reinforce"),
        ("ye, jess lol", "reinforce"),
        ("sick, yeah", "reinforce"),
        ("spot on, can you also book it?", "none"),
        # a yes and "the same" in a later sentence is news, not a confirmation
        (
            "right so i own 3 rental flats in cardiff. flat on clifton st, and the other two "
            "are in the same block",
            "save",
        ),
        ("note for luis: hes working on slap technique, wants to learn Higher Ground", "save"),
        ("got a new (used) van, white transit connect, reg ends in KLX", "save"),
        ("got a new error in the build", "none"),
        ("pls dont keep the thing about my knee, i dont want that stored", "forget"),
        ("please remove anything you've got on sanj's dad, he asked me not to keep it", "forget"),
        ("honestly being a landlord is 90% chasing people for stuff", "none"),
        ("what've i got on thursday evenings", "recall"),
    ],
)
def test_the_ninth_blind_probes_misses_are_read_as_meant(message: str, intent: str) -> None:
    assert classify(message).intent == intent


@pytest.mark.parametrize(
    ("message", "question"),
    [
        ("does mr hargreaves still come on thursdays", True),
        ("when does the fixed rate run out on the clifton one", True),
        ("Does pilates twice a week", False),  # a note without its subject
    ],
)
def test_a_question_asked_by_its_verb_and_still_or_at_length_is_one(
    message: str, question: bool
) -> None:
    assert asked(plain(message)).endswith("?") is question


@pytest.mark.parametrize(
    ("message", "intent"),
    [
        # a tenth blind probe's
        ("the kids childminder is a lady called bev, she has them tues and thurs", "save"),
        (
            "make me a rota table for 3 staff open 9-6 mon-sat. context: im the only pharmacist "
            "on saturdays so im in every sat",
            "save",
        ),
        ("email for the assoc secretary is jan.h@ssba-bees.org.uk if i need to report", "save"),
        ("wife sheila does not like the bees, shes allergic to stings (has an epipen)", "save"),
        ("hey. jules here, i shoot weddings for a living, based in truro cornwall", "save"),
        ("what do you do for a living?", "none"),
        # the task's details after a request are the task's
        (
            "write me a polite email to a GP surgery asking them to re-issue a prescription "
            "with the correct strength, dose was written as 50mg but the tablet only comes in "
            "25 and 100",
            "none",
        ),
        (
            "draft a whatsapp msg to parents about the new training time, friendly tone - oh and "
            "subs go up to £3 a session from next month so mention that too",
            "save",
        ),
        (
            "actually scrap what i told u about my antidepressant, id rather that wasnt stored",
            "forget",
        ),
        ("check out this link https://example.com/abc lol", "none"),
        ("if i wanted to move to Paris in 2027 with 2 kids", "none"),
    ],
)
def test_the_tenth_blind_probes_misses_are_read_as_meant(message: str, intent: str) -> None:
    assert classify(message).intent == intent


def test_what_a_forget_asks_after_a_dash_and_why_is_the_clause_before_it() -> None:
    said = "the anniversary trip idea — wipe it, sheila found out and its not a surprise anymore"
    assert said_then_dropped(said) == "the anniversary trip idea"
    # a request after it is no reason: nothing is read as dropped
    assert said_then_dropped("Jake paid me back, forget about it, and remind me to call mum") == ""
    assert what_to_forget("scrap what i told u about my antidepressant, id rather not") == (
        "my antidepressant"
    )
    assert what_to_forget("forget the bit about my heart medication please") == (
        "my heart medication"
    )


@pytest.mark.parametrize(
    ("message", "question"),
    [
        # an eleventh blind probe's questions of any form, typed without their mark
        ("when and where is the wedding", True),
        ("how much is a big dog now", True),
        ("what blade for a westie's body", True),
        ("what a day", False),
        ("when I was a kid I lived in Oslo", False),
    ],
)
def test_a_short_question_of_a_thing_is_one_without_its_mark(message: str, question: bool) -> None:
    assert asked(plain(message)).endswith("?") is question


def test_an_eleventh_blind_probes_requests_to_forget_name_what_they_drop() -> None:
    assert thing_to_drop("delete my dentist appointment, i cancelled it") == "dentist appointment"
    assert thing_to_drop("Delete the unused imports") == ""
    assert what_to_forget(
        "forget the thing abt my shampoo allergy, the dermatologist says it was something else"
    ) == ("my shampoo allergy")
