"""What `analyze_message` promises an assistant (docs/activation.md), each promise beside the
messages a QA probe found breaking it: a secret the user said not to keep, a confirmation that
corrects, content changed on the way, importance said not to apply, a link read as a question,
and the request's own words kept as the fact."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engram import Engram, FixedClock


@pytest.fixture
def mem(tmp_path: Path, clock: FixedClock) -> Iterator[Engram]:
    """The rules read the message alone (the store only for the recent ids): one backend."""
    with Engram.open(str(tmp_path / "store.db"), clock=clock) as engram:
        yield engram


# -- a link or an email address is data, not words -------------------------------------------


@pytest.mark.parametrize(
    ("message", "content"),
    [
        ("My website is https://dana.dev/about?x=1", "My website is https://dana.dev/about?x=1"),
        ("My website is https://dana.dev/about", "My website is https://dana.dev/about"),
        (
            "Our dashboard is https://grafana.acme.dev/d/abc?orgId=1&refresh=5s",
            "Our dashboard is https://grafana.acme.dev/d/abc?orgId=1&refresh=5s",
        ),
        ("Remember: Dana's email is Dana.Kim@Globex.com", "Dana's email is Dana.Kim@Globex.com"),
    ],
)
def test_a_link_is_not_a_question_and_holds_no_names(
    mem: Engram, message: str, content: str
) -> None:
    """A "?" in a link's query made a statement a question (none), and the query's
    parameters were names ("orgId"); an email address gave "Dana.Kim" and "Globex.com"."""
    found = mem.analyze_message(message)
    assert (found.intent, found.content) == ("save", content)
    assert all("." not in name and "orgId" not in name for name in found.entities)
    assert found.entities in ([], ["Dana"])


def test_a_link_marks_no_importance(mem: Engram) -> None:
    found = mem.analyze_message("Remember: the runbook is https://wiki.acme.dev/critical-alerts!x")
    assert found.strength == pytest.approx(1.2)  # "remember" alone, not "critical" or "!"


# -- importance said not to apply, or asked about, adds nothing ------------------------------


DENIED = [
    "Nothing critical here: logs rotate daily",
    "No emergency, the backup runs at night",
    "I'm not allergic to anything",
    "There is no real deadline for the report",
    "The migration isn't really that important",
    "It doesn't seem critical to me",
]


@pytest.mark.parametrize("text", [*DENIED, "Is this critical? The backup runs at night"])
def test_importance_denied_or_asked_about_adds_no_strength(mem: Engram, text: str) -> None:
    """Each raised a saved memory's strength (1.2 to 1.4)."""
    assert mem.save(text).strength == 1.0


@pytest.mark.parametrize("text", DENIED)
def test_a_save_suggested_for_denied_importance_has_the_strength_of_its_request(
    mem: Engram, text: str
) -> None:
    found = mem.analyze_message(f"Remember: {text}")
    assert (found.intent, found.strength) == ("save", pytest.approx(1.2))  # "remember" alone


@pytest.mark.parametrize(
    "text",
    ["Nothing critical here: logs rotate daily", "Is this critical? The backup runs at night"],
)
def test_importance_denied_or_asked_about_is_no_reason_to_save(mem: Engram, text: str) -> None:
    """Both were suggested as saves (0.8) for the word "critical" alone."""
    assert mem.analyze_message(text).intent == "none"


@pytest.mark.parametrize(
    ("text", "strength"),
    [
        ("This is critical: rotate the key every month", 1.4),
        ("No, this is critical: rotate the key", 1.4),  # the "no" answers; it denies nothing
        ("Never deploy critical fixes on a Friday", 1.6),  # "never" governs "deploy"
        ("Don't miss the deadline on Friday", 1.2),
        ("I'm allergic to peanuts, not shellfish", 1.2),
        ("Critical, can you check the backups?", 1.4),  # the question is a clause of its own
    ],
)
def test_importance_said_outright_still_counts(mem: Engram, text: str, strength: float) -> None:
    assert mem.save(text).strength == pytest.approx(strength)


# -- told not to keep something: never a save, wherever it is said ----------------------------


@pytest.mark.parametrize(
    ("message", "secret"),
    [
        ("Remember that I'm vegan, but don't save my address: 12 Elm St", "12 Elm"),
        ("Don't write down my PIN, it's 1234", "1234"),
        ("Please keep this private: my salary is 90k", "90k"),
        ("My card number is 4111 1111, don't store it", "4111"),
        ("I'm vegan. Oh, and don't remember my address, it's 12 Elm St", "Elm"),
        ("Note that my locker code is 5521 - actually, don't write that down", "5521"),
        ("You don't need to save my phone number: 555-0100", "555"),
        ("Remember my gate code 8812 but keep it to yourself", "8812"),
        ("My therapist is Dr. Okafor. This is off the record.", "Okafor"),
        ("Heads up: my new PIN is 9087, never save my PIN", "9087"),
    ],
)
def test_being_told_not_to_keep_something_is_never_a_save(
    mem: Engram, message: str, secret: str
) -> None:
    """A refusal after the first words was read past: "…, but don't save my address: 12 Elm
    St" was saved whole at 0.95, and "Don't write down my PIN, it's 1234" was an instruction
    to keep (0.85), the PIN in its content. Being told not to keep something wins wherever it
    is said: nothing is suggested, and the secret is in no field of the answer."""
    found = mem.analyze_message(message)
    assert (found.intent, found.should_save, found.content) == ("none", False, None)
    assert secret not in found.model_dump_json()
    assert not mem.analyze_for_recall(message).should_search


@pytest.mark.parametrize(
    "message",
    [
        "Remember that I never keep my phone on at night",
        "Please remember: I do not store my passwords in the browser",
        "Note that I don't keep my keys in the car",
        "Never store secrets in the repo",
        "Don't write tests in Jest, we use Vitest",
        "We don't record our standups",
        "Remember not to store API keys in the repo",
    ],
)
def test_a_fact_or_a_rule_about_not_keeping_something_is_still_a_save(
    mem: Engram, message: str
) -> None:
    """What the user or the team does not keep, and a rule about what the code must not keep,
    are no refusal addressed to the memory."""
    assert mem.analyze_message(message).intent == "save"


# -- the content is the user's own text: case and line breaks kept ----------------------------


@pytest.mark.parametrize(
    ("message", "content"),
    [
        ("Remember: iPhone passcode is 0000", "iPhone passcode is 0000"),
        ("Remember: npm is our package manager", "npm is our package manager"),
        ("Remember: x = 0 turns the cache off", "x = 0 turns the cache off"),
        ("Remember: eBay username is dana42", "eBay username is dana42"),
        ("Remember: pH of the pool should be 7.4", "pH of the pool should be 7.4"),
        ("Remember: macOS is what I use at work", "macOS is what I use at work"),
        ("please remember that my flight is at 9", "my flight is at 9"),
        ("Remember my shopping list:\n- milk\n- eggs", "my shopping list:\n- milk\n- eggs"),
        (
            "Note to self: deploy config\n\n```yaml\nreplicas: 3\nimage: api:1.2\n```",
            "deploy config\n\n```yaml\nreplicas: 3\nimage: api:1.2\n```",
        ),
        ("  Remember:\n\n  I'm vegan  \n", "I'm vegan"),
        ("Remember\u2009that I\u2019m vegan", "I\u2019m vegan"),
    ],
)
def test_the_content_keeps_the_users_case_and_line_breaks(
    mem: Engram, message: str, content: str
) -> None:
    """The first letter was made a capital ("IPhone", "Npm", "X = 0", "EBay", "PH",
    "MacOS") and every line break was flattened to a space (a list or a YAML block on one
    line). Only the request's words and the space around what is kept are taken away."""
    found = mem.analyze_message(message)
    assert (found.intent, found.content) == ("save", content)


# -- the request to remember is not part of what is remembered -------------------------------


@pytest.mark.parametrize(
    "message",
    [
        "Remember this.",
        "Remember that!",
        "Please remember this for later",
        "Note that.",
        "Keep that in mind for next time",
    ],
)
def test_a_request_to_remember_with_nothing_said_is_nothing_to_save(
    mem: Engram, message: str
) -> None:
    """ "Remember this." suggested saving "This." """
    found = mem.analyze_message(message)
    assert (found.intent, found.should_save, found.content) == ("none", False, None)


@pytest.mark.parametrize(
    ("message", "content"),
    [
        ("You should remember that I'm vegan", "I'm vegan"),
        ("I want you to remember that I'm vegan", "I'm vegan"),
        ("I'd like you to remember that I'm vegan", "I'm vegan"),
        ("You'll want to remember that the gate code is 4411", "the gate code is 4411"),
        ("Make sure to remember that my son is allergic to eggs", "my son is allergic to eggs"),
        ("Forget what I said about the car. Remember that I'm vegan", "I'm vegan"),
        ("Could you forget what I said about the car? Remember that I'm vegan", "I'm vegan"),
        ("Never mind that, remember: I drive a blue Golf", "I drive a blue Golf"),
        ("Remember this: the gate code is 4411", "the gate code is 4411"),
        ("I'm vegan, please remember that.", "I'm vegan"),
        ("My locker is number 12. Remember that!", "My locker is number 12."),
        ("Our standup is at 9:30, keep that in mind", "Our standup is at 9:30"),
    ],
)
def test_the_request_to_remember_is_left_out_wherever_it_is(
    mem: Engram, message: str, content: str
) -> None:
    """Only a request at the very start was left out: "You should remember that I'm vegan" and
    "Forget what I said… Remember that…" were saved whole, "Forget" read as a name."""
    found = mem.analyze_message(message)
    assert (found.intent, found.content) == ("save", content)
    assert "Forget" not in found.entities


# -- a confirmation that corrects or excludes is no confirmation of the old fact --------------


@pytest.fixture
def recent(mem: Engram) -> list[str]:
    return [mem.save("I prefer tea over coffee").id, mem.save("I live in Berlin").id]


@pytest.mark.parametrize(
    ("message", "content"),
    [
        ("Same as before, except I now prefer coffee", "I now prefer coffee"),
        ("Nothing changed except I moved to Lisbon", "I moved to Lisbon"),
        ("Except that I moved to Lisbon, nothing has changed", "I moved to Lisbon"),
        ("Yes, still in Berlin, apart from that I now prefer coffee", "I now prefer coffee"),
        ("I'm still in Berlin, but I drink coffee now", "I drink coffee now"),
        (
            "Still true, other than my manager: it's Priya Raman now",
            "my manager: it's Priya Raman now",
        ),
    ],
)
def test_a_confirmation_with_a_change_saves_the_change(
    mem: Engram, recent: list[str], message: str, content: str
) -> None:
    """ "Same as before, except I now prefer coffee" reinforced the tea memory (0.90), and
    "Nothing changed except I moved to Lisbon" was a confirmation, its news not kept."""
    found = mem.analyze_message(message, recent)
    assert (found.intent, found.content, found.touch) == ("save", content, [])


@pytest.mark.parametrize(
    "message",
    [
        "That's still the case for Berlin but not for the tea",
        "Same as before, except for the tea",
        "Apart from the tea, nothing changed",
        "Yes, still true, other than that",
    ],
)
def test_a_confirmation_that_excludes_without_saying_what_changed_touches_nothing(
    mem: Engram, recent: list[str], message: str
) -> None:
    """ "…but not for the tea" reinforced the tea memory with the one it confirmed."""
    found = mem.analyze_message(message, recent)
    assert (found.intent, found.should_save, found.touch) == ("none", False, [])


@pytest.mark.parametrize(
    "message",
    [
        "Yes, still true",
        "Same as before, thanks!",
        "That's still the case, but thanks for checking",
        "Nothing changed, I still live in Berlin",
    ],
)
def test_a_plain_confirmation_still_reinforces(
    mem: Engram, recent: list[str], message: str
) -> None:
    assert mem.analyze_message(message, recent).intent == "reinforce"
