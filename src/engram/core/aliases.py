"""Who the user's people are called: "my husband" is Daan where a memory says "I live in
Rotterdam with my husband Daan", so a question about the husband is searched by "Daan" too
("What does my husband do for a living?" against "Daan is a chemistry teacher": a probe found
it fifth, through its session alone).

Read from the words of memories ("my sister Ana", "Ana, my sister", "Daan is my husband", "my
manager's name is Sarah Kim"); which memories say them is the caller's to find
(`engram.services.aliases`).
"""

from __future__ import annotations

import re

from engram.core.intent_words import RELATION
from engram.core.text import short_query

# Whose: the user's ("my", "our"), as an assistant writes it ("User's sister Ana").
_WHOSE = r"(?:my|our|(?:the )?user's)"
# …and a word that may stand between: "my older sister", "our new landlord" (`people_asked`
# reads the user's people by it too).
THEIR = rf"{_WHOSE}\s+(?:\w+\s+)?"
# A name: capitalised words, one or two ("Ana", "Sarah Kim", "Dr. Silva" without its title).
_NAME = r"(?-i:(?:(?:Mr|Mrs|Ms|Dr)\.? )?([A-Z][\w'-]+(?: [A-Z][\w'-]+)?))"
# Capitalised words that are no name after a relation ("my husband I met in 2010").
_NOT_NAMES = frozenset({"i", "i'm", "i've", "i'd", "and", "but", "so", "the", "we", "he", "she"})


# The user's people as a query names them: as memories do, or as a form asks ("Does my spouse
# eat meat?" was asked of the user, a probe; no one writes "my spouse Priya").
ASKED = rf"(?:{RELATION}|spouse)"


def relations_asked(query: str) -> list[str]:
    """The user's people a query names by their place in the user's life ("my husband", "our
    landlord"), lower-cased, in order."""
    found = re.findall(rf"\b{THEIR}({ASKED})\b", query, re.IGNORECASE)
    return list(dict.fromkeys(r.lower() for r in found))


# The other words for one person of the user's life: "my partner Sam" is the one "What does my
# wife do for a living?" asks of (a held-out probe found the answer nowhere, "Sam" being the
# only word it shares), "my mum Ruth" the mother, "my manager Ines" the boss.
_CALLED_TOO = {
    "wife": ("partner", "spouse"),
    "husband": ("partner", "spouse"),
    "partner": ("wife", "husband", "spouse", "girlfriend", "boyfriend"),
    "spouse": ("wife", "husband", "partner"),
    "boss": ("manager",),
    "manager": ("boss",),
    "mother": ("mum", "mom"),
    "mum": ("mother", "mom"),
    "mom": ("mother", "mum"),
    "father": ("dad",),
    "dad": ("father",),
}


def called(relation: str) -> tuple[str, ...]:
    """The words the user's `relation` goes by, it first ("wife": "partner", "spouse")."""
    return (relation, *_CALLED_TOO.get(relation, ()))


def names_given(relation: str, texts: list[str]) -> list[str]:
    """The names `texts` give the user's `relation` ("my sister Ana", "Ana, my sister", "Ana
    is my sister", "my sister's name is Ana"), in the order found."""
    rel = re.escape(relation)
    patterns = (
        rf"\b{THEIR}{rel}(?:'s name is|,)?\s+"
        rf"(?:is\s+(?:called\s+|named\s+)?)?{_NAME}",
        rf"{_NAME},?\s+(?:is\s+)?{THEIR}{rel}\b",
        # as an assistant's notes give them: "Lives in Bristol with partner Dana", "Brother
        # Owen lives in Manchester" (a probe of such notes found no name for "my partner")
        rf"\bwith\s+{rel}\s+{_NAME}",
        rf"(?:^|(?<=[.;:!?\n]))\W*{rel}\s+{_NAME}",
    )
    names: list[str] = []
    for text in texts:
        for pattern in patterns:
            for name in re.findall(pattern, text, re.IGNORECASE):
                if name.split()[0].lower() not in _NOT_NAMES:
                    names.append(name)
    return list(dict.fromkeys(names))


def with_names(query: str, relation: str, names: list[str]) -> str:
    """`query` with the user's `relation` it names followed by their names: "what does my
    husband do" → "what does my husband Daan do", for a meaning that knows who is asked of."""
    said = re.compile(rf"\b({THEIR}{re.escape(relation)})\b", re.IGNORECASE)
    return said.sub(lambda m: f"{m.group(1)} {' or '.join(names)}", query, count=1)


# The user in a query: "I", "my", "we", or as an assistant writes it, "the user".
# Not "me": "tell me about her grandkids" asks of someone else.
_THE_USER = re.compile(r"\b(?:i|my|mine|myself|we|our|user|user's)\b", re.IGNORECASE)
# The user's people, as a query may name them ("grandkids", "the family" too).
_ANY_RELATION = re.compile(
    rf"\b(?:(?:grand|step|half-?)?{ASKED}s?|family|families|grandchild(?:ren)?|household)\b",
    re.IGNORECASE,
)
# A memory whose first words say it is of one of the user's people: "User's sister Ana lives
# in Montreal", "Sister Clara went vegetarian", "My wife Lisa is vegetarian".
_OF_SOMEONE_CLOSE = re.compile(
    rf"^\W*(?:{_WHOSE}\s+|his\s+|her\s+)?(?:[\w-]+\s+)?{RELATION}(?:'s)?\b(?!\s+(?:of|to|for)\b)",
    re.IGNORECASE,
)


def asks_of_the_user(query: str) -> bool:
    """Whether `query` asks of the user alone ("Where do I live?", "is the user vegetarian"):
    a question of a few words (`core.text.short_query`; a long message tells a story, and its
    "I" shares the stage) that says I, my, we or "the user", and names none of their people."""
    return (
        short_query(query)
        and _THE_USER.search(query) is not None
        and _ANY_RELATION.search(query) is None
    )


def of_someone_close(content: str) -> bool:
    """Whether a memory opens by naming one of the user's people and says nothing more of the
    user: it is theirs ("User's sister Ana lives in Montreal" for "Where do I live?"), where
    "My manager approved my vacation" is the user's too."""
    found = _OF_SOMEONE_CLOSE.match(content)
    return found is not None and _THE_USER.search(content, found.end()) is None
