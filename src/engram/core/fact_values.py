"""What a statement says of a fact: its words as the index holds them (`fact_terms`), its values
(numbers and names: `stated_values`), and the old and new values a change names ("switched from
badminton to pickleball", "Thursday, not Wednesday"). Read by `core.keeping`, which tells news
from the fact it replaces, and by the save's report."""

from __future__ import annotations

import re

from engram.core.index_terms import index_term, index_terms
from engram.core.message import plain
from engram.core.text import STOPWORDS, WORD, unlabelled

# The old value a change names: "switched from badminton to pickleball", "We migrated Atlas
# from MySQL to PostgreSQL", "moved from Berlin to Lisbon". Not a trip ("flew from Berlin to
# Lisbon"): a verb of change comes first.
# The verbs that tell a change of value, in both directions below.
_CHANGE_VERBS = (
    r"switched|switching|moved|migrated|migrating|changed|converted|upgraded|downgraded|bumped|"
    r"renamed|transferred|relocated"
)
_FROM_OLD = re.compile(
    rf"\b(?:{_CHANGE_VERBS}|went)\s+(?:[\w'-]+\s+){{0,3}}?from\s+(?:the\s+|my\s+|our\s+)?"
    r"(?P<old>[\w'.+#-]+(?:\s+[\w'.+#-]+){0,2}?)\s+(?:to|for|in favou?r of)\b",
    re.IGNORECASE,
)


# The place a statement says someone left, by its name: "…; leaving Lumen Health", "Sam left
# Northwind", "I quit Siemens", "I got laid off from Shopify".
# An employer left against one's will, or for good (`core.keeping` reads it as a change too).
LEFT_FROM = r"(?:laid\s+off|let\s+go|fired|resigned|retired)\s+from"
_LEFT_OLD = re.compile(
    rf"\b(?:left|leaving|quit|quitting|{LEFT_FROM})"
    r"\s+(?:(?-i:[A-Z])[\w'.&-]*\s+){0,1}?"
    r"(?P<old>(?-i:[A-Z])[\w'.&-]*(?:\s+(?-i:[A-Z])[\w'.&-]*){0,2})",
    re.IGNORECASE,
)


# One put on a thing in place of another, by someone or by the user: "my GP put me on apixaban
# instead of warfarin" leaves warfarin (an eleventh blind probe's: nothing was replaced). Not
# "instead of" alone, which chat says of anything ("order lunch instead of making it",
# REALTALK; `core.keeping` reads this as a change too).
PUT_ON_INSTEAD = (
    r"\b(?:put|switched|moved|changed|started|got)\s+(?:me|us)\s+(?:on|onto)\s+"
    r"(?:[\w'.+#-]+\s+){1,4}?instead\s+of\s+"
)
_PUT_ON_OLD = re.compile(
    # its first word only: "instead of warfarin last month" is of warfarin
    PUT_ON_INSTEAD + r"(?:the\s+|my\s+|our\s+)?(?P<old>[\w'.+#-]+)",
    re.IGNORECASE,
)

# A preference turned from one thing to another: "I prefer tea over coffee these days" leaves
# coffee. Only a word or two on each side: "prefer" starts a clause of its own.
_NOT_OF_A_THING = (
    r"(?!(?:these|now|nowadays|lately|anymore|since|because|and|but|as|at|in|on|for|with)\b)"
)
_PREFERS_OVER = re.compile(
    # the user's own ("I now prefer", "User prefers"), not "many people prefer the Caribbean
    # over Greece", nor "prefer not to sit", nor "you prefer it over coconut oil" (REALTALK)
    r"\b(?:i|we|user)\s+(?:(?:now|actually|really|much|also|definitely)\s+)?"
    r"prefer(?:s|red)?\s+(?!(?:not|to|it|them|this|that|one)\b)"
    r"(?P<new>[\w'-]+(?:\s+[\w'-]+)?)\s+"
    r"(?:over|to|rather than|instead of)\s+(?:the\s+|my\s+)?"
    rf"(?P<old>[\w'-]+(?:\s+{_NOT_OF_A_THING}[\w'-]+)?)",
    re.IGNORECASE,
)


def preference_turned(text: str) -> tuple[str, str] | None:
    """(the thing left, the thing preferred) of a preference between two ("I prefer tea over
    coffee now": coffee, tea), or None."""
    found = _PREFERS_OVER.search(plain(text))
    return None if found is None else (found.group("old"), found.group("new"))


# The user's preference of one kind of a thing: "I prefer window seats" (the thing, "seats",
# after a word or two that say which).
_PREFERS_A_KIND = re.compile(
    r"\b(?:i|we|user)\s+(?:(?:now|actually|really|much|also|definitely)\s+)?prefer(?:s|red)?\s+"
    r"(?:the\s+|a\s+)?(?P<kind>[\w'-]+(?:\s+[\w'-]+){1,2})",
    re.IGNORECASE,
)


def preferred_kind(text: str) -> tuple[str, frozenset[str]] | None:
    """(the thing, the words saying which kind of it) of the user's preference: ("seat",
    {"window"}) of "I prefer window seats now", as index terms; or None."""
    found = _PREFERS_A_KIND.search(plain(text))
    if found is None:
        return None
    words: list[str] = []
    for word in WORD.findall(found.group("kind").lower()):
        if word in STOPWORDS or word in MARKS:
            break
        words.append(index_term(word))
    return (words[-1], frozenset(words[:-1])) if len(words) > 1 else None


def prefers_another_kind(text: str, old: str) -> bool:
    """Whether `text` prefers another kind of the thing `old` prefers a kind of: "I changed
    my mind, I prefer window seats now" of "I prefer aisle seats on long flights" (a twelfth
    blind probe's, 0.51 alike: nothing was replaced, and the aisle answered first)."""
    new, was = preferred_kind(text), preferred_kind(old)
    return new is not None and was is not None and new[0] == was[0] and not new[1] & was[1]


# What will not happen after all: "the vet cancelled Miso's checkup friday", "actually cancel
# Nopa, we're going to Marta's place instead" (a twelfth blind probe's: none replaced the plan,
# which answered first). Only of a thing the fact names, among the words around: chat's "They
# all cancelled" replaced unrelated turns ("What happened to them…"), and "I had go cancel
# cause of the weather" one by the "going" of "It's going good" (REALTALK: 5 and 4 links).
_CALLED_OFF = re.compile(r"\b(?:cancel(?:l?ed|l?ing)?|call(?:ed|ing)? off)\b", re.IGNORECASE)
_AROUND = 4  # words each side of the cancelling word that may name what is called off
# verbs that name no thing: "go", "get", ...
_LIGHT = frozenset(index_term(w) for w in "go get got make take come want need let put".split())


def calls_off(text: str) -> bool:
    """Whether `text` says something will not happen after all (`called_off` says of what)."""
    return _CALLED_OFF.search(text) is not None


def called_off(text: str, old: str) -> bool:
    """Whether `text` calls off a thing `old` names."""
    found = _CALLED_OFF.search(text)
    if found is None:
        return False
    near = WORD.findall(text[: found.start()])[-_AROUND:] + WORD.findall(text[found.end() :])
    named = {
        index_term(word)
        for word in (re.sub(r"['’]s$", "", w.lower()) for w in near[: 2 * _AROUND])
        if word not in STOPWORDS and word not in MARKS and "'" not in word and "’" not in word
    }
    return bool((named - _LIGHT) & fact_terms(old))


# A change said to be made again: "Dr. Okonkwo switched me again", "we moved again".
_AGAIN = re.compile(
    rf"\b(?P<verb>{_CHANGE_VERBS}|switch|move|change|swapped|replaced)\s+(?:[\w'-]+\s+){{0,2}}?"
    r"again\b",
    re.IGNORECASE,
)


def changed_again(text: str, old: str) -> bool:
    """Whether `text` says a change was made again that `old` told the last time, by the same
    verb: "switched me again. Now on losartan" of "the pharmacist switched my blood pressure
    pill… now it's amlodipine". The news named the swelling it ended too, more alike to it, and
    replaced that alone: the amlodipine stood as the pill taken now (a fourteenth blind
    probe's)."""
    found = _AGAIN.search(plain(text))
    return found is not None and index_term(found["verb"].lower()) in index_terms(plain(old))


def named_old_value(text: str) -> str | None:
    """The value a statement of change says it left ("badminton" of "Priya switched from
    badminton to pickleball", "Lumen Health" of "…; leaving Lumen Health"), or None: the
    stored fact holding it is the one replaced, however unlike in meaning ("I play badminton
    on Wednesdays", cosine 0.33 to it)."""
    if "?" in text:
        return None
    said = plain(text)
    found = (
        _FROM_OLD.search(said)
        or _LEFT_OLD.search(said)
        or _PREFERS_OVER.search(said)
        or _DROPPED_OLD.search(said)
        or _PUT_ON_OLD.search(said)
    )
    return _given_up(said) if found is None else found.group("old")


# A thing given up, as the user eats, drinks or takes things: "User stopped eating red meat",
# "quit coffee and switched to green tea", "gave up sugar". Read as any other change, it replaced
# the memory most alike in meaning: the user's shellfish allergy, and "lactose intolerant" (a
# personal assistant's probe). Not an activity given up ("quit teaching", "stopped bouldering":
# the fact says "teacher", "I boulder"), nor a job or a place, which other rules read.
_GAVE_UP_OLD = re.compile(
    r"\b(?:stopped|quit|quitting|gave up|given up|giving up|cut out)\s+"
    r"(?:(?:eating|drinking|taking|using|smoking|buying)\s+)?(?:the\s+|my\s+|our\s+)?"
    r"(?!(?:the|my|our|your|his|her|their|a|an|by|it|that|this|them|being|work|job|jobs|"
    r"position|role|career|school|college|there|here|now|after|before|for|to|at|in|on|when|"
    r"because)\b)"
    r"(?P<old>[a-z][a-z'-]*(?<!ing)(?:\s+[a-z][a-z'-]*(?<!ing))?)\b"
)
# Words after a thing given up that are no part of it: "quit drinking alcohol last year".
_NOT_A_THING = frozenset(
    "last next this every year years week weeks month months today yesterday entirely "
    "altogether completely cold".split()
)


def _given_up(text: str) -> str | None:
    """The thing a statement says was given up (`_GAVE_UP_OLD`), or None."""
    found = _GAVE_UP_OLD.search(text)
    if found is None:
        return None
    first, *rest = found.group("old").split()
    return first if rest and (rest[0] in STOPWORDS or rest[0] in _NOT_A_THING) else found["old"]


# One thing given up for another: "dropped tRPC for plain REST", "We replaced Redis in
# payments-service with an in-process cache" (its place said after it, no part of the value).
# Read as anything else alike, "…dropped tRPC for plain REST…" replaced the project's stack
# note (0.562 alike) and not the tRPC decision (0.560): a coding assistant's probe.
_DROPPED_OLD = re.compile(
    r"\b(?:dropped|ditched|replaced)\s+(?:the\s+|my\s+|our\s+)?"
    r"(?P<old>[\w'.+#-]+(?:\s+(?!(?:in|on|at|for|with|by)\b)[\w'.+#-]+){0,2}?)"
    r"(?:\s+(?:in|on|at)\s+[\w'.+#-]+(?:\s+[\w'.+#-]+)?)?"
    r"\s+(?:for|with|by|in favou?r of)\b",
    re.IGNORECASE,
)


# The value a change says it went to: "Renamed module app.settings to app.config", "Moved
# settings into app.config", "Bumped the project to Python 3.12". A part of a time is no value:
# "deadline moved to end of Q4 2025" goes to Q4 2025, and read as "end" it was already where
# "Atlas deadline is end of Q3 2025" stood, and replaced nothing (an MCP probe).
_TO_NEW = re.compile(
    rf"\b(?:{_CHANGE_VERBS}|updated)\s+(?:[\w'.()-]+\s+){{0,5}}?(?:to|into)\s+"
    # nor is an article: "switched from the Omnipod to a Tandem pump" goes to Tandem, and read
    # as "a" it was already where a note saying "a Dexcom sensor" stood (a fifteenth probe's)
    r"(?:(?:the|my|our|his|her|their|a|an)\s+)?"
    r"(?:(?:the\s+)?(?:end|start|beginning|middle|mid|first|last|second)\s+(?:half\s+)?of\s+"
    r"(?:the\s+)?|(?:early|late|mid)[\s-]+)?"
    # its version too: "Python 3.12" and "Python 3.13" are two values
    r"(?P<new>[\w'+#:/-]+(?:\.[\w'+#:/-]+)*(?:\s+v?\d[\w.]*)?)",
    re.IGNORECASE,
)


def named_new_value(text: str) -> str | None:
    """The value a statement of change says it went to ("app.config" of "Renamed module
    app.settings to app.config"), or None."""
    found = _TO_NEW.search(plain(text))
    return None if found is None else found.group("new")


# A correction naming both values: "the quarterly review is Thursday, not Wednesday", "Anna's
# birthday is May 5, not May 3", "Ana comes in March instead of next week". The old value is a
# word or two (a number with its word; a day or week with the word that says which: "next
# week" was not read, and the visit it moved kept its place above the news, a probe).
_NOT_OLD = re.compile(
    r"(?:,?\s+not|\s+instead of|\s+rather than)\s+(?:the\s+|on\s+|in\s+|at\s+)?"
    r"(?P<old>(?:(?:next|last|this|coming)\s+)?[\w'.:+#/-]+(?:\s+\d[\w.:]*)?)\W*$",
    re.IGNORECASE,
)


def value_swapped(text: str) -> tuple[str, str] | None:
    """The (old, new) values a statement of change names both of, or None: "switched from
    badminton to pickleball" (`named_old_value`, `named_new_value`), "is on Thursday, not
    Wednesday" (the words before "not", as many as the old value has)."""
    said = plain(text)
    old, new = named_old_value(said), named_new_value(said)
    if old is not None and new is not None:
        return old, new
    found = _NOT_OLD.search(said)
    if found is None:
        return None
    before = WORD.findall(said[: found.start()])
    width = len(WORD.findall(found.group("old")))
    if len(before) < width:
        return None
    return found.group("old").rstrip("."), " ".join(before[-width:])


def brought_up_to_date(old: str, news: str) -> str | None:
    """`old` with the value `news` replaces in it swapped for the new one, or None where the
    news names no value `old` holds: merged with "Actually the review is Thursday, not
    Wednesday", "The review with Dana is on Wednesday at 2pm in room 4B" keeps its time and
    room as "… on Thursday at 2pm in room 4B" (a helper's probe: they were lost)."""
    swap = value_swapped(news)
    if swap is None or not holds_value(old, swap[0]):
        return None
    words = r"\W+".join(re.escape(w) for w in WORD.findall(swap[0]))
    found = re.compile(rf"\b{words}\b", re.IGNORECASE)
    return found.sub(lambda _: swap[1], old, count=1) if found.search(old) else None


def holds_value(text: str, value: str) -> bool:
    """Whether `text` holds `value` (`named_old_value`) as whole words, in any form the index
    joins: "I drink three coffees a day" holds the "coffee" of "I changed from coffee to green
    tea"; "trust" does not hold "Rust"."""
    return bool(_held_at(text, value)[1])


def holds_a_part(text: str, value: str) -> bool:
    """`holds_value`, or of a value listing several things ("ESLint and Prettier"), one of
    them: "Replaced ESLint and Prettier with Biome" left what "We use ESLint + Prettier for
    formatting" holds (a thirteenth blind probe's: it was no candidate, and stayed first)."""
    parts = re.split(r"\s*(?:,|\+|&|\band\b)\s*", value, flags=re.IGNORECASE)
    return holds_value(text, value) or any(holds_value(text, part) for part in parts if part)


def _held_at(text: str, value: str) -> tuple[list[str], list[int]]:
    """`text`'s index terms, and where `value`'s run of them starts among them."""
    wanted, held = index_terms(value), index_terms(text)
    n = len(wanted)
    return held, [i for i in range(len(held) - n + 1) if n and held[i : i + n] == wanted]


# What a statement says right before a value it turns down: "Zustand, not Redux Toolkit",
# "instead of Redis", "rather than npm" (as index terms).
_TURNED_DOWN = (("not",), ("never",), ("instead", "of"), ("rather", "than"))


# A correction told by what it is and what it is not: "Acme renews on April 30, not March 31",
# "the deploy freeze is Thursday, not Friday" (a few words on each side).
_NOT_THAT = re.compile(
    rf"([\w'’-]+(?:\s+[\w'’-]+){{0,2}}),?\s+(?:{'|'.join(' '.join(w) for w in _TURNED_DOWN)})\s+"
    r"(?:the\s+|on\s+)?([\w'’-]+(?:\s+[\w'’-]+){0,2})",
    re.IGNORECASE,
)


def corrected_to(text: str) -> tuple[set[str], set[str]] | None:
    """The values a correction says a thing is, and those it says it is not ("April 30, not
    March 31": {april, 30}, {march, 31}, as index terms); None where it says no such pair."""
    for m in _NOT_THAT.finditer(plain(text)):
        said, denied = _values_in(m.group(1)), _values_in(m.group(2))
        if said and denied and not said & denied:
            return said, denied
    return None


def _values_in(words: str) -> set[str]:
    """The numbers and names of a few words, the first too ("March 31", "Friday"); a number
    by its digits alone ("the 3rd" and "2pm" as "3" and "2", as a fact says "September 3",
    "at 2 pm")."""
    found: set[str] = set()
    for w in WORD.findall(words):
        if any(ch.isdigit() for ch in w):
            found.update(re.findall(r"\d+", w))
        elif w[0].isupper() and w.lower() not in STOPWORDS:
            found.add(index_term(w.lower()))
    return found


def affirms_value(text: str, value: str) -> bool:
    """Whether `text` holds `value` (`holds_value`) other than as what it turns down: "Zustand,
    not Redux Toolkit" does not hold the Redux Toolkit of "switched from Zustand to Redux
    Toolkit", and was taken to agree with it (a coding assistant's probe)."""
    held, starts = _held_at(text, value)
    return any(
        not any(tuple(held[max(0, i - len(w)) : i]) == w for w in _TURNED_DOWN) for i in starts
    )


# A save this close to a stored memory that marks any change at all ("Actually, Lisa's birthday
# is September 5, not the 3rd" after "My wife Lisa's birthday is September 3", 0.85-0.93)
# restates that fact with a new value: it supersedes it on `says_a_change`'s words too. On
# REALTALK turn by turn: 121 links instead of 82, R@1 0.319 -> 0.316 (0.85: 92 and 0.319).
# The words that mark a change rather than say the fact: "Emma is 7 now" is "Emma is 6" with 7.
MARKS = frozenset(
    "now actually anymore instead currently still longer no not new sorry oops wrong".split()
)
# A correction's own words, none of the fact: "Oops, I got it wrong: …", "My mistake, …".
_CORRECTING = re.compile(
    r"\b(?:my (?:bad|mistake)|(?:i )?got (?:it|that) wrong|i was wrong|that'?s wrong)\b",
    re.IGNORECASE,
)
# A number written in groups ("06 98 76 54 32", "+1 555 123 4567") is one value.
_GROUPED_NUMBER = re.compile(r"\d+(?:[ .-]\d+){2,}|\d{1,3}(?:,\d{3})+\b")


def _numbers_joined(text: str) -> str:
    return _GROUPED_NUMBER.sub(lambda m: re.sub(r"\D", "", m.group()), text)


def shared_terms(*texts: str) -> set[str]:
    """The words every one of `texts` says, as the index holds them, marks of a change and
    function words aside."""
    found = [fact_terms(plain(t)) for t in texts]
    return set.intersection(*found) if found else set()


def fact_terms(text: str) -> set[str]:
    """Its words as the index holds them, less function words, marks of a change and a
    speaker's label: what a statement says of a fact."""
    said = _CORRECTING.sub(" ", _without_speaker(text))
    said = _numbers_joined(said)
    return {
        index_term(w.group().lower())
        for w in WORD.finditer(said)
        if w.group().lower() not in STOPWORDS and w.group().lower() not in MARKS
    }


def _without_speaker(text: str) -> str:
    """The text less a label naming who speaks ("Kate: …", "Fahim Khan: …") or its kind
    ("Correction: …"); a label of several words not all capitalised says what the fact is
    about and stays: "New phone number: 06 98 76 54 32" lost "phone number"."""
    said = unlabelled(text)
    label = text[: len(text) - len(said)].rstrip(": \t")
    names = label.split()
    if len(names) > 1 and not all(n[:1].isupper() for n in names):
        return text
    return said


def stated_values(text: str) -> set[str]:
    """Its numbers (one of a number written in groups), and its names: words written with a
    capital but at a sentence's start."""
    text = _numbers_joined(_without_speaker(text))
    found = set()
    for w in WORD.finditer(text):
        word = w.group()
        starts = not text[: w.start()].strip() or text[: w.start()].rstrip()[-1] in ".!?:"
        has_digit = any(ch.isdigit() for ch in word)  # "10", "15am", "3rd"
        if has_digit or (word[0].isupper() and not starts and not _is_i(word)):
            found.add(index_term(word.lower()))
    return found


def _is_i(word: str) -> bool:
    return word == "I" or word.startswith(("I'", "I’"))
