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

# Whose: the user's ("my", "our"), as an assistant writes it ("User's sister Ana").
_WHOSE = r"(?:my|our|(?:the )?user's)"
# A name: capitalised words, one or two ("Ana", "Sarah Kim", "Dr. Silva" without its title).
_NAME = r"(?-i:(?:(?:Mr|Mrs|Ms|Dr)\.? )?([A-Z][\w'-]+(?: [A-Z][\w'-]+)?))"
# Capitalised words that are no name after a relation ("my husband I met in 2010").
_NOT_NAMES = frozenset({"i", "i'm", "i've", "i'd", "and", "but", "so", "the", "we", "he", "she"})


def relations_asked(query: str) -> list[str]:
    """The user's people a query names by their place in the user's life ("my husband", "our
    landlord"), lower-cased, in order."""
    found = re.findall(rf"\b{_WHOSE}\s+(?:\w+\s+)?({RELATION})\b", query, re.IGNORECASE)
    return list(dict.fromkeys(r.lower() for r in found))


def names_given(relation: str, texts: list[str]) -> list[str]:
    """The names `texts` give the user's `relation` ("my sister Ana", "Ana, my sister", "Ana
    is my sister", "my sister's name is Ana"), in the order found."""
    rel = re.escape(relation)
    patterns = (
        rf"\b{_WHOSE}\s+(?:\w+\s+)?{rel}(?:'s name is|,)?\s+"
        rf"(?:is\s+(?:called\s+|named\s+)?)?{_NAME}",
        rf"{_NAME},?\s+(?:is\s+)?{_WHOSE}\s+(?:\w+\s+)?{rel}\b",
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
    said = re.compile(rf"\b({_WHOSE}\s+(?:\w+\s+)?{re.escape(relation)})\b", re.IGNORECASE)
    return said.sub(lambda m: f"{m.group(1)} {' or '.join(names)}", query, count=1)
