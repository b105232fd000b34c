"""What thing a statement of change says changed, for telling whether it is news of a stored
fact at all: the thing named with the verb ("the cache moved to…", "raised pool_size to 20"),
or, with none there, the note's label ("Image caching: switched…"), and the thing a sale names.
A fact that holds none of its words is not the one replaced (`engram.core.keeping`)."""

from __future__ import annotations

import re

from engram.core.change_words import change_told
from engram.core.fact_values import MARKS, fact_terms, holds_value, named_old_value
from engram.core.index_terms import index_term
from engram.core.intent_words import RELATION
from engram.core.life_facts import states_now
from engram.core.message import plain
from engram.core.text import STOPWORDS, WORD, without_kind_label, without_topic_label
from engram.core.whose import about_other_people

# Where the clause of a change starts: "…; fix: noeviction on the queue Redis, and the cache
# moved to a separate Redis instance" changes the cache.
_CLAUSE_START = re.compile(r"(?:[.;:!?,]|\b(?:and|but|so|then|while)\b)\s*", re.IGNORECASE)
# A change told of what changed itself ("the cache moved to …"), not of what someone changed
# ("The airline moved our flight to July 4", "Dad quit smoking").
_OF_ITSELF = re.compile(r"\s+(?:to|into|from|over|back|out|away)\b", re.IGNORECASE)


def changes_something_else(text: str, old: str) -> bool:
    """Whether the change a statement tells (`change_words.change_told`) is of a thing it
    names that `old` does not: a bug's note ending "…and the cache moved to a separate Redis
    instance" superseded "Decision: we moved background jobs from Celery to RQ", and search
    marked the decision outdated (a coding assistant's probe). The thing is named in common
    words before the verb in its clause, for a change of itself ("the cache moved to…"), or
    after the verb, what it is done to ("raised pool_size to 20"); with none there, by the
    note's label. A name or one of the user's people moves as news of their own facts ("User
    and Chris moved to Sacramento"), and "I've switched from VS Code" names nothing there."""
    change = change_told(text)
    if change is not None and _A_SALE.match(change.group()):
        return _sold_something_else(text, change.end(), old)
    if change is None:
        return False
    verb_end = change.start() + len(change.group().split()[0])
    done_to = _DONE_TO.match(text, verb_end) if _TRANSITIVE.match(change.group()) else None
    if done_to is not None:  # "Bumped targetSdkVersion to 34": what the verb is done to
        # ...not the kind of thing swapped for another of its kind: "I switched carriers to
        # Verizon" of "I'm on T-Mobile", "changed dentists"
        swapped = _SWAPPED_KIND.fullmatch(done_to.group(1).strip())
        thing = set() if swapped else _common_words(done_to.group(1), lower_first=True)
    elif any(_OF_ITSELF.match(text, at) for at in (verb_end, change.end())):
        clause = text[: change.start()]
        starts = [m.end() for m in _CLAUSE_START.finditer(clause)]
        thing = _common_words(clause[starts[-1] if starts else 0 :])
    else:
        return False
    # ...or, with none named there ("moved them to remote JSON"), what the note's label says it
    # is about: "Image caching: switched from react-native-fast-image to expo-image" replaced
    # the note of the env vars' move from react-native-config (a sixteenth blind probe's)
    thing = thing or _common_words(_topic_label(text))
    if _holds_the_value_left(text, old):  # "Migrated prod from Heroku…" of "…runs on Heroku"
        return False
    return bool(thing) and not thing & fact_terms(old)


def _holds_the_value_left(text: str, old: str) -> bool:
    """Whether `old` holds, whole (`holds_value`), the value a change says it left ("Heroku" of
    "Migrated prod from Heroku to Fly.io"): then it is the fact changed, however the thing is
    called ("prod", "Production"). Not a part of it: "react-native-fast-image" is not
    "react-native-config"."""
    left = named_old_value(text)
    return left is not None and holds_value(old, left)


# The verbs of a change that may be done to a thing named after them, and that thing, up to the
# word that says where it went: "raised SQLAlchemy pool_size to 20", "switched the handover to
# saturday mornings", "moved my dentist appointment to June 2".
_TRANSITIVE = re.compile(
    r"(?:renamed|bumped|upgraded|downgraded|raised|upped|lowered|increased|decreased|reduced|"
    r"updated|switched|moved|changed|migrated)\b",
    re.IGNORECASE,
)
_SWAPPED_KIND = re.compile(r"[a-z]+[^s\W]s", re.IGNORECASE)
_DONE_TO = re.compile(
    r"\s+((?:(?!(?:to|from|into|over|back|up|down|out|away|for|in|on|at)\b)[\w'.-]+\s+){1,5}?)"
    r"(?:to|from|into)\b",
    re.IGNORECASE,
)


def _common_words(said: str, lower_first: bool = False) -> set[str]:
    """The words of `said` that name a thing in common words, as the index holds them: not a
    name (capitalised; `lower_first`: an identifier in camel case is one too, "targetSdkVersion"),
    nor one of the user's people, a function word or an adverb."""
    return {
        index_term(w.lower())
        for w in WORD.findall(said)
        if (w[:1].islower() if lower_first else w.islower())
        and "'" not in w
        and w.lower() not in STOPWORDS
        and w.lower() not in MARKS
        and _SOMEONE.fullmatch(w) is None
        and not _AN_ADVERB.fullmatch(w)
    }


def _topic_label(text: str) -> str:
    """The label a note opens with to say what it is about ("Bundle size" of "Bundle size: JS
    bundle was 7.8 MB…"), not of its kind ("Decision: …"); "" without one."""
    if without_kind_label(text) is not text:
        return ""
    return text[: len(text) - len(without_topic_label(text))]


_A_SALE = re.compile(r"sold\b", re.IGNORECASE)
# The thing sold, after "sold my/our/the": at most three words, up to a mark or a joining word.
_SOLD_THING = re.compile(r"\s*((?:(?![Ii]n\b|[Tt]o\b|[Ff]or\b|[Aa]nd\b|[Ll]ast\b)[\w'-]+\s*){1,3})")


def _sold_something_else(text: str, end: int, old: str) -> bool:
    """Whether the thing a sale names (after "sold my/our/the") is not in `old`: "Sold the
    Camry in September; now uses the community shuttle and Emma's Uber account" superseded
    "Daughter Emma lives in Denver…" (0.41 alike, by the name) and left "Drives a 2015 Toyota
    Camry" current (a fifteenth blind probe's)."""
    found = _SOLD_THING.match(text, end)
    thing = set() if found is None else fact_terms(found.group(1))
    return bool(thing) and not thing & fact_terms(old)


def thing_sold(text: str) -> str | None:
    """The words of the thing a statement says was sold ("Camry" of "Sold the Camry in
    September"), or None: the facts holding them say how things stood before the sale,
    however unlike in meaning ("Drives a 2015 Toyota Camry, plate GEO 71": 0.30)."""
    said = plain(text)
    change = change_told(said)
    if change is None or not _A_SALE.match(change.group()):
        return None
    found = _SOLD_THING.match(said, change.end())
    return None if found is None or not fact_terms(found.group(1)) else found.group(1).strip()


def owned_before_the_sale(text: str, old: str) -> bool:
    """Whether `old` says how a thing `text` says was sold stood (`thing_sold`): it holds every
    word of the thing and says a state ("Drives a 2015 Toyota Camry", "I own a Camry"), not an
    event ("Took the Camry in for an oil change"), and is not of other people."""
    thing = thing_sold(text)
    said, held = plain(text), plain(old)
    if thing is None or about_other_people(said, held):
        return False
    owned = states_now(held) or _OWNED.search(held) is not None
    return owned and fact_terms(thing) <= fact_terms(held)


# What one has, said in the first person (`states_now` reads "drives", not "I drive").
_OWNED = re.compile(r"\b(?:i|we)\s+(?:drive|own|have|ride)\b", re.IGNORECASE)


# how, not what: "Jake: big news, we finally moved to Denver" (a twelfth blind probe's: no link)
_AN_ADVERB = re.compile(r"\w{3,}ly")
# the user's people, one by one or all together ("User and family moved to Boulder": a probe)
_SOMEONE = re.compile(rf"(?:{RELATION}s?|famil(?:y|ies))", re.IGNORECASE)
