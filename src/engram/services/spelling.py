"""Query words read as the store's words they misspell (`engram.core.spelling`): "kafak" found
nothing where the store said "Kafka" (a probe: 10 of 25 one-word misspellings found nothing)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from engram.core.index_terms import index_term, index_tokens
from engram.core.spelling import MOST_READ, SAME_START, nearest_spellings, respellable
from engram.core.text import STOPWORDS
from engram.services.context import Context


def respelled(ctx: Context, words: Sequence[str]) -> dict[str, list[str]]:
    """For each of `words` (a query's, lower-cased) that the store holds in no memory and the
    embedding model does not know whole, the store's words spelled nearly the same (index
    terms, searched as words); only those that have any. Without a model there is no telling
    a misspelling from a word the store lacks ("banana" is no "bandana"): nothing is read."""
    embedder = ctx.embedder
    if embedder is None:
        return {}
    unknown = [w for w in dict.fromkeys(words) if respellable(w) and embedder.pieces(w) > 1]
    if not unknown:
        return {}
    counts = ctx.store.term_counts(unknown, 1).counts
    out: dict[str, list[str]] = {}
    for word in unknown:
        if counts.get(word, 0):
            continue
        term = index_term(word)
        # the store's words that begin alike, then those of its first two letters, for a typo
        # in the third ("ebinghaus": ebbinghaus)
        for start in (term[:SAME_START], term[: SAME_START - 1]):
            near = nearest_spellings(term, ctx.store.indexed_terms(start, MOST_READ))
            if near:
                out[word] = near
                break
    return out


def with_respellings(
    ctx: Context, terms: Sequence[str], typed: Sequence[str], spelled: dict[str, list[str]]
) -> list[str]:
    """`terms`, then the store's words that those of them `typed` by the user may misspell
    where the store lacks them (`respelled`; not the forms and kinds searched beside them:
    "redis" for "database" is no typo); the words read so are added to `spelled`."""
    found = respelled(ctx, [t for t in typed if t not in STOPWORDS])
    spelled.update(found)
    return list(dict.fromkeys([*terms, *(t for near in found.values() for t in near)]))


def respelling_said(spelled: dict[str, list[str]]) -> str | None:
    """What a search's `why.note` says of the words it read as others, so that a reader knows
    what was searched: "searched 'kafak' as 'kafka'"."""
    if not spelled:
        return None
    return "searched " + "; ".join(
        f"{word!r} as {' or '.join(map(repr, near))}" for word, near in spelled.items()
    )


def respelled_text(text: str, spelled: dict[str, list[str]], found: Iterable[str]) -> str | None:
    """`text` with the words `respelled` read as others written as the store writes them: the
    first word of the `found` texts (the best text matches, which hold the respellings), as the
    index splits and folds it, that the index holds as one of a word's respellings ("dauhgter"
    as "daughter", "recieved" as "received", not the index's stem "receiv"); for searching it by
    meaning. None when no word of the text was found so, or the text does not hold the words
    respelled."""
    wanted = {term: word for word, terms in spelled.items() for term in terms}
    written: dict[str, str] = {}
    for content in found:
        for token in index_tokens(content):
            word = wanted.get(index_term(token))
            if word is not None and word not in written:
                written[word] = token
        if len(written) == len(spelled):
            break
    if not written:
        return None
    typed = re.compile(r"\b(?:" + "|".join(map(re.escape, written)) + r")\b", re.IGNORECASE)
    respelled = typed.sub(lambda m: written[m[0].lower()], text)
    return respelled if respelled != text else None
