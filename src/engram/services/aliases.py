"""The names of the people a query names by their place in the user's life, read from the
memories that say them (`engram.core.aliases`): "my husband" searched as "Daan" too."""

from __future__ import annotations

from typing import NamedTuple

from engram.core.aliases import called, names_given, relations_asked
from engram.storage.protocol import Filter, Store

# The memories saying a relation read for its names: its best text matches.
SOURCES = 20


class Named(NamedTuple):
    """The names the store gives one of the user's people, and the word it calls them by."""

    word: str
    names: list[str]


def names_of_people_asked(store: Store, query: str) -> dict[str, Named]:
    """The names the store gives the people `query` names as the user's ("sister": ["Ana"]),
    for those it gives a name; each with the word the store says first of them ("spouse":
    "wife", where the memories say "my wife Priya")."""
    relations = relations_asked(query)
    if not relations:
        return {}
    words = list(dict.fromkeys(w for r in relations for w in called(r)))
    found = store.text_search(words, Filter(), SOURCES)
    texts = [m.content for m in store.get_many([s.id for s in found])]
    named: dict[str, Named] = {}
    for relation in relations:
        given = {w: names_given(w, texts) for w in called(relation)}
        names = list(dict.fromkeys(n for w in called(relation) for n in given[w]))
        if names:
            named[relation] = Named(next(w for w in called(relation) if given[w]), names)
    return named
