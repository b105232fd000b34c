"""The names of the people a query names by their place in the user's life, read from the
memories that say them (`engram.core.aliases`): "my husband" searched as "Daan" too."""

from __future__ import annotations

from engram.core.aliases import called, names_given, relations_asked
from engram.storage.protocol import Filter, Store

# The memories saying a relation read for its names: its best text matches.
SOURCES = 20


def names_of_people_asked(store: Store, query: str) -> dict[str, list[str]]:
    """The names the store gives the people `query` names as the user's ("sister": ["Ana"]),
    for those it gives a name."""
    relations = relations_asked(query)
    if not relations:
        return {}
    words = list(dict.fromkeys(w for r in relations for w in called(r)))
    found = store.text_search(words, Filter(), SOURCES)
    texts = [m.content for m in store.get_many([s.id for s in found])]
    named = {
        r: list(dict.fromkeys(n for w in called(r) for n in names_given(w, texts)))
        for r in relations
    }
    return {r: names for r, names in named.items() if names}
