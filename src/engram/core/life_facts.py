"""Life facts: where the user lives, works, goes to school, whom they report to, what they eat,
who their partner is. News of one is told by the fact's words, not by meaning: "I report to
Rosa now" and "My manager is Dan Kim" are 0.20 alike and share no word (`core.keeping`)."""

from __future__ import annotations

import re

from engram.core.index_terms import index_term, index_terms
from engram.core.message import plain
from engram.core.text import unlabelled

# What a fact is about, where two statements say it in other words: "Maya started a new job
# at Northwind" and "Maya works as a designer at Lumen Health" share only her name, and were
# taken for news alike in form only (a probe's job change was never linked). Each word in
# the form the index holds it.
ATTRIBUTES = {
    "job": "work works worked working job jobs employer employed career",
    "home": "live lives lived living home moved relocated based address apartment flat house",
    "diet": "vegetarian vegan pescatarian meat diet",
    "manager": "manager boss supervisor report",
    "school": "school preschool kindergarten daycare nursery montessori college university "
    "elementary academy",  # "…goes to Laurelhurst Elementary": a probe's school change
    "partner": "wife husband partner girlfriend boyfriend fiance fiancee spouse married dating",
}
# The words of `ATTRIBUTES` that are values of the fact, not its name: "vegan" for
# "vegetarian" is a new value; "job" for "work" is the same fact named again.
KINDS = frozenset(
    index_term(word)
    for word in "vegetarian vegan pescatarian preschool kindergarten daycare nursery montessori "
    "college university wife husband fiance fiancee girlfriend boyfriend".split()
)
ATTRIBUTE_OF = {
    index_term(word): name for name, words in ATTRIBUTES.items() for word in words.split()
}


# A fact that holds now, as its verb says ("Iris goes to Little Acorns preschool"), not an
# event that names the attribute in passing ("Took Iris to the park after preschool", which a
# school change superseded: a probe's year of use). A habit or a standing choice holds too:
# "Production runs on Heroku", "Decision: use Prisma as the ORM" had been read as events, and
# a note beside them replaced in their place (a thirteenth blind probe's).
_HOLDS_NOW = re.compile(
    r"\b(?:is|are|am|'s|'re|'m|goes|go|works|work|lives|live|has|have|attends|attend|eats|"
    r"eat|reports|report|stays|stay|runs|uses|use|owns|drives|takes|plays|teaches|studies)\b",
    re.IGNORECASE,
)


def states_now(text: str) -> bool:
    """Whether a statement says how something is (`_HOLDS_NOW`), not only what happened."""
    return _HOLDS_NOW.search(plain(text)) is not None


def same_life_fact(text: str, old: str) -> bool:
    """Whether two statements speak of one life fact by its words (`ATTRIBUTES`): where one
    lives, works, goes to school…"""
    return bool(attributes(text) & attributes(old))


# Words of a life fact only before another: "I report to Rosa", not "the quarterly report".
_ONLY_BEFORE = {index_term("report"): "to"}
# ...and not after these: "reading about Kubernetes for work", "I'm at work" name no job.
_NOT_AFTER = {index_term("work"): frozenset("for at from to after before of".split())}
_NOT_AFTER[index_term("home")] = frozenset({"from", "at"})  # "I work from home": no home fact
# ...nor before these: "I work from home on Fridays now", "I'm working from Lisbon these days"
# say where the user works from, not for whom (they had superseded the job: a probe).
_NOT_BEFORE = {index_term("work"): frozenset(index_term(w) for w in "from remotely remote".split())}


# "Live" said of a thing launched, not of a home: "Consolidated invoicing for Northwind is now
# live" superseded "Alex Chen is … based in Singapore" (a seventeenth blind probe's).
_ON_AIR = re.compile(
    r"\b(?:is|are|was|were|be|been|being|went|go|goes|going|gone)\s+(?:now\s+|already\s+|"
    r"finally\s+)?live\b",
    re.IGNORECASE,
)


def attributes(text: str) -> set[str]:
    """The life facts a statement names by their words (`ATTRIBUTES`), where they name them
    ("report to", not "the quarterly report"; "work for", not "at work")."""
    terms = index_terms(_ON_AIR.sub(" ", text))
    found = {
        ATTRIBUTE_OF[t]
        for before, t, after in zip(["", *terms], terms, [*terms[1:], ""], strict=False)
        if t in ATTRIBUTE_OF
        and _ONLY_BEFORE.get(t, after) == after
        and before not in _NOT_AFTER.get(t, ())
        and after not in _NOT_BEFORE.get(t, ())
    }
    if _WHERE_WE_ARE.match(unlabelled(text)):
        found.add("home")
    return found


# Where the user is, said as all there is to say: "We're in Paris now" (after "I live in
# Lyon", a probe); not "I'm in Denver now for the conference".
_WHERE_WE_ARE = re.compile(
    r"^\W*(?:actually\W+)?(?:i'm|i am|we're|we are)\s+(?:now\s+)?(?:in|based in|living in)\s+"
    r"(?-i:[A-Z])[\w-]*(?:,?\s+(?-i:[A-Z])[\w-]*)?(?:\s+now|\s+these days)?\W*$",
    re.IGNORECASE,
)
