"""How a user's message is read before any rule looks at it: one space between words, plain
apostrophes, and the words that may open it before what it says."""

from __future__ import annotations

import re

# How many of the words below may open a message, one after another.
MOST_OPENING_WORDS = 6
# Words that may open a message before what it asks ("Hey, remember that …", "So you remember
# my dog?"): one list for every rule that reads a message's start. The marks before them are
# read once (`\W*+`): given back one by one, each rule reading a message of marks ("!!!…")
# tried every opening word after each (0.6 s at 49,000 characters, 0.16 s now).
OPENING_WORDS = (
    # ("actually" too: "actually forget the wasp sting thing, …", a blind probe's, none)
    r"\W*+(?:(?:please|pls|plz|also|ok|okay|and|oh|but|hey|hi|btw|by the way|just|so|fyi|"
    r"actually)\W+"
    # news announced before it is told: "Big news: we moved to Berlin!", "Update: I now write
    # Rust at work" were none (a probe); only with its mark ("Update the README" is a task)
    r"|(?:(?:big|great|good|some|exciting|sad|bad|quick|small|little) )?(?:news|update|intro)"
    r"\s*[:!,—–-]\W*"
    # a correction's apology before what it corrects: "Sorry, Anna's birthday is May 5", "No,
    # that's wrong: …", "Oops, I got it wrong: …" were none (a helper's probe)
    r"|(?:sorry|oops|my bad|my mistake|wait)\W+"
    # a chat's lead-in before the news: "Guess what? We sold the house!", "Quick thing: Lucas
    # is allergic to tree nuts" were none (a blind probe)
    r"|(?:guess what|quick thing|quick one|fun fact|heads up|random thought)\s*[?:!,—–-]\W*"
    # the user's lapse before the question it asks: "I forgot, which language am I learning?"
    r"|(?:i forgot|i forget|i can'?t remember)\s*[,:—–-]\W*"
    r"|(?:no\W+)?(?:that's (?:wrong|not right)|i got (?:it|that) wrong|i was wrong)\s*[:!,—–-]\W*)"
    # a few at most: "Oh, and btw, sorry, …". Any number made each rule that reads on to the
    # message's end try again after each, and "hi btw " × 7,000 took 25 s to read (a probe).
    rf"{{0,{MOST_OPENING_WORDS}}}"
)
OPENERS = "^" + OPENING_WORDS
# What frames a request made of the assistant, before its verb: "You should remember …", "I
# want you to forget …", "Make sure to …", "Can you …". One list for the rules that read a
# request to keep and a request to drop: "Can you forget what I said about my phone number?"
# was a recall of the very memory the user set aside (a probe).
REQUEST_FRAME = (
    r"(?:you(?: should| must| need to| have to| might want to| may want to|'ll want to"
    r"| will want to)|i(?: want|'d like| would like| need) you to|(?:please )?make sure (?:to|you)"
    r"|be sure to"
    # "you can forget the gym membership" (a blind probe's, read as nothing)
    r"|you can|you may|feel free to"
    r"|try to|(?:can|could|would|will) you)(?: please)? "
)

# Ways to ask to keep what was said, written once for the rule that reads the request
# (`core.intent_rules`) and the step that leaves it out of what is kept (`core.keep_request`).
KEEP_IN_MIND = r"keep (?:this|that|it) in mind"
KEEP_FOR_LATER = r"(?:save|store|keep) (?:this|that) for (?:later|me|the future)"
SAVE_THIS = r"(?:save|store) (?:this|that)(?: (?:to|in) (?:your )?memory)?"

# Typographic apostrophes (phones and macOS type them): every rule spells the plain one.
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})


# Web and email addresses: data, not words. A "?" in a link's query made "My website is
# https://dana.dev/about?x=1" a question, its parameters were names ("orgId"), and a word in a
# path ("…/critical-alerts") marked importance. Each alternative starts at a fixed prefix or at
# the start of a run of address characters, so a search reads a long message once.
_ADDRESS = re.compile(
    r"\b(?:https?|ftp)://[^\s<>\"'`]+|\bwww\.[^\s<>\"'`]+"
    r"|(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+",
    re.IGNORECASE,
)
# What ends the sentence after a link rather than the link: "see https://x.dev/a."
_AFTER_LINK = ".,;:!?)]}'\""


def masked(text: str) -> str:
    """`text` with every web and email address written over with "_", one for one: positions
    stay, no rule reads a link's "?", "=" or words, and no name is read from it."""

    def over(found: re.Match[str]) -> str:
        address = found.group()
        kept = address.rstrip(_AFTER_LINK)
        return "_" * len(kept) + address[len(kept) :]

    return _ADDRESS.sub(over, text)


def readable(message: str) -> str:
    """`message` with plain apostrophes and its links masked, one character for one: a
    position in it is one in the message."""
    return masked(message.translate(_APOSTROPHES))


def flattened(read: str) -> tuple[str, list[int]]:
    """`read` (from `readable`) with one space between words, as the rules read it, and where
    each of its characters stands in `read`: a rule reads one space between words, while what
    is kept of a message keeps its line breaks and spacing (a list or a YAML block was saved
    on one line)."""
    flat: list[str] = []
    at: list[int] = []
    for word in re.finditer(r"\S+", read):
        if flat:
            flat.append(" ")
            at.append(word.start() - 1)  # the space stands for the blank before the word
        flat.append(word.group())
        at.extend(range(word.start(), word.end()))
    return "".join(flat), at


def plain(message: str) -> str:
    """The message as the rules read it: one space between words, plain apostrophes. Each
    replacement is one character for one, so a position in it is one in the spaced message."""
    return " ".join(message.split()).translate(_APOSTROPHES)


# A message that opens as a question does: a question word, perhaps a few words ("how many
# kids", "which cloud region"), a verb and its subject ("what's my…", "where do we…", "when
# does Theo…"); a verb before its subject ("is my…", "did I…"); "who walks our dog". After a
# comma only what/where/when/how with its verb: ", who is my manager" is a relative clause.
_VERB = r"(?:is|are|was|were|do|does|did|have|has|had|am|can|could|should|would|will)"
_SUBJECT = r"(?:(?i:i|we|you|my|our|your|the|that|this|it)\b|(?-i:[A-Z])[\w-]*)"
_NOT_A_SUBJECT = r"(?!(?:i|we|you|he|she|they|it)\b)"
_ASKS = re.compile(
    rf"{OPENERS}(?:(?:what|which|where|when|who|whose|how)(?:'?s|'re|'ve|'ll|'d"
    rf"|(?: [\w'-]+){{0,4}}? {_VERB}) {_SUBJECT}|{_VERB} (?:i|we|you|my|our)\b"
    r"|who \w+s (?:\w+ )?(?:my|our|me)\b)"
    rf"|[,;:] (?:what|where|when|how)(?:'s| {_VERB}) {_SUBJECT}[^.!?,;:]*$"
    # a short one whose subject is any word: "what time is standup", "when is dinner" (a probe),
    # "what's mum after for her birthday", "whats mateo got going on tues/thurs" (an eighth)
    rf"|{OPENERS}(?:what|where|when|who)(?: time| day)?(?:'?s| is| are| was| were)"
    r"(?: [\w'/-]+){1,6}\s*$"
    # …or whose verb is any: "who takes mum on sundays", "what music calms mum down", "how
    # much does tyler pay", "when does priya start" (blind probes', none); not "what a mess
    # this is", "What I did today was great"
    rf"|{OPENERS}(?:(?:what|which)(?! an?\b)(?: {_NOT_A_SUBJECT}[\w'-]+)?|who|when|where"
    rf"|how (?:much|many|often|long|old)(?: {_NOT_A_SUBJECT}[\w'-]+)?) (?:[\w'-]+s|does|do|did)"
    # "when does the fixed rate run out on the clifton one" (a ninth blind probe's)
    r"(?: [\w'-]+){1,8}\s*$"
    # a verb first and "still": "does mr hargreaves still come on thursdays" (the same probe's)
    rf"|{OPENERS}(?:does|do|did|is|are|has|have|was|were) (?:[\w'-]+ ){{1,4}}still\b"
    # a short one of any form, of a thing or a day, not of someone doing it: "when and where is
    # the wedding", "how much is a big dog now", "what blade for a westie's body" (an eleventh
    # blind probe's); not "what a day", "when I was a kid I lived in Oslo"
    rf"|{OPENERS}(?:what|when|where|which|how (?:much|many|long|often|old))(?:'?s)?"
    r"(?: and (?:what|when|where|how|who))?(?! (?:an?|i|we|you|he|she|they)\b)"
    r"(?: [\w'/-]+){1,7}\s*$",
    re.IGNORECASE,
)
# …or ends asking for ideas: "I always forget semicolons, any tips".
_ASKS_AT_END = re.compile(
    r"\bany (?:tips|ideas?|idea why|suggestions|advice|thoughts|recommendations)\W*$",
    re.IGNORECASE,
)


# What a chat message may end with that says nothing of it: "I'm Tomas btw", "I hate cilantro
# fyi", "…lol", "…man" (a blind probe's "I'm Tomas btw" was none, "I'm Tomas" a save).
_TAIL = re.compile(
    r"(?:[\s,;.!—–-]+(?:btw|by the way|fyi|lol|haha+|lmao|tbh|just so you know|for the record|"
    # "i'm so tired man" was a save (a third blind probe's)
    r"man|dude|bro))+"
    r"\s*([.!?]*)\s*$",
    re.IGNORECASE,
)


# How far from its end a message is read for those words: a search over all of it tried the
# repeated words from every position ("hi btw " × 7,000: minutes).
TAIL_READ = 80


def without_tail(text: str) -> str:
    """`text` without the chat words it ends with (`_TAIL`), its closing mark kept: what is
    left stands where it stood, so a position in it is one in `text`."""
    cut = max(len(text) - TAIL_READ, 0)
    return text[:cut] + _TAIL.sub(r"\1", text[cut:])


def asked(text: str) -> str:
    """`text`, with the "?" a chat message often leaves out when it opens as a question and
    ends without any mark: "what's my favourite color" asks, it is not a preference to keep,
    and the rules know a question by its "?". Positions in `text` stay the same."""
    if text.rstrip()[-1:] in ("?", ".", "!", ":", ";"):
        return text
    if not _ASKS.search(text) and not _ASKS_AT_END.search(text):
        return text
    return text.rstrip() + "?"


def not_after(*words: str) -> str:
    """Lookbehinds: what follows is not preceded by any of `words` and a space."""
    return "".join(f"(?<!{re.escape(w)} )" for w in words)


# A negation, and the words that may stand between it and what it denies: "not really that
# critical", "not a critical issue", "doesn't seem important", "not at all urgent". Any other
# word ends its reach: in "never deploy critical fixes" "never" is said of "deploy".
_NEGATIONS = frozenset("no not never nothing none nobody neither nor without hardly barely".split())
_BETWEEN = frozenset(
    """a an the any very really that so too at all particularly especially terribly super
    exactly quite remotely even overly truly actually much seem seems seemed look looks sound
    sounds feel feels be is are was were been considered deemed""".split()
)
# A negation of quantity reaches over one word of its own too: "no real emergency".
_NONE_OF = frozenset({"no", "nothing", "none", "without"})
# Where a clause ends: a negation before it does not reach past; "?" there makes it a question.
_CLAUSE_END = re.compile(r"[.!?,;:()\n—–]")
_LOOK_BACK = 100  # characters: a negation farther back than that is in another clause


def _denied(text: str, start: int) -> bool:
    """The word at `start` is said not to apply: "Nothing critical here", "No emergency", "I'm
    not allergic to anything", "isn't really that important"."""
    clause = _CLAUSE_END.split(text[max(0, start - _LOOK_BACK) : start])[-1]
    others = 0
    for word in reversed(clause.casefold().replace("’", "'").split()):
        if word in _NEGATIONS or word.endswith("n't"):
            return others == 0 or word in _NONE_OF
        if word not in _BETWEEN:
            others += 1
            if others > 1:
                return False
    return False


def outright(pattern: re.Pattern[str], text: str, start: int = 0) -> re.Match[str] | None:
    """The first match of `pattern` in `text` that is said outright: not denied ("nothing
    critical", "not allergic") and not asked ("Is this critical?": the clause ends with "?").
    Words of importance said that way raised a memory's strength all the same. Each clause
    end is searched once, so a long message is read once."""
    end_at, asked_here = -1, False  # where the current match's clause ends, and how
    while (found := pattern.search(text, start)) is not None:
        if found.end() > end_at:
            end = _CLAUSE_END.search(text, found.end())
            end_at, asked_here = (end.start(), end.group() == "?") if end else (len(text), False)
        if asked_here:
            start = end_at + 1  # every match before this "?" is asked
            continue
        if not _denied(text, found.start()):
            return found
        start = max(found.end(), found.start() + 1)
    return None


# "I can't remember my password", "I never remember my keys": a lapse, not a request.
NOT_ABLE = not_after(
    "can't",
    "cant",
    "cannot",
    "not",
    "never",
    "don't",
    "dont",
    "didn't",
    "couldn't",
    "won't",
    "hardly",
    "barely",
)
