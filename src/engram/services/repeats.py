"""Which stored memory a new save repeats: the same words in the same order (any case,
spacing or punctuation between them), docs/consolidation.md. A repeat is a use of the stored
memory, not a second copy of it."""

from __future__ import annotations

from engram.core.merge import MARK, says_whole, statement_key
from engram.core.models import Memory, Status
from engram.core.own_name import after_the_user
from engram.core.text import leading_phrase
from engram.services import merged_use
from engram.services.context import Context
from engram.storage.protocol import Filter

# A repeat is looked for among the memories containing the phrase of the new one's first words:
# the best-ranked first, then, if they were all taken by longer memories repeating the phrase
# (twelve memories saying "Alice prefers dark mode in …" hid the exact copy), more.
REPEAT_CANDIDATES = 10
REPEAT_CANDIDATES_CROWDED = 50


def repeat_of(ctx: Context, content: str) -> Memory | None:
    """A live memory this content repeats (the same words in the same order, docs/
    consolidation.md), or a merged memory that says it whole among its originals' texts,
    or holds an original it repeats (a merge in the caller's words says none of them):
    found by the phrase of its first words (one selective index lookup, cheap even when
    its words are common), then compared exactly. Said again after a merge, a fact was
    saved as a new copy beside the merged memory (two helpers' probes)."""
    key = statement_key(content)
    phrase = leading_phrase(content)
    if not key or not phrase:
        return None
    # said of the user, the other voice shares no first words ("I work as…", "User works
    # as…"): what follows its subject is looked up with them, in the same query
    rest = after_the_user(content)
    phrases = [phrase, *([told] if rest and (told := leading_phrase(rest)) else [])]
    # Archived too: an original a merge archived leads to its merged memory.
    where = Filter(statuses=(Status.ACTIVE, Status.PROMOTED, Status.ARCHIVED))
    # A repeat differs only in case, punctuation and spacing: a text far longer is none,
    # and is not keyed (keying a crowd of long memories took 1.8 s, under the save lock).
    longest = 2 * len(content) + 64
    for many in (REPEAT_CANDIDATES, REPEAT_CANDIDATES_CROWDED):
        stubs = ctx.store.text_search(phrases, where, many)
        found = ctx.store.get_many([s.id for s in stubs])
        same = [m for m in found if len(m.content) <= longest and statement_key(m.content) == key]
        live = [m for m in same if m.status != Status.ARCHIVED]
        live += [
            m
            for m in found
            if MARK in m.meta and m.status != Status.ARCHIVED and says_whole(m.content, content)
        ]
        if live:
            return live[0]
        archived = [m.id for m in same if m.status == Status.ARCHIVED]
        if archived:
            holders, _ = merged_use.looked_up(ctx.store, archived)
            held = [holders[i] for i in archived if i in holders]
            if held and (merged := ctx.store.get_many(held[:1])):
                return merged[0]
        if len(stubs) < many:
            return None
    return None
