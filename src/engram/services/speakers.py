"""Transcripts: memories that open with their speaker's label ("Fahim Khan: I've been learning
to watercolor"), and a query naming one of the speakers ("What are Fahim's hobbies?"). Such a
query asks of that speaker's own turns, but every turn of the conversation names the people in
it or answers them, and the other speaker's turns took a sixth of the top ten (REALTALK: 93 %
of the evidence for a question naming one speaker is that speaker's). Read over `Store`, for
`SearchService` (docs/search.md, "Transcripts: a speaker named")."""

from __future__ import annotations

import re
from collections.abc import Iterable

from engram.core.own_name import in_first_person
from engram.core.ranking import Candidate
from engram.core.text import STOPWORDS, speaker_label, unlabelled
from engram.storage.protocol import Store, Stub

# The best matches whose labels are read: a query names a speaker of those, or of none.
READ = 60
# A speaker whose turns of a few words speak as a person ("I", "my", "you") at least this
# often is asked as they would say it; a label naming a thing ("Atlas: deploys go out on
# Tuesdays") is not.
PERSONAL_SHARE = 0.25
TELLING_WORDS = 4
# Words shorter than this name no speaker ("Al", "Jo" are words of other things as often).
NAME_MIN_CHARS = 3

_WORD = re.compile(r"[\w'’]+")
_POSSESSIVE = re.compile(r"['’]s$")
# A person speaking: to someone, or of themselves ("its incredible", "we'll see" say neither).
_PERSONAL = re.compile(
    r"\b(?:i|i'm|i've|i'll|i'd|me|my|mine|we|we're|we've|us|our|you|you're|your|u|ur)\b",
    re.IGNORECASE,
)


class Speakers:
    """The labels of the memories a search reads, each read once."""

    def __init__(self, store: Store, query: str) -> None:
        self._store = store
        # The words that may name someone, written with a capital: a query naming nobody so
        # reads no memory (reading the best 60 cost 1.8 ms, a sixth of a search at 10K)
        self._asked = {
            _POSSESSIVE.sub("", w).casefold(): _POSSESSIVE.sub("", w)
            for w in _WORD.findall(query)
            if w[0].isupper() and w.casefold() not in STOPWORDS and not w.startswith(("I'", "I’"))
        }
        self._labels: dict[str, str] = {}
        self._personal: dict[str, bool] = {}

    def _read(self, ids: Iterable[str]) -> dict[str, str]:
        """The labels of `ids` ("" for a memory without one)."""
        wanted = list(ids) if self._asked else []
        missing = [i for i in wanted if i not in self._labels]
        for memory in self._store.get_many(missing):
            label = speaker_label(memory.content)
            self._labels[memory.id] = label
            said = unlabelled(memory.content)
            if len(said.split()) >= TELLING_WORDS:  # "Nope", "its incredible" tell nothing
                self._personal[memory.id] = _PERSONAL.search(said) is not None
        return {i: self._labels.get(i, "") for i in wanted}

    def _named(self, label: str) -> list[str]:
        """The words of the query naming `label`, as the query writes them."""
        return [
            self._asked[w.casefold()]
            for w in _WORD.findall(label)
            if len(w) >= NAME_MIN_CHARS and w.casefold() in self._asked
        ]

    def asked_as_them(self, text: str, found: list[Stub]) -> str | None:
        """`text` as the one speaker it names among the labels of its best text matches
        `found` would ask it, where there are several speakers and that one speaks in the
        first person: "What are Fahim's hobbies?" as "What are my hobbies?" (by the name,
        every turn of the conversation was like it); None otherwise."""
        top = sorted(found, key=lambda s: -s.relevance)[:READ]
        labels = self._read(s.id for s in top)
        spoken = {label for label in labels.values() if label}
        named = {label: words for label in spoken if (words := self._named(label))}
        if len(named) != 1 or len(spoken) < 2:
            return None
        ((label, words),) = named.items()
        told = [
            self._personal[i] for i, lab in labels.items() if lab == label and i in self._personal
        ]
        if sum(told) < PERSONAL_SHARE * len(told):
            return None
        for word in words:
            text = in_first_person(text, word)
        return text

    def named_first(
        self, found: list[tuple[Stub, Candidate]], share: float
    ) -> list[tuple[Stub, Candidate]]:
        """For a query naming the speakers of some of its best matches and not of others, those
        labelled with a speaker it does not name keep `share` of their relevance
        (ENGRAM_SEARCH_OTHER_SPEAKERS_SHARE); memories without a label as they are."""
        top = sorted(found, key=lambda f: -f[1].relevance)[:READ]
        labels = self._read(c.id for _, c in top)
        spoken = {label for label in labels.values() if label}
        named = {label for label in spoken if self._named(label)}
        if not named or named == spoken:
            return found
        others = {i for i, label in labels.items() if label and label not in named}
        return [
            (s, c._replace(relevance=c.relevance * share) if c.id in others else c)
            for s, c in found
        ]
