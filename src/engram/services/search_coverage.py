"""How much of a query's words its best text matches hold, which decides how much their text
match counts beside meaning (docs/search.md, section 1b).

Text relevance is normalised by the best text match, so the best one counts in full however
little of the question it holds. "Which Irish summit did Siobhan trek up with her father?"
shares only "Siobhan" and "up" with any turn ("Siobhan: lol. ruth gave me a shoutout in the
wrap up…"), and those came first as full text matches, above the answer that matched by
meaning alone ("Siobhan: and I hiked croagh patrick with my dad"). Scaled by the share of the
query's word weight its best matches hold, the text match cedes to meaning what it lacks."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from engram.core.index_terms import PhraseCounter
from engram.core.ranking import RARITY_COUNTED_TO, bm25_idf, word_coverage
from engram.core.text import short_query
from engram.core.word_forms import word_units
from engram.storage.protocol import Store, Stub

# The best text matches read to find the one holding most of the query's words.
COVERAGE_READ = 3


def text_coverage(
    store: Store,
    query: str,
    terms: Sequence[str],
    found: Sequence[Stub],
    respelled: Collection[str],
) -> float:
    """The largest share of the query's word weight (`core.ranking.word_coverage`, each word
    by its idf in the store) that one of its best text matches `found` holds, in its text,
    tags or entities; 1 for a query of one word or a long one (`core.text.short_query`: counted
    so, MADial-Bench's messages lost R@10 0.678 -> 0.624). The
    words the store lacks count, at their full weight: they are what a paraphrase says
    otherwise. Not counted: a word with a digit (a day's numbers and phrases, whose memories
    are found by when they were saved) and the query's words `respelled` (searched as the
    store's words they misspell, which count in their place). A match the count finds none of
    the words in (a letter the index folds otherwise) holds one of them, on average."""
    units = [u for u in word_units(terms) if not any(_not_counted(terms[i], respelled) for i in u)]
    if len(units) < 2 or not found or not short_query(query):
        return 1.0
    counts = store.term_counts(terms, RARITY_COUNTED_TO)
    idf = [min(bm25_idf(counts.total, counts.counts.get(terms[i], 0)) for i in u) for u in units]
    best = sorted(found, key=lambda s: -s.relevance)[:COVERAGE_READ]
    counter = PhraseCounter(terms)
    shares = []
    for memory in store.get_many([s.id for s in best]):
        fields = [memory.content, " ".join(memory.tags), " ".join(memory.entities)]
        held = counter.counts_in(fields).sum(axis=0) > 0
        shares.append(word_coverage(idf, [bool(held[u].any()) for u in units]) or 1 / len(units))
    return max(shares, default=1.0)


def _not_counted(term: str, respelled: Collection[str]) -> bool:
    return term in respelled or any(ch.isdigit() for ch in term)
