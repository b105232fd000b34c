"""Where a question stands in a message, beside what a rule of `engram.core.intent` matched:
a confirmation inside a question confirms nothing ("Is that still true?"), and a fact followed
by a question of its own may be help asked about it rather than something to keep ("I always
forget semicolons, any tips?")."""

from __future__ import annotations

import re

from engram.core.text import short_query, statements, unlabelled


def asked_about(text: str, found: re.Match[str]) -> bool:
    """The match is part of a question: its clause ends with "?" ("Is that still true?").
    A question after a comma, a dash or in brackets is another clause: "That's right, and can
    you also suggest a linter?" confirms first."""
    if found.group().rstrip()[-1:] in ",;:—-":  # "That's right," ended its own clause
        return False
    end = re.search(r"[.!?,;(—]", text[found.end() :])
    return end is not None and end.group() == "?"


def is_plain_question(text: str) -> bool:
    return text.rstrip().endswith("?")


# A question of at most this many words asks and tells little ("the knee?", "is the flat near
# the station?"); a longer one usually tells what it asks about ("I'm going to Tokyo in May and
# need a quiet hotel near Shinjuku, any ideas?"). 10 to 30 measured alike (docs/search.md, 1f).
ASKING_WORDS = 20
# People texting often leave the mark out ("wait who's alba", "how's amira"): one sentence
# opening with one of these words asks too, after a word that only leads in. Not "is", "has",
# "will": an assistant's notes leave out their subject ("Has a Border Collie named Biscuit",
# "Will move to Zurich in September") and were read as questions.
QUESTION_OPENERS = frozenset(
    "who what when where why how which whose who's what's when's where's why's how's"
    # typed without the apostrophe: "whats the plumbers number"
    " whos whats whens wheres hows".split()
)
LEAD_INS = frozenset("wait so and but ok okay oh hey also lol omg".split())
# ... or asking after news with "any", as friends text: "any dating news", "any luck with the
# landlord", "any plans this weekend" (a blind probe's "any dating news" lent its reply no
# credit). Only these nouns: "Any dairy gives her hives" tells.
_ANY_NEWS = (
    r"(?:any\s+(?:[\w'’]+\s+){0,2}?"
    r"(?:news|luck|updates?|plans?|word|progress|ideas?|thoughts|tips|recs|suggestions)"
    r"|any(?:thing|one|body)\s+new)"
)
_OPENS_ASKING = re.compile(
    rf"(?:(?:{'|'.join(sorted(LEAD_INS))})\W+)*"
    rf"(?:{'|'.join(sorted(QUESTION_OPENERS))}|{_ANY_NEWS})(?![\w'’])",
    re.IGNORECASE,
)


# A question put after a statement in one sentence tells first: "Noor doesn't eat pork for
# religious reasons, is Portuguese food going to be hard?", "I was thinking of joining a book
# club, what do you think?". The clause before the comma tells when it holds at least
# TELLING_WORDS words and does not open as a question, a lead-in or a case does ("Hey Sam, did
# you go?" greets; "If I move in May, will I lose my deposit?" asks of a case).
TELLING_WORDS = 5
_ASKS = (
    "is are am was were do does did has have had can could should would will shall may might "
    "must any isn't aren't wasn't weren't don't doesn't didn't hasn't haven't can't couldn't "
    "shouldn't wouldn't won't"
).split()
_CASES = (
    "if when while since because as although though unless after before once until apart "
    "besides aside other"
).split()
_ASKING = rf"(?:{'|'.join(sorted({*QUESTION_OPENERS, *_ASKS}, key=len, reverse=True))})(?![\w'])"
_TOLD_THEN_ASKED = re.compile(
    rf"^(?P<told>[^,?]+),\s*(?:(?:and|but|so|or)\s+)?(?P<asked>{_ASKING}[^,]*\?+)\s*$", re.I
)
_NOT_TELLING = re.compile(
    rf"^\W*(?:(?:{'|'.join(sorted({*LEAD_INS, *_CASES}))})(?![\w'])|{_ASKING})", re.I
)


# A question after what a message told, in the same sentence or the next: "My brother Minh has
# his entrance exam in June… do you have tips how I can support him?", "rent is going up to
# £1,450 a month from August, is that even legal?" (a fifth blind probe's facts, none).
_ASKED_AFTER = re.compile(
    rf"(?:[.!…]+\s+|,\s*|\s+[-—–]+\s+)(?:(?:and|but|so|or|also)\s+)?{_ASKING}[^?]*\?", re.I
)
# What a clause that tells has and a topic has not: a verb, roughly (a plural passes too).
_SAYS = re.compile(
    r"\b(?:is|are|was|were|am|has|have|had|will|do|does|did|can|got|\w+ed"
    r"|(?!(?:this|his|its|yes|us|as|plus|less|across|always|perhaps|news)\b)\w+s)\b"
    r"|'(?:s|re|ve|m|ll|d)\b",
    re.I,
)
# A message longer than this is not read for what it told before asking: a fact is told in a
# sentence or two.
TOLD_WORDS = 60


def told_before_asking(text: str) -> str | None:
    """What `text` told before its first question, where that question opens a clause after
    it; None where it asks from the start, asks nothing, or is long."""
    if "?" not in text or len(text.split()) > TOLD_WORDS:
        return None
    found = _ASKED_AFTER.search(text)
    if found is None or "?" in text[: found.start()]:
        return None
    told = text[: found.start()].strip()
    return told if tells(told) else None


def tells(clause: str) -> bool:
    """Whether a clause tells something, roughly: it has a verb. A topic before a question or
    a request tells nothing ("Tour de France this year - who's favourite?")."""
    return _SAYS.search(clause) is not None


# What may follow a question and say why it is asked: a short clause, no question of its own.
_REASON_WORDS = 16


def asked_then_told(text: str) -> str | None:
    """The question a message opens with where a short clause that asks nothing follows it
    ("what's my shift pattern now? want to book a haircut" asks "what's my shift pattern
    now?"); None otherwise."""
    end = text.find("?")
    if end < 0:
        return None
    rest = text[end + 1 :].strip()
    if not rest or "?" in rest or len(rest.split()) > _REASON_WORDS:
        return None
    return text[: end + 1]


def told_then_asked(sentence: str) -> str | None:
    """The question of a sentence that tells before it asks ("Noor doesn't eat pork, is
    Portuguese food going to be hard?" asks "is Portuguese food going to be hard?"); None for
    any other sentence."""
    found = _TOLD_THEN_ASKED.match(sentence.strip().replace("’", "'"))
    if found is None:
        return None
    told = found.group("told")
    if len(told.split()) < TELLING_WORDS or _NOT_TELLING.match(told):
        return None
    return found.group("asked")


def only_asks(text: str) -> bool:
    """A short question: what a memory search looks for was told, and such a turn shares the
    words of the question put to the search more than the reply that answers it does. One
    ending in "?", unless its last sentence tells before it asks (`told_then_asked`); or,
    without the mark, one sentence opening with a question word, not an exclamation ("what a
    day!")."""
    if len(text.split()) > ASKING_WORDS:
        return False
    if is_plain_question(text):
        last = statements(unlabelled(text))[-1:]
        return not last or told_then_asked(last[0]) is None
    said = unlabelled(text).strip().replace("’", "'")
    opens = _OPENS_ASKING.match(said) is not None  # first: the cheap test rules out most
    return opens and not said.endswith("!") and len(statements(said)) == 1


def asks_for_a_reply(text: str) -> bool:
    """A turn the next one answers: one that ends by asking, however much it told before
    ("Things are hectic but good … What is your thesis about?"), or a short question without
    its mark (`only_asks`)."""
    return is_plain_question(text) or only_asks(text)


# A question of how many, how much, how long, how old, how often or how far: its answer
# counts ("we have three kids", "$300 a month", "2 hrs"), and shares few words with it.
_ASKS_AN_AMOUNT = re.compile(
    rf"(?:^|[.!?]\s)\W*(?:(?:{'|'.join(sorted(LEAD_INS))})\W+)*"
    r"how (?:many|much|long|old|often|far)\b",
    re.IGNORECASE,
)
_SAYS_AN_AMOUNT = re.compile(
    r"\d|[$£€%]|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen"
    r"|twenty|thirty|forty|fifty|hundred|thousand|million|dozen|couple|once|twice|half"
    r"|a few|several)\b",
    re.IGNORECASE,
)


def asks_an_amount(text: str) -> bool:
    return _ASKS_AN_AMOUNT.search(text) is not None


def says_an_amount(text: str) -> bool:
    """A number in figures or words, a currency or a share: what answers `asks_an_amount`."""
    return _SAYS_AN_AMOUNT.search(text) is not None


# A question about the whole span of what was said ("What pets has Margot had over the course
# of the year?", "Where has Ayesha worked during these conversations?", "…so far?") names the
# span, not anything in it: searched as words, "year" found "Happy new year!" first and
# "course" an "of course" (bench/data/multi_evidence), and the phrase drew the query's
# meaning away from the pets. Read only in a short question (a long message narrates: "It
# flew so far!"); "last year" or "in 2023" name a time and are kept.
_WHOLE_SPAN = re.compile(
    r"\b(?:(?:over|during|throughout|across)\s+(?:the\s+)?(?:course\s+of\s+)?"
    r"(?:the|this|these|those|our|their)?\s*(?:(?:past|whole|entire)\s+)?"
    r"(?:year|years|months|conversations?|chats?|time)|this\s+year|all\s+along|"
    r"so\s+far(?=\s*[?.!,]|\s*$))\b",
    re.IGNORECASE,
)
# ... and a question asking how something changed asks it by a verb that names no content
# ("How did Biscuit's health change?", "How did the renovation progress?", "…play out?"):
# searched as a word, "change" found "I made a little change – I cut my hair!". Left out of
# the words of such a question, kept in its meaning.
_HOW_IT_WENT = re.compile(
    r"\b(?:chang|progress|evolv|develop|turn(?:ed)? out|play(?:ed)? out|"
    r"c[oa]me along|went|go(?:ne|ing)?)(?:e|es|ed|ing|s)?\b",
    re.IGNORECASE,
)
_HOW = re.compile(r"^\W*how\b", re.IGNORECASE)


def without_the_span(text: str) -> str:
    """`text` without the words naming the whole span of the record ("over the year",
    "during these conversations", "so far"), when it is a short question."""
    if not short_query(text):
        return text
    return _WHOLE_SPAN.sub(" ", text)


def without_asking_how_it_went(text: str) -> str:
    """`text` without the verb a short how-question asks a change by ("How did X change /
    progress / go?"): what it is searched by as words."""
    if not short_query(text) or not _HOW.match(text):
        return text
    return _HOW_IT_WENT.sub(" ", text)


# Save rules at least this confident are explicit asks (remember, don't forget, note).
ASKED_TO_SAVE = 0.9


def asks_for_help(text: str, tag: str | None, found: re.Match[str]) -> bool:
    """The message asks something about what it says ("I always forget semicolons, any
    tips?", "It's important to write tests. How do I start?"). A fact about the user said
    before a question is still one: "I'm allergic to peanuts. What can I cook tonight?" was
    nothing to save because the message ended with "?"; for those, only a question in the
    fact's own sentence counts."""
    if tag not in ABOUT_THE_USER:
        return is_plain_question(text)
    end = re.search(r"[.!?]", text[found.end() :])
    return end is not None and end.group() == "?"


_QUESTION_START = re.compile(
    r"\W*(?:what|how|which|where|when|who|whom|whose|why|should|shall|can|could|would|will|"
    r"do|does|did|is|are|am)\b",
    re.IGNORECASE,
)


def question_follows(text: str, found: re.Match[str]) -> bool:
    """What follows the match opens with a question word and its sentence ends with "?"."""
    rest = text[found.end() :]
    end = re.search(r"[.!?]", rest)
    return _QUESTION_START.match(rest) is not None and end is not None and end.group() == "?"


# Words of a question that asks for advice or help, not for something said before.
ADVICE = r"should|shall|can|could|would|need|needs|best|better|recommend|suggest|ideas?|tips?"

# The save rules that read a fact about the user: worth keeping whatever is asked after it.
ABOUT_THE_USER = frozenset({"personal", "decision", "preference"})


_VERB = r"(?:'s| is| are| was| were| does| do| did| has| have| will)"
# What asks of a thing named last: "Who is Sarah Chen?", "How's Biscuit?", "What's going on
# with Biscuit?", "Tell me everything about Meera" (a probe); not "Where is Porto?".
_ABOUT = (
    r"who(?:'?s| is| was)|how(?:'?s| is)|how (?:old|tall|big) is|"
    r"tell me (?:everything |more |all )?about"
    r"|what do (?:you|we|i) know about|what(?:'s| is) (?:going on|new|up) with"
)
# What a question about a name opens with: a question word and its verb, or the verb alone.
_ASKS_OF = (
    r"^\W*(?:(?:what|where|when|which|how|why|who)(?:s\b|" + _VERB + ")|is|are|was|were|does|do|did"
    r"|has|have|will|" + _ABOUT + "|"
    # "What sport does Priya play?", "How many kids does Tom have?", "How old is Priya's
    # daughter?" (a probe), "What types of sports did Kevin do?" (REALTALK)
    r"(?:what|which|how many)(?:\s+[\w'-]+){1,3}?" + _VERB + "|"
    # "How much does Ana make?" (a blind probe's: none, her pay stored)
    r"how much(?:\s+[\w'-]+){0,3}?" + _VERB + "|"
    r"how (?:old|tall|long|far|big)" + _VERB + r")\s+(?:the\s+)?"
)
# Questions that name something only to ask how to do a thing, for advice, to compare, or the
# time somewhere ("How do I exit Neovim?", "Is Python faster than JavaScript?").
_HOW_TO_OR_WHICH = r"how (?:do|can|does|did) (?:i|you|we|one)|how to|than|vs|versus"
_NOT_OF_IT = re.compile(rf"\b(?:{ADVICE}|{_HOW_TO_OR_WHICH}|what time)\b", re.IGNORECASE)


# What a question asks that memory does not answer, whatever it names: advice, an opinion
# ("what do u reckon, are letting agents worth it", "is it normal for a 9 yr old to get heel
# pain": a ninth blind probe's), how to, which of two, or work of the assistant ("can you
# figure out miles from joplin to laredo"). Not "need": "when do i need to renew my
# registration" asks of the user's own deadline.
_NOT_FROM_MEMORY = re.compile(
    rf"\b(?:recommend|suggest|should|best|better|reckon|think|worth|opinion|normal|legal|advice"
    rf"|{_HOW_TO_OR_WHICH})\b"
    r"|^\W*(?:(?:hey|hi|ok|okay|so|pls|please)\W+)*(?:can|could|would|will) (?:you|u)\b",
    re.IGNORECASE,
)


def asks_no_memory(question: str) -> bool:
    """Whether a question asks what memory does not answer (`_NOT_FROM_MEMORY`)."""
    return _NOT_FROM_MEMORY.search(question) is not None


def asks_about(text: str, name: str) -> bool:
    """Whether a question asks something of `name`, the name as its subject: "Is Lisa still
    vegetarian?", "When is Max's recital?", "How is Atlas going?", "Who is Sarah Chen?",
    "Tell me about Meera", "What sport does Priya play?"; not "Where is Porto?" (what a map
    says), "What's new in PostgreSQL 16?", "How do I exit Neovim?" or "Is Python faster than
    JavaScript?" (a helper's probe: these were read as recalls because the store knew the
    name)."""
    if _NOT_OF_IT.search(text):
        return False
    named = re.escape(name)
    if re.match(rf"^\W*(?:{_ABOUT})\s+(?:the\s+)?{named}\W*$", text, re.IGNORECASE):
        return True  # "Tell me everything about Meera." asks without a question mark
    if not is_plain_question(text):
        return False
    # Something is asked of the name: words follow it, or it owns what is asked ("Max's").
    return re.match(rf"{_ASKS_OF}{named}(?:'s\b|\s+\w)", text, re.IGNORECASE) is not None


# When or where something definite is: "When is the launch?", "Where's the design review?",
# "What's the date of the Q3 launch?". Known to the store, it is something of the user's world
# (`ActivationService`): the rules read "When is the launch?" as a question about the world,
# and said none at 0.9 to a store holding "The Q3 design system launch is set for September
# 15" (an MCP probe); "When is the next full moon?" stays none in a store that never spoke of
# the moon.
_A_THING = re.compile(
    r"^\W*(?:(?:when|what (?:day|date|time))(?:'?s| is| was| are| were| will be)(?: the)?"
    r"|where(?:'?s| is| was| are| were| will be) the"  # "Where is Porto?" asks a map
    r"|what(?:'?s| is| was) the (?:date|time|day|place) (?:of|for) the)"
    r" (?P<thing>\w[\w' -]*?)\W*\?\s*$",
    re.IGNORECASE,
)


def thing_asked_of(text: str) -> str | None:
    """The definite thing a question asks when or where of, if that is what it asks."""
    return _group_matched(_A_THING, text, "thing")


def _group_matched(pattern: re.Pattern[str], text: str, group: str) -> str | None:
    found = pattern.match(text)
    return None if found is None else found.group(group)


# A question for what someone or something is called: "…'s name?", "…called again?", "the
# names of my cats". The answer names it ("My wife Lisa…"): the word "name" found "My name is
# Daniel" and "a golden retriever named Biscuit" above her (a helper's probe).
_ASKS_A_NAME = re.compile(r"\b(?:names?|called)\W*(?:again)?\W*$|\bthe names? of\b", re.IGNORECASE)
_NAMING = re.compile(r"\b(?:the )?(?:names?|called)(?: of)?\b", re.IGNORECASE)


def without_naming(text: str) -> str:
    """`text` less the words that ask for a name, if it asks for one ("What's my wife's name
    again?" → "What's my wife's again?"); as it was otherwise ("Did I name the repo?")."""
    return _NAMING.sub(" ", text) if _ASKS_A_NAME.search(text) else text


# A statement asked back by a tag at its end: "Ruby is 9 now isn't she?", "the dentist is on
# the 15th, right?". The user checks a fact, and only what was told can answer it.
_TAG = re.compile(
    r"[\s,]+(?:(?:is|are|was|were|does|do|did|has|have|had|wo|ca|would|should|could)n['’]?t"
    r"|right|correct|yeah|no|innit|eh)(?:\s+(?:it|he|she|they|we|i|you|there))?\s*\?\s*$",
    re.IGNORECASE,
)
# How far from its end a message is read for its tag: the tag is a few words.
_TAG_READ = 40


def tagged_statement(text: str) -> str | None:
    """The statement a question tag asks back ("Ruby is 9 now" of "Ruby is 9 now isn't
    she?"), or None: a message opening as a question is one already ("Is it Tuesday, right?"),
    and a tag after one word asks nothing ("Right?")."""
    found = _TAG.search(text, max(len(text) - _TAG_READ, 0))
    if found is None:
        return None
    said = text[: found.start()].strip()
    first = said.split()[0].lower() if said else ""
    if len(said.split()) < 2 or "?" in said or first in _ASKS or _OPENS_ASKING.match(said):
        return None
    return said


# A thing asked for by its name alone: "launch date pls", "the wifi password?", "gate code
# again?". Only memory answers it when the store holds those words together (the service's to
# say); "coffee please" asks the moment. Not a request opening with its verb ("save this
# pls", "help please").
_FRAGMENT = re.compile(
    r"^\W*(?:(?:the|my|our|his|her|their)\s+)?(?P<thing>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s*,?\s*"
    r"(?:(?:pls|plz|please|again)\b|\?)[\s?!.]*(?:(?:pls|plz|please)\b[\s?!.]*)?$",
    re.IGNORECASE,
)
_REQUEST_VERBS = frozenset(
    """save remember forget delete remove remind note help stop continue go do try check send
    show tell give keep update add write draft make fix explain thanks thank yes no ok okay
    sure yeah yep nope sorry""".split()
)


def thing_named_alone(text: str) -> str | None:
    """The thing a message asks for by naming it alone, or None (`_FRAGMENT`)."""
    found = _FRAGMENT.match(text)
    if found is None:
        return None
    thing = found.group("thing")
    first = thing.split()[0].lower()
    asks = first in _REQUEST_VERBS or first in QUESTION_OPENERS or first in _ASKS
    return None if asks else thing


# A topic, then what is asked of it: "pickle's vet appt - what time was it", "mum's birthday:
# what did she want again" (an eighth blind probe's: none, the appointment stored). The store
# says whether the topic is its (the service's to read).
_TOPIC_THEN_ASKED = re.compile(
    r"^\W*(?P<topic>\w[\w' ]{2,40}?)\s*[-—–:]\s+(?:what|when|where|which|who|how)\b"
    r"[^?]{0,60}\??\s*$",
    re.IGNORECASE,
)


def topic_then_asked(text: str) -> str | None:
    """The topic a message names before asking of it, or None (`_TOPIC_THEN_ASKED`)."""
    return _group_matched(_TOPIC_THEN_ASKED, text, "topic")
