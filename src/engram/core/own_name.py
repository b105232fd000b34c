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

from engram.core.text import uncontracted, words

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


# The user, as an assistant's note names them ("User prefers…", "The user's sister…").
_THE_USER = re.compile(r"\b(?:the\s+)?user(?P<own>['’]s)?\b(?!['’-])", re.IGNORECASE)
# The user in the first person, and what each word is with "User" in its place.
_FIRST_PERSON = re.compile(
    r"\b(?:i['’]m|i['’]ve|i['’]d|i['’]ll|i|me|my|mine|myself)\b(?!['’-])", re.IGNORECASE
)
_AS_THE_USER = {
    "i'm": "User is",
    "i've": "User has",
    "i'd": "User would",
    "i'll": "User will",
    "i": "User",
    "me": "User",
    "my": "User's",
    "mine": "User's",
    "myself": "User",
}


def told_the_other_way(text: str) -> str | None:
    """`text` as the other side would say it of the user: an assistant's note ("User prefers
    Python", "The user's sister Ana…") in the first person ("I prefers Python", "my sister
    Ana…"), or the user's own words ("I prefer Python", "I'm allergic to peanuts") as a note
    ("User prefer Python", "User is allergic to peanuts"); None when it names the user neither
    way. The grammar is left as it falls: the embedding reads past it ("User prefer Python…"
    and "User prefers Python…" 0.97 alike, where "I prefer…" stood at 0.87 and "I work as a
    nurse" at 0.67 to "User works as a nurse")."""
    if _THE_USER.search(text):
        return in_the_users_words(text)
    if _FIRST_PERSON.search(text):
        return _FIRST_PERSON.sub(lambda m: _AS_THE_USER[m[0].lower().replace("’", "'")], text)
    return None


# A note of the user: one that opens with them ("User works as a nurse", "The user's sister
# Ana…"), not a transcript's label ("User: …").
_NOTE_OF_THE_USER = re.compile(r"^\W*(?:the\s+)?user(?:['’]s)?\b(?![:'’-])", re.IGNORECASE)


def names_the_user(text: str) -> bool:
    """Whether `text` is a note of the user, as an assistant writes one (`_NOTE_OF_THE_USER`)."""
    return _NOTE_OF_THE_USER.match(text) is not None


def as_the_user_says_it(text: str) -> list[str]:
    """A note of the user in the first person, as a further text to embed ("User works as a
    nurse" as "I works as a nurse"), or none: a question in the user's words ("what does my job
    involve?") stands at 0.24 to the note and at 0.39 to that form (all-MiniLM-L6-v2)."""
    return [in_the_users_words(text)] if names_the_user(text) else []


def in_the_users_words(text: str) -> str:
    """`text` with the user an assistant's note names ("User", "the user's") in the first
    person ("I", "my")."""
    return _THE_USER.sub(lambda m: "my" if m["own"] else "I", text)


# A statement of the user's that opens with them: as a note ("User works…", "The user's
# sister…") or in their words ("I work…", "My sister…"); contractions already written out.
_OPENS_WITH_THE_USER = re.compile(
    r"^(?P<lead>\W*)(?:(?P<note>(?:the\s+)?user(?P<own>['’]s)?)|(?P<mine>my)|(?P<i>i))"
    r"\b(?![:'’-])(?:(?P<gap>\s+)(?P<verb>[a-z]+)\b(?!['’-]))?",
    re.IGNORECASE,
)
# The verb after the user, one form for either person ("am" and "is" are "is").
_AGREEING = {"am": "is", "are": "is", "have": "has", "were": "was"}


def in_one_voice(statement: str) -> str:
    """A statement of the user's in one voice, however told: the note "User works as a nurse"
    and the user's "I work as a nurse" are both "user work as a nurse"; "The user's sister
    lives in Denver" and "My sister lives in Denver" both "user's sister lives in Denver". A
    merge of the two had kept both lines (a helper's probe). Only a statement that opens with
    the user changes, and only its subject and the verb after it: any other text is as
    given."""
    found = _OPENS_WITH_THE_USER.match(statement)
    if found is None:
        return statement
    own = found["own"] is not None or found["mine"] is not None
    subject = "user's" if own else "user"
    verb = found["verb"]
    said = "" if verb is None else found["gap"] + (verb if own else _agreeing(verb))
    return found["lead"] + subject + said + statement[found.end() :]


def _agreeing(verb: str) -> str:
    """`verb` in one form whether "I" or "User" says it ("works" and "work" as "work")."""
    lower = verb.lower()
    if lower in _AGREEING:
        return _AGREEING[lower]
    if lower.endswith("ies") and len(lower) > 4:
        return lower[:-3] + "y"
    if lower.endswith("s") and not lower.endswith("ss") and len(lower) > 3:
        lower = lower[:-1]
    return lower[:-1] if lower.endswith("e") and len(lower) > 2 else lower


def after_the_user(statement: str) -> str | None:
    """What a statement of the user's says after its subject (and the verb after it, unless the
    subject is the user's "my"): "allergic to shellfish" of "I'm allergic to shellfish" and of
    "User is allergic to shellfish", "sister lives in Denver" of "My sister lives in Denver".
    Either voice holds it, where they share no first words: a save looks up its repeats by it
    (`engram.services.repeats`). None for a statement that does not open with the user."""
    found = _OPENS_WITH_THE_USER.match(uncontracted(statement))
    if found is None or found["verb"] is None:
        return None
    own = found["own"] is not None or found["mine"] is not None
    return (found["verb"] if own else "") + found.string[found.end() :]
