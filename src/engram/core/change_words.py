"""The words that say something changed ("I moved to Denver", "switched to decaf", "Lisa
replaced Ben"), read by `core.keeping` to tell news from the fact it replaces. A change denied
is none: "he wants to move to Seattle… i'm not leaving Portland" replaced "i signed up for the
Portland half marathon" by its "leaving Portland" (a fourteenth blind probe's)."""

from __future__ import annotations

import re

from engram.core.fact_values import LEFT_FROM, PUT_ON_INSTEAD
from engram.core.intent_words import DAY_PUSHED
from engram.core.message import plain

# A statement that something changed ("I moved from Berlin to Lisbon", "Actually I prefer tea
# now", "We switched Atlas to PostgreSQL", "I quit Siemens"): it may correct an older memory.
# A habit said to be over, and what replaced it: "I used to like Python but now I prefer Rust".
_USED_TO_NOW = r"\bused to\b[^.;?!]*?\b(?:but|and) now\b"
_CHANGE = re.compile(
    r"\b(?:moved|switched|did switch|changed|migrated|replaced|no longer|any ?more|instead|quit|"
    r"actually|stopped|sold(?! out)|gave up)\b"
    # not a span of time: "from June 3 to June 10", "from 9 to 5", "from Monday to Friday" (a
    # trip's dates were read as news, and compared down to unrelated memories: a probe)
    r"|\bfrom (?!\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|"
    r"sun)[a-z]*\b)\w+(?: \w+)? to\b|\bnow\W*$"
    # a correction said as people say one (a helper's probe: none of these was compared with
    # the fact it corrects): "Sorry, Anna's birthday is May 5, not May 3", "Oops, I got it
    # wrong: …", "New phone number: …", "I used to like Python but now I prefer Rust"
    r"|^\W*(?:sorry|oops|my (?:bad|mistake))\b|\b(?:got (?:it|that) wrong|i was wrong)\b"
    r"|, not (?:the |on |in |at )?[\w'-]+(?: \w+)?\W*$|^\W*new\b|" + _USED_TO_NOW,
    re.IGNORECASE,
)


# "now" anywhere marks a new value: "My manager is now Tomás Ortega".
NOW = re.compile(r"\b(?:now|these days|nowadays)\b", re.IGNORECASE)


# What says outright that an older fact no longer holds: not "actually", "now", "instead",
# "from X to" or "used to", which chat says of anything ("I'm actually majoring in economics",
# "having lunch right now"): REALTALK's turns saved one by one, each superseding the turn most
# like it, made 388 links with `says_a_change` and R@1 fell 0.324 -> 0.297; with these, 82
# and 0.319 (docs/consolidation.md).
_REPLACED = re.compile(
    r"\b(?:switched|did switch|migrated|migrating|relocated|postponed|rescheduled|slipped|"
    r"no longer|any ?more|quit|gave up)\b"
    # what the user was put off by someone: "the cardiologist took me off warfarin"
    r"|\b(?:took|taken|taking)\s+(?:me|us)\s+off\b"
    # ...or put on something else: "my GP put me on apixaban instead of warfarin"
    r"|" + PUT_ON_INSTEAD +
    # one person in another's place: "Lisa replaced Ben in accounting", "Omar took over from
    # Dana" (a twelfth blind probe's: Ben still answered who does the expense reports)
    r"|(?-i:[A-Z])[\w'-]+\s+(?:has\s+)?(?:replaced|took over from)\s+(?-i:[A-Z])[\w-]+"
    r"(?![\w'’-])(?!\s+(?:with|by)\b)"
    # one thing for another: "I replaced my Civic with a Tesla"; not a part of a thing ("I
    # replaced the battery in my Civic", "…the tires on the Civic with winter tires": a probe)
    r"|\breplac(?:ed|ing)\s+(?:(?!in\b|on\b|of\b|for\b)[\w'-]+\s+){1,4}?(?:with|by)\b"
    # ...a named thing where it stood: "We replaced Redis in payments-service with an
    # in-process cache" (a coding assistant's probe; "replaced" alone said it)
    r"|\breplaced\s+(?-i:[A-Z])[\w'.-]*\s+(?:in|on)\s+(?:[\w'-]+\s+){1,3}?(?:with|by)\b"
    # as a team's notes say it: "revert: back to Jest", "Priya handed billing over to Tom",
    # "make itest was removed" (a thirteenth blind probe's: none replaced the older note)
    r"|\brevert(?:ed|ing)?\b|\brolled back\b|\bhand(?:ed|ing|s)? (?:[\w'-]+ ){0,3}?over to\b"
    r"|\bhand(?:ed|ing) off\b|\b(?:was|were|been|got) (?:removed|deprecated|retired)\b"
    # "We dropped MySQL for PostgreSQL", "I started a new job at Northwind"; not "instead of",
    # "switching" or "is now", which REALTALK says of anything ("order lunch instead of making
    # it", "switching topics", "the way it is now")
    r"|\bdropped (?:[\w'-]+ ){1,3}?(?:for|in favou?r of)\b|\bstarted (?:a |my |our )?new\b"
    # not "moved up to the advanced class", "stopped by Tom's place", "changed the oil": a
    # probe's non-changes that superseded a fact
    r"|\bmoved\b(?! up\b)|\bstopped\b(?! by\b)|\bchanged (?:[\w'-]+ ){0,5}?(?:to|from|into)\b"
    # as a coding session says it: "Renamed app.settings to app.config", "Bumped the base image
    # to Python 3.12", "Upgraded PostgreSQL from 15 to 16", "…updated to localhost:8080" (a probe)
    r"|\b(?:renamed|bumped|upgraded|downgraded)\b|\bupdated (?:[\w'.:/-]+ ){0,4}?to\b"
    # a day pushed to, not an image: "Docker images are pushed to ghcr.io" (the thirteenth probe)
    r"|\bpushed back\b|" + DAY_PUSHED + r"|\bsold (?:my|our|the)\b"
    # a place left, by name; a title's "Left" is none ("The Left Hand of Darkness", a probe)
    r"|\b(?-i:left|leaving) (?-i:[A-Z])|^\W*(?-i:Left|Leaving) (?-i:[A-Z])"
    # an employer left against one's will, or for good: "I got laid off from Shopify"
    rf"|\b{LEFT_FROM}\s+(?-i:[A-Z])"
    # a number that changed: "My rent went up to $2,400", "upped my dose to 20mg" (a probe)
    r"|\b(?:went|goes|gone|going) (?:up|down) to [$€£]?\d|\b(?:upped|raised|lowered|increased|"
    r"decreased|reduced) (?:[\w'-]+ ){0,4}?to [$€£]?\d"
    # "My new manager is …", "The new address is …", "new truck at crete will be a volvo" (an
    # eighth blind probe's); not "…for the new house is with Bristol Water", a new thing told
    # of (a probe)
    r"|^\W*(?:correction|update)\b|(?<!the )\bnew (?:[\w'-]+ ){0,3}?(?:is|are|will be)\b"
    r"|^\W*the new (?:[\w'-]+ ){0,2}(?:is|are|will be)\b|" + _USED_TO_NOW,
    re.IGNORECASE,
)


# A word of change denied just before it: "not leaving Portland", "didn't quit", "never really
# moved". Not of the words that deny themselves ("don't smoke anymore", "no longer").
_DENIED = re.compile(r"(?:\bnot|\bnever|n't)\s+(?:[\w'-]+\s+)?$", re.IGNORECASE)
_SAYS_NO = re.compile(r"no longer|any ?more", re.IGNORECASE)


def _told(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The first match of `pattern` in `text` not denied."""
    for found in pattern.finditer(text):
        before = text[max(0, found.start() - 30) : found.start()]
        if _SAYS_NO.match(found.group()) or _DENIED.search(before) is None:
            return found
    return None


def says_a_change(text: str) -> bool:
    """Whether `text` may say that something changed (`_CHANGE`), not denied."""
    return _told(_CHANGE, plain(text)) is not None


def change_told(text: str) -> re.Match[str] | None:
    """Where `text`, already plain, says outright that an older fact no longer holds
    (`_REPLACED`), not denied."""
    return _told(_REPLACED, text)
