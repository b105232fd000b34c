"""Natural-language activation: should this user message be remembered, is it asking to recall
something, or confirming something remembered? The assistant asks, Engram answers with the
phrase that decided it and what to do next (content, tags, entities and strength to save with;
queries to search; memories to touch). Rules from engram.core.intent and engram.core.entities;
measured in docs/activation.md."""

from __future__ import annotations

import re
from collections.abc import Sequence

from engram.core.anchors import anchor
from engram.core.forget_request import (
    VAGUE_WORDS,
    maybe_forgotten,
    owned_thing,
    said_then_dropped,
    thing_to_drop,
    what_to_forget,
)
from engram.core.importance import importance
from engram.core.index_terms import PhraseCounter
from engram.core.intent import Analysis, classify_by_rules, told_in_specifics
from engram.core.keep_request import memory_content
from engram.core.keeping import may_be_news
from engram.core.message import asked, masked, plain, without_tail
from engram.core.models import Memory, Status
from engram.core.questions import (
    ASKED_TO_SAVE,
    asked_then_told,
    asks_about,
    tagged_statement,
    thing_asked_of,
    thing_named_alone,
    topic_then_asked,
)
from engram.core.ranking import SearchHit
from engram.core.recall import recall_query, recall_window
from engram.core.statement import STATEMENT_CONFIDENCE, statement_about
from engram.core.text import STOPWORDS, query_terms, statements
from engram.services import validation as check
from engram.services.confirmed import (
    BARE_YES,
    BARE_YES_CONFIDENCE,
    confirmed,
    corrected_value,
    names_nothing,
)
from engram.services.context import Context
from engram.services.enrichment import names_in
from engram.services.maintenance import news_of
from engram.services.repeats import repeat_of
from engram.services.results import MessageAnalysis, RecallAnalysis
from engram.services.save_report import (
    already_said,
    facts_replaced,
    life_facts_replaced,
    near,
    reports_similar,
    similar_report,
)
from engram.services.search import SearchService
from engram.services.store_lookups import FORGET_CANDIDATES, StoreLookups
from engram.storage.protocol import Filter

# Below this a "none" is no refusal ("don't save this" is 0.99): a correction may be read in it.
REFUSED = 0.9
# How sure a recall is that only names someone or something the store knows ("Is Lisa still
# vegetarian?"): a rule reads the question as one about the world, and so it would be, were the
# name unknown; below every recall rule (0.6 and up), as the reading is the store's, not the
# wording's.
KNOWN_NAME_CONFIDENCE = 0.55
# How sure a save is that would supersede a stored fact: the store holds the value it changes,
# so it is kept; at 0.55 an assistant saving from the form's 0.6 up (docs/activation.md)
# dropped every correction an MCP probe told. News of someone the store knows that corrects
# nothing ("Lisa plays the cello") is as sure as a statement read from its form.
REPLACES_STORED_CONFIDENCE = 0.75
# How sure a recall is that counts days from an event ("What did I order a month before moving
# to the Pearl?"): the store dates the event, as a rule's day ("…in early June?", 0.7) is dated.
ANCHORED_CONFIDENCE = 0.7
# A message of more sentences than this is a story: a rule's save keeps the sentence it read.
LONG_MESSAGE = 3
# How near the best the memories a request to forget lists rank (search ranks the best 1;
# `FORGET_CANDIDATES` of them at most): "forget that I work at St. Mary's" listed the user's
# sister in Montreal too, at 0.01.
FORGET_MIN_RANK = 0.7
# How close in meaning a memory saying only the kind of thing a request to forget names must
# be to its topic (`_saying_the_topic`).
FORGET_MEANT = 0.45
# "Forget the Subaru": forget and a name the store holds, without the words of a request about
# what was told or kept ("Forget what I said about the Subaru" is sure, 0.92).
FORGET_NAMED_CONFIDENCE = 0.8
# The nearest memories a confirmation is compared with when none was shown.
CONFIRMED_READ = 5


def _within(query: str, limit: int) -> str:
    """The query cut at the last whole word within `limit` characters."""
    if len(query) <= limit:
        return query
    return query[: limit + 1].rsplit(" ", 1)[0][:limit]


class ActivationService:
    def __init__(self, ctx: Context, search: SearchService) -> None:
        self.ctx = ctx
        self.search = search
        self.held = StoreLookups(ctx)

    def analyze_message(
        self, message: str, recent_memory_ids: Sequence[str] = ()
    ) -> MessageAnalysis:
        text = check.content(message, "message")
        self.ctx.links_ready()  # what news saved a moment ago replaced is read as replaced
        recent = (
            check.memory_ids(recent_memory_ids, "recent_memory_ids") if recent_memory_ids else []
        )
        found = self._classified(text)
        # The recent ids that name no memory are said: a mistyped one confirmed nothing, and
        # nothing told the caller why (probe).
        shown = self.ctx.store.get_many(recent) if recent else []
        corrected = corrected_value(text, shown) if found.intent == "none" else None
        if corrected is not None and found.confidence < REFUSED:
            # "no that's wrong, it was 2018 not 2019" just after "the roof was replaced in
            # 2019" was shown: that memory with the new value, to save as news of it (a third
            # blind probe's, none, and the old year held)
            found = Analysis("save", REPLACES_STORED_CONFIDENCE, text.strip(), about=corrected)
        bare_yes = found.intent == "none" and bool(shown) and BARE_YES.match(text) is not None
        if bare_yes:
            # "yep" just after memories were shown: the first shown holds, less surely than a
            # confirmation that says so ("yes, that's right"); with nothing shown, it answers
            # anything (a blind probe's "yes", "yep", "right" were none). Only the first: a
            # second probe's "yup" after a recall reinforced every memory the search showed.
            found = Analysis("reinforce", BARE_YES_CONFIDENCE, text.strip())
        known = {m.id for m in shown}
        result = MessageAnalysis(
            intent=found.intent,
            should_save=found.intent == "save",
            confidence=found.confidence,
            phrase=found.phrase,
            missing=[i for i in dict.fromkeys(recent) if i not in known],
        )
        # A save may be about a part of the message: the change a confirmation carries, or
        # the sentence of a long message that says what a rule read.
        said = found.about or _told_in(text, found) or text
        content = memory_content(said) if found.intent == "save" else ""
        if found.intent == "save" and not content:
            # "Remember:", "Remember this." and nothing else: nothing to save (it suggested
            # the text "Remember:", then "This.")
            return result.model_copy(update={"intent": "none", "should_save": False})
        if found.intent == "save":
            strength, why = importance(said)
            # Said before in other words: touched, not kept twice.
            said_so = self._held_already(content)
            return result.model_copy(
                update={
                    "should_save": not said_so,
                    "content": content,
                    "tags": list(found.tags),
                    "entities": names_in(content),
                    "strength": strength,
                    "why": why,
                    "touch": said_so,
                }
            )
        if bare_yes:
            first = next(i for i in recent if i in known)
            return result.model_copy(update={"touch": [first]})
        if found.intent == "reinforce" and shown:
            touch = confirmed(text, shown)
            if touch is None:  # it names something no shown memory words
                # ...in other words, or a memory not shown ("Yes, still allergic to
                # shellfish" after a search for the landlord: an MCP probe)
                touch = self._confirmed_by_meaning(text, shown) or self._confirmed_in_store(text)
            elif len(touch) == len(shown) > 1:
                # naming nothing ("yes thats it, thanks"), it confirms the answer given: the
                # first shown that nothing shown replaced (a fifth blind probe's touched both
                # memories a search showed); naming what each holds, each
                touch = self._current(touch)[: 1 if names_nothing(text) else None]
            return result.model_copy(update={"touch": touch})
        if found.intent == "reinforce" and not recent:
            return result.model_copy(update={"touch": self._confirmed_in_store(text)})
        if found.intent == "forget":
            # what it names, looked up as search would: for the assistant to confirm with the
            # user and delete (nothing is deleted here)
            topic = found.about or what_to_forget(text)
            if not topic and shown:
                # "forget that" just after memories were shown: those it names by a word,
                # else all of them, as a confirmation reads them (a blind probe's: nothing)
                named = confirmed(text, shown)
                return result.model_copy(update={"forget": named or [m.id for m in shown]})
            return result.model_copy(update={"forget": self._to_forget(topic)})
        return result

    def _held_already(self, content: str) -> list[str]:
        """The memory a save of `content` would only use: the one it repeats word for word,
        as `save` finds it (a merged memory among them: after a merge, the fact merged was
        "save" here while `save` said "already saved", a probe), else those saying it in
        other words (`already_said`). Not a fact news replaced: said again, it holds again,
        and that is a save."""
        repeat = repeat_of(self.ctx, content)
        if repeat is not None and not news_of(self.ctx.store, [repeat.id]):
            return [repeat.id]
        return [m.id for m in already_said(self.ctx, content)]

    def _to_forget(self, topic: str) -> list[str]:
        """The stored memories a request to forget names by `topic`, as search finds them:
        those ranked near the best (`FORGET_MIN_RANK`), not whatever else the search lists,
        and only those it matched by their own words or meaning (`_named`). "the job" of the
        user's is theirs: it found nothing, and "my job" found "I work as a nurse at St.
        Mary's"."""
        if not topic:
            return []
        hits = self.search.search(topic, limit=FORGET_CANDIDATES)
        if not hits and topic.lower().startswith("the "):
            hits = self.search.search("my " + topic[4:], limit=FORGET_CANDIDATES)
        # the names the store holds: "the Hale grievance" of "HR said the Hale grievance has to
        # stay confidential" (HR in no memory); none held, nothing to forget
        names = names_in(topic)
        named = self.held.known_names(list(names)) if names else []
        if names and not named:
            return []
        # by name, every memory naming them, however it ranks ("forget everything about Tom"
        # missed "Tom's off sick" at 0.699 of the best on PostgreSQL, 0.7 needed)
        listed = [h for h in hits if (named or h.why.rank >= FORGET_MIN_RANK) and _named(h)]
        if any(h.why.text > 0 for h in listed):
            # named by a word the store holds: what says it, not what is only like it ("forget
            # the thing about upwork" listed the client list too, which never says "upwork":
            # a blind probe's, and acting on it lost the list)
            listed = [h for h in listed if h.why.text > 0]
        if named:
            # someone or something by name: only what names them ("erase what you know about
            # Marco", no Marco stored, listed "my sister Ana lives in Lisbon", the nearest by
            # meaning: a third blind probe's assistant deleted three memories so)
            counter = PhraseCounter([w for name in named for w in query_terms(name)])
            listed = [h for h in listed if all(n > 0 for n in _said_in(counter, h))]
        owned = owned_thing(topic)
        if owned:
            # someone's thing: what says the thing, not all that names them ("delete the note
            # about beth's extractor fan", the fan never kept, listed Beth's tenancy: a ninth
            # blind probe's)
            words = [w for w in query_terms(owned) if w not in STOPWORDS | VAGUE_WORDS]
            counter = PhraseCounter(words)
            listed = [h for h in listed if any(_said_in(counter, h))] if words else []
        return [h.memory.id for h in _saying_the_topic(listed, topic)]

    def _confirmed_in_store(self, message: str) -> list[str]:
        """The stored memories a confirmation names when none was shown: among its nearest by
        meaning, those it shares a word with (`_confirmed`) that are clearly alike to it
        (`_confirmed_by_meaning`). "Yes, that's right, still allergic to shellfish" touched
        nothing without the memory's id, and "I am allergic to shellfish." touched it (an MCP
        probe). Only the most alike: the store may hold more memories naming its words than
        the user meant, where the ones shown were chosen. None when it names nothing ("Yes,
        that's right")."""
        if names_nothing(message):
            return []
        vector = self.ctx.text_vector(message)
        if vector is None:
            return []
        self.ctx.vectors_ready()
        live = Filter(statuses=(Status.ACTIVE, Status.PROMOTED))
        found = self.ctx.store.vector_search(vector, live, CONFIRMED_READ)
        memories = self.ctx.store.get_many([s.id for s in found])
        named = set(confirmed(message, memories) or ())
        touch = self._confirmed_by_meaning(message, [m for m in memories if m.id in named])
        return self._current(touch)[:1]

    def _current(self, ids: Sequence[str]) -> list[str]:
        """Of the memories a confirmation naming nothing confirms ("Right, that's still the
        case"), those no other of them supersedes: shown the manager fact, the news replacing
        it and another, it reinforced the replaced fact too (an MCP probe)."""
        shown = set(ids)
        replaced = {
            r.to_id
            for r in self.ctx.store.relations(list(ids))
            if r.type == "supersedes" and r.from_id in shown and r.to_id in shown
        }
        return [i for i in ids if i not in replaced]

    def analyze_for_recall(self, message: str) -> RecallAnalysis:
        text = check.content(message, "message")
        found = self._classified(text)
        if found.intent != "recall":
            return RecallAnalysis(should_search=False, confidence=found.confidence, phrase=None)
        # What it returns must be accepted by the tools it feeds: search's query and the
        # entities a memory may hold are bounded, a message is not.
        today = self.ctx.local_now().date()
        # the question alone, where a reason follows it ("…now? want to book a haircut")
        text = found.about or text
        query = _within(recall_query(text, today), check.MAX_QUERY)
        names = names_in(text)
        queries: list[str] = []
        for candidate in [query, *names]:  # "TypeScript?" and the name "TypeScript" are one
            if candidate and _key(candidate) not in {_key(q) for q in queries}:
                queries.append(candidate)
        return RecallAnalysis(
            should_search=True,
            confidence=found.confidence,
            phrase=found.phrase,
            query=query,
            queries=queries,
            entities=names,
            window_days=recall_window(text, today),
        )

    def _classified(self, text: str) -> Analysis:
        """`classify`, and a question no rule reads as a recall is one when it asks something of
        someone or something the store holds a memory about, the name as its subject
        (`asks_about`): "Is Lisa still vegetarian?" and "How is Atlas going?" have the form of
        questions about the world, and only memory answers them (a helper's probe); "Where does
        Taylor Swift live?" stays none in a store that never heard of her, and "How do I exit
        Neovim?" in one that knows the user uses it. Likewise a short statement about such a
        name is news to save ("Emma is 7 now", `statement_about`). A refusal or a "forget
        that" (a rule's none, with its phrase) stays."""
        found = classify_by_rules(text)
        if found.intent == "save" and found.confidence < ASKED_TO_SAVE:
            # "I've decided not to apply to Kingsway after all. you can forget the deputy head
            # stuff": what the user asks to drop, and the store holds, wins over the news
            # told before it (a sixth blind probe's: a save of the whole message)
            last = (statements(text) or [text])[-1]
            dropped = self._forget_reading(last)
            if dropped is not None:
                return dropped
        if found.intent != "none" or found.phrase is not None:
            return found
        dropped = self._forget_reading(text)
        if dropped is not None:
            return dropped
        told = anchor(text) if text.rstrip().endswith("?") else None
        if told is not None and self.held.holds_event(told.event):
            # "Two weeks after I changed units, what trip were we planning?": days counted
            # from an event the store holds (`engram.core.anchors`)
            return Analysis("recall", ANCHORED_CONFIDENCE, text.strip())
        read = asked(plain(text))
        # a question with its reason after it is asked as the question: "who's the new
        # technician? need to put her name on the order form" (a sixth blind probe's: none)
        question = asked_then_told(without_tail(masked(plain(text))))
        asking = read if question is None else question
        about = None if question is None else " ".join(text.split())[: len(question)]
        names = names_in(text) or self.held.names_typed_lower(asking)
        known = self.held.known_names([n for n in names if asks_about(asking, n)])
        if known:
            return Analysis("recall", KNOWN_NAME_CONFIDENCE, known[0], about=about)
        thing = thing_asked_of(asking)
        if thing is not None and self.held.known_names([thing]):
            return Analysis("recall", KNOWN_NAME_CONFIDENCE, thing, about=about)
        if self.held.answered_in_words(asking):
            return Analysis("recall", KNOWN_NAME_CONFIDENCE, asking.strip(), about=about)
        tagged = tagged_statement(asking)
        if tagged is not None and self.held.told_of(tagged):
            # "Ruby is 9 now isn't she?" checks what was told of her (probes': none at 0.9)
            return Analysis("recall", KNOWN_NAME_CONFIDENCE, tagged, about=tagged)
        named = thing_named_alone(asking)
        if named is not None and self.held.thing_kept(named):
            # "launch date pls" beside "launch date is March 3" (a probe's: none at 0.7)
            return Analysis("recall", KNOWN_NAME_CONFIDENCE, named, about=named)
        topic = topic_then_asked(asking)
        if topic is not None and self.held.held_together(topic):
            # "pickle's vet appt - what time was it" (an eighth blind probe's: none)
            return Analysis("recall", KNOWN_NAME_CONFIDENCE, topic)
        known_identifier = self.held.known_identifier(text)
        if known_identifier is not None:
            return Analysis("recall", KNOWN_NAME_CONFIDENCE, known_identifier)
        if self.held.means_a_memory(asking):
            return Analysis("recall", KNOWN_NAME_CONFIDENCE, asking.strip(), about=about)
        stated = {n: said for n in names if (said := statement_about(read, n)) is not None}
        known = self.held.known_names(list(stated))
        if known:
            # What is kept starts at the name: "Actually, Lisa's birthday is…" keeps "Lisa's…".
            name = known[0]
            at = text.find(name)
            about = text[at:] if at > 0 else None
            # a correction of what the store holds of them, as sure as any ("actually Ana is
            # coming in March, not next week"; `_fact_replaced`)
            replaces = self._fact_replaced(read) is not None
            sure = REPLACES_STORED_CONFIDENCE if replaces else STATEMENT_CONFIDENCE
            return Analysis("save", sure, stated[name], ("personal",), about)
        replaced = self._fact_replaced(read)
        if replaced is not None:
            return Analysis("save", REPLACES_STORED_CONFIDENCE, replaced)
        # last, what the message's form alone says: a fact told in specifics, a name typed in
        # lower case that the store holds counting as one ("beth mentioned the bathroom
        # extractor fan is broken, need it sorted before the 20th", a ninth blind probe's)
        specific = told_in_specifics(text)
        lowered = [] if specific is not None else self.held.names_typed_lower(text)
        if lowered:
            specific = told_in_specifics(_capitalised(text, lowered))
        return specific or found

    def _forget_reading(self, text: str) -> Analysis | None:
        """A request to forget that no rule reads, of something the store holds; else None."""
        dropped = maybe_forgotten(text)
        if dropped and (self.held.known_names(names_in(dropped)) or self.held.names_kept(dropped)):
            # "Forget the Subaru, I sold it": a thing the store names, to drop ("Forget
            # about the formatting" names none, and is the task's)
            return Analysis("forget", FORGET_NAMED_CONFIDENCE, dropped, about=dropped)
        dropped_thing = thing_to_drop(text)
        if dropped_thing and self.held.thing_kept(dropped_thing):
            # "forget the book club thing, I quit", "please forget about the book club": a
            # thing the store holds in so many words, and nothing else asked
            return Analysis("forget", FORGET_NAMED_CONFIDENCE, dropped_thing, about=dropped_thing)
        before = said_then_dropped(text)
        if before and (self.held.known_names(names_in(before)) or self.held.held_together(before)):
            # "Jake paid me back, you can forget about that": what the clause names, someone
            # or something the store holds by name, or in so many words ("I've stopped
            # volunteering at the food shelf, please forget about that", an eighth blind
            # probe's); "The meeting went well, forget about it" drops nothing: the
            # conversation's
            return Analysis("forget", FORGET_NAMED_CONFIDENCE, before, about=before)
        return None

    def _fact_replaced(self, text: str) -> str | None:
        """The stored fact a statement is news of, as saving it would supersede it
        (`save_report.facts_replaced`): "Ugh, the Harbor beta slipped to February 3" of
        "Harbor beta launch planned for January 20", "Actually the dentist appointment is on
        the 15th, not the 14th" of "…appointment is on November 14". No rule names those
        words, and an assistant saving what this proposed lost every change a probe's user
        told (its top answers fell from 31 to 19 of 42). None without a model, or when the
        text marks no change."""
        if not may_be_news(text) or not reports_similar(self.ctx, has_own_id=False):
            return None
        found = near(self.ctx, text)
        replaced = facts_replaced(text, similar_report(self.ctx, found, own_id=""))
        replaced = replaced or life_facts_replaced(self.ctx, text)
        return replaced[0].content if replaced else None

    def _confirmed_by_meaning(self, message: str, memories: Sequence[Memory]) -> list[str]:
        """The shown memories a confirmation names in other words ("Yes, still the same car"
        after "I drive a 2019 Toyota Corolla" touched nothing: a probe), judged as search
        judges meaning: clearly above unrelated text (`search_semantic_min_z`, z 3.4 there;
        the unrelated memories beside it at most 0.9). Most alike first; none without a
        model."""
        vector = self.ctx.text_vector(message)
        embedder = self.ctx.embedder
        calibration = None if vector is None else self.ctx.calibration(vector, message)
        if vector is None or embedder is None or calibration is None:
            return []
        self.ctx.vectors_ready()  # a memory saved a moment ago has its vector
        stored = self.ctx.store.get_vectors([m.id for m in memories], embedder.model_id)
        floor = self.ctx.settings.search_semantic_min_z
        alike = [(float(stored[m.id] @ vector), m.id) for m in memories if m.id in stored]
        named = [(cos, ident) for cos, ident in alike if calibration.z(cos) >= floor]
        return [ident for _, ident in sorted(named, key=lambda a: -a[0])]


def _capitalised(text: str, names: Sequence[str]) -> str:
    """`text` with each of `names` (typed in lower case) given its capital."""
    for name in names:
        text = re.sub(rf"\b{re.escape(name)}\b", name.capitalize(), text)
    return text


def _key(query: str) -> str:
    return query.casefold().rstrip("?.! ")


def _named(hit: SearchHit) -> bool:
    """Whether a search hit matched by its own words or meaning: not only through the words of
    another match (expansion) or a neighbour's credit (context). "Delete everything about my
    car" listed "We adopted a cat named Miso" for the "name" of "My wife's name is Ana"."""
    return hit.why.text > 0 or hit.why.semantic is not None or hit.why.day is not None


def _told_in(message: str, found: Analysis) -> str | None:
    """The sentence of a long message (more than `LONG_MESSAGE` sentences) holding the phrase
    a rule saved it by, unless the user asked to keep it (then what they asked to keep is
    theirs to say): a rambling message with a landlord's name in its third sentence was kept
    whole, the bus and the rain with it (an MCP probe). None otherwise."""
    if found.intent != "save" or found.phrase is None or found.confidence >= ASKED_TO_SAVE:
        return None
    pieces = statements(message)
    if len(pieces) <= LONG_MESSAGE:
        return None
    return next((p for p in pieces if found.phrase in " ".join(p.split())), None)


def _saying_the_topic(listed: list[SearchHit], topic: str) -> list[SearchHit]:
    """Of the memories a request to forget lists by a topic of two words or more:
    - those saying a word of it before its last (the last names what kind of thing it is, the
      words before which one), or close to it in meaning (`FORGET_MEANT`): "pls delete the
      thing about my insurance date", the insurance date never kept, listed "ellie and sam
      moved their date!! now 21 june" by "date" (0.36 in meaning), and the tenth blind
      probe's assistant deleted the booking; "forget about my knee injury" still lists "i
      have a torn meniscus in my left knee", and "delete my wife's birthday" "Lisa's birthday
      is May 3" (0.47);
    - of those, the ones saying the most of its words, where one says two or more: "delete the
      IVF thing about Tom" listed the memory about IVF and "Tom's off long-term sick", which
      says only "Tom" (a sixth blind probe's: both deleted).
    "Forget everything about Tom" keeps every memory naming him."""
    words = [w for w in query_terms(topic) if w not in STOPWORDS | VAGUE_WORDS]
    if len(words) < 2 or not listed:
        return listed
    counter = PhraseCounter(words)
    said = {h.memory.id: _said_in(counter, h) for h in listed}
    kept = [
        h for h in listed if any(said[h.memory.id][:-1]) or (h.why.semantic or 0.0) >= FORGET_MEANT
    ]
    most = max((sum(n > 0 for n in said[h.memory.id]) for h in kept), default=0)
    if most < 2:
        return kept
    return [h for h in kept if sum(n > 0 for n in said[h.memory.id]) == most]


def _said_in(counter: PhraseCounter, hit: SearchHit) -> list[int]:
    """How often a memory says each of a topic's words, in its text or its names."""
    return counter.counts(" ".join([hit.memory.content, *hit.memory.entities]))
