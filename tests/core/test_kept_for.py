"""Which saved texts are kept for good by their words (`engram.core.importance.kept_for`): a
kind of fact wanted for as long as the user talks to the assistant, or a request never to
forget it."""

from __future__ import annotations

import pytest

from engram.core.importance import kept_for


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Allergic to penicillin", "safety ('Allergic')"),
        ("Blood type is A positive", "health ('Blood type')"),
        ("User has mild asthma and carries an inhaler", "health ('asthma')"),
        ("My wife's birthday is September 3", "a yearly date ('birthday')"),
        ("My name is Marco Rossi", "who the user is ('My name is')"),
        ("Maya's passport expires on 14 March 2026", "a document ('passport')"),
        ("Insurance: Hiscox, policy HX-55102-B", "a document ('policy HX-55102-B')"),
        ("Arjun is lactose intolerant", "health ('intolerant')"),
        ("Pediatrician: Dr. Chen, phone 614-555-0142", "a contact ('phone 614-555-0142')"),
        ("The Mission St lease ends on 31 December 2025", "a document ('lease')"),
        ("Never forget: Ana takes her coffee black", "asked never to forget ('Never forget')"),
        (
            "Please always remember the gate code is 4411",
            "asked never to forget ('always remember')",
        ),
        ("keep this forever: mum hates lilies", "asked never to forget ('keep this forever')"),
    ],
)
def test_a_fact_wanted_for_good_is_kept(text: str, why: str) -> None:
    assert kept_for(text) == why


@pytest.mark.parametrize(
    "text",
    [
        "Had pasta for lunch",
        "The deadline is Friday",  # a deadline passes
        "The wifi password is hunter2",  # and a password is changed
        "not allergic to anything",  # denied
        "Is he allergic to nuts?",  # asked
        "I'll never forget that trip to Lisbon",  # told of someone, not asked of the memory
        "I will never forget her face",
        "she always remembers names",
        "paid by visa",  # a card, not a permit
        "member of the club since 2019",
        "The company policy is strict",
        "my phone died lol",  # a phone, not how to reach someone
        "got a new phone for 2024",
    ],
)
def test_what_is_not_wanted_for_good_is_not_kept(text: str) -> None:
    assert kept_for(text) is None
