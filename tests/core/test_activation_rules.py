"""The activation rules against the labelled sets in tests/fixtures/activation (written for
Engram): intent per class and entity extraction, precision and recall; plus the helpers."""

from __future__ import annotations

from collections import Counter
from datetime import date
from pathlib import Path

import pytest

from engram.core.change_words import says_a_change
from engram.core.entities import extract_entities
from engram.core.fact_values import (
    affirms_value,
    brought_up_to_date,
    corrected_to,
    holds_value,
    named_old_value,
    value_swapped,
)
from engram.core.importance import importance
from engram.core.intent import classify, classify_by_rules
from engram.core.keep_request import memory_content
from engram.core.keeping import life_fact_replaced, may_be_news, replaces_a_fact
from engram.core.message import plain
from engram.core.models import MAX_STRENGTH
from engram.core.questions import asks_about, thing_asked_of
from engram.core.recall import recall_query, recall_window
from engram.core.statement import (
    MAX_WORDS,
    STATEMENT_CONFIDENCE,
    statement_about,
    statement_about_the_user,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "activation"
CLASSES = ("save", "recall", "reinforce", "none")

THURSDAY = date(2026, 1, 1)


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # a detail of the user's that changed, or that they changed (a probe: each none)
        ("My phone number changed to 555-0134", "save"),
        ("I changed my phone number to 555-0134", "save"),
        ("I updated my email to ana@example.com", "save"),
        ("My last name changed to Silva after the wedding", "save"),
        ("I got a new car, a red Mazda 3", "save"),
        # the same verbs of the work, of the moment, or asked
        ("My code changed to use async", "none"),
        ("I changed the config to use port 8080", "none"),
        ("My phone changed to dark mode after the update", "none"),
        ("I got a new error when I ran it", "none"),
        ("I changed my mind", "none"),
    ],
)
def test_a_detail_of_the_users_that_changed_is_a_save(text: str, intent: str) -> None:
    assert classify(text).intent == intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # facts told without the user as subject, or "my" only in the middle (a blind probe's
        # three users: each none, and a bakery's owner lost 10 of 19 facts)
        ("The health inspection is scheduled for Oct 12", "save"),
        ("thesis proposal draft is due to Okafor on Nov 15", "save"),
        ("Dr. Patel is my cardiologist, appointment next Tuesday at 10am", "save"),
        ("Ana is my shift lead, she can't work Sundays", "save"),
        ("im a 3rd year phd student in biology, my advisor is prof. Okafor", "save"),
        ("Hired a new baker named Luis, he starts on the 1st", "save"),
        ("i need to pay payroll every other friday through Gusto", "save"),
        ("I keep forgetting Tommy's shoe size, it's 2Y", "save"),
        ("oh and the espresso machine is a La Marzocco Linea, serviced by Coffee Tech", "save"),
        ("New contact at Miller is Tanya, 555-0199", "save"),
        # a condition of anyone named, what the user takes, a make by its year (a second blind
        # probe's, each none)
        ("Joan has celiac disease so everything has to be strictly gluten-free", "save"),
        ("jaylen's allergic to penicillin, and his pediatrician is dr. okafor", "save"),
        ("she's also lactose intolerant", "save"),
        ("I take lisinopril and a baby aspirin daily, need to pack enough for 3 weeks", "save"),
        ("my car is a 2014 honda civic, it has 120k miles", "save"),
        ("jaylen's best friend marcus lives on the next street, his mom is named priya", "save"),
        ("Joan's sister Marlene lives in Porto and wants us to stay two nights with her", "save"),
        ("Marlene's address is Rua das Flores 112, Porto", "save"),
        ("jaylen got a job at the pizza place on 5th, works fridays after school", "save"),
        ("brightline pays $95/hr net 30, harbor is a fixed $12k project", "save"),
        ("We've decided to skip the Algarve; the drive is too long for my knees", "save"),
        # a third blind probe's: a diet of anyone named, when a term ends, a booking's number,
        # an event on a day, a birth
        ("kenji is vegan and abby can't do gluten so food stops gotta work for both", "save"),
        (
            "Unit B: the Nguyen family, Linh and her two kids. rent 1400, lease ends march 31",
            "save",
        ),
        ("we rented a 15-passenger van from Roadie Rentals, confirmation # RR-88213", "save"),
        ("first game is against Westfield on november 22, away", "save"),
        ("Tom's wife just had twins!!", "save"),
        ("the weather is nice on Monday", "none"),
        ("When is the first game?", "none"),
        ("Most people are vegan these days", "none"),
        ("Many people are allergic to peanuts", "none"),
        ("who got a job at google?", "none"),
        ("The function is named foo", "none"),
        ("my code's function is called twice", "none"),
        ("Is Joan allergic to nuts?", "none"),
        # a relative "that" is no word of the conversation's ("I like that" is)
        ("I'm in a book club that meets the first Thursday of each month", "save"),
        # the same forms asked, of the work, or of the moment
        ("the error is a TypeError", "none"),
        ("The function is a Python generator", "none"),
        ("I think that works", "none"),
        ("When is the inspection scheduled for Oct 12?", "none"),
        ("Is Ana my shift lead?", "none"),
        ("The function is due for a refactor", "none"),
        ("This is my code", "none"),
        ("I keep forgetting my password, it's annoying", "none"),
        ("I need to run the tests every time I push", "none"),
    ],
)
def test_a_fact_told_without_the_user_as_subject_is_a_save(text: str, intent: str) -> None:
    assert classify(text).intent == intent


SUNDAY = date(2026, 1, 4)


def rows(name: str) -> list[list[str]]:
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in lines if line.strip() and not line.startswith("#")]


def test_the_message_set_is_large_and_varied() -> None:
    labels = Counter(label for label, _ in rows("messages.tsv"))
    assert sum(labels.values()) >= 150 and all(labels[c] >= 30 for c in CLASSES)


def precision_and_recall(name: str) -> dict[str, tuple[float, float]]:
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    for label, text in rows(name):
        got = classify(text).intent
        if got == label:
            tp[label] += 1
        else:
            fp[got] += 1
            fn[label] += 1
    return {
        c: (tp[c] / max(tp[c] + fp[c], 1), tp[c] / max(tp[c] + fn[c], 1)) for c in {*tp, *fp, *fn}
    }


def test_intent_precision_and_recall_are_at_least_085_per_class() -> None:
    found = precision_and_recall("messages.tsv")
    for c in CLASSES:
        assert min(found[c]) >= 0.85, (c, found[c])


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("What food should I avoid?", "recall"),
        ("Can I eat cheese?", "recall"),
        ("Which seat should you book for me on a plane?", "recall"),
        ("Any dinner ideas that fit my diet?", "recall"),  # a blind probe's: none
        ("What snacks are ok with my allergies?", "recall"),
        ("What's a good weeknight dinner for the four of us?", "recall"),
        ("What's the neighbor's dog called?", "recall"),
        # the same forms asked of the world, or of something to do
        ("What foods should diabetics avoid?", "none"),
        ("Can I have a refund?", "none"),
        ("Can we have the meeting at 3?", "none"),
        ("What is a good laptop for programming?", "none"),
        ("What should I get my sister for her birthday?", "none"),
        # news of the user's people, a booking, a reminder asked for: each was none or a recall
        ("Tom and his wife Grace just had a baby girl, Ivy! I want to send something.", "save"),
        ("Hannah got engaged to her partner Luis! Wedding's probably next summer.", "save"),
        ("Booked the hotel for November 8 to 13.", "save"),
        ("Remind me in future: my friend Tom's birthday is March 14. I always forget it.", "save"),
        ("Remind me to call Mom on Friday", "save"),
        ("Remind me what we decided about the database", "recall"),
        ("Have I booked the hotel yet?", "recall"),
        ("Is Hannah married?", "none"),
        # where a thing the user follows stands, what changed since (a time probe: each none)
        ("What's the latest on Kafka?", "recall"),
        ("Any update on the apartment?", "recall"),
        ("What's changed since Christmas?", "recall"),
        ("What's new in Python 3.13?", "none"),
    ],
)
def test_advice_only_the_users_own_facts_make_right_is_a_recall(text: str, intent: str) -> None:
    """A personal assistant's probe: each of the recalls was none, though the allergy, the
    window seat, the family's diets and the neighbour's dog were in the store; each of the
    saves was none, or a recall of nothing."""
    assert classify(text).intent == intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("I teach chemistry at a high school.", "save"),
        ("I run a small bakery in Porto.", "save"),
        ("I've been vegan for three years.", "save"),
        ("I can't eat shellfish.", "save"),
        ("Our office closes at 6pm on Fridays.", "save"),
        ("The API key rotates every 90 days.", "save"),
        ("Our team has five engineers and one designer.", "save"),
        ("The staging server is at staging.acme.dev.", "save"),
        ("Is my girlfriend allergic to anything?", "recall"),
        ("Who manages our product?", "recall"),
        ("How many engineers are on our team?", "recall"),
        # the same words about the world, about the moment, or asking for help
        ("How do I set up a staging server?", "none"),
        ("Who manages the Louvre?", "none"),
        ("How long do standups usually last?", "none"),
        ("I run the tests before every commit, is that overkill?", "none"),
        ("The meeting starts at 10, can you join?", "none"),
        ("Is my code correct?", "none"),
        ("I can't eat right now, too busy.", "none"),
        ("The build takes a long time today.", "none"),
    ],
)
def test_work_diets_schedules_and_questions_about_someone_close(text: str, intent: str) -> None:
    """The fourth round of rules (docs/activation.md), each beside what it must leave alone."""
    assert classify(text).intent == intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("My flight home is on December 20th.", "save"),
        ("Our fiscal year starts in April.", "save"),
        ("Our sprint reviews happen every other Thursday.", "save"),
        ("I've got a dentist appointment on the 14th at 3pm.", "save"),
        ("Our company uses Google Workspace.", "save"),
        ("We migrated the monolith to Kubernetes in May.", "save"),
        ("The staging API key is stored in 1Password.", "save"),
        ("I just started learning the cello.", "save"),
        # the same forms asking, or about the world
        ("When is my flight home on December 20th?", "recall"),
        ("Does our fiscal year start in April?", "recall"),
        ("How do I migrate the monolith to Kubernetes?", "none"),
        ("Where is the staging API key stored?", "none"),
    ],
)
def test_days_of_the_users_things_where_their_work_lives_and_what_they_learn(
    text: str, intent: str
) -> None:
    """The fifth round of rules (docs/activation.md), each beside what it must leave alone."""
    assert classify(text).intent == intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # news announced before it is told, and what happened in the user's life (an MCP
        # probe: each was none)
        ("Big news: we moved to Berlin last weekend!", "save"),
        ("We moved to Berlin last weekend.", "save"),
        ("Update: I now write Rust at work instead of Python.", "save"),
        ("Great news, I got the job at Spotify!", "save"),
        ("I broke my wrist yesterday.", "save"),
        ("We got a cat named Miso!", "save"),
        ("We got married in June!", "save"),
        ("I was diagnosed with type 2 diabetes last month.", "save"),
        ("Anything about my health I should remember?", "recall"),
        ("How do I take my coffee?", "recall"),
        # the same words about the work, or asking how to do something
        ("We moved the meeting to Friday.", "none"),
        ("Update the README with the new flags.", "none"),
        ("Update: the build is broken again.", "none"),
        ("I got the job done before lunch.", "none"),
        ("I broke my build again.", "none"),
        ("How do I take my screenshot on a Mac?", "none"),
        ("Is there anything I should know about decorators?", "none"),
    ],
)
def test_news_life_events_and_what_the_user_must_remember(text: str, intent: str) -> None:
    """The sixth round of rules (docs/activation.md), each beside what it must leave alone."""
    assert classify(text).intent == intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # a user's news in a probe's MCP sessions, each none
        ("We finally moved! We're in the Wash Park neighborhood in Denver now.", "save"),
        ("I've gone fully vegan as of this month.", "save"),
        ("Ugh, the Harbor beta slipped to February 3.", "save"),
        ("Bad news: the deadline got pushed back to October 1 because of legal review.", "save"),
        ("For design reviews I now prefer detailed write-ups, not just bullets.", "save"),
        ("Daniel's birthday is March 3.", "save"),
        # the same words of the work, of the moment, or asked
        ("We moved the standup notes to the wiki.", "none"),
        ("I moved on to the next ticket.", "none"),
        ("Has the release slipped to next week?", "none"),
        ("ugh actually Okafor pushed the deadline to Nov 22", "save"),
        ("I pushed the fix to main", "none"),
        ("Is Daniel's birthday in March?", "none"),  # asked: the store says if a recall
    ],
)
def test_moves_diets_dates_that_moved_and_someones_birthday(text: str, intent: str) -> None:
    """The seventh round of rules (docs/activation.md), each beside what it must leave alone."""
    assert classify(text).intent == intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("What's on April 15?", "recall"),
        ("Anything happening on Friday?", "recall"),
        ("What is scheduled for tomorrow?", "recall"),
        ("So what's on the 14th?", "recall"),
        ("Hey, what's planned for next week?", "recall"),
        ("Whats on friday?", "recall"),  # typed on a phone (probe)
        ("Anything on May 20?", "recall"),
        # what is on elsewhere, or a day said of the moment
        ("What's on TV tonight?", "none"),
        ("What's on the menu at Nando's?", "none"),
        ("What's on sale this Friday at the mall, any idea?", "none"),
    ],
)
def test_what_is_planned_on_a_day_is_a_recall(text: str, intent: str) -> None:
    """Only the user's calendar answers "What's on April 15?" (a helper's probe: it was none)."""
    assert classify(text).intent == intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("What happened in June?", "recall"),
        ("What happened yesterday?", "recall"),
        ("What happened on June 5?", "recall"),
        ("What happened last week?", "recall"),
        ("What was going on in early June 2026?", "recall"),
        ("What happened to the economy in 2008?", "none"),  # of the world
        ("What happened in the news today?", "none"),
    ],
)
def test_what_happened_on_a_day_gone_by_is_a_recall(text: str, intent: str) -> None:
    """An MCP probe: each was none at 0.9, though search reads its days."""
    assert classify(text).intent == intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("How is my knee doing these days?", "recall"),
        ("How's our kitchen renovation going?", "recall"),
        ("What birthdays do I need to remember?", "recall"),
        ("How's my knee these days?", "recall"),  # a fourth probe's variants
        ("Is my knee getting better?", "recall"),
        ("Any birthdays coming up?", "recall"),
        ("Is anything coming up?", "recall"),
        ("What is coming up next week?", "recall"),
        ("What's coming up in the news?", "none"),
        ("Is my code still broken?", "none"),  # trouble with the work
        ("How is your day going?", "none"),  # the assistant's, not the user's
        ("What should I remember when traveling to Japan?", "none"),  # advice
        # the household's and the team's own (an MCP probe: none at 0.9)
        ("What time is standup?", "recall"),
        ("What school do the kids go to?", "recall"),
        ("When is the dog's vet appointment?", "recall"),
        ("When's our retro?", "recall"),
        ("What time is it in Tokyo?", "none"),
        ("When is Christmas?", "none"),
        ("What time does the store close?", "none"),
        # typed without its "?" (an MCP probe: none at 0.7)
        ("what time is standup", "recall"),
        ("when is standup", "recall"),
        ("what time is it", "none"),
        ("When I was young I played the piano", "none"),
    ],
)
def test_how_a_thing_of_the_users_goes_and_what_they_must_remember_are_recalls(
    text: str, intent: str
) -> None:
    """A third probe's questions about the user's own life, read as none at 0.9."""
    assert classify(text).intent == intent


@pytest.mark.parametrize(
    "text",
    [
        "I commute to work by train.",
        "Our codebase is mostly TypeScript with a bit of Go.",
        "My neighbour waters my plants when I travel.",
        "We keep every design file in Figma.",
    ],
)
def test_a_statement_about_the_user_no_rule_names_is_a_save_of_less_confidence(text: str) -> None:
    found = classify(text)
    assert (found.intent, found.confidence) == ("save", STATEMENT_CONFIDENCE)
    assert found.phrase is not None and text.startswith(found.phrase)


@pytest.mark.parametrize(
    "text",
    [
        "I want to build a CLI in Rust.",  # a request
        "My tests pass locally but fail in CI.",  # trouble with the work
        "I think the second option is better.",  # an opinion
        "I'm so tired.",  # how the user is now
        "I never remember my keys.",  # a lapse (rules of its own read "remember")
        "My code looks like this: `x = 1`",  # a paste
        "Our plan for the week is below.",  # the conversation itself
        "I like sailing. Does it scale?",  # a question follows
        "We " + "really " * 40 + "like sailing.",  # longer than a fact is said
        "Explain recursion like I'm five.",  # not about the user
        # a coding session: work narrated, a thing of the code described, trouble
        "I pushed the branch to origin.",
        "I rewrote the parser with nom.",
        "My function returns an empty list for valid input.",
        "We see 502s from the load balancer every few minutes.",
        "I get TypeError: x is not a function when I run npm start",
    ],
)
def test_what_the_statement_reading_leaves_alone(text: str) -> None:
    assert statement_about_the_user(plain(text)) is None or classify(text).intent != "save"


def test_a_past_with_a_date_is_part_of_a_life_not_work_narrated() -> None:
    assert classify("I graduated from the University of Leeds in 2015.").intent == "save"
    assert statement_about_the_user("I rewrote the parser in 2015 for my thesis.") is not None
    assert statement_about_the_user("I rewrote the parser for my thesis.") is None


def test_moving_house_is_a_fact_moving_code_is_not() -> None:
    assert classify("I moved to Denver last spring.").intent == "save"
    assert classify("I've moved back to Lisbon.").intent == "save"
    assert classify("I moved the validation into the model layer.").intent == "none"


@pytest.mark.parametrize(
    "text",
    ["Actually we're in Denver now", "Actually, I'm in Denver now", "No, we live in Denver."],
)
def test_a_statement_said_as_a_correction_is_still_a_statement(text: str) -> None:
    """An MCP probe: "Actually we're in Denver now" was none, "We're in Denver now" a save."""
    found = classify(text)
    assert (found.intent, found.confidence) == ("save", STATEMENT_CONFIDENCE)
    assert found.phrase is not None and found.phrase.lower().startswith(("we", "i'm"))


def test_the_statement_reading_names_its_opening_words() -> None:
    assert statement_about_the_user("So I commute to work by train.") == "I commute to"
    assert statement_about_the_user("What do I commute by?") is None


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("Who cleans our office on weekends?", "recall"),
        ("What's the wifi password at our cabin?", "recall"),
        ("How many days of holiday do I have left?", "recall"),
        ("Who covers for me when I'm on leave?", "recall"),
        # the same form asking for advice, how to, or about trouble; or about the world
        ("What's the best way to clean my oven?", "none"),
        ("How do I reset my router?", "none"),
        ("What's wrong with my sourdough?", "none"),
        ("What could be causing my headaches?", "none"),
        ("Who wrote Pride and Prejudice?", "none"),
    ],
)
def test_a_question_about_the_users_things_is_a_recall_read_from_its_form(
    text: str, intent: str
) -> None:
    found = classify(text)
    assert found.intent == intent
    if intent == "recall":
        assert found.confidence == 0.6


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # typed in a chat without the question mark: still questions
        ("what's my favourite color", "recall"),
        ("Which gym do I go to", "recall"),
        ("How old is my son", "recall"),
        ("Who walks our dog on Thursdays", "recall"),
        ("Last week I told you about a book, what was it", "recall"),
        ("I always forget semicolons, any tips", "none"),
        ("For future reference, what's the best way to do this", "none"),
        # statements that open like a question, or hold a relative clause: left as they are
        ("When I was a kid I lived in Oslo", "none"),
        ("What I did today was great", "none"),
        ("I met Dana, who is my manager", "none"),
        ("Remember that my wifi password is hunter2", "save"),
    ],
)
def test_a_question_typed_without_its_question_mark_is_read_as_one(text: str, intent: str) -> None:
    assert classify(text).intent == intent


def test_the_labelled_questions_keep_their_intent_without_the_question_mark() -> None:
    """Chat users often leave the "?" out: "what's my favourite color" was saved as a
    preference. Every labelled question, its "?" dropped: before the reading of question
    forms 40 of 148 recalls stayed recalls on messages.tsv (1 of 29 on the held-out set)."""
    for name in ("messages.tsv", "messages-heldout.tsv"):
        asked = [(label, text) for label, text in rows(name) if text.endswith("?")]
        same = Counter(label for label, text in asked if classify(text[:-1]).intent == label)
        total = Counter(label for label, _ in asked)
        assert same["recall"] >= 0.9 * total["recall"], (name, same, total)
        assert same["none"] >= 0.95 * total["none"], (name, same, total)


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("What was that restaurant Anna recommended?", "recall"),
        ("What was that tool you suggested for linting?", "recall"),
        ("Which book would you recommend?", "none"),
        ("I read that book Obama recommended.", "none"),
    ],
)
def test_that_thing_someone_recommended_is_a_recall(text: str, intent: str) -> None:
    assert classify(text).intent == intent


def test_a_fact_said_to_no_longer_hold_is_a_save() -> None:
    """A correction of something stored is worth saving: it says the old fact is gone."""
    for text in ("Actually I don't live in Berlin anymore", "I no longer work at Acme"):
        found = classify(text)
        assert (found.intent, found.tags) == ("save", ("personal",)), text


def test_on_messages_the_rules_were_not_tuned_on_every_class_keeps_050() -> None:
    """A guard, not a target: the held-out messages are never used to change the rules, so
    they show how the rules do on new phrasings (docs/activation.md has the numbers; the
    lowest, none's recall, is 0.87)."""
    found = precision_and_recall("messages-heldout.tsv")
    for c in ("save", "recall", "none"):
        assert min(found[c]) >= 0.5, (c, found[c])


@pytest.mark.parametrize("name", ["entities.tsv", "entities-heldout.tsv"])
def test_entity_precision_and_recall_are_at_least_085(name: str) -> None:
    tp = fp = fn = 0
    for text, gold_text in rows(name):
        gold = set(gold_text.split("|"))
        got = {e.casefold() for e in extract_entities(text)}
        tp, fp, fn = tp + len(got & gold), fp + len(got - gold), fn + len(gold - got)
    assert tp / (tp + fp) >= 0.85 and tp / (tp + fn) >= 0.85


def test_an_adverb_opening_a_sentence_is_no_name() -> None:
    """A probe's vault notes listed "Currently" among their entities."""
    assert extract_entities("Currently working on the Atlas migration.") == ["Atlas"]
    assert extract_entities("Recently started learning Go.") == ["Go"]
    for name in ("Emily", "Kimberly", "Beverly", "Holly"):
        assert extract_entities(f"{name} is my sister.") == [name]


def test_a_chat_lead_in_or_tail_hides_no_fact() -> None:
    """A blind probe: "I'm Tomas btw" and "Guess what? We sold the house! …" were none, though
    "I'm Tomas" and "We sold the house!" alone are saves."""
    for message in (
        "I'm Tomas btw",
        "i hate cilantro fyi",
        "Guess what? We sold the house! moving to an apartment downtown next month",
        "Quick thing: we adopted a rabbit named Clover",
    ):
        assert classify(message).intent == "save", message
    assert classify("what's my wife's name btw?").intent == "recall"
    # a lead-in that asks, and a chat word alone, say nothing to keep
    assert classify("Guess what I did today?").intent == "none"
    assert classify("lol").intent == "none"
    # how the user is now, with a chat word after it (a third blind probe's save)
    assert classify("i'm so tired man").intent == "none"


@pytest.mark.parametrize(
    ("message", "intent"),
    [
        # the user's lapse of memory asks for what was kept (it was a save of the lapse)
        ("i was trying to remember my dentists name", "recall"),
        ("I can't remember who my manager is", "recall"),
        ("I forgot, which language am I learning on duolingo?", "recall"),
        ("Can you pull up everything you know about my mom?", "recall"),
        ("I can't remember my password, how do I reset it on Gmail?", "none"),  # help asked
        ("I forgot my umbrella at the office", "none"),
        # a confirmation said short
        ("still allergic to penicillin, nothing's changed there", "reinforce"),
        ("still no pork for me", "reinforce"),
        ("yes that's the one, Casa Lupita", "reinforce"),
        # an instruction about the work at hand is no standing rule; a project's is
        ("Don't add comments to this function, just give me the code", "none"),
        ("don't mention the budget in this email", "none"),
        ("Don't use semicolons in this repo", "save"),
        ("Don't use semicolons in my code", "save"),
        # the moment: stepping away, mending what was just said; a plan stays one
        ("I'm heading out for lunch, back in an hour", "none"),
        ("sorry, I meant the other file", "none"),
        ("I'm heading out to Denver next week for a conference", "save"),
    ],
)
def test_what_a_blind_probe_misread(message: str, intent: str) -> None:
    """Of 150 messages a helper wrote blind to the rules, these were read wrong (see
    docs/activation.md)."""
    assert classify(message).intent == intent


def test_a_chat_turns_opening_word_is_no_name() -> None:
    """Over the 22,849 texts under bench/data, the opening words of chat turns were 763 of
    their entities: "Ha", "Her", "You'll", "Perfect", "Eighteen", "Drinks"… Each linked
    unrelated turns in the graph as if they named one thing."""
    for turn in (
        "You'll catch up. Are you keeping a list?",
        "Wouldn't miss it, I'll be there at 9.",
        "Hahaha, I need to see a video of that.",
        "Sooo good. Yesss!",
        "Eighteen jars! Forty-two, in fact.",
        "Her pride is still hurt.",
        "Perfect, let's do it.",
        "Drinks coffee black in the morning",
    ):
        assert extract_entities(turn) == [], turn
    # names stay names: inside a sentence, spoken to, in capitals, numbered places
    assert extract_entities("Fifth Avenue was closed") == ["Fifth Avenue"]
    assert extract_entities("Claire, you're the best. Sam agreed.") == ["Claire", "Sam"]
    assert extract_entities("Plays padel with Dana") == ["Dana"]
    assert extract_entities("Bought AAA batteries at the WWW shop") == ["AAA", "WWW"]
    assert extract_entities("O'Brien's pub is closed") == ["O'Brien"]


def test_a_common_word_opening_a_note_is_no_name() -> None:
    """Helpers' probes found "Daily", "Severe", "Allergic", "Line", "Weekly 1" and "Summer"
    among their memories' entities, shown on pages and linking unrelated memories."""
    assert extract_entities("Daily standup moved to 10am") == []
    assert extract_entities("Severe peanut allergy, carries an EpiPen") == ["EpiPen"]
    assert extract_entities("Line 42 throws a KeyError") == ["KeyError"]
    assert extract_entities("Weekly 1:1 with Priya moved to Mondays") == ["Priya"]
    assert extract_entities("Summer plans: hike the Alps") == ["Alps"]
    assert extract_entities("Kafka topics are partitioned") == ["Kafka"]  # a name stays one


def test_a_note_opening_with_one_of_the_users_people_names_the_person() -> None:
    """ "Daughter Maya is 7…" had the entity "Daughter Maya", which no memory naming Maya
    linked to (a helper's probe). The word of kin stays a name's where no name follows it, or
    where it is not a word of kin there ("Cat Stevens")."""
    assert extract_entities("Daughter Maya is 7 years old and loves horses") == ["Maya"]
    assert extract_entities("Brother Sam lives in Denver") == ["Sam", "Denver"]
    assert extract_entities("Friend Zoe visited. Son Leo too.") == ["Zoe", "Leo"]
    assert extract_entities("Mom called about Sunday lunch") == ["Mom"]
    assert extract_entities("Cat Stevens played in Toronto") == ["Cat Stevens", "Toronto"]


def test_the_first_person_in_another_language_is_no_name() -> None:
    """A multilingual probe's notes named "Ich", "Mi" and "Je"; `analyze` then read "Ich bin
    so froh!" as a statement about a known person, to save. Names stay names ("Mia")."""
    assert extract_entities("Ich wohne in Hamburg.") == ["Hamburg"]
    assert extract_entities("Mi perro se llama Toño.") == ["Toño"]
    assert extract_entities("Je travaille chez Renault.") == ["Renault"]
    # (German writes its nouns capitalised: "Schwester" may stay, "Meine" does not)
    assert not any(
        e.startswith("Meine") for e in extract_entities("Meine Schwester wohnt in Köln.")
    )
    assert extract_entities("Mia lives in Rome") == ["Mia", "Rome"]


def test_a_greeting_and_its_announcement_are_no_name_and_no_emphasis() -> None:
    """An MCP probe's "Hi! Quick intro: …" named "Quick" and was +0.1 for the greeting's "!"."""
    text = "Hi! Quick intro: my sister Ana lives in Montreal."
    assert extract_entities(text) == ["Ana", "Montreal"]
    # the sister named counts (who the user is), the greeting's "!" does not
    assert importance(text) == (1.2, ["who the user is ('my sister Ana', +0.2)"])
    assert extract_entities("Big news: Ana is moving to Lisbon.") == ["Ana", "Lisbon"]
    assert importance("Hey! We finally got the keys!")[0] == pytest.approx(1.1)


def test_the_seeds_example_finds_the_technology() -> None:
    assert extract_entities("Use JWT for auth") == ["JWT"]
    assert extract_entities("Decided on PostgreSQL 16 for Atlas") == ["PostgreSQL 16", "Atlas"]
    assert extract_entities("Prefers tea over coffee") == []


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("elise: Yes I have! I actually study at UCLA!", ["UCLA"]),
        ("Emi: Hey! How are you?", ["Emi"]),
        ("elise: Hi, I’m doing good, and you?", []),
        ("Kate: A cooking class in Lisbon sounds fun", ["Kate", "Lisbon"]),
        ("User: Where is the Atlas repo?", ["Atlas"]),
        ("Note: Dana prefers tea", ["Dana"]),
        ("Emi: No I’ve never visited. I'm from California.", ["Emi", "California"]),
        ("Oh wow! Lovely right? Great photo from Miami", ["Miami"]),
        ("New York has been quite the adventure", ["New York"]),
        ("New features ship on Friday", []),
        ("New Docker image is out.", ["Docker"]),
        ("New PostgreSQL 17 release notes.", ["PostgreSQL 17"]),
        ("North Carolina has mountains", ["North Carolina"]),
        ("Uses neovim with the lazy.nvim plugin manager", ["neovim"]),
        ("Runs a half marathon every spring", []),
        ("Charles prefers tea", ["Charles"]),
        # an MCP probe: a verb and labels that open a sentence
        ("Am I training for a race?", []),
        ("Decision: Atlas will use PostgreSQL 16", ["Atlas", "PostgreSQL 16"]),
        ("Team standup is at 9:30am every weekday", []),
        ("Weather was lovely in Porto", ["Porto"]),
    ],
)
def test_chat_turns_yield_names_not_the_words_that_open_them(text: str, names: list[str]) -> None:
    """What follows a speaker's label ("Kate: …") opens a sentence, and "I’m" with the curly
    apostrophe phones type is "I'm": saved chat turns were tagged "Yes", "Hey", "I’m", "A"."""
    assert extract_entities(text) == names


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("IMPORTANT: never deploy on weekends", []),
        ("NOTE: call the bank", []),
        ("TODO: ask Dana about the AWS bill", ["Dana", "AWS"]),
        ("Do NOT push to main", []),
        ("Went to the gym after work", []),
        ("Fixed the build on CI", ["CI"]),
        ("Lunch with Maya at noon", ["Maya"]),
        ("Alfred called about the lease", ["Alfred"]),
        ("Mohammed booked the flight", ["Mohammed"]),
        ("Called Tom 3 times", ["Tom"]),
        ("Saw Kate 2 days ago", ["Kate"]),
        ("Upgraded to Python 3.11 and Raspberry Pi 5", ["Python 3.11", "Raspberry Pi 5"]),
        ("Met Prof. Zhang and Dr. Alvarez", ["Prof. Zhang", "Dr. Alvarez"]),
        ("Dinner with E\u0301mile in Zu\u0308rich", ["Émile", "Zürich"]),
        ("Book a table at Nopa", ["Nopa"]),
        ("Forget my old address", []),
        ("Call him about the Kubernetes upgrade", ["Kubernetes"]),
        ("Pixel the dog chased a ball", ["Pixel"]),
        ("Meeting at 9 AM CET with Dana", ["Dana"]),
        ("Call at 9:30 PM PST", []),
        ("Daily standup is at 9:30AM", []),  # its "30AM" was a name (a probe)
        ("Meeting at 5PM with Dana", ["Dana"]),
        ("FEATURE: dark mode for Atlas", ["Atlas"]),
        ("AWS: the bill is due", ["AWS"]),
        ("Correction: Lisa is no longer vegetarian", ["Lisa"]),  # a label (probe)
        ("Update: Max quit violin", ["Max"]),
        ("Kate: I love Paris", ["Kate", "Paris"]),  # a speaker's label is a name
    ],
)
def test_flags_verbs_and_counts_are_no_names(text: str, names: list[str]) -> None:
    """Words in capitals that flag a line, the past tense a note begins with and a count after
    a name were names: the pipeline linked "IMPORTANT: …" memories of unrelated topics, and
    "Tom 3" no longer matched Tom. A name typed with combining accents was cut in two. The verb
    an instruction opens with ("Book a …"), a line's label in capitals ("FEATURE:") and the
    clock's words after a time ("9 AM CET") were names too, and linked what they opened."""
    assert extract_entities(text) == names


@pytest.mark.parametrize(
    ("message", "intent", "tag"),
    [
        ("Don't ever use semicolons in my JavaScript.", "save", "instruction"),
        ("Do not use semicolons.", "save", "instruction"),
        ("Please don't suggest restaurants with peanuts.", "save", "instruction"),
        ("My new manager is Tom Becker.", "save", "personal"),
        ("I'm not allergic to peanuts anymore.", "save", "personal"),
        ("Don't worry about it", "none", None),
        ("Don't send it yet", "none", None),
        ("Don't save this: my SSN is 123-45-6789", "none", None),
    ],
)
def test_instructions_in_the_negative_and_corrections_are_saved(
    message: str, intent: str, tag: str | None
) -> None:
    """Only "never …" at a message's start was an instruction, and "my manager is" a fact:
    "don't use …", "my new manager is …" and a correction ("I'm not allergic … anymore")
    were none, so an assistant was not prompted to keep them."""
    found = classify(message)
    assert found.intent == intent
    assert (tag in found.tags) if tag else found.tags == ()


def test_each_decision_names_its_phrase() -> None:
    found = classify("Remember: I prefer TypeScript over JavaScript")
    assert (found.intent, found.phrase) == ("save", "Remember")
    assert "preference" in found.tags
    recall = classify("What did I say about TypeScript?")
    assert (recall.intent, recall.phrase) == ("recall", "did I say")
    assert classify("Do you remember my sister's name?").phrase == "Do you remember"


def test_importance_is_bounded_and_explained() -> None:
    assert importance("Prefers tea over coffee") == (1.0, [])
    strength, why = importance("Important: never share my phone number!")
    assert strength == pytest.approx(1.6) and len(why) == 3
    assert any("'Important'" in w for w in why)
    shouting = "CRITICAL and important: always remember, never forget the emergency password!"
    assert importance(shouting)[0] == MAX_STRENGTH


def test_a_day_that_comes_back_every_year_makes_a_memory_stronger() -> None:
    """A probe: a wife's birthday and a wedding anniversary were due for gc on day 49, with
    "I had pasta for lunch today"."""
    strength, why = importance("My wife's birthday is September 3")
    assert strength == pytest.approx(1.2) and why == ["a yearly date ('birthday', +0.2)"]
    assert importance("Our wedding anniversary is October 12")[0] == pytest.approx(1.2)
    assert importance("I had pasta for lunch today") == (1.0, [])
    assert importance("Is it your birthday?") == (1.0, [])  # asked


@pytest.mark.parametrize(
    "text",
    [
        "My name is Marco Rossi",
        "I live in Lisbon",
        "I work as a nurse at St. Mary's",
        "User works as a nurse at St. Mary's",
        "My wife's name is Ana",
        "My daughter Emma was born in 2019",
        "We have two kids",
        "I'm originally from Porto",
    ],
)
def test_who_the_user_is_makes_a_memory_stronger(text: str) -> None:
    """A probe: saved once and never asked for, "My name is Marco Rossi" and "I live in
    Lisbon" were due for gc on day 49, with "I had pasta for lunch today"."""
    strength, why = importance(text)
    assert strength == pytest.approx(1.2) and why[0].startswith("who the user is")


@pytest.mark.parametrize(
    "text",
    [
        "I had pasta for lunch today",
        "I don't live in Lisbon anymore",  # denied
        "Do you live in Lisbon?",  # asked
        "Call me later",
        "I work at home today",
        "My son is sick",
    ],
)
def test_what_does_not_say_who_the_user_is_adds_nothing(text: str) -> None:
    assert importance(text) == (1.0, [])


def test_a_condition_and_what_treats_it_make_a_memory_stronger() -> None:
    """An MCP probe: the asthma fact had no strength for it and was on gc's list by day 50."""
    strength, why = importance("User has mild asthma and carries a salbutamol inhaler")
    assert strength == pytest.approx(1.2) and why == ["health ('asthma', +0.2)"]
    assert importance("Is diabetic and takes insulin daily")[0] == pytest.approx(1.2)
    assert importance("No medication needed for the cold") == (1.0, [])  # said not to apply


@pytest.mark.parametrize(
    "text",
    ["Not important: the office plant needs water", "This is not critical, just a nice-to-have"],
)
def test_importance_said_not_to_apply_adds_nothing(text: str) -> None:
    """Said not to apply, importance raised a memory's strength all the same: "not important"
    to 1.3, "not critical" to 1.4 (audit)."""
    assert importance(text) == (1.0, [])
    assert importance("This is important: rotate the key")[0] == 1.3


def test_importance_in_a_long_message_is_read_once() -> None:
    """Every denied or asked word of importance is passed over; each is looked at once."""
    assert importance("no real emergency, " * 2_500 + "nothing critical " * 500) == (1.0, [])
    assert importance("is it critical " * 3_000 + "?") == (1.0, [])
    assert importance("not critical " * 3_000 + "but this is critical")[0] == 1.4


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("I can't remember my password, how do I reset it on Gmail?", "none"),
        ("I never remember my keys.", "none"),
        ("For future reference, what's the best way to do this?", "none"),
        ("Going forward, how should I structure my project?", "none"),
        ("It's not critical.", "none"),
        ("For future reference, my passport expires in May.", "save"),
        ("Can you remember that I'm vegan?", "save"),
        ("From now on, do not use semicolons.", "save"),
    ],
)
def test_a_lapse_or_a_question_is_not_a_request_to_remember(text: str, intent: str) -> None:
    """A lapse of memory ("I can't remember my password"), a question after "for future
    reference" and importance said not to apply were all read as "save this" (audit)."""
    assert classify(text).intent == intent


def test_abbreviated_days_and_months_are_no_names() -> None:
    """Abbreviations were names ("3 Feb", "Mon and Wed"): the pipeline linked a dentist
    appointment and a budget because both named "Feb" (audit). "Jan" is a name, unless beside
    a number."""
    assert extract_entities("Dentist appointment with Dana on 3 Feb") == ["Dentist", "Dana"]
    assert extract_entities("Gym on Mon and Wed with Dana") == ["Gym", "Dana"]
    assert extract_entities("Call Jan about the lease before 3 Jan") == ["Jan"]
    assert extract_entities("Meeting SAT prep. DEC made the PDP-11") == ["DEC", "PDP-11"]


def test_the_request_to_remember_is_not_saved_with_the_fact() -> None:
    assert memory_content("Remember: I prefer TypeScript") == "I prefer TypeScript"
    assert memory_content("please remember that my flight is at 9") == "my flight is at 9"
    assert memory_content("I live in Porto") == "I live in Porto"


@pytest.mark.parametrize(
    ("message", "kept"),
    [
        ("Hi! I'm allergic to shellfish", "I'm allergic to shellfish"),
        ("btw my sister Ana is visiting next week", "my sister Ana is visiting next week"),
        ("Hey there, I'm Marco.", "I'm Marco."),
        ("So, we moved to Berlin", "we moved to Berlin"),
        ("Anyway, standup is at 10", "standup is at 10"),
        ("Scratch that, I don't work there anymore", "I don't work there anymore"),
        # a word that is part of what is said stays
        ("So far so good with the new job", "So far so good with the new job"),
        ("Well-known fact: I hate cilantro", "Well-known fact: I hate cilantro"),
        ("Highway 5 is closed on weekends", "Highway 5 is closed on weekends"),
    ],
)
def test_the_small_talk_a_message_opens_with_is_not_saved_with_the_fact(
    message: str, kept: str
) -> None:
    """An MCP probe's saves kept "btw …", "Hi! I'm allergic…", "Hey! My sister Ana…"."""
    assert memory_content(message) == kept


@pytest.mark.parametrize(
    ("message", "kept"),
    [
        ("i hate cilantro fyi", "i hate cilantro"),
        ("I'm Tomas btw!", "I'm Tomas"),
        ("Remember that I'm vegan please", "I'm vegan"),
        ("Remember: my PIN is 1234, thanks!", "my PIN is 1234"),
        (
            "Elena is lactose intolerant, so keep that in mind when I plan dinners",
            "Elena is lactose intolerant",
        ),
        # a please or thanks that is part of what is said stays
        ("Say please and thank you", "Say please and thank you"),
        ("My cat is named Please", "My cat is named Please"),
    ],
)
def test_the_chat_words_and_the_request_a_fact_ends_with_are_not_saved(
    message: str, kept: str
) -> None:
    """A blind probe's saves kept "fyi", "please" and "so keep that in mind when I plan
    dinners"."""
    assert memory_content(message) == kept


def test_an_interjection_or_an_order_opening_a_message_names_no_one() -> None:
    """An MCP probe's saves named "Ugh", "Anyway" and "Delete"."""
    assert extract_entities("Ugh what a day. My landlord is Mr. Okafor") == ["Mr. Okafor"]
    assert extract_entities("Anyway, Tom starts on Monday") == ["Tom"]
    assert extract_entities("Delete what I told you about my job") == []
    # a note's kind and the words of code name no one (a coding assistant's probe)
    assert extract_entities("Gotcha: the migrations must run before the worker starts") == []
    assert extract_entities("POST /api/users creates a user") == []


@pytest.mark.parametrize(
    ("message", "intent"),
    [
        # the user's name as people give it (an MCP probe: none, "My name is Marco" a save)
        ("Hi! I'm Marco.", "save"),
        ("I'm Dana Smith, nice to meet you", "save"),
        ("I'm Fine.", "none"),
        ("I'm Not sure about that", "none"),
        # "what … again" asks only in one sentence: "what a day" is no question, and the fact
        # told after it is kept (`engram.core.specifics`: the probe's rent day was never saved)
        (
            "Ugh what a day. The bus was late again and rent is due on the 3rd of every month",
            "save",
        ),
        ("What was the name of that place again", "recall"),
        ("whats my sons age again", "recall"),  # texted, without its apostrophe
        # what is yet to do is no confirmation
        ("Right, I still need to book the restaurant", "none"),
        ("Yes, I still have to call the plumber", "none"),
        ("Right, I'm still vegetarian", "reinforce"),
        ("Indeed, still working from 8 to 4.", "reinforce"),
        # a confirmation with the name it confirms, or a thanks (a second blind probe's: none)
        ("thats right thanks", "reinforce"),
        ("yep priya, that's her", "reinforce"),
        ("that's the one", "reinforce"),
        ("no that's wrong", "none"),
        # someone of the user's, "called" by name; "my phone" and an "is" two sentences on
        # are no fact of the phone
        ("Anyway, my new landlord is called Mr. Okafor", "save"),
        # what the user must avoid or tell of themselves, which only they told
        ("Is there anything I shouldn't eat at a seafood restaurant?", "recall"),
        ("Any allergies I should mention when ordering?", "recall"),
        ("Any allergies in this recipe?", "none"),
        # what the team learnt the hard way
        ("Anything I should know before touching the worker?", "recall"),
        ("Any gotchas with the migrations?", "recall"),
        # a standing instruction asked as a wish (a blind set's miss)
        ("I'd like you to always include type hints when you write Python for me.", "save"),
        ("I want you to never use emojis", "save"),
        ("Big day: my manager told me I'm getting promoted to team lead next month", "save"),
        ("Is there anything I can't do after surgery?", "none"),
        ("My phone died again today. Anyway the weather is nice", "none"),
    ],
)
def test_a_name_given_a_sentence_apart_and_a_task_left_are_read_as_said(
    message: str, intent: str
) -> None:
    assert classify(message).intent == intent


def test_a_recall_request_becomes_a_query_and_a_window() -> None:
    assert (
        recall_query("What did I say about TypeScript?") == "TypeScript?"
    )  # a name keeps its capitals
    assert recall_query("Remind me what we decided for the database") == "we for the database"
    # back to last week's Monday: on a Sunday, 7 days missed it
    assert recall_window("What did we discuss last week about pricing?", THURSDAY) == 11
    assert recall_window("What did we discuss last week about pricing?", SUNDAY) == 14
    assert recall_window("What did I say about pricing?", THURSDAY) is None
    # the asking words of a contraction are not what to look for ("what's wife's name" ranked
    # "What's new: the office moved" first)
    assert recall_query("What's my wife's name again?") == "my wife's?"  # the answer names her
    # "these days", "any": said of now, nothing to look for ("work days" found any day); the
    # question's own words stay, its meaning needs them ("work" alone found standup first)
    assert recall_query("Where do I work these days?") == "Where do I work?"
    assert recall_query("Do I have any allergies?") == "Do I have allergies?"
    # what the user must remember is what they ask for (a probe: "What birthdays do I need to?")
    assert recall_query("What birthdays do I need to remember?") == "What birthdays?"
    # "did I mention" asks as "do you remember" does (a probe: "Did I what my husband does?")
    assert recall_query("Did I mention what my husband does?") == "what my husband does?"
    # asked for as a task (a blind set's miss: none)
    asked = "Summarize everything I've told you about my health."
    assert classify(asked).intent == "recall" and recall_query(asked) == "my health."
    assert recall_query("Did I tell you where Daniel works?") == "where Daniel works?"
    health = "Anything about my health I should remember?"
    assert recall_query(health) == "Anything about my health?"
    assert recall_query("Who's my manager again?") == "my manager?"
    # talking and knowing are the asking only when about something (a blind probe's "who do I
    # to at okapi now?")
    assert recall_query("who do I talk to at okapi now?") == "who do I talk to at okapi now?"
    assert recall_query("What did we talk about last week?") == ""
    # "time" is asked of; "last time" says when it was said (an MCP probe: "What does my
    # flight leave?")
    assert recall_query("What time does my flight leave?") == "What time does my flight leave?"
    assert recall_query("What did I say last time about the budget?") == "about the budget?"
    # a date that names no day is words to search by, not dropped without a word (a probe:
    # "What did I save?" of "…on 31 Feb 2025?"); a real one is written out in full
    today = date(2026, 12, 6)
    assert "31 Feb 2025" in recall_query("What did I save on 31 Feb 2025?", today)
    assert recall_query("what did we decide on 2025-13-45", today) == "2025-13-45"
    assert recall_query("What did I save on 3 Feb 2025?", today).endswith("3 February 2025?")


@pytest.mark.parametrize(
    ("message", "query", "days"),
    [
        # the whole third day back: a memory saved three days and nine hours ago is in
        ("What did I say about rust 3 days ago?", "rust?", 4),
        ("What did I buy last Friday at the market?", "What did I buy at the market?", 7),
        ("What did we discuss in the last 2 weeks about pricing?", "about pricing?", 14),
        ("What did I say about pricing the past 6 months?", "pricing?", 186),
        # not the digits after the point or the comma ("1.5" read as 5 days)
        ("what did we pick 1.5 days ago", "what did we pick", 2),
        ("what did we decide 2.5 weeks ago about billing", "about billing", 18),
    ],
)
def test_a_counted_window_is_understood(message: str, query: str, days: int) -> None:
    """ "3 days ago" stayed in the query ("rust 3 days ago") with no window."""
    assert (recall_query(message), recall_window(message, THURSDAY)) == (query, days)


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        ("When is the launch?", "launch"),
        ("When is the design system launch?", "design system launch"),
        ("Where's the design review?", "design review"),
        ("What's the date of the Q3 launch?", "Q3 launch"),
        ("What day is design review?", "design review"),  # an MCP probe
        ("When is Christmas?", "Christmas"),  # the store may know it: "Christmas at my parents'"
        ("When is the launch going well, do you think", None),
    ],
)
def test_a_question_asks_when_or_where_a_definite_thing_is(text: str, thing: str | None) -> None:
    assert thing_asked_of(text) == thing


@pytest.mark.parametrize(
    ("text", "name", "asks"),
    [
        ("Is Lisa still vegetarian?", "Lisa", True),
        ("When is Max's recital?", "Max", True),
        ("How is Atlas going?", "Atlas", True),
        ("Who is Sarah Chen?", "Sarah Chen", True),
        ("What did Lisa say about the trip?", "Lisa", True),
        ("Where is Porto?", "Porto", False),
        ("Who is the CEO of Siemens?", "Siemens", False),
        ("How do I exit Neovim?", "Neovim", False),
        ("Is Python faster than JavaScript?", "Python", False),
        ("Should I invite Lisa to dinner?", "Lisa", False),
        ("Lisa is vegan now.", "Lisa", False),
        # a third probe's questions about the user's own life, declined at 0.9
        ("Who is Priya's manager?", "Priya", True),
        ("Who is Priya married to?", "Priya", True),
        ("How old is Priya's daughter?", "Priya", True),
        ("What sport does Priya play?", "Priya", True),
        ("What types of sports did Kevin do?", "Kevin", True),  # three words before the verb
        ("How many people live in Berlin?", "Berlin", False),
        ("What's going on with Biscuit?", "Biscuit", True),
        ("How's Biscuit?", "Biscuit", True),
        ("How old is Biscuit?", "Biscuit", True),  # an MCP probe
        ("how much does Ana make?", "Ana", True),  # a blind probe's: none, her pay stored
        ("Tell me everything about Meera.", "Meera", True),
        ("What do you know about Meera?", "Meera", True),
        ("What is Python?", "Python", False),  # what a book says
        ("Tell me how Python handles memory", "Python", False),
    ],
)
def test_a_question_asks_of_a_name_when_the_name_is_its_subject(
    text: str, name: str, asks: bool
) -> None:
    assert asks_about(text, name) is asks


@pytest.mark.parametrize(
    ("text", "name", "subject"),
    [
        ("Emma is 7 now.", "Emma", "Emma is"),
        ("Actually, Lisa's birthday is September 5.", "Lisa", "Lisa's birthday is"),
        ("Update: Max switched from violin to cello.", "Max", "Max switched"),
        ("Tom Becker is leaving Globex at the end of the month.", "Tom Becker", "Tom Becker is"),
        ("Max is sick today.", "Max", None),  # the moment
        ("Lisa thinks we should go.", "Lisa", None),  # an opinion
        ("Is Lisa still vegetarian?", "Lisa", None),  # a question
        ("I had dinner with Lisa and Tom.", "Lisa", None),  # not its subject
    ],
)
def test_a_statement_about_someone_named_is_read_from_its_form(
    text: str, name: str, subject: str | None
) -> None:
    assert statement_about(plain(text), name) == subject


def test_a_day_to_come_keeps_its_name_in_the_query_and_sets_no_window() -> None:
    """A memory of what is planned names the day ("Team dinner on Friday") and was saved
    before it: the weekday was dropped from the query and the window reached back to the last
    Friday, which held nothing planned for the next."""
    asked = "Anything happening on Friday?"
    assert recall_query(asked, THURSDAY) == "Anything happening on Friday 2 January 2026?"
    assert recall_window(asked, THURSDAY) is None
    assert recall_window("What did we eat on Friday?", THURSDAY) == 7


@pytest.mark.parametrize(
    ("message", "query"),
    [
        ("what's my wife's name", "my wife's"),
        ("What was that restaurant called again?", "What was that restaurant?"),
        ("Remind me of the names of my cats", "my cats"),
        ("Did I name the repo?", "Did I name the repo?"),  # naming asked about, not a name
    ],
)
def test_a_question_for_a_name_does_not_search_the_word_name(message: str, query: str) -> None:
    """The answer names her ("My wife Lisa…"): "name" found "a golden retriever named
    Biscuit" and "My name is Daniel" above it (a helper's probe)."""
    assert recall_query(message) == query


@pytest.mark.parametrize(
    ("message", "intent", "query"),
    [
        # a task that needs what was told: its object is searched, not the verb
        ("Book a table at my favorite restaurant", "recall", "a table at my favorite restaurant"),
        ("Please order my usual", "recall", "my usual"),
        ("Could you order my usual?", "recall", "my usual?"),  # asked politely (a probe)
        (
            "Can you book a table at my favorite restaurant?",
            "recall",
            "a table at my favorite restaurant?",
        ),
        ("Can you order pizza?", "none", None),
        ("My favorite restaurant is Nopa.", "save", None),  # the fact itself
        ("Stop suggesting JavaScript solutions.", "save", None),  # an instruction
        ("Stop it, that's enough.", "none", None),
    ],
)
def test_a_task_needing_what_was_told_searches_its_object(
    message: str, intent: str, query: str | None
) -> None:
    """A probe's "Book a table at my favorite restaurant for our anniversary" was saved as a
    preference, the request as its text; "Stop suggesting …" was none."""
    assert classify(message).intent == intent
    if query is not None:
        assert recall_query(message) == query


def test_recently_is_a_window_of_two_weeks() -> None:
    """ "What did we talk about recently?" searched the word "recently" (probe), then "talk",
    which names nothing talked about: no words, and the window lists what was said in it."""
    message = "What did we talk about recently?"
    assert (recall_query(message), recall_window(message, THURSDAY)) == ("", 14)


def test_a_thousands_separator_is_no_window() -> None:
    assert recall_window("what did we decide 1,000 days ago", THURSDAY) is None


def test_the_days_a_recall_names_end_its_query_written_out() -> None:
    """Search reads a day from them; as loose words ("05 01 2024", "may 5" without its "on")
    it named none, and "three days ago" was dropped for the window."""
    assert recall_query("What did I buy on 05.01.2024 at the market?", THURSDAY) == (
        "What did I buy at the market 5 January 2024 1 May 2024?"  # both readings
    )
    assert recall_query("Remind me what we decided on may 5", THURSDAY) == "5 May 2025"
    assert recall_query("What did I say about the lamp 3 days ago?", THURSDAY) == (
        "the lamp 29 December 2025?"
    )
    # the seven days of last week only with nothing else to look for: with words, the window
    # narrows to them (their digits would match any memory holding a 22)
    assert recall_query("What did we decide last week?", THURSDAY) == " ".join(
        f"{day} December 2025" for day in range(22, 29)
    )
    assert recall_query("What did I say about pricing last week?", THURSDAY) == "pricing?"
    # a timestamp's day, its time with it ("2024-05-05T10:00" left "2024 05 05t10 00")
    assert recall_query("What did I say on 2024-05-05T10:00?", THURSDAY) == "5 May 2024"
    # five digits are no year ("5 5 May 2024": a year cut from them and a stray digit)
    assert recall_query("What did I say on 5 May 20245?", THURSDAY) == "20245 5 May 2025?"
    # without a day to count from, a written date stays as written
    assert recall_query("Remind me what we decided on 7 Jan 2024") == "7 Jan 2024"


def test_a_request_to_remember_with_nothing_to_remember_saves_nothing() -> None:
    assert memory_content("Remember:") == "" and memory_content("remember that!") == ""
    assert memory_content("Remember: tea") == "tea"  # as written: no capital added


@pytest.mark.parametrize(
    "message",
    [
        "What did I tell you yesterday?",
        "What did we decide last week?",
        "Do you remember what I said this morning?",
        # only function words left: "it" narrowed the window to memories saying "it"
        "What did we decide about it last week?",
        "Do you remember that?",
        "Do you remember what it was?",
    ],
)
def test_a_recall_request_naming_nothing_searches_no_words(message: str) -> None:
    """The asking and time words came back as the query ("decide last week"), which matches
    any memory saying "last" or "week"; with no words, search lists what the window holds."""
    assert recall_query(message) == ""


@pytest.mark.parametrize(
    ("piece", "end"),
    [
        ("The standup is at nine and the repo is on GitHub. ", " Questions? Thanks."),
        ("the budget is ", "? x"),
        ("what ", ""),
        ("what is my ", ""),
        ("my name ", ""),
        ("told you ", ""),
        ("last time ", ""),
        ("the office is at ", "? x"),
        ("we migrated the ", ""),
        ("what is my x ", ""),
        # links and email addresses are masked first: one read each, however many
        ("see https://x.dev/a?b=1 and ", "?"),
        ("dana.kim+x@acme ", ""),
        # importance denied or asked about: each clause end is searched once
        ("nothing critical ", ""),
        ("is it critical ", "?"),
        # refusals that never complete
        ("but don't write the ", ""),
        ("and keep my secret ", ""),
        # a confirmation's exceptions: each "but" clause read once, what follows read once
        ("still true but ", ""),
        ("nothing changed except ", ""),
        # words that open a message, or end it, said over and over: each rule that reads on to
        # the end was tried again after each ("hi btw " took 25 s at the limit, "Guess what? "
        # 41 s; a probe)
        ("hi btw ", ""),
        ("Guess what? ", ""),
        ("sorry ", ""),
        ("lol ", "I'm vegan"),
        ("I don't want you to remember my thing ", ""),
    ],
)
def test_long_messages_are_classified_as_their_short_versions(piece: str, end: str) -> None:
    """Nine rules ("a trigger, any text, then a word that may not come") took quadratic time
    in the message's length, one of them cubic: 12 s for 16,000 characters of ordinary prose
    with a question mark near the end, minutes at the 50,000-character limit, with the
    server's event loop stalled meanwhile. Each try of a rule now stops at the next trigger,
    so a message at the limit is classified like a short one of the same make (one longer
    than a statement read as a fact can be, `engram.core.statement`)."""
    short = classify(piece * max(3, MAX_WORDS // len(piece.split()) + 1) + end)
    long = classify(piece * (49_000 // len(piece)) + end)
    assert (long.intent, long.confidence, long.tags) == (short.intent, short.confidence, short.tags)


def test_what_is_kept_of_a_long_message_is_read_once() -> None:
    """The request before the fact, a sentence dropping what was said, the request after it:
    each is looked for once, however long the message (not timed: a quadratic reading would
    take minutes at the limit)."""
    assert memory_content("forget it, " * 4_400 + "remember that x") == "x"
    kept = memory_content("I like tea, " * 4_000 + "please remember that.")
    assert kept.startswith("I like tea") and kept.endswith("I like tea")
    assert memory_content("remember this " * 3_500).startswith("this remember this")


def test_a_rule_that_waits_for_the_end_reads_only_what_follows_the_last_question() -> None:
    """A rule that reads "… up to the end, no question mark": a question earlier in the message
    does not stop it, one after the name does."""
    assert classify("Can you help? My name is Dana.").intent == "save"
    # (the rules' reading: the fact told before the question is the last reading's,
    # `engram.core.specifics`)
    assert classify_by_rules("The budget is 5k. Can you check?").intent != "save"
    assert classify("Quick one? The budget is 5k").intent == "save"


@pytest.mark.parametrize(
    ("message", "intent", "content"),
    [
        # clear requests that were missed, or read as a question about the past
        ("Please remember: the wifi password is hunter2", "save", "the wifi password is hunter2"),
        ("Also, remember: no meetings on Fridays.", "save", "no meetings on Fridays."),
        ("OK remember: standup moved to 10", "save", "standup moved to 10"),
        ("Can you remember that I'm vegan?", "save", "I'm vegan"),
        # ordinary sentences that were saved or taken as a confirmation
        ("Never mind, it's fine.", "none", None),
        ("Always happy to help!", "none", None),
        ("I always forget semicolons in JavaScript, any tips?", "none", None),
        ("It's important to write tests. How do I start?", "none", None),
        ("I am still waiting for the build to finish.", "none", None),
        # told not to keep it: "save this" saved the secret that followed
        ("Don't save this: my SSN is 123-45-6789", "none", None),
        ("Do not remember this. My bank PIN is 4321", "none", None),
        ("No need to remember this, but I'm in Tokyo this week", "none", None),
        ("I don't want you to remember my password: hunter2", "none", None),
        ("Never remember my PIN, it is 4321", "none", None),
        # typographic apostrophes (phones type them) read as plain ones; the memory keeps them
        ("Don\u2019t save this: my SSN is 123-45-6789", "none", None),
        ("I\u2019m allergic to peanuts", "save", "I\u2019m allergic to peanuts"),
        ("What\u2019s my wifi password again?", "recall", None),
        ("Don\u2019t forget: Ana\u2019s birthday is May 2", "save", "Ana\u2019s birthday is May 2"),
        # a question about whether it still holds confirms nothing (it reinforced what was shown)
        ("Is that still true?", "none", None),
        ("Hasn't changed? Are you sure?", "none", None),
        ("Yes, still vegan. What should I cook tonight?", "reinforce", None),
        # a question in a clause of its own follows the confirmation
        ("That's right, and can you also suggest a linter?", "reinforce", None),
        ("Exactly, that's correct, so what should I do next?", "reinforce", None),
        # told to drop what was said: no recall of the memory set aside; a new fact still
        # kept; by what it is, a request to forget (`core.forget_request`)
        ("Forget what I said about the car", "forget", None),
        ("Never mind what I told you about Bob.", "none", None),
        ("Please disregard that, it was a typo", "none", None),
        ("Forget it, I'll do it myself", "none", None),
        ("Delete the old config file", "none", None),
        # asked as a request ("Can you …", "I'd like you to …"): "what I said" read as a recall
        ("Can you forget what I said about my phone number?", "forget", None),
        ("I'd like you to forget what I told you about Tom", "forget", None),
        ("Delete what I told you about my job", "forget", None),
        ("Please forget that I work at St. Mary's", "forget", None),
        # asked in other words than "remember" (a probe: each was none, or kept its request)
        ("Note: standup moved to 10am on Mondays", "save", "standup moved to 10am on Mondays"),
        (
            "Keep this in mind: the staging DB rotates monthly",
            "save",
            "the staging DB rotates monthly",
        ),
        ("Store this for later: our standup is at 9:30", "save", "our standup is at 9:30"),
        ("Save this for later: our standup is at 9:30", "save", "our standup is at 9:30"),
        ("Please save this to memory: I take my coffee black", "save", "I take my coffee black"),
        ("My gate code is 4411, save this please", "save", "My gate code is 4411"),
        ("I'll keep that in mind, thanks", "none", None),
        # "save this" that asks how, or of a file, is no request to remember
        ("How do I save this file in vim?", "none", None),
        ("Save this file as a PDF", "none", None),
        # asked whether it knows something of the user's: a recall; how to get one is not
        ("Do you know where I parked?", "recall", None),
        ("Do you know who my dentist is?", "recall", None),
        ("Do you know where I can buy a good kettle?", "none", None),
        ("Forget about it, remember that I'm vegan", "save", None),
        ("Forget-me-nots are my favourite flowers", "save", None),
        # a fact about not keeping something is still a fact to remember
        ("Remember that I never keep my phone on at night", "save", None),
        ("Please remember: I do not store my passwords in the browser", "save", None),
        ("Note that I don't keep my keys in the car", "save", None),
        ("Never store secrets in the repo", "save", None),
        # a question about the past, read as a request to keep what followed "remember"
        ("Remember what I told you about Sarah?", "recall", None),
        ("You remember my dog, right?", "recall", None),
        # a recall the question guard threw away with the save it also matched
        ("What's my favourite restaurant?", "recall", None),
        # questions about the world, read as recalls; a recall phrasing no rule had
        ("How do I say thank you in Japanese?", "none", None),
        ("Could you look up what the weather is in Berlin?", "none", None),
        ("Tell me what you remember about Project Phoenix", "recall", None),
        ("Which database did we pick?", "recall", None),
        # the request's opener, and a question after the fact, are not the memory
        ("Hey, remember that I'm vegan", "save", "I'm vegan"),
        ("Never forget: Alice's birthday is June 5", "save", "Alice's birthday is June 5"),
        (
            "Remember that I prefer TypeScript. What's the best linter for it?",
            "save",
            "I prefer TypeScript.",
        ),
    ],
)
def test_requests_to_remember_and_sentences_that_are_none(
    message: str, intent: str, content: str | None
) -> None:
    assert classify(message).intent == intent
    if content is not None:
        assert memory_content(message) == content


def test_the_deciding_phrase_is_the_users_own_text() -> None:
    assert classify("Don\u2019t save this: my PIN").phrase == "Don\u2019t save this"


@pytest.mark.parametrize(
    ("text", "changed"),
    [
        ("I moved from Berlin to Lisbon", True),
        ("Actually I prefer tea now", True),
        ("We switched Atlas to PostgreSQL 16", True),
        ("I no longer eat meat", True),
        ("I don't drink coffee anymore", True),
        ("I quit Siemens last week", True),
        ("I sold the car", True),
        ("I live in Berlin", False),
        ("Now let's plan the trip", False),  # "now" only at the end of what is said
        ("My favourite drink is coffee", False),
        ("From tea to coffee, what a year", True),
        # a span of time (a trip's dates were news to a probe's save)
        ("We're visiting Lisbon from June 3 to June 10", False),
        ("I work from 9 to 5", False),
        ("The office is open from Monday to Friday", False),
    ],
)
def test_a_statement_that_something_changed_is_told_apart(text: str, changed: bool) -> None:
    assert says_a_change(text) is changed


@pytest.mark.parametrize(
    ("text", "replaces"),
    [
        ("Correction: Lisa is no longer vegetarian", True),
        ("Switched from VS Code to the Cursor editor", True),
        ("My new manager is Tom Becker", True),
        ("Went vegan in March; no eggs or dairy anymore", True),
        ("Stopped running after a knee injury", True),
        ("The Atlas launch slipped to January 10", True),
        ("Gym days changed to Tuesdays and Fridays", True),
        ("Update: Max's recital got pushed to May 24", True),
        ("I left Paylane, I'm now a staff engineer at Stripe", True),
        ("Sold the Corolla, I drive a Tesla now", True),
        # a day pushed to, with words between (a blind probe's: the old date came first)
        ("Okafor pushed the thesis proposal deadline to Nov 22", True),
        ("they pushed it, new deadline for harbor is may 15", True),
        ("I pushed the fix to main", False),
        # chat says these of anything: a change of mind in passing, the moment, the past
        ("I'm actually majoring in economics", False),
        ("Having lunch right now", False),
        ("I used to play a lot of tennis", False),
        ("Do you play any games anymore?", False),  # asked
        # a probe's non-changes that superseded a fact
        ("I changed the oil in the Corolla last weekend", False),
        ("We stopped by Tom's place in Hamburg", False),
        ("Emma moved up to the advanced swim class", False),
        # as a coding session says a change (a probe: none superseded)
        ("Renamed storage.S3Storage to storage.ObjectStore", True),
        ("Bumped the project to Python 3.12", True),
        ("Upgraded PostgreSQL from 15 to 16 in docker-compose", True),
        ("Changed the ruff line length from 100 to 120", True),
        ("Vite proxy target updated to localhost:8080", True),
        ("I updated the docs yesterday", False),
    ],
)
def test_a_statement_replacing_a_fact_is_told_from_narration(text: str, replaces: bool) -> None:
    """Superseding needs more than the similar report's mark of a change: REALTALK's turns,
    saved one by one, linked 388 turns to others by "actually" and "now" (R@1 0.324 -> 0.297)."""
    assert replaces_a_fact(text) is replaces


def test_a_near_restatement_with_any_mark_of_a_change_replaces_the_fact() -> None:
    """ "Actually, Lisa's birthday is September 5, not the 3rd" says no word of the stricter
    set, but restates the stored birthday (cosine 0.85-0.93) with a new value."""
    news = "Actually, Lisa's birthday is September 5, not the 3rd"
    assert not replaces_a_fact(news, similarity=0.5)
    assert replaces_a_fact(news, similarity=0.9)
    assert not replaces_a_fact("Lisa's birthday is September 5", similarity=0.9)  # no mark
    # news of someone is no news of their mother: the name both open with is no shared word
    mother = "Priya's mother Lakshmi lives in Chennai"
    assert not replaces_a_fact("Priya is no longer vegetarian", similarity=0.5, old=mother)
    # one change told twice is no change of it: the reason saved after a rename (a probe: it
    # superseded the rename); a move elsewhere, a newer version, are
    rename = "Renamed module app.settings to app.config"
    reason = "Moved settings into app.config so that config loads before logging"
    assert not replaces_a_fact(reason, similarity=0.6, old=rename)
    assert replaces_a_fact(
        "Actually moved standup to 11", similarity=0.8, old="Moved standup to 10"
    )
    bumped = "Bumped the project to Python 3.12"
    assert replaces_a_fact("Bumped the project to Python 3.13", similarity=0.9, old=bumped)
    # a preference turned from what the fact holds, said as news (an MCP probe's drinks
    # question ranked the coffee first); a taste alone, or someone else's, is no news of it
    coffee = "I drink coffee every morning, black"
    assert replaces_a_fact("Actually I prefer tea over coffee these days", 0.53, old=coffee)
    assert replaces_a_fact("I now prefer green tea to coffee", 0.5, old=coffee)
    assert not replaces_a_fact("I prefer tea over coffee", 0.53, old=coffee)
    assert not replaces_a_fact("Many people now prefer tea over coffee", 0.5, old=coffee)
    assert not replaces_a_fact("Actually I prefer coffee over tea now", 0.6, old=coffee)
    # a preference said the other way round: the user's own however said, anything else as news
    # (a probe found neither superseded, and the old preference listed first)
    tea = "I prefer tea over coffee"
    assert replaces_a_fact("Actually I prefer coffee over tea these days", 0.94, old=tea)
    assert replaces_a_fact("I prefer coffee over tea", 0.95, old=tea)
    violin = "Mia likes the violin more than the piano"
    assert replaces_a_fact("Mia now likes the piano more than the violin", 0.97, old=violin)
    assert not replaces_a_fact("Mia likes the piano more than the drums", 0.8, old=violin)
    # the user's preference, one thing for another, as news; not a liking, which may hold for
    # both, nor a preference with more than one thing changed
    seats = "I prefer window seats on flights"
    assert replaces_a_fact("I prefer aisle seats on flights now", 0.79, old=seats)
    assert not replaces_a_fact("I like techno now", 0.75, old="I like jazz")
    assert not replaces_a_fact("I prefer coffee in the evening now", 0.7, old="I prefer tea")
    # a part of a time is no value: "end" was where the deadline already stood (an MCP probe)
    deadline = "Atlas deadline is end of Q3 2025."
    assert replaces_a_fact("Atlas deadline moved to end of Q4 2025.", similarity=0.92, old=deadline)
    assert not replaces_a_fact("Atlas deadline moved to end of Q3 2025", 0.95, old=deadline)
    # a move to where the fact already is agrees with it (a probe: it superseded it)
    sister = "My sister lives in Toronto"
    assert not replaces_a_fact("My sister moved to Toronto last year", similarity=0.87, old=sister)
    assert replaces_a_fact("My sister moved to Montreal", similarity=0.7, old=sister)
    # ...unless the fact says it left that value: a change back replaces it
    moved = "Moved the team lunch from Friday to Thursday"
    assert replaces_a_fact("Moved the team lunch back to Friday", similarity=0.8, old=moved)


@pytest.mark.parametrize(
    ("old", "news", "similarity", "replaces"),
    [
        # one value swapped for another, a number or a name on each side
        ("I live in Berlin", "I live in Lisbon now", 0.49, True),
        ("Our standup is at 9:30", "Standup is at 10 now", 0.70, True),
        ("My manager is Sarah", "My manager is Tom now", 0.60, True),
        ("Atlas uses MySQL", "Atlas uses PostgreSQL now", 0.76, True),
        # any one or two words, where both name one thing and are close
        ("Max plays violin", "Max plays the cello now", 0.78, True),
        ("Max plays violin", "Max plays the cello now", 0.6, False),
        # chat's "now" and "actually" of anything: no value swapped
        ("I'm at the gym", "I'm at the park now", 0.58, False),
        (
            "Nicolas: Theyre like cats, super low maintenance",
            "Easier than a cat actually",
            0.75,
            False,
        ),
        ("I live in Berlin", "I live in Berlin now", 0.93, False),  # nothing new
        ("I work as a nurse", "I still work as a nurse now", 0.9, False),  # a repeat, however close
        ("Tom is 34", "Lisa is 35 now", 0.56, False),  # another person: nothing shared
        ("I live in Berlin", "I live in Lisbon", 0.49, False),  # no mark of a change
        ("I live in Berlin", "Do you live in Lisbon now?", 0.49, False),  # asked
        # alike in form and subject only: two facts about Dana, two pieces of news
        (
            "Correction: Dana is no longer vegetarian, she eats fish now.",
            "Update: Dana no longer runs, she switched to swimming.",
            0.6,
            False,
        ),
        ("Lisa is vegetarian", "Lisa no longer cooks on Sundays", 0.5, False),
        # another person or thing, not another value (a fourth probe's misfires)
        ("My daughter plays violin", "My son plays violin now", 0.85, False),
        # one word for another, as alike as a restatement; a number that went up; a fiancée
        # who is a wife now (a probe's misses)
        (
            "User is a junior designer at Canva",
            "User is now a senior designer at Canva",
            0.94,
            True,
        ),
        ("My rent is $2,150 a month", "My rent went up to $2,400 a month", 0.82, True),
        (
            "There's a lot of traffic today",
            "Some friends and I went down to the canal",
            0.64,
            False,
        ),
        ("My fiancée is Anna", "Anna and I got married in June, she's my wife now", 0.79, True),
        ("My manager is Tom Becker", "My mentor is Tom Becker now", 0.85, False),
        ("My favourite band is Radiohead", "My favourite movie is Alien now", 0.41, False),
        ("My wife Lisa is vegetarian", "My son Leo is vegetarian now", 0.6, False),
        ("I have a dog named Max", "I have a cat named Luna now", 0.7, False),
        ("Standup is at 9:30am every weekday", "Standup is now at 10:15am", 0.7, True),
        ("My daughter Emma is 6 and loves swimming", "Emma is 7 now", 0.66, True),
        # the user's news is not about someone of theirs, a value swapped or not
        ("My sister Anna lives in Berlin", "I live in Lisbon now", 0.6, False),
        ("My wife uses an Android phone", "I switched from Android to an iPhone", 0.6, False),
        ("My brother Tom plays badminton", "I switched from badminton to pickleball", 0.49, False),
        ("My phone is a Pixel running Android", "I switched from Android to an iPhone", 0.51, True),
        # corrections as people say them (a helper's probe: none was linked)
        ("I like Python", "I used to like Python but now I prefer Rust", 0.73, True),
        ("Anna's birthday is May 3", "Sorry, Anna's birthday is May 5, not May 3", 0.92, True),
        ("My phone number is 06 12 34 56 78", "New phone number: 06 98 76 54 32", 0.75, True),
        (
            "The quarterly review with Dana is on Wednesday at 2pm",
            "Oops, I got it wrong: the quarterly review is on Thursday",
            0.62,
            True,
        ),
        ("I play the piano", "I used to play the piano as a kid", 0.8, False),
        # the value it replaces named, in a fact holding more (a helper's probe: not linked)
        (
            "The quarterly review is on Wednesday at 2pm in room 4B with the whole finance team",
            "Actually the quarterly review is Thursday, not Wednesday",
            0.68,
            True,
        ),
        ("I drink three coffees a day", "Actually I prefer tea, not coffee", 0.5, False),
        # ... nor someone's news of the user's fact; a capitalised common word names no one
        ("I live in Paris", "My sister moved from Paris to Montreal", 0.6, False),
        ("I live in Paris", "Clara moved from Paris to Toronto", 0.6, False),
        # ... but one of theirs changing what the user takes is the user's news (a blind probe)
        ("I take warfarin, 5mg", "my doctor switched me from warfarin to apixaban", 0.6, True),
        ("I take warfarin, 5mg", "my dad switched from warfarin to apixaban", 0.6, False),
        ("I take warfarin, 5mg", "the cardiologist took me off warfarin", 0.6, True),
        # ...or put them on something else in its place; "instead of" alone is said of anything
        ("I take warfarin, 5mg", "my GP put me on apixaban instead of warfarin", 0.6, True),
        ("I make my own lunch every day", "I ordered lunch instead of making it", 0.6, False),
        # what will not happen after all, and who is in whose place (a twelfth blind probe's:
        # none was linked, and the plan, the gym and Ben answered first)
        (
            "Miso has a vet checkup on Friday at 4pm",
            "the vet cancelled Miso's checkup friday, need to rebook",
            0.82,
            True,
        ),
        (
            "booked a table at Nopa for saturday 8pm, 4 people",
            "actually cancel Nopa, we're going to Marta's place instead",
            0.43,
            True,
        ),
        (
            "I go to the gym at FitLife on 5th avenue, monday wednesday friday",
            "I cancelled my FitLife membership, now I just run in the park",
            0.54,
            True,
        ),
        (
            "Ben from accounting helps me with expense reports",
            "Lisa replaced Ben in accounting",
            0.56,
            True,
        ),
        ("Dana is the team lead for Atlas", "Omar took over from Dana as team lead", 0.5, True),
        # ... but a cancellation naming nothing the fact does is chat's ("They all cancelled",
        # REALTALK's turns: each replaced an unrelated one)
        ("What happened to them in the end?", "They all cancelled on me", 0.5, False),
        ("It's going well, thanks", "I had to go cancel because of the weather", 0.45, False),
        ("My flight to Rome is on Friday", "my flight to Rome got cancelled", 0.7, True),
        # ... a move told with how it went ("finally" names nothing moved)
        (
            "my friend Jake lives in Chicago",
            "Jake: hey man, big news, we finally moved to Denver last weekend!",
            0.57,
            True,
        ),
        # ... as a team's notes say it (a thirteenth blind probe's: none was linked)
        (
            "We moved from Jest to Vitest because Jest was too slow with ESM",
            "revert: back to Jest, Vitest broke our coverage reports",
            0.7,
            True,
        ),
        (
            "Priya owns the billing service",
            "Priya handed billing over to Tom, she's moving to the data team",
            0.67,
            True,
        ),
        (
            "Integration tests: run `make itest`, needs docker running",
            "Integration tests now run via `./scripts/itest.sh --parallel`, make itest was removed",
            0.66,
            True,
        ),
        (
            "Decision: use Prisma as the ORM",
            "We're replacing Prisma with Drizzle, all new code should use Drizzle",
            0.45,
            True,
        ),
        # ... and a day pushed to, not an image pushed to a registry
        ("The launch is on June 3", "The launch got pushed to next week", 0.6, True),
        (
            "Deploys go through Jenkins pipeline 'atlas-deploy'",
            "Docker images are pushed to ghcr.io/acme/atlas",
            0.41,
            False,
        ),
        # ... the user's news after a few words of their own, which is no one else's
        (
            "my manager is Karen Liu",
            "reorg happened, I now report to Marcus Webb instead of Karen",
            0.45,
            True,
        ),
        ("My dad smokes a pack a day", "ugh, I quit smoking last year", 0.6, False),
        # ... another kind of the thing preferred, as news; not another thing, nor the same kind
        (
            "I prefer aisle seats on long flights",
            "I changed my mind, I prefer window seats now so I can sleep",
            0.5,
            True,
        ),
        ("I prefer aisle seats on long flights", "I prefer green tea now", 0.45, False),
        (
            "I prefer aisle seats on long flights",
            "Actually I prefer aisle seats on short flights now",
            0.6,
            False,
        ),
        # ... nor one person's news of another's fact (a helper's probe: each was linked, and
        # search put the news first for the other person's question)
        ("Mom smokes about ten cigarettes a day", "Dad quit smoking", 0.6, False),
        ("Alice moved to Berlin", "My sister moved to Lisbon", 0.6, False),
        ("Alice moved to Berlin", "My sister Alice moved to Lisbon", 0.8, True),
        ("My father smokes a pack a day", "Dad quit smoking", 0.6, True),
        ("I have standup at 9:30", "Daily standup moved to 10:15 now", 0.7, True),
        # sharing no word is not enough to refuse: the editor replaced is named by neither
        (
            "VS Code is my main IDE, with the Vim extension.",
            "I switched to Neovim full time.",
            0.42,
            True,
        ),
        # a day or week said with the word that says which, and "instead of" (an MCP probe:
        # none was linked, and "When is Ana visiting?" found the old week first)
        (
            "btw my sister Ana is visiting next week",
            "actually Ana is coming in March, not next week",
            0.73,
            True,
        ),
        (
            "btw my sister Ana is visiting next week",
            "Ana is now visiting in March instead of next week.",
            0.78,
            True,
        ),
        # a thing of one of the user's people is news of that person, not of another
        (
            "btw my sister Ana is visiting next week",
            "my sister's visit got pushed back to March",
            0.48,
            True,
        ),
        ("My sister lives in Rome", "My sister's boss moved to Paris", 0.6, False),
        # a change of a thing the fact does not name (a coding assistant's probe: the bug's
        # note superseded the decision, and search marked the decision outdated)
        (
            "Decision: we moved background jobs from Celery to RQ because RQ is simpler.",
            "Bug: staging Redis evicted RQ jobs; fix: noeviction, and the cache moved to a "
            "separate Redis instance.",
            0.6,
            False,
        ),
        # a death, of whoever bears the name
        ("We have a golden retriever called Biscuit.", "Biscuit passed away last week", 0.5, True),
        ("My grandmother lives in Ohio", "My friend's dog died last week", 0.45, False),
    ],
)
def test_what_a_statement_replaces_depends_on_the_fact_it_would_replace(
    old: str, news: str, similarity: float, replaces: bool
) -> None:
    """ "I live in Lisbon now" says "now" as chat says it of anything; what makes it news
    about "I live in Berlin" is the value swapped in the same words."""
    assert replaces_a_fact(news, similarity, old) is replaces


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("No, that's wrong: I live in Paris, not Lyon", "save"),
        ("Sorry, my birthday is May 5, not May 3", "save"),
        ("Oops, I got it wrong: my flight is on Thursday", "save"),
        ("I stopped eating meat", "save"),
        ("Sorry, can you repeat that?", "none"),
        ("Wait, what?", "none"),
    ],
)
def test_a_correction_after_an_apology_is_a_save(text: str, intent: str) -> None:
    """ "No, that's wrong: …", "Sorry, …", "Oops, I got it wrong: …" were none: the apology
    hid the statement it opens (a helper's probe); a habit given up is part of a life."""
    assert classify(text).intent == intent


def test_the_phrase_of_a_role_filled_by_name_holds_the_whole_name() -> None:
    """It ended two letters into the name ("Our designer is Me")."""
    assert classify("Our designer is Mei Lin.").phrase == "Our designer is Mei"


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("Priya switched from badminton to pickleball because of her knee.", "badminton"),
        ("Switched from VS Code to the Cursor editor", "VS Code"),
        ("We migrated Atlas from MySQL to PostgreSQL", "MySQL"),
        ("I moved from Berlin to Lisbon in January", "Berlin"),
        ("We dropped nothing and flew from Berlin to Lisbon", None),  # a trip, no change
        ("Did you switch from tea to coffee?", None),  # asked
        ("I switched to Neovim", None),  # names no old value
        ("I left Northwind and joined Contoso in October", "Northwind"),
        ("I got laid off from Shopify, so I'm job hunting now", "Shopify"),
        ("Dana resigned from Acme Corp in May", "Acme Corp"),
        ("I got fired up from the game", None),  # no employer left
        # one thing given up for another (a coding assistant's probe)
        ("atlas-web: dropped tRPC for plain REST with an OpenAPI spec", "tRPC"),
        ("We replaced Redis in payments-service with an in-process TTL cache.", "Redis"),
        ("I replaced my Civic with a Tesla", "Civic"),
    ],
)
def test_a_change_names_the_value_it_left(text: str, left: str | None) -> None:
    """The fact holding the old value is the one replaced, however unlike in meaning: "I play
    badminton on Wednesdays" stood at cosine 0.33 to the switch to pickleball (a probe)."""
    assert named_old_value(text) == left


@pytest.mark.parametrize(
    ("text", "value", "held"),
    [
        ("I drink three coffees a day", "coffee", True),
        ("Switched to VS Code last year", "VS Code", True),
        ("I trust my code", "Rust", False),
        ("Code in VS, mostly", "VS Code", False),  # the words, but not together
    ],
)
def test_a_fact_holds_a_value_left_as_whole_words_in_any_form(
    text: str, value: str, held: bool
) -> None:
    assert holds_value(text, value) is held


@pytest.mark.parametrize(
    ("text", "value", "affirmed"),
    [
        ("atlas-web uses Redux Toolkit for state", "Redux Toolkit", True),
        ("atlas-web state management: Zustand, not Redux Toolkit.", "Redux Toolkit", False),
        ("We cache in Redis instead of Memcached", "Memcached", False),
        ("Redis, not Memcached; Memcached was slower", "Memcached", True),  # said again
    ],
)
def test_a_value_turned_down_is_not_held(text: str, value: str, affirmed: bool) -> None:
    """ "Zustand, not Redux Toolkit" was taken to agree with "switched from Zustand to Redux
    Toolkit", which then replaced nothing (a coding assistant's probe)."""
    assert affirms_value(text, value) is affirmed


@pytest.mark.parametrize(
    "text",
    [
        "Actually Tom isn't my manager anymore, it's Sarah Kim now.",
        "Lisa is no longer our landlord.",
        "Max is not my dentist anymore",
    ],
)
def test_someone_no_longer_in_a_role_of_the_users_is_news_to_save(text: str) -> None:
    """An MCP probe: "Actually Tom isn't my manager anymore, it's Sarah Kim now." was none."""
    found = classify(text)
    assert found.intent == "save"
    assert "personal" in found.tags


def test_a_correction_naming_both_values_brings_the_old_fact_up_to_date() -> None:
    assert value_swapped("Actually the review is Thursday, not Wednesday") == (
        "Wednesday",
        "Thursday",
    )
    assert value_swapped("Sorry, Anna's birthday is May 5, not May 3") == ("May 3", "May 5")
    assert value_swapped("I switched from badminton to pickleball") == ("badminton", "pickleball")
    assert value_swapped("I moved to Paris") is None
    assert value_swapped("Ana comes in March instead of next week.") == ("next week", "in March")
    assert (
        brought_up_to_date(
            "The review is on Wednesday at 2pm in 4B", "It's Thursday, not Wednesday"
        )
        == "The review is on Thursday at 2pm in 4B"
    )
    assert brought_up_to_date("I live in Lyon", "Clara moved from Montreal to Toronto") is None


@pytest.mark.parametrize(
    ("news", "old", "replaces"),
    [
        ("I report to Rosa now", "My manager is Dan Kim", True),
        ("I'm vegan now", "I'm vegetarian", True),
        # the fact of someone else, though a word of a life fact names them
        ("I'm vegan now", "My wife is vegetarian", False),
        # "report" of a life fact only as "report to"
        ("I report to Rosa now", "I have to finish the quarterly report by Friday", False),
        # a question states nothing, either way
        ("Is Rosa your new boss?", "My boss is Dan", False),
        ("I'm vegan now", "Are you vegetarian", False),
        # agrees with the fact
        ("I live in Toronto now", "I live in Toronto", False),
        # "new" of the fact's thing, not of anything ("a new vegan restaurant", "New hire …")
        ("Started a new job at Stripe this week", "I work at Lumen Health as a PM", True),
        ("Tried a new vegan restaurant downtown, it was great", "I'm vegetarian", False),
        ("New hire Rosa joined my team today", "I work at Acme Corp", False),
        # added to the fact, not replacing it
        ("My husband now works Saturdays too", "My husband Mark works at Boeing", False),
        # whose fact: another's manager; the wife's, of which "wife" is no word of the fact
        ("Dan is the new manager of the Denver branch", "My manager is Sarah Lin", False),
        ("My wife has a new boss named Rosa", "My wife Lisa works at Kaiser", False),
        ("My wife is vegan now", "My wife is vegetarian", True),
        # work named in passing; a question of a name, without its question mark
        ("I'm now reading about Kubernetes for work", "I work as an engineer at Paylane", False),
        ("Is Denver a good place to live now", "I live in Portland, Oregon", False),
        # "these days" says now; "started" says anew (a school, a diet)
        ("I report to Tom Becker these days", "My manager is Sarah Lin", True),
        (
            "My son Leo started kindergarten at Lincoln Elementary",
            "My son Leo goes to Bright Horizons daycare",
            True,
        ),
        # an elementary school or an academy is a school (a probe's change was never linked)
        (
            "My daughter Sofia started at Cherry Creek Elementary",
            "My daughter Sofia goes to Laurelhurst Elementary",
            True,
        ),
        ("Noah started at Westside Elementary this fall", "Noah attends Lincoln Academy", True),
        ("My niece started at Cherry Creek Elementary", "My son Leo goes to Laurelhurst", False),
        # who one of the user's people is, by name, is the user's fact
        ("My new manager is Priya Shah", "I report to Mike Chen", True),
        ("User's new manager is Priya Shah", "User reports to Mike Chen", True),
        # where the user is, said as all there is to say, and not a trip
        ("We're in Paris now", "I live in Lyon", True),
        ("I'm in Denver now for the conference", "I live in Lyon", False),
        # a move home, by the place's name (a probe: 0.38 alike, never linked); not a thing
        # moved, nor a move told as history
        ("We moved to Denver last month.", "I live in Portland, Oregon.", True),
        ("Standup moved to Thursday", "I live in Portland, Oregon.", False),
        ("We moved to Denver back in 2019", "I live in Portland, Oregon.", False),
    ],
)
def test_a_life_fact_said_anew_replaces_only_another_value_of_it(
    news: str, old: str, replaces: bool
) -> None:
    """The rule `save_report.life_facts_replaced` reads the stored statements of a life fact
    by, where news shares neither words nor meaning with the fact it replaces."""
    assert life_fact_replaced(news, old) is replaces


@pytest.mark.parametrize(
    ("news", "old", "replaces"),
    [
        ("Lisa's sister moved to Toronto", "My wife Lisa is a teacher", False),
        ("Lisa's sister moved to Toronto", "My sister lives in Montreal", False),
        ("Priya's husband started a new job at Stripe", "Priya works at Lumen Health", False),
        ("Lisa's sister moved to Montreal", "Lisa's sister lives in Toronto", True),
        # the person both name is no shared fact (an MCP probe: her job was marked replaced)
        ("Lisa switched to decaf", "My wife Lisa teaches third grade", False),
        ("Lisa moved to Toronto", "My wife Lisa lives in Berlin", True),
        # "Maya's dentist appointment" names no relative of Maya's
        (
            "The dentist appointment moved to the 15th",
            "Maya's dentist appointment is on the 14th",
            True,
        ),
    ],
)
def test_news_of_someones_relative_is_none_of_them(news: str, old: str, replaces: bool) -> None:
    """A probe's false links: news of "Lisa's sister" superseded "My wife Lisa is a teacher"."""
    assert replaces_a_fact(news, similarity=0.6, old=old) is replaces


@pytest.mark.parametrize(
    ("news", "old", "replaces"),
    [
        # where the user works from is not for whom
        ("I now work remotely on Fridays", "I work as a backend engineer at Lumen Health", False),
        ("I'm working from Lisbon these days", "I work as an engineer at Lumen Health", False),
        ("I work at Stripe now", "I work as a backend engineer at Lumen Health", True),
        ("I work from home on Fridays now", "I live in Portland", False),  # no home either
        # who the user's dentist is, by a title and a name, is the user's fact
        ("I switched dentists, Dr. Okafor now", "My dentist is Dr. Patel", True),
        # a part of a thing replaced is no new thing
        ("I replaced the battery in my Civic", "I drive a 2015 Honda Civic", False),
        ("Replaced the tires on the Civic with winter tires", "I drive a 2015 Honda Civic", False),
        ("I replaced my Civic with a Tesla Model 3", "I drive a 2015 Honda Civic", True),
        # ...but a named thing where it stood is (a coding assistant's probe)
        (
            "We replaced Redis in payments-service with an in-process TTL cache.",
            "payments-service caches idempotency lookups in Redis (TTL 24h).",
            True,
        ),
        # a change back to what the fact turned down replaces it
        (
            "atlas-web switched from Zustand to Redux Toolkit.",
            "atlas-web state management: Zustand, not Redux Toolkit.",
            True,
        ),
        # someone else's news, or something of one of the user's people
        ("Lisa started a new job at Kaiser as a nurse", "I work at Lumen Health", False),
        ("My wife's new manager is Priya Shah", "My manager is Sarah Lin", False),
        ("My friend Tom moved to Denver", "My sister Ana lives in Montreal", False),
        ("User's son Leo is vegetarian now", "User's wife Lisa is vegetarian", False),
        ("My sister Ana moved to Toronto", "My sister Ana lives in Montreal", True),
    ],
)
def test_news_of_another_thing_or_person_replaces_nothing_of_the_users(
    news: str, old: str, replaces: bool
) -> None:
    """A third probe's false links on an assistant's notes, each once made at cosine 0.6."""
    assert replaces_a_fact(news, similarity=0.6, old=old) is replaces


@pytest.mark.parametrize(
    ("news", "old", "replaces"),
    [
        # a new thing of one life fact is no news of another (a probe: the city was replaced)
        ("User's new manager is Priya Shah", "User is based in New York", False),
        ("User's new manager is Priya Shah", "User works at Datadog", False),
        ("My new manager is Priya Shah", "My manager is Mike Chen", True),
        # a move to the places the fact already names tells how it came to be
        ("We moved into our place in Denver back in 2019", "I live in Denver", False),
        ("We moved into our place in Denver", "I live in Boulder", True),
        # ...only when told as history; a day is no place (a fourth probe)
        ("My dentist appointment got moved to March 21", "Dentist appointment on March 14", True),
        ("User moved into a house in Austin", "User lives in an apartment in Austin", True),
    ],
)
def test_news_of_one_life_fact_or_of_how_it_came_to_be_replaces_no_other(
    news: str, old: str, replaces: bool
) -> None:
    """`bench/supersede_facts.py`'s wrong links, each once made at cosine 0.6."""
    assert replaces_a_fact(news, similarity=0.6, old=old) is replaces


def test_a_place_left_is_news_and_a_titles_left_is_none() -> None:
    """ "Dana is reading 'The Left Hand of Darkness'" was read as leaving a place, and its
    save listed four unrelated memories as the facts it might change (a probe)."""
    assert not may_be_news("Dana is reading 'The Left Hand of Darkness' by Ursula K. Le Guin")
    assert may_be_news("Maya is leaving Google in May")
    assert may_be_news("Left Siemens last week")


def test_not_the_3rd_is_the_3_of_a_date() -> None:
    """What a correction says it is not is read as a fact says it: "September 3"."""
    assert corrected_to("Actually, Lisa's birthday is September 5, not the 3rd") == (
        {"5", "septemb"},
        {"3"},
    )
    assert corrected_to("I do not like Mondays") is None
