"""Which of the user's people a question asks of, and the memories that speak only of others."""

from __future__ import annotations

import pytest

from engram.core.people_asked import asked_of, of_others_only


@pytest.mark.parametrize(
    ("query", "asked"),
    [
        ("what's my brother's name?", "brother"),
        ("what is my mom's email address?", "mother"),
        ("where does my older sister live?", "sister"),
        ("what does my boss think of it?", "manager"),
        ("what are my kids doing this summer?", "children"),
        ("Does my spouse eat meat?", "partner"),
        # none, several, or someone's person: nothing to tell apart by
        ("what's the capital of Peru?", None),
        ("when do my mom and my dad arrive?", None),
        ("what does my wife's mom eat?", None),
    ],
)
def test_a_question_asks_of_one_of_the_users_people(query: str, asked: str | None) -> None:
    assert asked_of(query) == asked


@pytest.mark.parametrize(
    ("asked", "memory", "of_others"),
    [
        # a twelfth blind probe's: found by meaning for a brother and a dentist never stored
        ("brother", "my mom's name is Helen and she lives in Leeds", True),
        ("dentist", "my mom's name is Helen and she lives in Leeds", True),
        ("cousin", "my brother Tomas lives in Berlin with his wife Lena", True),
        ("dog", "our cat Miso is 7 years old", True),
        ("grandmother", "I have a cat named Miso", True),
        ("children", "I've got two kids and a dog", False),
        # the same person by another word, or one of several
        ("mother", "My mum makes the best curry", False),
        ("manager", "my boss Karen approved the leave", False),
        ("children", "my daughter Sophie has gymnastics on Tuesdays", False),
        ("husband", "Moving in with my partner Sam next spring", False),
        ("partner", "User's wife Priya is vegetarian", False),
        # nobody of the user's named, or someone else's person: nothing to tell
        ("brother", "Helen takes metformin for her diabetes", False),
        ("mother", "my wife's mom is Judith and she's diabetic", False),
        ("brother", "Ana: my mom is a nurse", False),  # Ana's mother
    ],
)
def test_a_memory_of_others_of_the_users_people_only(
    asked: str, memory: str, of_others: bool
) -> None:
    assert of_others_only(asked, memory) is of_others
