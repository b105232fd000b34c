"""A fact told in specifics: the last reading of a message before "none", after
`engram.core.statement`.

The rules and the statement of the user read facts by their words or by their subject ("I",
"my"). A fourth blind probe's users (a farmer, an engineering manager, a daughter caring for
her mother) told most of theirs otherwise, and 29 of 53 were none: of their people ("Ravi goes
on paternity leave from 4 Aug for 6 weeks", "Dafydd's mum Gwen comes to help every
Thursday"), without a subject ("tractor is a 1972 Massey Ferguson 135", "GP is dr hussain at
chapel allerton surgery"), under a label ("her meds: donepezil 5mg at night, …"), or with "we"
after what they do ("Saturdays we do Ludlow market, stall 22"). What those share is what a fact
is made of: names, days, times, amounts, the user's people. A message that holds two kinds of
those and is no question, request, hypothesis, story of a film or book, paste, or work
narrated is read as a fact to keep, as sure as a statement of the user (0.6, for an
assistant to weigh: it is wrong more often than a rule, "We played Catan with Sam and Lea
until 2am"), and last: what the store reads in a message (a name it holds, a fact replaced, a
forget) comes first (`engram.services.activation`).
"""

from __future__ import annotations

import re

from engram.core.entities import extract_entities
from engram.core.intent_words import RELATION, WHEN
from engram.core.message import OPENING_WORDS
from engram.core.questions import tells
from engram.core.statement import NOT_PROSE, STATEMENT_CONFIDENCE, TROUBLE, work_narrated

SPECIFICS_CONFIDENCE = STATEMENT_CONFIDENCE
# A fact is told in a few sentences; a longer message is a story, a paste or a request.
MIN_WORDS, MAX_WORDS = 4, 50
# How many kinds of specifics (`_KINDS`) make a fact.
MIN_KINDS = 2

# A name typed in lower case after a title: "GP is dr hussain" (`extract_entities` reads the
# capitals).
_TITLED = re.compile(r"\b(?:dr|mr|mrs|ms|prof)\.? [a-z]{3,}\b")
# ...or after what introduces one: "the kids childminder is a lady called bev" (a tenth blind
# probe's, none)
_CALLED = re.compile(r"\b(?:called|named) (?P<name>[a-z]{3,})\b")
# A habit's rhythm: "every other weekend", "twice a week", "daily".
_RHYTHM = (
    r"\b(?:every|each) (?:day|week|month|year|morning|evening|night|other)\b"
    r"|\b(?:twice|once|\d+x) (?:a|per) (?:day|week|month|year)\b"
    r"|\b(?:at night|in the (?:morning|evening|afternoon)|mornings|evenings|daily|weekly|"
    r"monthly|nightly)\b"
)
# A day, a date, a time of day, a year, a quarter, a habit's rhythm.
_WHEN = re.compile(
    rf"\b{WHEN}|\b(?:19|20)\d\d\b|\bq[1-4]\b|\b\d{{1,2}}[:.]\d\d\b"
    # a time to come: "subs go up to £3 a session from next month" (a ninth blind probe's)
    r"|\bnext (?:week|month|year|term|season)\b|\btomorrow\b|" + _RHYTHM,
    re.IGNORECASE,
)
_A_RHYTHM = re.compile(_RHYTHM, re.IGNORECASE)
# The other kinds, read in what is left once the times are taken out.
_KINDS: dict[str, re.Pattern[str]] = {
    # an amount or a number: "40 laying hens", "5mg", "stall 22", "07700 900461"
    "amount": re.compile(r"\d", re.IGNORECASE),
    # money, a kind of its own: "salary offer is €52k plus relocation"
    "money": re.compile(r"[$€£¥]\s?\d|\d\s?(?:usd|eur|gbp|dollars|euros|pounds)\b", re.IGNORECASE),
    # the user's people and their roles: "mum", "her GP", "the physio", "my wife"; someone
    # the chat spoke of ("her meds: …")
    "people": re.compile(
        rf"\b(?:{RELATION}s?|mum's|mom's|dad's|gp|physio|vet|nurse|carer|teacher|coach|"
        r"hire|team|manager|skip level|report|reports|he|she|his|her|him|he's|she's|hes|shes|"
        r"they|them|their|they're|theyre)\b",
        re.IGNORECASE,
    ),
    # an address written over by `masked`: "email for the assoc secretary is jan.h@…" (a
    # tenth blind probe's, none)
    "contact": re.compile(r"_{6,}"),
    # the user or their household
    # ("i" of a road, "i-44", is no one)
    "ours": re.compile(
        r"\b(?:i(?![-\d])|i'm|i've|im|ive|me|my|mine|we|we're|we've|us|our|ours)\b", re.IGNORECASE
    ),
}
_NUMBER = re.compile(r"\d[\d,.]*")
# A count told as it stands now, after what changed it: "we lost 3 hens to a fox last night, so
# 37 now", "cut two contractors … runway is now 13 months" are news, not work narrated.
_NOW_AT = re.compile(
    r"\b(?:so|is|are|it's|we're|down to|up to) \d[\d,.]* now\b|\b(?:is|are|at) now \d", re.I
)
# The kinds that make a fact specific: "My cat just knocked my coffee over" holds the user's
# people and the user, and nothing to keep.
_SPECIFIC = frozenset({"when", "amount", "money", "name", "contact"})
# A request of the assistant, or a question without its mark, by what it opens with.
_ASKING = (
    OPENING_WORDS
    + r"(?:can|could|would|will|should|shall|do|does|did|is|are|how|what|why|which|who|where|"
    r"when|whats|hows|wheres|whos|whens|let'?s|help|explain|write|draft|make|create|give|show|"
    r"tell|list|translate|summari[sz]e|generate|fix|find|compare|suggest|recommend|describe|"
    r"calculate|convert|plan|build|design|rewrite|edit|check|review|proofread|send|book(?! club)|"
    r"remind|add|put|set|"
    r"update|change|look|search|read|play|order|call|text|email(?! (?:for|of|address|is)\b)|"
    r"forget|delete|remove|erase)\b"
    r"(?!\s*[:—–-])"
)
# The moment, the weather, and a chat's marks inside it: "I'm so tired tonight. she was up 4
# times", "it's so hot today, 98 degrees, the AC guy is gonna be busy".
_THE_MOMENT = (
    r"|\b(?:i'm|i am|im|so|feeling|feel) (?:so |really |very |super )?(?:stressed|annoyed|"
    r"frustrated|exhausted|upset|angry|furious|sad|anxious|tired)\b"
    r"|\b(?:tonight|right now|at the moment|gonna|wanna|weather|hot|cold|raining|snowing|"
    r"lol|haha\w*|lmao|hope|hoping|vent|venting|rant)\b"
)
_MOMENT = re.compile(_THE_MOMENT[1:], re.IGNORECASE)
# What makes a message with specifics something other than a fact to keep.
_ELSEWHERE = re.compile(
    "^"
    + _ASKING
    # a request or a wish, an opinion, a hypothesis
    + r"|\b(?:i|we)(?:'d| would) (?:like|love)\b|\b(?:i|we) (?:want|need) you\b|\bhelp me\b"
    r"|\b(?:questions?|ask you)\b"
    # an opinion or a doubt
    r"|\b(?:thinks?|thought|guess|believes?|sure|maybe|perhaps|probably|dunno|honestly|imo|"
    r"imho)\b"
    # ...or what one might do, not what someone advised: "coach said my long runs should stay
    # under 32k" is kept (a fifth blind probe's, none)
    r"|(?<!says )(?<!said )\b(?:i|we|you)(?: should|'d| could| would)\b"
    r"|\b(?:should|could|would) (?:i|we|you)\b"
    r"|\b(?:imagine|what if|suppose|hypothetically|pretend|i wonder|wondering)\b"
    r"|\bif (?:i|we|you|he|she|they) (?:had|were|could|won|lost|\w*[^\We]ed)\b"
    # a story of a film, a book, a game or history, or a scene set in a title ("In Hoosiers,
    # Coach Dale makes the team pass four times"); what a quote says ("As Gandalf said, …")
    r"|\b(?:the|this|that|a|an) (?:movie|film|novel|episode|sitcom|show|series|play|"
    r"book(?! club))\b"
    r"|\b(?:characters?|scene|quote|lyrics?|poem|history|historically|famous|"
    r"according to)\b|\bas (?:[\w'-]+ ){1,2}(?:said|says|put it|wrote)\b"
    rf"|^\W*in (?!{WHEN})(?-i:[A-Z])[\w'-]*(?: (?-i:[A-Z])[\w'-]*)*,"
    + _THE_MOMENT
    # remembering and forgetting, which rules of their own read ("Jake paid me back, you can
    # forget about that", "…, pls delete whatever you have about it")
    + r"|\b(?:remember|recall|forget|forgot|forgetting|delete|erase)\b"
    # trouble with the work, or the work itself
    rf"|\b(?:{TROUBLE})\b"
    # (not "class": a teacher's "class trip", a course's "Italian class")
    r"|\b(?:code|function|method|variable|script|endpoint|api|query|commit|branch|"
    r"deploy\w*|server|database|repo|tests|pr|build)\b",
    re.IGNORECASE,
)


def fact_in_specifics(text: str) -> str | None:
    """The specifics `text` (read by `engram.core.message.plain`) holds when it is a fact
    told in them that nothing marks as anything else, joined for an assistant to read ("when,
    people"); else None."""
    words = len(text.split())
    if not MIN_WORDS <= words <= MAX_WORDS or "?" in text or NOT_PROSE.search(text):
        return None
    if _ELSEWHERE.search(text) or (work_narrated(text) and not _NOW_AT.search(text)):
        return None
    # A number that is a time or a year counts once: "it was 2018 not 2019" tells nothing.
    timeless = _WHEN.sub(" ", text)
    kinds = ["when"] if timeless != text else []
    if _A_RHYTHM.search(text) and len({w.group().lower() for w in _WHEN.finditer(text)}) > 1:
        # a schedule: its rhythm and its next day ("home time is every other weekend, next
        # one is the 22nd", an eighth blind probe's)
        kinds.append("another when")
    kinds += [kind for kind, pattern in _KINDS.items() if pattern.search(timeless)]
    if len(set(_NUMBER.findall(timeless))) > 1:  # "basic service is £65 and full service £120"
        kinds.append("another amount")
    names = {name.lower() for name in extract_entities(text)}
    names.update(found.group().lower() for found in _TITLED.finditer(text))
    names.update(found["name"] for found in _CALLED.finditer(text))
    kinds += ["name", "another name"][: len(names)]
    if len(kinds) < MIN_KINDS or not _SPECIFIC.intersection(kinds):
        return None
    return ", ".join(kinds)


# A request for work and the fact it needs, in one message: "can u write a short bday msg for
# lucia, shes turning 8 on friday", "could you draft the letter to parents about the trip? it's
# £8 per child", "Book club is reading Demon Copperhead and I'm hosting on the 18th, could you
# suggest some questions?" (an eighth blind probe's: 4 of its 9 missed saves). Its parts end at
# a sentence's end, a comma or a dash.
_PART_END = re.compile(r"(?<=[.!?])\s+|,\s+|\s+[—–-]\s+")
_ASKING_PART = re.compile(_ASKING, re.IGNORECASE)
_A_QUESTION = re.compile(
    OPENING_WORDS + r"(?:how|what|why|which|who|where|when|whats|hows|wheres|whos|whens|is|are"
    r"|do|does|did|should|shall)\b",
    re.IGNORECASE,
)
# A fact told after the request speaks of what the request names ("shes", "it's"): it is kept
# with the request.
_POINTS_BACK = re.compile(
    r"\W*(?:she|he|it|they|shes|hes|its|theyre|she's|he's|it's|they're|this|that)\b", re.I
)


def fact_beside_a_request(text: str) -> tuple[str, str] | None:
    """The specifics and the part of `text` (read by `engram.core.message.plain`) to keep, when
    a part of it asks the assistant for something and the part before or after that request
    is a fact told in specifics; else None. The part after a request is kept with it when it
    points back to what the request names."""
    if len(text.split()) > MAX_WORDS or _MOMENT.search(text):
        return None  # "what should I cook tonight, we have 4 people coming at 7"
    starts = [0, *(end.end() for end in _PART_END.finditer(text)), len(text)]
    asking = [i for i, at in enumerate(starts[:-1]) if _ASKING_PART.match(text, at)]
    if not asking:
        return None
    first = asking[0]
    if first > 0:
        told = text[: starts[first]].rstrip(" ,—–-")
        kinds = fact_in_specifics(told) if tells(told) else None
        return None if kinds is None else (kinds, told)
    if _A_QUESTION.match(text):
        return None  # a fact after a question poses it: "What is 2+2? I have 3 apples"
    after = [i for i in asking if i > 0]
    end = starts[after[0]] if after else len(text)
    told = text[starts[1] : end].rstrip(" ,—–-")
    kinds = fact_in_specifics(told) if told else None
    if kinds is None or not {"people", "ours", "when"} & set(kinds.split(", ")):
        # after the request, a fact of the user or their people, or of a day; the rest is the
        # task's ("write me a polite email to a GP surgery …, dose was written as 50mg but the
        # tablet only comes in 25 and 100": a tenth blind probe's wrong save)
        return None
    return kinds, (text[:end].rstrip(" ,—–-") if _POINTS_BACK.match(told) else told)
