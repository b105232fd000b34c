"""A request for a suggestion, and a memory stating a taste or a constraint."""

from __future__ import annotations

import pytest

from engram.core.tastes import asks_for_a_suggestion, states_a_taste


@pytest.mark.parametrize(
    "query",
    [
        "Any ideas for a healthy dinner tonight?",
        "Can you suggest a dinner I could cook this weekend?",
        "What should I get my sister for her birthday?",
        "What's a good hotel near the old town?",
        "Help me plan a long weekend away",
        "Could you recommend a podcast for my commute?",
    ],
)
def test_requests_for_a_suggestion(query: str) -> None:
    assert asks_for_a_suggestion(query)


@pytest.mark.parametrize(
    "query",
    [
        "What did you suggest for my knee?",  # what was said: a recall
        "Which restaurant did you recommend in Lisbon?",
        "Where do I live?",
        "How many trucks do I have now?",
        "When is my dentist appointment?",
    ],
)
def test_no_request_for_a_suggestion(query: str) -> None:
    assert not asks_for_a_suggestion(query)


@pytest.mark.parametrize(
    "memory",
    [
        "User: Great. Just so you know, I don't like fish at all.",
        "I've been vegetarian since March",
        "Ana: I'm celiac, so nothing with wheat",
        "User: please no emojis in anything you write for me",
        "I really prefer aisle seats",
        "My favourite cuisine is Thai",
    ],
)
def test_memories_stating_a_taste(memory: str) -> None:
    assert states_a_taste(memory)


@pytest.mark.parametrize(
    "memory",
    [
        "Assistant: Since you don't like fish, try chicken or tofu.",  # the assistant's echo
        "I hate this error, it keeps coming back",  # of the moment
        "User: I booked the flight to Lisbon for June 3",
        "The billing API allows 500 requests per minute",
    ],
)
def test_memories_stating_no_taste(memory: str) -> None:
    assert not states_a_taste(memory)
