"""How much a memory matters, from the words that mark importance ("critical", "never
forget", "allergic"): the strength a save gives it when the caller gives none."""

from __future__ import annotations

import re

from engram.core.intent_words import KIN
from engram.core.message import NOT_ABLE, masked, outright
from engram.core.models import MAX_STRENGTH, MIN_STRENGTH

# Words that make a memory matter more, how much strength each adds, and whether they count
# only said outright (`engram.core.message.outright`: not denied, "nothing critical", nor
# asked, "is this critical?"). A lapse, "I can't remember", has a lookbehind of its own.
IMPORTANCE: tuple[tuple[re.Pattern[str], float, str, bool], ...] = (
    (re.compile(r"\b(?:critical|crucial|vital|essential)\b", re.I), 0.4, "critical", True),
    (
        re.compile(r"\b(?:important|importantly|must|never forget)\b", re.I),
        0.3,
        "important",
        True,
    ),
    (
        re.compile(
            rf"\b{NOT_ABLE}remember\b|\b(?:don'?t forget|keep in mind|note that|note to self)\b",
            re.I,
        ),
        0.2,
        "asked to remember",
        False,
    ),
    (
        re.compile(r"\b(?:always|never|from now on|going forward)\b", re.I),
        0.2,
        "standing rule",
        True,
    ),
    (
        re.compile(r"\b(?:allergic|allergy|allergies|emergency)\b", re.I),
        0.2,
        "safety",
        True,
    ),
    (re.compile(r"\b(?:password|deadline)\b", re.I), 0.2, "password or deadline", True),
    # A condition and what keeps it in check: "User has mild asthma and carries a salbutamol
    # inhaler" had no strength for it and was on gc's list by day 50, where "allergic" had
    # +0.2 (an MCP probe).
    (
        re.compile(
            r"\b(?:asthma\w*|diabet\w+|epilep\w+|seizures?|insulin|inhaler|epipen|pacemaker|"
            r"blood type|blood thinners?|anticoagulants?|heart condition|medication|"
            r"prescription|prescribed|intoleran(?:t|ce)|celiac|coeliac|vaccinat\w+|tetanus)\b",
            re.I,
        ),
        0.2,
        "health",
        True,
    ),
    # A document and its number, told once and wanted when it is due or asked for: "Maya's
    # passport expires on 14 March 2026", "Medicare number: 1EG4-TE5-MK73", "General liability
    # insurance: Hiscox, policy HX-55102-B" (a fifteenth blind probe's year of monthly gc
    # deleted them all by day 75). A visa as a card pays ("paid by Visa"): only one to stay by.
    (
        re.compile(
            r"\b(?:passports?|residence permit|work permit|green card|driver'?s licen[cs]e|"
            r"medicare|medicaid|social security|national insurance|tax id|steuer-id|"
            r"power of attorney|lease|mortgage|loan|"
            r"(?:student|work|tourist|spouse|[a-z]-\d[a-z]?) visa|"
            r"visa (?:expires|expiry|is valid|valid until|status)|"
            r"(?:policy|member|account|licen[cs]e|permit)(?: number| no\.?| id| #)?"
            r"(?::|\s+is)?\s+(?-i:[A-Z-]*\d[A-Z0-9-]*)|(?-i:EIN|SSN|TIN)\b)",
            re.I,
        ),
        0.2,
        "a document",
        True,
    ),
    # How to reach someone: a phone number said as one ("Kids' pediatrician: Dr. Chen at Little
    # Oaks Pediatrics, phone 614-555-0142", a fifteenth blind probe's, deleted on day 75), not a
    # date or an amount.
    (
        re.compile(
            r"\b(?:phone|tel|telephone|cell|mobile|whatsapp)\b(?: number| no\.?)?(?::|\s+is)?"
            r"\s*\+?\(?\d[\d ().-]{5,18}\d",
            re.I,
        ),
        0.2,
        "a contact",
        True,
    ),
    # A day that comes back every year: "My wife's birthday is September 3" and "Our wedding
    # anniversary is October 12" were due for gc on day 49, with "I had pasta for lunch today"
    # (a helper's probe); now with the allergy, on day 59, and gc's dry run names them
    # important.
    (
        re.compile(r"\b(?:birthdays?|bday|anniversary|anniversaries)\b", re.I),
        0.2,
        "a yearly date",
        True,
    ),
    # Who the user is: their name, home, work and people. Saved once and never asked for,
    # "My name is Marco Rossi" and "I live in Lisbon" were due for gc on day 49, with "I had
    # pasta for lunch today" (a probe); now on day 59, as the allergy.
    (
        re.compile(
            r"\b(?:my name is|my name's|i(?:'?m| am) called|call me (?-i:[A-Z][a-z]+)|"
            r"(?:i|we) live in|(?:i|we)(?:'re| are|'m| am) (?:originally )?from|"
            r"i grew up in|i work (?:as|at|for)(?! home\b)|"
            r"(?:the )?user(?:'s name is| lives in| works (?:as|at|for)| is from)|"
            rf"my {KIN}(?:'s name is| is (?:called|named)|,? (?-i:[A-Z][a-z]+))|"
            rf"(?:i|we) have (?:an?|one|two|three|four|\d) {KIN}\b)",
            re.I,
        ),
        0.2,
        "who the user is",
        True,
    ),
    # not a greeting's ("Hi! Quick intro: …" was +0.1 for the "Hi!", a probe)
    (
        re.compile(r"(?<!\bhi)(?<!\bhey)(?<!\bhello)(?<!\bthanks)(?<!\boh)(?<!\bwow)!", re.I),
        0.1,
        "emphasis",
        False,
    ),
)
BASE_STRENGTH = 1.0

# The kinds of fact kept for good when saved (ENGRAM_KEEP_VITAL; `engram.core.models.KEEP`):
# told once and wanted for as long as the user talks to the assistant, though weeks go by
# without a use. A fifteenth blind probe's year of monthly gc deleted 32 of 36 such facts (a
# blood type, an allergy, asthma), most by day 75. Not a deadline or a password: a deadline
# passes, and a password is changed.
LASTING = frozenset(
    {"safety", "health", "a document", "a contact", "a yearly date", "who the user is"}
)
# ... and a fact the user asks never to forget, as the seed promises: "never forget", "always
# remember", "remember this forever", "keep it for good"; not one told of someone ("I'll never
# forget that trip", "she always remembers names": `_SOMEONE_BEFORE`).
_NEVER_FORGET = re.compile(
    r"\bnever forget\b|\bdon'?t ever forget\b|\b(?:always|permanently) remember\b|"
    r"\b(?:remember|keep) (?:this |that |it )?(?:forever|for good|permanently)\b",
    re.I,
)
_SOMEONE_BEFORE = re.compile(
    r"\b(?:i|we|you|he|she|they|it|will|ll|shall|can|could|would|d)\W*$", re.I
)


def importance(content: str) -> tuple[float, list[str]]:
    """Strength from the words that mark importance: 1.0 plus each kind of marker once,
    within the strength range; and the reasons, for the save result."""
    strength = BASE_STRENGTH
    reasons: list[str] = []
    read = masked(content)  # a link's words and "!" mark nothing ("…/critical-alerts")
    for pattern, weight, reason, said_outright in IMPORTANCE:
        found = outright(pattern, read) if said_outright else pattern.search(read)
        if found:
            strength += weight
            reasons.append(f"{reason} ({found.group()!r}, +{weight:g})")
    return min(MAX_STRENGTH, max(MIN_STRENGTH, round(strength, 2))), reasons


def kept_for(content: str) -> str | None:
    """Why a memory of `content` is kept for good, as `importance` words a reason ("health
    ('asthma')"), or None: it names a kind of `LASTING` fact, said outright, or asks never to
    be forgotten."""
    read = masked(content)
    asked = outright(_NEVER_FORGET, read)
    if asked and not _SOMEONE_BEFORE.search(read, max(0, asked.start() - 12), asked.start()):
        return f"asked never to forget ({asked.group()!r})"
    for pattern, _, reason, said_outright in IMPORTANCE:
        if reason in LASTING:
            found = outright(pattern, read) if said_outright else pattern.search(read)
            if found:
                return f"{reason} ({found.group()!r})"
    return None
