"""The user's own name in a query.

An assistant saves what the user says in the first person ("I work as a product manager at
Lumen Health") and its own notes in the third ("Priya commutes to work by streetcar"), and asks
by the name: "Where does Priya work?" matched every memory naming Priya by that word alone, at
full text relevance, above the first-person answer; "Who is Priya married to?" did not list
"My husband Arjun…" in its ten (a helper's probe). A name is the user's when the store says so
in the words people give their name with ("My name is Priya Shah", "User's name is Priya",
"Call me Priya"); the query is then searched without the name by its words, as "user" is, and
by its meaning in the first person too ("Where do I work?": cosine 0.55 with the first-person
fact against 0.32 as asked).
"""

from __future__ import annotations

import re

from engram.core.text import words


def naming_phrases(name: str) -> list[str]:
    """The phrases, as the full-text index reads them, that say `name` is the user's."""
    said = " ".join(words(name))
    return [
        f"{lead} {said}"
        for lead in (
            "my name is",
            "my name s",
            "user s name is",
            "user is called",
            "user is named",
            "call me",
            "i am called",
        )
    ]


def _named(name: str) -> str:
    return r"(?<![\w'])" + re.escape(name) + r"(?![\w-])"


def in_first_person(text: str, name: str) -> str:
    """`text` asked by the user of themselves: "Where does Priya work?" → "Where does I work?",
    "Who is Priya's manager?" → "Who is my manager?" (the embedding reads past the grammar)."""
    text = re.sub(_named(name) + r"['’]s\b", "my", text, flags=re.IGNORECASE)
    return re.sub(_named(name), "I", text, flags=re.IGNORECASE)


def without_name(text: str, name: str) -> str:
    """`text` without `name` and its possessive: what the query is searched by as words."""
    return re.sub(_named(name) + r"(?:['’]s\b)?", " ", text, flags=re.IGNORECASE)
