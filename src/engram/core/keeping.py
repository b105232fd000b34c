"""Whether a statement says that something changed, and which stored fact it then replaces
(docs/consolidation.md). What to keep of a message is `core.keep_request`; whose fact a
statement is, `core.whose`."""

from __future__ import annotations

import re

from engram.core.change_words import NOW, change_told, says_a_change
from engram.core.dates import MONTH_NAMES, WEEKDAYS
from engram.core.disagreement import sides_swapped
from engram.core.fact_values import (
    affirms_value,
    called_off,
    calls_off,
    corrected_to,
    fact_terms,
    holds_value,
    named_new_value,
    named_old_value,
    preference_turned,
    prefers_another_kind,
    stated_values,
    value_swapped,
)
from engram.core.index_terms import index_term, index_terms
from engram.core.life_facts import (
    ATTRIBUTE_OF,
    ATTRIBUTES,
    KINDS,
    attributes,
    states_now,
)
from engram.core.message import OPENING_WORDS, plain
from engram.core.questions import told_before_asking
from engram.core.text import (
    speaker_label,
    statements,
    unlabelled,
)
from engram.core.thing_changed import changes_something_else
from engram.core.value_moves import moves_a_value, value_moved
from engram.core.whose import (
    WHOSE,
    YOURS,
    about_other_people,
    by_the_user,
    names_in,
    opening_name,
)


def _already_holds(text: str, old: str) -> bool:
    """Whether `old` already holds the value the change `text` goes to, so that it agrees with
    it rather than being replaced: "My sister moved to Toronto last year" superseded "My
    sister lives in Toronto" (0.87 alike), and "Moved settings into app.config so that config
    loading happens first", saved after "Renamed module app.settings to app.config", the
    rename it explains (probes). A change back to the value `old` says it left does replace
    it ("Moved standup back to 9:30" after "Moved standup from 9:30 to 10"), as does one
    elsewhere ("Actually moved standup to 11" after "Moved standup to 10"). Nor does a
    correction replace what already says what it corrects to: "Correction: Acme renews on
    April 30, not March 31 - Bob was right" superseded Bob's "…renewal is on April 30" (a
    team's probe), and a second correction the first."""
    corrected = corrected_to(text)
    if corrected is not None:
        said, denied = corrected
        held = fact_terms(old)
        if said <= held and not denied & held:
            return True
    after = named_new_value(text)
    if after is None or not affirms_value(old, after):
        return _moved_where_it_is(text, old)
    left = named_old_value(old)
    return left is None or index_terms(left) != index_terms(after)


_MOVED = re.compile(r"\b(?:moved|relocated)\b", re.IGNORECASE)
# A move told as history: "back in 2019", "years ago".
_LONG_AGO = re.compile(r"\b(?:back in|(?:years?|months?) ago|in (?:19|20)\d\d)\b", re.I)
_DAY_NAMES = frozenset(index_term(n.lower()) for n in (*MONTH_NAMES, *WEEKDAYS))


def _moved_where_it_is(text: str, old: str) -> bool:
    """Whether a move told as history names, after its verb, only places `old` holds: "We
    moved into our place in Denver back in 2019" tells how "I live in Denver" came to be, and
    replaced it (a probe). Not a day: "…appointment moved to March 21" of one on March 14
    (another probe), nor who moved ("Tom Becker moved to the platform team")."""
    moved = _MOVED.search(text)
    if moved is None or _LONG_AGO.search(text) is None:
        return False
    said = stated_values(text[moved.end() :]) - _DAY_NAMES
    names = {v for v in said if not any(ch.isdigit() for ch in v)}
    return bool(names) and names <= set(index_terms(old))


RESTATED_SIMILAR = 0.8


def may_be_news(text: str) -> bool:
    """Whether a statement may say that a fact changed, by any mark: then a save compares it
    with the stored memories down to a lower similarity (`services.save_report.near`)."""
    said = plain(text)
    return (
        says_a_change(said)
        or NOW.search(said) is not None
        or replaces_a_fact(said)
        or calls_off(said)
        or _died(said) != ""
        or (_says_anew(said) and bool(attributes(said)))
        or moves_a_value(said)
    )


# A question without its question mark, as chat asks one: "Do you play any games anymore."
# superseded three turns about games (`bench/supersede_chat.py`).
_ASKED = re.compile(
    r"^\W*(?:do|does|did|are|is|was|were|have|has|can|could|would|will|should|what|where|"
    r"when|who|why|how)\s+(?:you|u|i|we|they|he|she|it|there|your|ur)\b",
    re.IGNORECASE,
)


def replaces_a_fact(text: str, similarity: float = 0.0, old: str = "") -> bool:
    """Whether a statement says an older fact no longer holds ("Correction: Lisa is no longer
    vegetarian", "Switched from VS Code to Cursor", "My new manager is Tom"); a question does
    not ("Do you play any games anymore?"). `similarity`: to the fact it would replace, `old`;
    from `RESTATED_SIMILAR` up where it says more than `old`, or where it is that fact with a
    new value (`a_new_value`), any mark of a change will do ("Actually, Lisa's birthday is
    September 5, not the 3rd", "I live in Lisbon now")."""
    said, old = plain(text), plain(old)
    # a thing moved, told before a question, is news as told: "…switch the handover to
    # saturday mornings 10am. do you think theo will care?" (a sixth blind probe's: no link).
    # Only that: chat's turns ask after what they tell, and read so, "I decided to change the
    # color from platinum blonde to …" replaced two turns about fashion (REALTALK).
    told = told_before_asking(said)
    if told and old and value_moved(told, old) and not about_other_people(told, old):
        return True
    if _a_question(said):
        return False
    if old and (about_other_people(said, old) or _already_holds(said, old)):
        return False
    if old and value_moved(said, old):  # a thing both name, moved to another day or amount
        return True
    if old and changes_something_else(said, old):
        return False
    # "…in the GitHub wiki now, not Confluence" replaces what says Confluence, not "Chen owns
    # the on-call runbook wiki page" (a team's probe)
    corrected = corrected_to(said)
    if old and corrected is not None and not corrected[1] & fact_terms(old):
        return False
    if old and (says_a_change(said) or NOW.search(said)) and a_new_value(said, old, similarity):
        return True
    if old and says_a_change(said) and _corrects_its_value(said, old):
        return True
    if old and NOW.search(said) and similarity >= RESTATED_SIMILAR and _renumbered(said, old):
        return True
    if old and _turned_from(said, old):
        return True
    if old and (says_a_change(said) or NOW.search(said)) and prefers_another_kind(said, old):
        return True
    if old and _turned_round(said, old):
        return True
    if old and _life_fact_anew(said, old):
        return True
    if old and _died(said) in names_in(old):
        return True
    if old and _alike_in_form_only(said, old):
        return False
    if says_a_change(said) and similarity >= RESTATED_SIMILAR and _says_more(said, old):
        return True
    replaced = change_told(said) is not None or called_off(said, old)
    return replaced and not _another_life_fact(said, old)


def _renumbered(text: str, old: str) -> bool:
    """Whether `text` gives numbers where `old` gave others, and keeps none of them: "User's
    blood pressure is now 124/80 after cutting salt; Dr. Stone is happy with it" of "…was
    138/88 (a bit high)…" (0.82 alike; it says more than a swapped value, and was no news: a
    personal assistant's probe)."""
    new, was = _numbers(text), _numbers(old)
    return bool(new) and bool(was) and not new & was


def _numbers(text: str) -> set[str]:
    return {v for v in stated_values(text) if any(c.isdigit() for c in v)}


# A death, of someone or a pet it opens with by name: "Biscuit passed away last week" is news
# of every fact of Biscuit's ("We have a golden retriever called Biscuit" answered "Do I have a
# dog?" above it: a probe). Not one of no name: chat says "One of my relatives died", "A lot
# of shirts died for those nosebleeds" (`bench/supersede_chat.py`: five false links).
_DIED = re.compile(r"\b(?:passed away|died)\b", re.IGNORECASE)


def _died(text: str) -> str:
    """The name of whom a statement says died, as a term, or ""."""
    return opening_name(text) if _DIED.search(text) is not None else ""


def _corrects_its_value(text: str, old: str) -> bool:
    """Whether a change names the value it replaces, `old` holds it, and they share a word
    besides: "Actually the quarterly review is Thursday, not Wednesday" of "The quarterly
    review is on Wednesday at 2pm in room 4B with the whole finance team", whose details made
    it too unlike a restatement to be linked (a helper's probe)."""
    swap = value_swapped(text)
    if swap is None or not holds_value(old, swap[0]):
        return False
    values = fact_terms(swap[0]) | fact_terms(swap[1])
    return bool((fact_terms(text) & fact_terms(old)) - values)


def _turned_from(text: str, old: str) -> bool:
    """Whether a statement says, as news, that a preference turned from what `old` holds:
    "Actually I prefer tea over coffee these days" of "I drink coffee every morning, black"
    (0.53 alike, no value swapped in place: an MCP probe's drinks question ranked coffee
    first). Said as news ("actually", "now", "these days"): "I prefer tea over coffee" alone is
    a taste, which a coffee habit may well go with."""
    turned = preference_turned(text)
    return (
        turned is not None
        and (says_a_change(text) or NOW.search(text) is not None)
        and holds_value(old, turned[0])
        and not holds_value(old, turned[1])
    )


def _turned_round(text: str, old: str) -> bool:
    """Whether a statement says `old` the other way round, as news: "Actually I prefer coffee
    over tea these days" of "I prefer tea over coffee", "Mia now likes the piano more than the
    violin" (0.94 and 0.97 alike: a probe found neither superseded, and the old preference
    listed first). The user's preference turned is news however said ("I prefer coffee over
    tea"); anything else only with a mark of a change: "The flight goes from Paris to Lisbon"
    may be another flight."""
    if sides_swapped(text, old) is None:
        return False
    turned, held = preference_turned(text), preference_turned(old)
    reversed_taste = turned is not None and held is not None and turned == held[::-1]
    return reversed_taste or says_a_change(text) or NOW.search(text) is not None


def _another_life_fact(text: str, old: str) -> bool:
    """Whether a statement names a life fact as new (`_new_facts`: "my new manager") and
    `old` states only others: "User's new manager is Priya Shah" is no news of "User is based
    in New York", though more alike to it than to "User reports to Mike Chen" (a probe)."""
    named, held = _new_facts(text), attributes(old)
    return bool(named) and bool(held) and not named & held


def life_fact_words(text: str) -> list[str]:
    """The words of the life facts (`ATTRIBUTES`) a statement says anew ("I report to Rosa
    now": manager, boss, report…), to look for the fact it replaces by; none unless it says
    one anew (`_says_anew`)."""
    if not _says_anew(text):
        return []
    return [w for name in sorted(attributes(text)) for w in ATTRIBUTES[name].split()]


def life_fact_replaced(text: str, old: str) -> bool:
    """Whether `text` says anew a life fact `old` states, with another value
    (`_life_fact_anew`), and is no question, nor of another person, nor agrees with it."""
    said, old = plain(text), plain(old)
    if _a_question(said):
        return False
    # "My manager is Dan Kim" is the user's fact, as "I report to Rosa now" is; "My wife is
    # vegetarian" is the wife's, not of "I'm vegan now"
    whose = WHOSE.match(unlabelled(old))
    shared = attributes(said) & attributes(old)
    the_users = whose is not None and ATTRIBUTE_OF.get(index_term(whose[1].lower())) in shared
    if (about_other_people(said, old) and not the_users) or _already_holds(said, old):
        return False
    return _life_fact_anew(said, old)


# ...or of a name: "Is Denver a good place to live now" (a probe: it superseded the home).
_ASKED_OF = re.compile(
    r"^\W*(?:is|are|was|were|do|does|did|can|could|will|would|should|has|have)\s+(?-i:[A-Z])",
    re.IGNORECASE,
)


def _a_question(text: str) -> bool:
    """Whether a statement asks (`_ASKED`: chat asks without its question mark too)."""
    said = unlabelled(text)
    return "?" in text or _ASKED.match(said) is not None or _ASKED_OF.match(said) is not None


def _alike_in_form_only(text: str, old: str) -> bool:
    """Whether two statements share no word but the name both open with, or are both news
    and share no word: "Update: Dana no longer runs, she switched to swimming" is 0.60 alike
    to "Correction: Dana is no longer vegetarian, she eats fish now" by its shape and its
    subject, and superseded it in a probe; its own old fact, "I run 5k three times a week",
    stood at 0.21."""
    opening = opening_name(text)
    shared = fact_terms(text) & fact_terms(old) - {opening}
    if shared or (attributes(text) & attributes(old) and states_now(old)):
        return False
    # the name both say, opening this one: "Lisa switched to decaf" of "My wife Lisa teaches
    # third grade" (an MCP probe: her job was marked replaced); or the speaker of both turns:
    # "Carmen: also i stopped doing the saturday market" of "Carmen: off the walker! she's back
    # to tuesdays…" (a fourteenth blind probe's)
    speaker = speaker_label(text).casefold()
    return (
        (opening != "" and opening in names_in(old))
        or (speaker != "" and speaker == speaker_label(old).casefold())
        or says_a_change(old)
        or change_told(plain(old)) is not None
    )


def _says_more(text: str, old: str) -> bool:
    """Whether `text` says a word `old` does not, marks of a change aside, and that word a
    value or said against the old one: "I still work as a nurse now" repeats "I work as a
    nurse", and "My son plays violin now" is about another person than "My daughter plays
    violin" (a probe); "Actually, Lisa's birthday is September 5, not the 3rd" corrects.
    Unknown without `old`."""
    if not old:
        return True
    added = fact_terms(text) - fact_terms(old)
    return bool(added) and (bool(added & stated_values(text)) or _DENIED.search(text) is not None)


_DENIED = re.compile(r"\b(?:not|no longer|never|instead)\b|n't\b", re.IGNORECASE)


# Any one or two words swapped make a new value from this similarity up, where both texts name
# the same thing ("Max plays the cello now" / "Max plays violin", 0.78).
NEW_WORD_SIMILAR = 0.7


def a_new_value(text: str, old: str, similarity: float) -> bool:
    """Whether `text` says what `old` says with one value swapped: the same words but one or
    two, and those a number or a name on each side ("I live in Lisbon now" / "I live in
    Berlin", "Standup is at 10 now" / "Our standup is at 9:30", "Emma is 7 now" / "My
    daughter Emma is 6"); from `NEW_WORD_SIMILAR` up any words, where both open with one
    name ("Max plays the cello now" / "Max plays violin").

    Chat says "now" and "actually" of anything, so the swap is what makes it a correction:
    REALTALK's turns, each against the earlier turn most like it (cosine 0.4 up), gave no
    such pair (docs/consolidation.md)."""
    new_terms, old_terms = fact_terms(text), fact_terms(old)
    shared, added, dropped = new_terms & old_terms, new_terms - old_terms, old_terms - new_terms
    if not shared or not 1 <= len(added) <= 2 or not 1 <= len(dropped) <= 4:
        return False
    values = stated_values(text)
    # Only values added: "My son Leo is vegetarian now" adds "son" to "My wife Lisa is
    # vegetarian", "My favourite movie is Alien now" adds "movie" to "My favourite band is
    # Radiohead": another person, another thing (a probe's misfires).
    if added & values and not added - values and dropped & stated_values(old):
        return True
    # One word for another in the same statement, as alike as a restatement: "User is now a
    # senior designer at Canva" / "User is a junior designer at Canva" (0.94; a probe)
    # (not the person it is of: "My son plays violin now" / "My daughter plays violin")
    whose = (WHOSE.match(unlabelled(text)), WHOSE.match(unlabelled(old)))
    someone_else = bool(whose[0] and whose[1] and added & {index_term(whose[0][1].lower())})
    if similarity >= RESTATED_SIMILAR and len(added) == len(dropped) == 1 and not someone_else:
        return True
    # The thing both open with ("Max plays the cello now" / "Max plays violin"), not a name
    # held as the value ("My mentor is Tom Becker now" / "My manager is Tom Becker").
    opening = opening_name(text)
    # the user's preference, one thing for another: "I prefer aisle seats on flights now" of
    # "I prefer window seats on flights" (0.79; a probe found it linked to nothing)
    preference = _OWN_PREFERENCE.match(text) and _OWN_PREFERENCE.match(old)
    if similarity >= NEW_WORD_SIMILAR and len(added) == len(dropped) == 1 and preference:
        return True
    return (
        similarity >= NEW_WORD_SIMILAR
        and len(dropped) <= 2
        and opening in shared
        and opening == opening_name(old)
    )


# The user's preference of one thing over the others: "I prefer…", "User now prefers…", "My
# favourite … is". Not "I like …", which may hold for two things at once.
_OWN_PREFERENCE = re.compile(
    r"^\W*(?:(?:actually|so|well)\W+)?(?:(?:i|we|user)\s+(?:\w+\s+)?prefer(?:s|red)?\b"
    r"|(?:my|our|(?:the\s+)?user['’]s)\s+(?:\w+\s+)?favou?rite\b)",
    re.IGNORECASE,
)


# What says a life fact (`ATTRIBUTES`) holds anew: "I'm vegan now", "Rosa is my new boss",
# "I've gone fully vegan", "She became a nurse", "I report to Tom Becker these days", "Leo
# started kindergarten".
# "new" only of the fact: "my new boss", "a new job" (not "Tried a new vegan restaurant").
_ANEW = re.compile(
    r"\b(?:now|nowadays|these days|gone|became|become|turned|started)\b", re.IGNORECASE
)
_NEW_WHAT = re.compile(r"\bnew\s+([\w'-]+)(?:\s+([\w'-]+))?", re.IGNORECASE)
# What adds to a fact rather than replaces it: "My husband now works Saturdays too".
_ADDED = re.compile(r"\b(?:too|also|as well)\b", re.IGNORECASE)


# The user's move to a place by its name, not told as history: "We moved to Denver last
# month" is where they live now, though 0.38 alike to "I live in Portland, Oregon" and never
# linked to it (a probe). Not a thing moved ("Standup moved to Thursday").
_MOVED_HOME = re.compile(
    rf"^{OPENING_WORDS}(?:i|we)(?:'ve|\s+have|\s+just|\s+recently|\s+finally)*\s+"
    r"(?:moved|relocated)\s+(?:back\s+)?to\s+(?-i:[A-Z])",
    re.IGNORECASE,
)


def _says_anew(text: str) -> bool:
    """Whether a statement marks a life fact as holding anew (`_ANEW`, "new" before one of
    its words, or a move home: `_MOVED_HOME`)."""
    return (
        _ANEW.search(text) is not None
        or bool(_new_facts(text))
        or (_MOVED_HOME.search(text) is not None and _LONG_AGO.search(text) is None)
    )


def _new_facts(text: str) -> set[str]:
    """The life facts a statement names a thing of as new ("my new boss", "a new job"), not
    one of their values ("a new vegan restaurant"), nor a new thing it tells of as known ("the
    new house" in "Broadband at the new house", "…because of the new house": each superseded
    the user's lease, their mother's move and more, a probe) unless it says what that is ("the
    new manager is Priya")."""
    return {
        ATTRIBUTE_OF[term]
        for m in _NEW_WHAT.finditer(text)
        if not _THE_BEFORE.search(text[: m.start()])
        or (_OPENS_WITH_THE.match(text[: m.start()]) and _WHAT_IT_IS.match(text[m.end(1) :]))
        for term in (index_term(w.lower()) for w in m.groups() if w)
        if term in ATTRIBUTE_OF and term not in KINDS
    }


_THE_BEFORE = re.compile(r"\bthe\s+$", re.IGNORECASE)
_OPENS_WITH_THE = re.compile(r"^\W*the\s+$", re.IGNORECASE)
_WHAT_IT_IS = re.compile(r"(?:\s+[\w'-]+)?\s+(?:is|are|was|will be)\b|'s\b", re.IGNORECASE)


def _life_fact_anew(text: str, old: str) -> bool:
    """Whether `text` gives a life fact that `old` states another value of: "I'm vegan now"
    of "I'm vegetarian" (0.76 alike, no word shared, and not linked: a probe), "Rosa is my
    new boss" of "My boss is Dan". A value swapped for another: a name or number for a name
    or number, or a word of the life fact for another ("vegan" for "vegetarian"). Chat names
    these facts in passing ("I'm at work right now", "Luckily I don't have work on new years
    day"): REALTALK's turns saved one by one made 44 such links when any added word would do."""
    if not _says_anew(text) or not states_now(old) or _ADDED.search(text) is not None:
        return False
    if _a_question(old):  # "What do you work as?" states nothing
        return False
    whose = (WHOSE.match(unlabelled(text)), WHOSE.match(unlabelled(old)))
    shared = attributes(text) & attributes(old)
    if whose[0] and whose[1]:
        subject = index_term(whose[0][1].lower())
        if subject != index_term(whose[1][1].lower()):
            return False  # "My son Leo is vegetarian now" is not news of "My wife Lisa is …"
        # whose fact it is, not the fact: "My wife has a new boss named Rosa" is no news of
        # "My wife Lisa works at Kaiser" (a probe); unless it is the fact, held anew ("User's
        # new manager at Northwind is Devin Park" of "User's manager … is Carla Reyes")
        if ATTRIBUTE_OF.get(subject) not in _new_facts(text):
            shared -= {ATTRIBUTE_OF.get(subject)}
    elif whose[1] and not (by_the_user(text) or YOURS.search(text)):
        return False  # "Dan is the new manager of the Denver branch" is not "My manager …"
    if not shared:
        return False
    # one statement, by the speaker of the fact: a chat turn's sentences name people and
    # places of other things ("I appreciate your understanding, Liza. …" superseded another
    # speaker's "…a tough time, Bella")
    if (
        len(statements(unlabelled(text))) > 1
        or speaker_label(text).lower() != speaker_label(old).lower()
    ):
        return False
    new_terms, old_terms = fact_terms(text), fact_terms(old)
    added, dropped = new_terms - old_terms, old_terms - new_terms
    if added & _values_named(text) and dropped & _values_named(old):
        return True
    return bool(added & KINDS) and bool(dropped & KINDS)


# A name a statement opens with, as what it says of it: "Rosa is my new boss". Not any word
# a sentence opens with ("Luckily I don't have work", "Turn the person we hired down").
_NAME_IS = re.compile(r"^\W*[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?\s+(?:is|was)\b")


def _values_named(text: str) -> set[str]:
    """Its values (`_values`), and the name it opens with where it says what that name is."""
    found = stated_values(text)
    if _NAME_IS.match(unlabelled(text)):
        found.add(opening_name(text))
    return found - {""}
