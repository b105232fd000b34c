"""Which names the store gives as the user's own ("My name is Priya Sharma", "Call me
Priya"): search asks a query naming the user in the first person (`search_query`), and the
relationship agent links no two memories for naming the user (`agents`)."""

from __future__ import annotations

from collections.abc import Sequence

from engram.core.own_name import naming_phrases
from engram.storage.protocol import Store


def users_names(store: Store, names: Sequence[str]) -> list[str]:
    """Those of `names` a memory gives as the user's: one full-text count of a few phrases
    each (none asked for no names)."""
    if not names:
        return []
    phrases = {name: naming_phrases(name) for name in names}
    counts = store.term_counts([p for said in phrases.values() for p in said], 1).counts
    return [name for name, said in phrases.items() if any(counts.get(p) for p in said)]
