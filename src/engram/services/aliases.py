"""The names of the people a query names by their place in the user's life, read from the
memories that say them (`engram.core.aliases`): "my husband" searched as "Daan" too."""

from __future__ import annotations

from engram.core.aliases import asks_of_the_user, names_given, of_someone_close, relations_asked
from engram.core.ranking import Candidate
from engram.storage.protocol import Filter, Store, Stub

# The memories saying a relation read for its names: its best text matches.
SOURCES = 20
# What a match opening with one of the user's people keeps of its relevance, for a query that
# asks of the user alone; and how many of the best matches are read for it.
SOMEONE_ELSES_SHARE = 0.4
SOMEONE_ELSES_READ = 30  # three times a default list


def names_of_people_asked(store: Store, query: str) -> dict[str, list[str]]:
    """The names the store gives the people `query` names as the user's ("sister": ["Ana"]),
    for those it gives a name."""
    relations = relations_asked(query)
    if not relations:
        return {}
    found = store.text_search(relations, Filter(), SOURCES)
    texts = [m.content for m in store.get_many([s.id for s in found])]
    named = {r: names_given(r, texts) for r in relations}
    return {r: names for r, names in named.items() if names}


def the_users_own_first(
    store: Store, query: str, found: list[tuple[Stub, Candidate]]
) -> list[tuple[Stub, Candidate]]:
    """For a query that asks of the user alone ("Where do I live?"), the best matches that open
    with one of the user's people and say nothing more of the user ("User's sister Ana lives in
    Montreal") lowered (`SOMEONE_ELSES_SHARE`): an MCP probe listed the sister's two cities
    above the user's own."""
    if not asks_of_the_user(query):
        return found
    top = sorted(found, key=lambda f: -f[1].relevance)[:SOMEONE_ELSES_READ]
    theirs = {m.id for m in store.get_many([c.id for _, c in top]) if of_someone_close(m.content)}
    return [
        (s, c._replace(relevance=c.relevance * SOMEONE_ELSES_SHARE) if c.id in theirs else c)
        for s, c in found
    ]
