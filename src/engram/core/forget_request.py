"""A request to forget something kept: "Forget what I said about the job", "Please forget that I
work at St. Mary's", "Delete what I told you about my ex". An MCP probe found each read as
nothing (or, "Delete what I told you…", as a recall), and no word of what to forget: the
assistant, told by the `use_memory` prompt to delete on request, had nothing to go by.

Not the conversation's "forget it", "never mind that" or "disregard this" (nothing kept is
named), nor work to do ("Delete the old config file", "Remove my card from the account"):
"delete", "remove" and "erase" ask of the memory only with what was said or kept.
"""

from __future__ import annotations

import re

from engram.core.message import OPENERS, REQUEST_FRAME, plain
from engram.core.text import statements

# What was told, said of the memory: "what I said", "what I told you", "everything you know".
_WHAT_WAS_TOLD = (
    r"(?:what|everything|anything|all) (?:(?:i|we) (?:said|told (?:you|u)|mentioned|shared|"
    r"wrote|just said|just told (?:you|u))|you know|you have|you remember"
    # "remove anything you've got on sanj's dad" (a ninth blind probe's, none)
    r"|you(?:'ve| have)? got|you(?:'ve| have) (?:stored|saved|kept|noted))"
)
# A thing by the telling or the keeping of it: "the thing I told you about my brother", "the
# dentist appointment I told you about", "the part about me being vegetarian", "the webhook
# secret you saved", "…I just gave you" (a coding assistant's probe found those read as
# nothing, and the secret kept).
_TOLD_THING = (
    r"the (?P<thing>(?:[\w'-]+ ){1,4}?)(?:(?:i|we) (?:just )?(?:told you|mentioned|said|shared|"
    r"gave you)\b|you (?:just )?(?:saved|stored|kept|remembered|noted)\b|about\b|abt\b)"
)
# What the memory keeps, by its name: "the note about my ex", "all my saved memories".
_KEPT = (
    r"(?:(?:the|that|this|those|these|all|all (?:of )?(?:my|the)) )?(?:saved )?"
    r"(?:memory|memories|note|notes|fact|facts)\b"
)
# A thing and its keeping's name after it: "delete the book club memory", "remove my dentist
# note" (a blind probe's, read as nothing).
_LABELLED = r"(?P<labelled>(?:the|my|our) (?:[\w'-]+ ){1,4}?)(?:memory|memories|note|notes)\b"
# The verbs that drop what is kept; "delete", "remove", "wipe" and "drop" are work too ("Delete
# the old config file"), so they ask of the memory only with what was told or kept, or "from
# your memory".
_DROP = r"(?:forget|erase|delete|remove|drop|wipe|clear|unlearn|purge|discard|scratch|scrap)"
# What is kept no longer: "I don't want you to remember my mortgage stuff anymore", "no need
# to keep my old address any longer", "stop remembering my ex's number" (a blind probe read the
# first as a refusal to save, and the mortgage stayed). A refusal ("don't save this") is of
# what is said now; "anymore" says it was kept.
NO_LONGER_KEPT = (
    r"(?:\b(?:don'?t|do not) (?:want|need) you to|\b(?:you )?(?:no longer|don'?t|do not) need to"
    # asked of the assistant at a clause's start ("don't remember that anymore"; not "I don't
    # remember my password anymore", the user's own forgetting)
    r"|\bno need to|(?:^|(?<=[,.;:!?] ))(?:please )?(?:don'?t|do not))"
    r" (?:remember|keep|store|save|hold on to) (?P<kept>[^.!?]{1,200}?) "
    # "on file" says it was kept too: "please don't keep the insurance number on file" (a
    # blind probe's, none, and the policy number stayed)
    r"(?:anymore|any more|any longer|on file|in (?:your )?memory)\b"
)
FORGET_REQUEST = (
    OPENERS
    + rf"(?:{REQUEST_FRAME})?"
    # "pls dont keep the thing about my knee" asks the same (a ninth blind probe's, none)
    + rf"(?:(?:{_DROP}|(?:don'?t|do not) (?:keep|store|remember|save)) (?:about )?"
    + rf"(?:{_WHAT_WAS_TOLD}|{_KEPT}|{_TOLD_THING}|everything about)"
    + rf"|{_DROP} (?P<named>(?:my|our|the) [^.!?]*?) from (?:your |the )?memory\b"
    + rf"|{_DROP} {_LABELLED}"
    + r"|stop remembering\b"
    # "forget that I work at St. Mary's", "forget about my old address", "forget my address":
    # forget alone, before what it drops (not "forget it", "forget that, …", nor "forget
    # about the formatting", which is the task's)
    + r"|(?:forget|unlearn) (?:that (?=[\w'])|about (?=(?:my|our|what) )|(?=(?:my|our) [\w'])))"
)
_ASKED = re.compile(FORGET_REQUEST, re.IGNORECASE)
# Read on its own, anywhere in a message: behind the words that may open one, it was tried
# after each way of reading them ("!!!…" at 49,000 characters: minutes).
_NO_LONGER = re.compile(NO_LONGER_KEPT, re.IGNORECASE)
# What names nothing but what was just said ("don't remember that anymore").
_WHAT_WAS_JUST_SAID = frozenset("this that it these those them".split())
# What follows the request before the topic: "about", "on", "regarding".
_LEAD_IN = re.compile(r"^\s*(?:about|on|regarding|concerning|of)\s+", re.IGNORECASE)
# A clause after what is named, saying why: ", I sold it", " - we got rid of it", "; it's gone".
_WHY_CLAUSE = re.compile(
    r"\s*[,;—–-]\s*(?=(?:i|we|he|she|they|it|it's|its|that|that's|thats|id|i'd|because|since|as|"
    r"so|not|"
    r"no longer)\b"
    # or someone by name who did something: ", Hector fixed it for good"; or what was done,
    # its doer left out: ", decided to keep the old transit" (a fifth blind probe's, none)
    r"|(?-i:[A-Z])[\w-]+\s+\w+ed\b|\w+ed\b"
    # or someone who says so: ", the dermatologist says it was something else" (an eleventh
    # blind probe's)
    r"|(?:the|my|our|his|her) [\w-]+ (?:says|said|thinks|told me)\b)",
    re.IGNORECASE,
)
_THE = re.compile(r"^(?:the|that|this)\s+", re.IGNORECASE)
_AFTERWORDS = re.compile(
    r"(?:[,;.!]?\s*(?:please|pls|thanks|thank you|ok|okay|for me|from (?:your )?memory))*\W*$",
    re.IGNORECASE,
)


def asks_to_forget(message: str) -> bool:
    said = plain(message)
    return _ASKED.search(said) is not None or _NO_LONGER.search(said) is not None


def what_to_forget(message: str) -> str:
    """The words of what a request to forget names, to look it up by: "the job" of "Forget
    what I said about the job", "I work at St. Mary's" of "Please forget that I work at St.
    Mary's", "my address" of "forget my address"; "" when it names nothing ("Forget what I
    just said") or asks nothing."""
    said = plain(message)
    kept = _NO_LONGER.search(said)
    if kept is not None:  # "I don't want you to remember my mortgage stuff anymore"
        return "" if kept["kept"].lower() in _WHAT_WAS_JUST_SAID else kept["kept"]
    found = _ASKED.search(said)
    if found is None:
        return ""
    if found["named"]:  # "Delete my wife's birthday from your memory"
        return found["named"]
    if found["labelled"]:  # "delete the book club memory"
        return _THE.sub("", found["labelled"]).strip()
    # what it drops is named in the sentence that asks (as `statements` cuts it: "St. Mary's"
    # is one)
    rest = next(iter(statements(said[found.end() :])), "")
    # ", I don't want that stored": a clause of its own, naming nothing more
    rest = "" if rest.lstrip()[:1] in (",", ";", ":", "—", "-") else rest
    # "my gym membership, I cancelled it": the clause after it says why, and names nothing
    rest = _WHY_CLAUSE.split(rest, maxsplit=1)[0]
    named = _AFTERWORDS.sub("", _LEAD_IN.sub("", rest)).strip()
    # "the dentist appointment I told you about": the thing itself, where nothing follows
    if named.lower() in ("", "about") and found["thing"]:
        return found["thing"].strip()
    if named.lower() == "about":
        return ""
    if found["thing"] and found.group().rstrip().lower().endswith(("about", "abt")):
        # "the IVF thing about Tom": both say what it is (a sixth blind probe's "Tom" alone
        # listed every memory naming him)
        thing = _VAGUE_END.sub("", " " + found["thing"].strip()).strip()
        return f"{thing} {named}" if thing else named
    return named


# "Forget the Subaru, I sold it", "Please forget about Atlas": forget and a thing, to the end of
# its clause. Whether that thing is kept is the store's to say: "Forget about the formatting"
# is the task's, and a rule cannot tell the two apart (`maybe_forgotten`).
_FORGET_A_THING = re.compile(
    OPENERS
    + rf"(?:{REQUEST_FRAME})?(?:forget|unlearn|scratch) (?:about )?+"
    + r"(?P<thing>(?:(?:the|that|this) )?(?!(?:it|that|this|what|everything|all)\b)[^,.;:!?—]+)",
    re.IGNORECASE,
)


def maybe_forgotten(message: str) -> str:
    """What "forget" asks of the thing after it, when no rule reads the message as a request
    to forget something kept: "the Subaru" of "Forget the Subaru, I sold it" (an assistant's
    probe found it read as nothing). "" where it names no thing ("Forget it")."""
    found = _FORGET_A_THING.search(plain(message))
    return found["thing"].strip() if found is not None else ""


# What was just shown or said, dropped: "forget that", "please forget this one", "erase those"
# and nothing more (a blind probe's, each read as the conversation's "forget that", with the
# memory it meant just shown). Not "forget it", nor "Forget that, let's move on": the
# conversation's.
JUST_SHOWN_DROPPED = (
    OPENERS
    + rf"(?:{REQUEST_FRAME})?(?:forget|erase|unlearn) (?:that|this|those|these)(?: ones?)?"
    + r"(?:\W+(?:please|pls|thanks|thank you|too|as well|for me))*\W*$"
)


# What a request to forget calls the thing it drops beside its words ("the book club thing",
# "the old flat stuff", "my salary info"): no stored memory says them.
VAGUE_WORDS = frozenset(
    "thing things stuff info information details business note notes memory memories bit bits"
    " part".split()
)
_VAGUE_WORD = rf"(?:{'|'.join(sorted(VAGUE_WORDS))})"

# "you can delete the old Graça flat stuff": delete, erase or remove said of a thing the way
# people speak of what they told (its "stuff", "info", "notes"); "Delete the unused imports"
# is the task's (a sixth blind probe's: a save of the request).
_DELETE_A_THING = re.compile(
    OPENERS
    + rf"(?:{REQUEST_FRAME})?(?:delete|erase|remove|clear|wipe) (?:all )?(?:the |that |my )?"
    + r"(?:(?:old|previous|earlier|former) )?(?P<thing>[^,.;:!?—]+?)"
    # its vague word, or why it goes: "delete my dentist appointment, i cancelled it" (an
    # eleventh blind probe's, none)
    + rf"(?=\s+{_VAGUE_WORD}\b|\s*[,;—–-]\s*(?:i|we|it|its|it's|that|thats|they|he|she)\b)",
    re.IGNORECASE,
)


def thing_to_drop(message: str) -> str:
    """`maybe_forgotten`'s thing where nothing but a why follows it: "the book club" of "forget
    the book club thing, I quit" and of "please forget about the book club"; "" where the
    message goes on to something else ("Forget about the formatting, just give me the raw
    numbers": the task's), or names no thing. Vague words after it ("thing", "stuff",
    "info") are left out: the store's memory does not say them."""
    said = plain(message)
    found = _FORGET_A_THING.search(said) or _DELETE_A_THING.search(said)
    if found is None:
        return ""
    rest = _VAGUE_START.sub("", said[found.end() :])
    if not (_AFTERWORDS.fullmatch(rest) or _WHY_CLAUSE.match(rest)):
        return ""
    return _VAGUE_END.sub("", found["thing"].strip())


_VAGUE_START = re.compile(rf"^(?:\s+{_VAGUE_WORD}\b)+", re.I)
_VAGUE_END = re.compile(rf"(?:\s+{_VAGUE_WORD})+$", re.I)

# A clause, then the request to forget it: "Jake paid me back, you can forget about that",
# "Luis quit after two weeks, forget about him" (a blind probe's, read as nothing). What to
# forget is what the clause names.
_DROPPED_AFTER = re.compile(
    r"^\W*(?P<said>[^.!?;]{3,200}?)\s*[,;—–-]+\s*(?:so |and |ok |okay )?(?:you can |please |"
    r"just |pls |feel free to )*(?:forget|drop|delete|erase|scratch|scrap|wipe|remove|bin|"
    r"ditch) (?:about )?"
    # "…, pls delete whatever you have about it" (a sixth blind probe's, saved instead)
    r"(?:(?:whatever|everything|anything|what) (?:you have|you've got|you know|you saved|"
    r"i (?:said|told you)) (?:about|on) )?(?:that|it|him|her|them|this|those)"
    r"(?:\W+(?:please|pls|thanks|thank you|now|then))*"
    # and why, asking nothing more: "the anniversary trip idea — wipe it, sheila found out and
    # its not a surprise anymore lol" (a tenth blind probe's, saved instead)
    r"(?:\s*[,;—–-](?!\s*(?:and|also|but|then|can|could|would|will|please|pls)\b)[^?]{0,120})?"
    r"\W*$",
    re.IGNORECASE,
)


def said_then_dropped(message: str) -> str:
    """What a clause says before a request to forget it: "Jake paid me back" of "Jake paid me
    back, you can forget about that"; "" for any other message. Whether the store holds
    something it names is the store's to say (`engram.services.activation`)."""
    found = _DROPPED_AFTER.match(plain(message))
    return found["said"].strip() if found is not None else ""


# Someone's thing, as a request to forget names it: "beth's extractor fan", "Tom's new number".
_OWNED = re.compile(r"^\W*(?:the |my |our )?[\w-]+['’]s (?P<thing>\w.*)$", re.IGNORECASE)


def owned_thing(topic: str) -> str:
    """The thing of someone's a topic names ("extractor fan" of "beth's extractor fan"), or
    "" where it names no one's thing."""
    found = _OWNED.match(topic)
    return "" if found is None else found["thing"]
