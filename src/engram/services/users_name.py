"""Which names the store gives as the user's own ("My name is Priya Sharma", "Call me
Priya"): search asks a query naming the user in the first person (`search_query`), and the
relationship agent links no two memories for naming the user (`agents`)."""

from __future__ import annotations

from collections.abc import Sequence

from engram.core.own_name import gives_the_name, naming_phrases
from engram.storage.protocol import Filter, Store

NAMING_MEMORIES_READ = 5  # of those holding a naming phrase, to find it said as one


def users_names(store: Store, names: Sequence[str]) -> list[str]:
    """Those of `names` a memory gives as the user's: one full-text count of a few phrases
    each (none asked for no names), and the few memories holding one read to be sure the
    phrase is said as one ("…ask him to call me. Tom said…" is no name)."""
    if not names:
        return []
    phrases = {name: naming_phrases(name) for name in names}
    counts = store.term_counts([p for said in phrases.values() for p in said], 1).counts
    found = []
    for name, said in phrases.items():
        held = [p for p in said if counts.get(p)]
        if held:
            stubs = store.text_search(held, Filter(), NAMING_MEMORIES_READ)
            if any(gives_the_name(m.content, name) for m in store.get_many([s.id for s in stubs])):
                found.append(name)
    return found
