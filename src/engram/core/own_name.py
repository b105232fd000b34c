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

# The words a name is given with, as written. Searched as phrases, the index reads them as it
# reads the memory ("name's" as "name s"); read in a memory, no mark of punctuation may stand
# between them and the name ("…to call me. Tom said Monday works" gives no name: a probe's
# store made Tom the user).
_LEADS = (
    "my name is",
    "my name's",
    "user's name is",
    "user is called",
    "user is named",
    "call me",
    "i am called",
    "i'm called",
    # as people introduce themselves: "Hi! I'm Marco." (an MCP probe's user)
    "i'm",
    "i am",
)
_GIVEN = re.compile(
    r"\b(?:" + "|".join(re.escape(lead) for lead in _LEADS) + r") "
    r"(?P<name>[^\W\d_][\w'’-]*(?: [^\W\d_][\w'’-]*)*)",
    re.IGNORECASE,
)


def naming_phrases(name: str) -> list[str]:
    """The phrases that may say, in a memory, that `name` is the user's (searched as
    phrases, then confirmed by `gives_the_name`)."""
    said = " ".join(words(name))
    return [f"{lead} {said}" for lead in _LEADS]


def gives_the_name(text: str, name: str) -> bool:
    """Whether `text` gives `name` as the user's, in so many words ("My name is Priya Sharma"
    gives "Priya" and "Priya Sharma")."""
    wanted = words(name)
    return any(
        words(found.group("name"))[: len(wanted)] == wanted for found in _GIVEN.finditer(text)
    )


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
