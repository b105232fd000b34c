"""Being told not to keep something: "don't save my address", "don't write down my PIN", "keep
this private". It wins over every other reading of the message (`engram.core.intent`), so the
secret said with it is never suggested as a save, whatever else the message asks.

Why a whole message and not the part the user did ask to keep: what a refusal covers cannot be
cut out reliably. "Remember that I'm vegan, but don't save my address: 12 Elm St" could be cut
at "but"; "Remember that I live at 12 Elm St, but don't save my address" could not, and "My
card is 4111…, don't store it" refers back with "it". The assistant, which reads the whole
conversation, can save the rest itself.

A refusal is addressed to whoever keeps the notes: said as a request at the start of a clause
("…, but don't save my address", "Don't write down my PIN"), after "no need to", "not to",
"rather you didn't", or about "this / that / it". What the user or the team does not keep is
a fact ("I don't keep my keys in the car", "We don't record our standups"), and a rule for the
work is a rule ("Never store secrets in the repo", "Remember not to store API keys in the
repo"): a clause that opens with its subject, or a "never" or "not to" whose object is not
the user's own ("my", "our") nor what was just said, is no refusal.
"""

from __future__ import annotations

# Where a clause starts: the message's start, after a mark of punctuation, or after a word
# that joins clauses or softens a request ("…, but don't", "oh, and please don't"). One
# lookbehind per word: each must be of fixed width.
_JOINS = ("but", "and", "so", "also", "just", "oh", "please", "though", "actually", "ok", "okay")
_CLAUSE_START = (
    "(?:^|(?<=[.,;:!?(—–-])|(?<=[.,;:!?(—–-] )|"
    + "|".join(rf"(?<=\b{word} )" for word in _JOINS)
    + ")"
)
# The verbs of keeping a note, and the objects that make "keep", "log", "note" one.
_STORE = r"(?:save|store|remember|memori[sz]e|record)"
_OWN = (
    r"(?:this|that|it|these|those|them|my|our|any|anything|everything|all of (?:this|that|it)"
    r"|any of (?:this|that|it))"
)
_KEEP = (
    rf"(?:{_STORE}\b"
    # "write down my PIN", "write that down", "jot it down"
    r"|(?:write|jot|note|copy) (?:[\w'-]+ ){0,3}?down\b"
    r"|keep (?:track|a note|a record|notes?|a copy) of\b"
    rf"|(?:keep|log|note|write) {_OWN}\b)"
)
# What the user does not do is a fact: "I don't keep …", "we never record …".
_NOT_THE_SPEAKER = "".join(
    rf"(?<!\b{subject} )" for subject in ("i", "we", "they", "he", "she", "it", "who")
)

_REFUSALS = (
    # about what was just said, wherever: "No need to remember this", "don't note it down"
    # (first: the phrase shown is the longest, "Don't save this")
    r"\b(?:don'?t|do not|no need to|never|not) (?:save|store|remember|keep|note|record)"
    r"(?: down)? (?:this|that|it|these|those|them)\b"
    # a request at a clause's start: "Don't write down my PIN", "…, but don't save my address"
    rf"|{_CLAUSE_START}(?:please )?(?:don'?t|do not)(?: ever| even)? {_KEEP}"
    # "…, never save my PIN" (not "Never store secrets in the repo": a rule for the work)
    rf"|{_CLAUSE_START}never (?:ever )?(?:{_STORE}|keep|log|note|write down) {_OWN}\b"
    # "no need to save my address", "you don't need to remember this", "I asked you not to
    # save my PIN", "I'd rather you didn't store it"
    rf"|{_NOT_THE_SPEAKER}\b(?:no|don'?t|do not|doesn'?t) (?:need|have) to (?:ever )?{_KEEP}"
    rf"|\bnot to (?:ever )?(?:{_STORE}|keep|log|note|write(?: down)?) {_OWN}\b"
    rf"|\brather (?:you |it )?(?:didn'?t|not|don'?t|wouldn'?t) {_KEEP}"
    r"|\b(?:don'?t|do not) want (?:you|it) to (?:save|store|remember|keep|note|record)\b"
    # kept between the user and the assistant: "keep this private", "keep it to yourself"
    r"|\bkeep (?:this|that|it|these|those|them|my [\w'-]+(?: [\w'-]+)?) (?:private|secret|"
    r"confidential|to yourself|between us|between you and me|under wraps|off the record)\b"
    r"|\b(?:this|that|it)(?:'s| is) (?:private|confidential|off the record)\b"
    r"|\boff the record\b"
)

# Every refusal starts a word with one of these letters: said first, a position that cannot
# start one is passed over at once, where the clause-start lookbehinds of every alternative
# were tried at each character (45-60 ms on a 49,000-character message, 1-20 ms now).
REFUSAL = rf"\b(?=[dnprkoti])(?:{_REFUSALS})"
