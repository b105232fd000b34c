"""What the store holds, as activation reads a message by it: whether a name, a thing, an
event or a question's words are in some memory. Each is one or two look-ups in the text index,
costing a message microseconds to milliseconds, and says nothing of meaning."""

from __future__ import annotations

import re
from collections.abc import Sequence

from engram.core.dates import written_dates
from engram.core.index_terms import PhraseCounter, index_terms
from engram.core.models import Memory, Status
from engram.core.questions import asks_no_memory, is_plain_question
from engram.core.statement import TROUBLE
from engram.core.text import STOPWORDS, query_terms
from engram.core.word_forms import with_word_forms, word_units
from engram.services.context import Context
from engram.services.enrichment import names_in
from engram.storage.protocol import Filter

# A name typed in lower case: how long it is at least, and how many of the memories holding a
# question's words are read for their names.
MIN_NAME_LETTERS = 3
LOWER_NAME_CANDIDATES = 10

# At most this many words name a thing kept ("the mazda", "the old lake house").
FORGET_NAME_WORDS = 3
# The memories a request to forget lists at most, best match first; and those a look-up for a
# thing it names reads.
FORGET_CANDIDATES = 3
# A question of at most this many words, its words looked for among its best text matches.
ANSWERED_WORDS = 16
ANSWER_CANDIDATES = 5
# A name of code: dotted ("app.settings", "routes.py"), snake case ("test_upload"), or an
# exception's ("ModuleNotFoundError"). Not "e.g." or "3.12".
_IDENTIFIER = re.compile(
    r"\b(?:[A-Za-z_]\w+(?:\.\w{2,})+|[A-Za-z]\w*_\w+|[A-Z][a-z]+(?:[A-Z][a-z]+)*"
    r"(?:Error|Exception|Warning))\b"
)
# Trouble told without a question mark: what a store of gotchas and fixes answers.
_TROUBLE = re.compile(rf"\b(?:{TROUBLE}|(?:doesn'?t|does not|isn'?t|is not) work(?:ing)?)\b", re.I)


# How clearly a question no words of it tie to the store must mean a stored memory to ask of
# it: z of the cosine against unrelated sentences (`engram.core.meaning.Calibration`), a word
# shared with that memory too. A ninth blind probe's questions of its users' worlds stood at
# z 5-8 from their answers ("when does the fixed rate run out on the clifton one"), and its
# world questions sharing no word, or asking an opinion, up to 6.4.
QUESTION_MEANT_Z = 5.0


class StoreLookups:
    """The look-ups activation reads a message by (`engram.services.activation`)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def holds_event(self, event: str) -> bool:
        """Whether the store may date an event: a day it writes ("February 19"), or a memory
        sharing a word with it, as search looks it up (`SearchService._told_in`)."""
        if written_dates(event):
            return True
        terms = [t for t in query_terms(event) if t not in STOPWORDS]
        return bool(terms) and bool(self.ctx.store.text_search(terms, Filter(), 1))

    def answered_in_words(self, question: str) -> bool:
        """Whether a short question's words stand together in one memory (all of two, all but
        one of more): "How do I run the tests?", "What port does the dev server use?" have the
        form of questions about the world, and a coding assistant's store holds "Run the tests
        with make test" (a probe: 6 of 11 such questions were none at 0.9). "How do I exit
        Neovim?" stays none beside "Uses Neovim with LazyVim": "exit" is in no memory of it.
        Trouble told, not asked, is read so too: "the celery worker keeps dropping tasks" beside
        the memory of that bug and its fix (the same probe)."""
        asks = is_plain_question(question) or _TROUBLE.search(question) is not None
        if not asks or len(question.split()) > ANSWERED_WORDS:
            return False
        return self.held_together(question)

    def held_together(
        self, text: str, *, every: bool = False, most: int = ANSWER_CANDIDATES
    ) -> bool:
        """Whether one of the `most` memories the text index ranks best for `text` holds its
        words (stopwords aside), each in any of its forms: `every` one, or all of two and all
        but one of more."""
        asked_words, terms = _asked(text)
        if not asked_words or (len(asked_words) < 2 and not every):
            return False
        units = word_units(terms)
        found = self.ctx.store.text_search(terms, Filter(), most)
        counter = PhraseCounter(terms)
        wanted = len(units) - (1 if len(units) > 2 and not every else 0)
        for memory in self.ctx.store.get_many([s.id for s in found]):
            counts = counter.counts(" ".join([memory.content, *memory.tags, *memory.entities]))
            if sum(any(counts[i] for i in unit) for unit in units) >= wanted:
                return True
        return False

    def means_a_memory(self, question: str) -> bool:
        """Whether a question asks of a stored memory by meaning (`QUESTION_MEANT_Z`), sharing
        a word with it: "who's living in number 7 now?" of "no 7 finally let!! couple called
        Tom & Aisha" (a ninth blind probe's, none). Not a question of opinion or advice; false
        without a model."""
        # two words at least: a name alone asks the world as well ("Where is Porto?", the
        # mother living there)
        words, terms = _asked(question)
        if len(words) < 2 or not is_plain_question(question) or asks_no_memory(question):
            return False
        vector = self.ctx.text_vector(question)
        calibration = None if vector is None else self.ctx.calibration(vector, question)
        if vector is None or calibration is None:
            return False
        self.ctx.vectors_ready()  # a memory saved a moment ago has its vector
        live = Filter(statuses=(Status.ACTIVE, Status.PROMOTED))
        best = self.ctx.store.vector_search(vector, live, 1)
        if not best or calibration.z(best[0].relevance) < QUESTION_MEANT_Z:
            return False
        memory = self.ctx.store.get_many([best[0].id])
        return bool(memory) and any(PhraseCounter(terms).counts(memory[0].content))

    def told_of(self, statement: str) -> bool:
        """Whether the store holds what `statement` speaks of: someone it names (typed in
        capitals or not), or its words together in one memory."""
        names = names_in(statement) or self.names_typed_lower(statement)
        return bool(self.known_names(names)) or self.held_together(statement)

    def known_identifier(self, text: str) -> str | None:
        """The first name of code the message holds ("app.settings", "test_upload",
        "ModuleNotFoundError") that a memory holds as written, or None: a pasted error asks
        what the store knows of it ("I'm getting ModuleNotFoundError: No module named
        app.settings, any idea?" was none at 0.9 beside the rename that explains it, a
        coding assistant's probe)."""
        for found in _IDENTIFIER.finditer(text):
            if self.ctx.store.text_search([found.group()], Filter(), 1):  # as words in a row
                return found.group()
        return None

    def names_kept(self, thing: str) -> bool:
        """Whether the words of `thing` are a name a stored memory holds as an entity, however
        the message writes it: "Forget the mazda, we got rid of it" (a blind probe, typed
        lower case) names the Mazda of "We have a 2019 Mazda CX-5"; "the formatting" of a
        reply is no entity."""
        words = [w for w in query_terms(thing) if w not in STOPWORDS]
        if not words or len(words) > FORGET_NAME_WORDS:
            return False
        held = {t for m in self.holding(words) for e in m.entities for t in query_terms(e)}
        return all(w in held for w in words)

    def holding(self, words: Sequence[str], most: int = FORGET_CANDIDATES) -> list[Memory]:
        """The `most` memories the text index ranks best for any of `words`, read whole."""
        found = self.ctx.store.text_search(words, Filter(), most)
        return self.ctx.store.get_many([s.id for s in found])

    def names_typed_lower(self, text: str) -> list[str]:
        """The words of a message typed in lower case that a stored memory holds as a name
        (an entity): "joan" of "what dietary restrictions does joan have?" (a blind probe's:
        none, and nothing searched, where "Joan has celiac disease" was stored), or writes
        with a capital ("kasia" of "Kasia our pastry chef handed in her notice": a name
        opening a sentence is held as no entity; a seventh blind probe's "when does kasia
        finish?" was none). A question must still ask of it as its subject (`asks_about`), and
        a statement tell of it ("bev is retiring at easter", an eighth's). One look-up in the
        text index."""
        if text != text.lower():
            return []
        words = [w for w in dict.fromkeys(query_terms(text)) if w not in STOPWORDS]
        words = [w for w in words if w.isalpha() and len(w) >= MIN_NAME_LETTERS]
        if not words:
            return []
        holding = self.holding(words, LOWER_NAME_CANDIDATES)
        held = {t for m in holding for e in m.entities for t in query_terms(e)}
        held |= {
            w.lower() for m in holding for w in re.findall(r"[\w-]+", m.content) if w[:1].isupper()
        }
        return [w for w in words if w in held]

    def thing_kept(self, thing: str) -> bool:
        """Whether one stored memory holds every word of `thing` ("the book club" of "I'm in a
        book club that meets the first Thursday"), as the index reads them, in any form
        ("appt" of "appointment")."""
        return self.held_together(thing, every=True, most=FORGET_CANDIDATES)

    def known_names(self, names: Sequence[str]) -> list[str]:
        """The names every word of which some memory holds (its text or its entities), in
        the order given."""
        words = {name: query_terms(name) for name in names}
        wanted = [w for terms in words.values() for w in terms]
        if not wanted:
            return []
        held = self.ctx.store.term_counts(wanted, 1).counts
        return [name for name, terms in words.items() if terms and all(held.get(w) for w in terms)]


def _asked(text: str) -> tuple[list[str], list[str]]:
    """The words of `text` that say something, and those words in each of their forms ("tues"
    of "tuesdays": a probe's "is italian tues or weds now?")."""
    words = [t for t in query_terms(text) if not _says_nothing(t)]
    return words, with_word_forms(words, leave_out=STOPWORDS)


def _says_nothing(word: str) -> bool:
    """A stopword, or a contraction of them ("i've", "we're": indexed as "i ve", "we re")."""
    if word in STOPWORDS:
        return True
    parts = index_terms(word)
    return len(parts) > 1 and all(t in STOPWORDS or len(t) < 3 for t in parts)
