"""The forms of an English word that stemming cannot join: irregular verbs and plurals, and the
short names people type for a few long ones ("Postgres", "env vars").

The index stems with Porter's rules, which join "buys", "buying" and "buy" but leave "bought"
a word of its own: "what did I buy on Tuesday?" shared no word with "Bought a new standing
desk", and the model's meaning of the two was too far apart (cosine 0.22) to find it. A
query's word is therefore searched in each of its forms here as well.

Only forms that name nothing else are listed: "left" (a direction), "saw" (a tool), "found"
(to found a company), "felt" (a cloth), "rose", "lay", "bit", "wound", "ring", "stick", "led"
(LED lights), "sat" (Saturday), "won" (the index splits "won't" into "won" and "t"), "fed"
(the Fed), "lent" (Lent), "drew" (Drew) and "mice" (a computer's mouse) are left out, so that
"what did I leave behind?" does not find every memory about the left lane. Nor are light
verbs ("go", "get", "make", "know", "tell", "keep", "see"…): questions are phrased with them
("tell me about", "keep in mind", "how did it go"), and "went" or "known" found memories the
question was not about.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engram.core.kinds import kind_names

# Each family: the base form first, then its past and participle forms (and for nouns, the
# plural). A form already joined with another by stemming is not listed twice.
_FAMILIES: tuple[tuple[str, ...], ...] = (
    ("blow", "blew", "blown"),
    ("break", "broke", "broken"),
    ("bring", "brought"),
    ("build", "built"),
    ("buy", "bought"),
    ("catch", "caught"),
    ("choose", "chose", "chosen"),
    ("deal", "dealt"),
    ("dig", "dug"),
    ("draw", "drawn"),  # not "drew": a name
    ("dream", "dreamt"),
    ("drink", "drank", "drunk"),
    ("drive", "drove", "driven"),
    ("eat", "eaten"),  # not "ate": the index stems it to "at"
    ("fight", "fought"),
    ("fly", "flew", "flown"),
    ("forget", "forgot", "forgotten"),
    ("forgive", "forgave", "forgiven"),
    ("freeze", "froze", "frozen"),
    ("grow", "grew", "grown"),
    ("hang", "hung"),
    ("hear", "heard"),
    ("hide", "hid", "hidden"),
    ("learn", "learnt"),
    ("lose", "lost"),
    ("meet", "met"),
    ("pay", "paid"),
    ("ride", "rode", "ridden"),
    ("run", "ran"),
    ("seek", "sought"),
    ("sell", "sold"),
    ("send", "sent"),
    ("shake", "shook", "shaken"),
    ("shoot", "shot"),
    ("sing", "sang", "sung"),
    ("sink", "sank", "sunk"),
    ("sleep", "slept"),
    ("speak", "spoke", "spoken"),
    ("spend", "spent"),
    ("steal", "stole", "stolen"),
    ("swim", "swam", "swum"),
    ("teach", "taught"),
    ("throw", "threw", "thrown"),
    ("wake", "woke", "woken"),
    ("wear", "wore", "worn"),
    ("write", "wrote", "written"),
    ("child", "children"),
    ("person", "people"),
    ("man", "men"),
    ("woman", "women"),
    ("foot", "feet"),
    ("tooth", "teeth"),
    # one thing by its full name and the short one people type: "what Postgres version are
    # we on?" shared no word with "Upgraded PostgreSQL from 15 to 16", "env vars" none with
    # "environment variables" (a coding assistant's probe)
    ("postgresql", "postgres"),
    ("mongodb", "mongo"),
    ("environment", "env"),
    ("variable", "var"),
    ("variables", "vars"),
    ("configuration", "config"),
    ("repository", "repo"),
    ("authentication", "auth"),
    ("documentation", "docs"),
    ("production", "prod"),
    ("dependencies", "deps"),
    ("birthday", "bday"),
    ("appointment", "appt"),
    # the days people shorten: "is italian tues or weds now?" of "Italian class is on
    # tuesdays" (not "sat", a verb, nor "sun" or "mon")
    ("tuesday", "tues", "tue"),
    ("wednesday", "weds", "wed"),
    ("thursday", "thurs", "thur", "thu"),
    ("friday", "fri"),
)

_FAMILY_OF: dict[str, tuple[str, ...]] = {form: family for family in _FAMILIES for form in family}


def with_word_forms(terms: Iterable[str], leave_out: frozenset[str] = frozenset()) -> list[str]:
    """`terms` followed by the other forms of each (those in `leave_out`, stopwords, not), then
    the names of each kind of tool they name (`engram.core.kinds`)."""
    found = list(dict.fromkeys(terms))
    asked = list(found)
    for term in asked:
        for form in _FAMILY_OF.get(term, ()):
            if form not in found and form not in leave_out:
                found.append(form)
    for names in kind_names(asked).values():
        found += [name for name in names if name not in found]
    return found


def form_groups(terms: Sequence[str]) -> list[list[int]]:
    """The positions in `terms` of the forms of one word, for each word with several there;
    a word naming a kind and the names of that kind there count as one word too."""
    groups: dict[tuple[str, ...], list[int]] = {}
    for i, term in enumerate(terms):
        family = _FAMILY_OF.get(term)
        if family is not None:
            groups.setdefault(family, []).append(i)
    found = [g for g in groups.values() if len(g) > 1]
    position = {term: i for i, term in reversed(list(enumerate(terms)))}
    for at, names in kind_names(terms).items():
        if any(at in g for g in found):
            continue
        members = {position[n] for n in names if n in position}
        # a name's forms go with it ("postgresql" and "postgres" are one name of a database)
        joined = [g for g in found if members & set(g)]
        members.update(i for g in joined for i in g)
        members.discard(at)
        if members:
            found = [g for g in found if g not in joined] + [[at, *sorted(members)]]
    return found


def word_units(terms: Sequence[str]) -> list[list[int]]:
    """The positions in `terms` word by word: a term alone, or the forms of one word together
    (each unit in the order of its first term)."""
    groups = form_groups(terms)
    in_group = {i: group for group in groups for i in group}
    return [in_group.get(i, [i]) for i in range(len(terms)) if in_group.get(i, [i])[0] == i]
