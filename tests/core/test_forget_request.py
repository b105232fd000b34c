"""What a request to forget names, to look it up by (`engram.core.forget_request`)."""

from __future__ import annotations

import pytest

from engram.core.forget_request import (
    asks_to_forget,
    maybe_forgotten,
    owned_thing,
    said_then_dropped,
    thing_to_drop,
    what_to_forget,
)
from engram.core.intent import classify


@pytest.mark.parametrize(
    ("message", "named"),
    [
        ("forget what I said about the job", "the job"),
        ("Please forget that I work at St. Mary's", "I work at St. Mary's"),
        ("Delete what I told you about my job", "my job"),
        ("forget my address please", "my address"),
        ("Can you forget everything about Tom?", "Tom"),
        ("Hey, could you erase what I told you about the surgery? Thanks", "the surgery"),
        ("Please delete the memory about my ex.", "my ex"),
        ("forget what I said about my sister. She is fine", "my sister"),
        # asks, and names nothing: the assistant knows what was just said
        ("Forget what I just said", ""),
        # other verbs and other ways to name what is kept (a blind set's misses)
        ("Delete my wife's birthday from your memory.", "my wife's birthday"),
        ("stop remembering where I live", "where I live"),
        ("Wipe all memories about the Finch job", "the Finch job"),
        ("Please forget the dentist appointment I told you about.", "dentist appointment"),
        ("erase the thing i told you about my brother", "my brother"),
        ("pls forget my kids names", "my kids names"),
        ("Delete all my saved memories.", ""),
        # a thing by its keeping, or "from your memory" (a coding assistant's probe)
        ("Delete the webhook secret you saved.", "webhook secret"),
        ("Forget the webhook secret I just gave you, I don't want that stored.", "webhook secret"),
        ("Remove the Stripe webhook secret from your memory.", "the Stripe webhook secret"),
        # what is kept no longer, a request framed as a permission, and a clause saying why
        # (a blind probe's misses)
        (
            "I don't want you to remember my mortgage stuff anymore, please delete it",
            "my mortgage stuff",
        ),
        ("no need to keep my old address any longer", "my old address"),
        ("don't remember that anymore", ""),
        ("you can forget my gym membership, I cancelled it", "my gym membership"),
        # a thing and its keeping's name (a blind probe's, read as nothing)
        ("delete the book club memory", "book club"),
        ("Please remove my dentist note", "my dentist"),
        # a refusal too: both ask not to keep it, and the request names what is kept
        ("forget my stipend info, that's private", "my stipend info"),
        # kept "on file", and "scratch" (a second blind probe's, each none or a recall)
        (
            "please don't keep the insurance number on file, I'd rather keep it on paper",
            "the insurance number",
        ),
        ("scratch what i said about cilantro, i actually don't mind it anymore", "cilantro"),
    ],
)
def test_a_request_to_forget_names_what_it_drops(message: str, named: str) -> None:
    assert asks_to_forget(message)
    assert what_to_forget(message) == named


@pytest.mark.parametrize(
    "message",
    [
        # the conversation's, naming nothing kept
        "Forget it",
        "Forget that, let's move on",
        "forget about it",
        "Forget about the formatting, just give me the raw numbers.",
        "Can you delete the second paragraph from the draft you just wrote?",
        # work to do, not the memory
        "Delete the old config file",
        "Remove my card from the account",
        "Remove the unused imports you added",
        # the user's own forgetting, and a request to keep
        "I always forget semicolons",
        "Don't forget: the demo moved to Thursday",
        # the user's own forgetting, or what they no longer do
        "I don't remember my password anymore",
        "I don't keep my keys in the car anymore",
    ],
)
def test_what_asks_no_memory_to_forget_is_no_request(message: str) -> None:
    assert not asks_to_forget(message)
    assert what_to_forget(message) == ""


@pytest.mark.parametrize(
    ("message", "thing"),
    [
        ("Forget the Subaru, I sold it", "the Subaru"),
        ("Please forget about Atlas.", "Atlas"),
        ("Can you forget the Finch job?", "the Finch job"),
        ("Oh, and forget Dana Kim — she left", "Dana Kim"),
        # the task's or the conversation's: the store says whether it holds the thing
        ("Forget about the formatting, just give me the raw numbers.", "the formatting"),
        # nothing named
        ("Forget it", ""),
        ("forget about it", ""),
        ("Forget that, let's move on", ""),
        ("I always forget semicolons", ""),
    ],
)
def test_forget_before_a_thing_names_the_thing(message: str, thing: str) -> None:
    """What "forget" asks of, for the store to judge (`maybe_forgotten`): no rule can tell the
    Subaru the user sold from the formatting of a reply."""
    assert maybe_forgotten(message) == thing


@pytest.mark.parametrize(
    ("message", "thing"),
    [
        ("forget the book club thing, I quit", "the book club"),
        ("please forget about the book club", "the book club"),
        ("scratch the faucet thing, Hector fixed it for good", "the faucet"),
        ("Forget the Subaru, I sold it", "the Subaru"),
        # something else asked after it: the task's
        ("Forget about the formatting, just give me the raw numbers.", ""),
        ("Forget it", ""),
    ],
)
def test_a_thing_to_drop_is_all_a_request_asks(message: str, thing: str) -> None:
    assert thing_to_drop(message) == thing


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("Jake paid me back, you can forget about that", "Jake paid me back"),
        ("Luis quit after two weeks, forget about him", "Luis quit after two weeks"),
        (
            "actually never mind about Marco, he can't come anymore, so erase him",
            "actually never mind about Marco, he can't come anymore",
        ),
        ("Forget it", ""),
        ("Forget about it, let's move on", ""),
    ],
)
def test_a_clause_then_forget_it_names_the_clause(message: str, said: str) -> None:
    assert said_then_dropped(message) == said


@pytest.mark.parametrize(
    ("message", "intent"),
    [
        ("forget that", "forget"),
        ("please forget this one", "forget"),
        ("Forget those, thanks", "forget"),
        # the conversation's
        ("Forget it", "none"),
        ("Forget that, let's move on", "none"),
    ],
)
def test_forget_that_and_nothing_more_drops_what_was_just_shown(message: str, intent: str) -> None:
    """A blind probe: "forget that" with the memory it meant just shown was the conversation's
    "forget that" (none), and the memory stayed."""
    assert classify(message).intent == intent


def test_what_a_ninth_blind_probes_requests_to_forget_name() -> None:
    assert (
        what_to_forget("please remove anything you've got on sanj's dad, he asked me not to")
        == "sanj's dad"
    )
    assert what_to_forget("pls dont keep the thing about my knee, i dont want that stored") == (
        "my knee"
    )
    assert thing_to_drop("pls wipe the insurance claim stuff, its all settled now") == (
        "insurance claim"
    )
    assert owned_thing("beth's extractor fan") == "extractor fan"
    assert owned_thing("the insurance claim") == ""
