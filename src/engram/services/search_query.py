"""What a query is searched by: its words, the text its meaning is probed with, and whether it
names nothing but days. A named day's numbers, the words counting back to it and the act of
telling are left out (docs/search.md, section 2b), and so is the user's own name, the query
then asked by meaning in the first person (`engram.core.own_name`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from engram.config import Settings
from engram.core.aliases import asks_of_the_user, of_someone_close, with_names
from engram.core.dates import (
    asks_of_a_month_alone,
    only_dates,
    searched_of_a_day,
    without_written_dates,
)
from engram.core.entities import extract_entities
from engram.core.episodes import a_turn
from engram.core.index_terms import PhraseCounter
from engram.core.kinds import kind_names
from engram.core.meaning import Probe, unlike_the_query
from engram.core.own_name import in_first_person, without_name
from engram.core.people_asked import asked_of, of_others_only
from engram.core.questions import (
    asks_an_amount,
    only_asks,
    says_an_amount,
    without_asking_how_it_went,
    without_naming,
    without_the_span,
)
from engram.core.ranking import Candidate
from engram.core.text import (
    STOPWORDS,
    of_the_listener,
    query_terms,
    statements,
    without_topic_label,
    words,
)
from engram.core.time_asked import asks_when, says_when, without_asking_now
from engram.services.aliases import names_of_people_asked
from engram.services.context import Context
from engram.services.enrichment import names_in
from engram.services.search_reads import SearchReads
from engram.services.users_name import users_names
from engram.storage.protocol import Filter, Store, Stub

# A query of several sentences (what a user just said, searched as it came) is also searched by
# meaning one sentence at a time, as a memory's passages are: one vector for the whole averages
# its topics. Up to this many sentences of at least this many words; a memory's z against one
# is lowered by a shrink (services.search_neighbours, `SENTENCE_PROBE_SHRINK`). On
# MADial-Bench, whose queries are a user's turns, R@10 0.644 -> 0.665 (docs/search.md).
SENTENCE_PROBES = 4
SENTENCE_MIN_WORDS = 5
# A query without its names is a probe when this many words are left ("When did Mike …?" less
# Mike is no question of anything).
NAMELESS_MIN_WORDS = 3


class Asked(NamedTuple):
    worded: str  # searched by words
    meant: str  # searched by meaning
    in_first_person: str | None  # searched by meaning instead: the query naming the user
    dates_only: bool  # searched by its days (and their phrases) alone
    own_words: tuple[str, ...]  # the words of the user's own name it holds: no expansion word


def asked(store: Store, text: str, names_days: bool) -> Asked:
    """How `text` is searched; `names_days`: whether it names a day (`named_day_spans`)."""
    # A query of dates alone is searched by its days (`saved_on`) and the phrases that name
    # them ("30 november"), not by its digits nor by its meaning: "30 November 2026" found
    # "launch moved to April 14" first, by meaning, above what was saved that day.
    dates_only = only_dates(text)
    # The days named are searched by when memories were saved (`saved_on`) and by the phrases
    # naming them (`day_phrases`). Their numbers searched as words found "parking spot number
    # 3" for "what did I buy on 3 March?" above what was bought that day, and their month
    # "the March 31 release" for "what happened on March 17?" (a probe); their meaning drew
    # the query's vector towards any memory with a date in it.
    meant = without_written_dates(text) if names_days else text
    # "What pets has Margot had over the year?", "…during these conversations?": the span is
    # all that was said, and "year" found "Happy new year!" first (docs/search.md, section 1).
    meant = without_the_span(meant)
    # The answer to a question for a name says the name, seldom "name": "What's my wife's
    # name?" found "My name is Daniel" above "My wife Lisa…" by that word (its meaning keeps
    # it). Nor is "How did the renovation go?" searched by "go", nor "…change?" by "change".
    worded = without_asking_how_it_went(without_asking_now(without_naming(meant)))
    bare = meant
    if names_days:
        # "last week" and "what did I tell you" name no content either: "What did I tell you
        # last week?" found "physio every other week" above all that was said then.
        worded, bare = searched_of_a_day(worded), searched_of_a_day(meant)
        meant = searched_of_a_day(meant, by_meaning=True)
    # Without its date, "what is on 12 March?" means nothing: its vector found a parking spot
    # at cosine 0.2. Such a query is searched by its days and day phrases alone.
    # The words it is searched by decide: "What's happening tomorrow?" left "What's", which
    # `query_terms` drops as asking, as it drops "what". A day counted from another ("the day
    # before yesterday", "the weekend after the wedding") comes without its words (`told`):
    # "what did I do?" was searched by meaning, and three memories alike to it came first.
    asks_no_more = not set(query_terms(bare)) - STOPWORDS
    dates_only = dates_only or ((bare != text or names_days) and asks_no_more)
    # "What did I get up to last March?" asks for that month alone: its words found the plan
    # made in February for March, and March's own memories came ninth (a held-out probe).
    # The month stays a word searched where the question asks more ("…for myself in April").
    dates_only = dates_only or asks_of_a_month_alone(text)
    # "What does my husband do?" is asked of Daan, where a memory calls him so: "Daan is a
    # chemistry teacher" never says "husband" (a probe found it fifth, by its session alone).
    for relation, names in names_of_people_asked(store, text).items():
        worded = " ".join([worded, *names])
        meant = with_names(meant, relation, names)
    own = own_names(store, text)
    unnamed = worded
    for name in own:
        unnamed = without_name(unnamed, name)
    # "What does Priya do?" without the name asks nothing by its words: it found nothing (a
    # probe), and is searched as asked.
    if not own or not set(words(unnamed)) - STOPWORDS:
        return Asked(worded, meant, None, dates_only, ())
    first_person = meant
    for name in own:
        first_person = in_first_person(first_person, name)
    return Asked(unnamed, meant, first_person, dates_only, tuple(w for n in own for w in words(n)))


def own_names(store: Store, text: str) -> list[str]:
    """The names in `text` that the store gives as the user's ("My name is Priya Shah"): only
    for a query that names someone."""
    return users_names(store, names_in(text))


def probe_sentences(text: str) -> list[str]:
    """The sentences of a query of several, each searched by meaning on its own (none for a
    query of one: the whole query is that sentence)."""
    long_enough = [s for s in statements(text) if len(s.split()) >= SENTENCE_MIN_WORDS]
    return long_enough[:SENTENCE_PROBES] if len(long_enough) >= 2 else []


def without_names(text: str) -> str | None:
    """A query naming someone, without the names: searched by meaning for the turns of a chat
    (`turns_meant`; a query of several sentences is searched one by one instead,
    `probe_sentences`). Names fill a short question's vector: every turn of the named
    speaker, or naming the one asked about, was as alike as the one that answers ("Where are
    Jonah and Amara going on their honeymoon?" found 14 of their turns before "we booked the
    honeymoon"). None for a query naming no one."""
    unnamed = text
    for name in extract_entities(text):
        unnamed = without_name(unnamed, name)
    unnamed = " ".join(unnamed.split())
    return unnamed if unnamed != text and len(words(unnamed)) >= NAMELESS_MIN_WORDS else None


def turns_meant(
    ctx: Context,
    vector: NDArray[np.float32],
    shrink: float,
    where: Filter,
    k: int,
    rows: dict[str, NDArray[np.float32]],
    found: dict[str, Stub],
    z: dict[str, float],
    said: str = "",
) -> None:
    """The query without its names (`without_names`: `said`, its `vector`) as one more probe,
    its z less `shrink`, raising the turns of a chat alone (`core.episodes.a_turn`) in `found`
    and `z`: of a note, the names were what the query asked of ("What instrument does Ben
    play?" without Ben found the user's own "I play the cello")."""
    calibration = ctx.calibration(vector, said)
    if calibration is None:
        return
    stubs = ctx.store.vector_search(vector, where, k, rows)
    texts = ctx.store.texts([s.id for s in stubs])
    for stub in stubs:
        text = texts.get(stub.id)
        score = calibration.z(stub.relevance) - shrink
        if text is not None and a_turn(text.content) and score > z.get(stub.id, -math.inf):
            z[stub.id], found[stub.id] = score, stub


def without_chance_matches(
    found: list[Stub], terms: Sequence[str], probe: Probe, seen: SearchReads, n: int
) -> list[Stub]:
    """The text matches `found` (best first) less those of the best `n` whose text holds a word
    of the query (`terms`) but none of whose vectors is like the query (`unlike_the_query`):
    "Team uses GitHub Actions for CI" for "favorite football team". A match by its tags or
    entities alone ("Dana Kim", an entity of "Project Atlas launches on May 3") is the memory's
    own word for what it is about, and stays (docs/search.md, section 1b). So does a text
    that holds only names of a kind the query names: "Project Atlas uses PostgreSQL 16" is
    what "database decision" asks for, not a chance match (it was dropped, and the example
    of docs/cli.md found nothing: a helper's probe); nor are the words a note opens with to say
    its kind or topic, as a tag would (`without_topic_label`: "TODO: finish the v2 schemas" for
    "What TODOs are open?", which found nothing, a coding assistant's probe; "Thesis topic:
    single-cell RNA-seq of zebrafish fin regeneration" for "Arjun's thesis project", 0.05 alike
    in meaning, a fifteenth blind probe's)."""
    unlike = unlike_the_query(seen.rows(s.id for s in found[:n]), probe)
    if not unlike:
        return found
    texts = seen.texts(unlike)
    ids = [i for i in unlike if i in texts]
    named = {name for names in kind_names(terms).values() for name in names}
    words = [t for t in terms if t not in named]
    counts = PhraseCounter(words).counts_in([without_topic_label(texts[i].content) for i in ids])
    by_chance = {i for i, row in zip(ids, counts, strict=True) if row.any()}
    return [s for s in found if s.id not in by_chance]


# What a match opening with one of the user's people and saying nothing more of the user ("User's
# sister Ana lives in Montreal") keeps of its relevance, for a query that asks of the user alone
# ("Where do I live?"): an MCP probe listed the sister's two cities above the user's own.
SOMEONE_ELSES_SHARE = 0.4


def text_rules(query: str, settings: Settings) -> list[tuple[Callable[[str], bool], float]]:
    """The tests of a match's text `weighed_by_what_they_say` applies for `query`, each with
    its factor: the two that lower whatever only asks or speaks of the listener; the raise of
    the answer to a question asking when (`asks_when`) or how many, how much or how long
    (`asks_an_amount`: "we have three kids", "2 hrs each way"); and, for a question of the
    user alone, the lowering of a fact of one of the user's people (`of_someone_close`)."""
    rules = [
        (only_asks, 1.0 - settings.search_question_discount),
        (of_the_listener, 1.0 - settings.search_listener_discount),
    ]
    if asks_when(query):
        rules.append((says_when, 1.0 + settings.search_when_weight))
    if asks_an_amount(query):
        rules.append((says_an_amount, 1.0 + settings.search_amount_weight))
    if asks_of_the_user(query):  # "Where do I live?"
        rules.append((of_someone_close, SOMEONE_ELSES_SHARE))
    return rules


def weighed_by_what_they_say(
    seen: SearchReads,
    found: list[tuple[Stub, Candidate]],
    n: int,
    rules: Sequence[tuple[Callable[[str], bool], float]],
) -> list[tuple[Stub, Candidate]]:
    """`found` with the relevance of each of its best `n` multiplied by the factor of every
    rule (a test of its text, a factor) it meets, its text read once for all of them.
    Lowered: a short question only asks (`only_asks`; asked what advice Thandiwe gave about
    the knee, "Thandiwe: oh thank god. the knee?" came before "Thandiwe: foam roller. every
    night" by its word), and a turn telling only of its listener tells nothing of its speaker
    (`of_the_listener`; docs/search.md, section 1f). Raised: the kind of thing a question asks
    for, said ("When did Siobhan move into her new flat?" is answered by "1st of april. no
    joke", which shares none of its words; section 2b)."""
    rules = [(test, factor) for test, factor in rules if factor != 1.0]
    if not rules or not found:
        return found
    best = sorted(found, key=lambda f: -f[1].relevance)[:n]
    changed: dict[str, float] = {}
    for ident, said in seen.texts(c.id for _, c in best).items():
        factor = math.prod(factor for test, factor in rules if test(said.content))
        if factor != 1.0:
            changed[ident] = factor
    return [
        (s, c._replace(relevance=c.relevance * changed[c.id]) if c.id in changed else c)
        for s, c in found
    ]


def words_first(
    ctx: Context, text: str, found: list[tuple[Stub, Candidate]]
) -> list[tuple[Stub, Candidate]]:
    """`found`, with every memory that holds a word of a query of no word the model knows (a
    code, an id: `Context.min_cosine`) ranked above those found otherwise. To the model such a
    query is its pieces: "zebra0x0" was 0.62 alike to each "zebra1b0k0" of a store of codes,
    whose words then searched again (expansion) put all of them above the one memory saying
    "zebra0x0" (93rd; a library probe). Those found otherwise keep their order, below."""
    worded = [c.relevance for _, c in found if c.text]
    others = max((c.relevance for _, c in found if not c.text), default=0.0)
    if not worded or others < min(worded) or ctx.min_cosine(text) <= 0:
        return found
    scale = 0.99 * min(worded) / others
    return [(s, c if c.text else c._replace(relevance=c.relevance * scale)) for s, c in found]


def of_others_left_out(
    query: str, found: list[Stub], z: dict[str, float], shared: set[str], seen: SearchReads
) -> tuple[list[Stub], dict[str, float]]:
    """The matches by meaning `found` (and their `z`) less those matching by meaning alone
    (sharing no word with the query: not in `shared`) that speak only of others of the user's
    people than the one the query asks of (`core.people_asked`): "my mom's name is Helen" for
    "what's my brother's name?"."""
    asked = asked_of(query)
    if asked is None:
        return found, z
    texts = seen.texts(s.id for s in found if s.id not in shared)
    others = {i for i, t in texts.items() if of_others_only(asked, t.content)}
    if not others:
        return found, z
    return [s for s in found if s.id not in others], {i: v for i, v in z.items() if i not in others}
