"""Whether memories alike in meaning say different things all the same, and what: one says
"not" and another does not, they hold other numbers, opposites ("likes" / "dislikes"), the same
words in another order, one word, sign or tense in place of another. Consolidation leaves such a
cluster for a person (`core.merge`), and search's diversity does not take such a pair for copies.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from rapidfuzz.distance import OSA

from engram.core.index_terms import index_term
from engram.core.merge import meaningful
from engram.core.own_name import in_the_users_words
from engram.core.text import STOPWORDS, WORD, uncontracted

_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")
NEGATIONS = frozenset(
    "not no never nor none nothing nobody nowhere neither cannot without "
    # the same in the languages of Europe most spoken: "Ich bin (nicht) allergisch gegen
    # Katzen" was a near-copy merged as one fact (a helper's probe); not Italian's "mai",
    # which is German's May
    "nicht kein keine keinen nie niemals niet geen nooit non pas jamais não nunca "
    "inte ikke aldrig nie nigdy".split()
)
# Words that, added to a statement, make it say something else: "Priya is my (previous)
# manager", "every (other) week", "(half) a tablet", "weekdays (except Wednesday)", "can
# (hardly) eat peanuts", "is (only) open on Saturdays" were near-copies merged as one fact, both
# sides of each in one memory (a helper's probe).
QUALIFIERS = frozenset(
    "former formerly previous previously ex only hardly barely scarcely rarely seldom "
    "half quarter except excluding besides other almost nearly anymore".split()
)
# The tense a helping verb gives a statement: "Alice is my manager" and "Alice was my manager"
# (cohesion 0.935) say different things, but both words are function words, which
# `_word_swapped` passes over.
TENSES = {
    **dict.fromkeys(("is", "am", "are", "has", "have", "does", "do"), "now"),
    **dict.fromkeys(("was", "were", "had", "did"), "then"),
    **dict.fromkeys(("will", "shall"), "later"),
}
# Prefixes that turn a word into its opposite ("dislikes", "unhappy"), before at least four
# letters (so that "unit" is not "un" + "it").
OPPOSITE_PREFIXES = ("dis", "un")
ARTICLES = frozenset({"a", "an", "the"})


def disagreement(contents: Sequence[str], near_copies: bool = True) -> str | None:
    """Why memories alike in meaning may still say different things, or None. Near-copies
    by meaning include opposites ("is allergic" and "is not allergic", "likes" and
    "dislikes"), other numbers ("1-2 tablets" and "12 tablets", "hunter2" and "hunter3") and
    the same words in another order ("tea over coffee" and "coffee over tea"): merging them
    kept both in one memory as if they were one fact, and raised its strength.

    Memories less alike than near-copies (`near_copies` False: a paraphrase, "I can't eat
    peanuts, I have a peanut allergy" of "I'm allergic to peanuts") say the same in other
    words, so a word one holds and another lacks, a negation or a tense tells nothing: such
    notes read "one says 'actually' where another says 'google'" on every cluster of a probe.
    Only numbers, opposites, signs and word order are told there."""
    words = [_compared_words(content) for content in contents]
    negated = [next((w for w in ws if _negates(w)), None) for ws in words]
    if near_copies and len({said is None for said in negated}) > 1:
        said = next(w for w in negated if w is not None)
        return f"one says '{said}' where another does not"
    vocabulary = [set(ws) for ws in words]
    if near_copies:
        for mine in vocabulary:
            for word in sorted(mine & QUALIFIERS):
                if any(word not in theirs for theirs in vocabulary):
                    return f"one says '{word}' where another does not"
    every = set().union(*vocabulary)
    for mine in vocabulary:
        others = every - mine  # words only the other memories hold
        for word in sorted(mine):
            for prefix in OPPOSITE_PREFIXES:
                base = word.removeprefix(prefix)
                if base != word and len(base) >= 4 and base in others:
                    return f"'{word}' against '{base}'"
    # Numbers against numbers: one memory adding a number says more, not otherwise ("Maya is
    # vegetarian (for about five years)" of "Maya doesn't eat meat (vegetarian)": "they hold
    # different numbers", a probe).
    # Compared as sets: a merged memory says its fact's number once per original ("March 14"
    # and "born on March 14th"), and a copy saying it once was "different numbers" (a probe).
    if len({frozenset(n) for content in contents if (n := _numbers(content, words))}) > 1:
        return "they hold different numbers"
    if len({tuple(sorted(ws)) for ws in words}) == 1 and len({tuple(ws) for ws in words}) > 1:
        return "they say the same words in another order"
    swapped = _sides_swapped(words)
    if swapped is not None:
        return f"they say '{swapped[0]}' and '{swapped[1]}' the other way round"
    if not near_copies:
        return _sign_swapped(contents)
    return (
        _tense_swapped(words)
        or _past_swapped(words)
        or _word_swapped(words)
        or _sign_swapped(contents)
    )


def _negates(word: str) -> bool:
    return word in NEGATIONS or word.endswith(("n't", "n’t"))


# Numbers said in words, as digits: "three years old" and "3-year-old" hold one number ("one"
# is as often a pronoun: "the blue one").
_NUMBER_WORDS = {
    word: str(n)
    for n, word in enumerate(
        "two three four five six seven eight nine ten eleven twelve".split(), start=2
    )
}
_DIGITS_OR_LETTERS = re.compile(r"\d+|\D+")


def _compared_words(content: str) -> list[str]:
    """The words of `content` as disagreements are told: lower-cased, a number apart from the
    letters beside it ("9:30am" as "9", "30", "am": a review note said "one says '30am' where
    another says '30'" of "9:30am" and "9:30 am"), a number word as its digits, a contraction
    as its words ("I'm" as "i am"), a word hyphenated after or before a letter or two as one
    ("e-mail" as "email"), "user" as "i" and a verb's person as one ("am" as "is"): a probe's
    trivial rewordings were held for review as disagreeing."""
    said = in_the_users_words(content).casefold().replace("’", "'")
    said = _HYPHENATED.sub(_joined, uncontracted(said))
    return [
        _PERSON_FORMS.get(part, _NUMBER_WORDS.get(part, part))
        for word in _COMPARED_WORD.findall(said)
        for part in _DIGITS_OR_LETTERS.findall(word)
    ]


# The user as an assistant's note names them is the user who speaks in the first person, and a
# verb's person is not what a fact says: "User is allergic to peanuts" and "I am allergic to
# peanuts" were told apart as "one says 'i' where another says 'user'" (a helper's probe).
_PERSON_FORMS = {"am": "is", "has": "have", "does": "do"}


_HYPHENATED = re.compile(
    r"(?<![\w-])([a-z]{1,2})-([a-z]+)(?![\w-])|(?<![\w-])([a-z]+)-([a-z]{1,2})(?![\w-])"
)
# A word of three hyphenated parts or more is one word ("sister-in-law": a review note said
# "one says 'brother' where another says 'brotherin'", a probe).
_COMPARED_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+){2,}|" + WORD.pattern)


def _joined(match: re.Match[str]) -> str:
    return "".join(part for part in match.groups() if part)


def _numbers(content: str, others: Sequence[list[str]] = ()) -> list[str]:
    """The numbers `content` holds, written in digits or in words; a time with a point as with
    a colon ("9.30 am" as "9:30am"). "one", as often a pronoun, is 1 where it is all there is
    and another of `others` (their compared words) holds a number: "one approval" and "two
    approvals"."""
    words = WORD.findall(content.casefold())
    said = [_NUMBER_WORDS[w] for w in words if w in _NUMBER_WORDS]
    found = [*_NUMBER.findall(_clock_with_colon(content)), *said]
    if not found and "one" in words and any(w.isdigit() for ws in others for w in ws):
        return ["1"]
    return found


# A time written with a point: "9.30" is "9:30" (a review note said they held different numbers).
_CLOCK_WITH_POINT = re.compile(r"\b(\d{1,2})\.(\d{2})(?!\d)")


def _clock_with_colon(text: str) -> str:
    return _CLOCK_WITH_POINT.sub(r"\1:\2", text)


def _tense_swapped(words: Sequence[list[str]]) -> str | None:
    """Two memories each holding a helping verb of a tense the other lacks ("is" and "was",
    "has" and "had", "will" and "did"); one that only adds one to the other ("I have lived in
    Berlin", "I live in Berlin") is no disagreement."""
    said = [{TENSES[w]: w for w in reversed(ws) if w in TENSES} for ws in words]
    for i, mine in enumerate(said):
        for theirs in said[i + 1 :]:
            only_mine, only_theirs = mine.keys() - theirs.keys(), theirs.keys() - mine.keys()
            if only_mine and only_theirs:
                return (
                    f"one says '{mine[min(only_mine)]}' where another says "
                    f"'{theirs[min(only_theirs)]}'"
                )
    return None


def _past_swapped(words: Sequence[list[str]]) -> str | None:
    """One memory says in the past ("used", "used to drink") what another says now ("use",
    "drink"): "We use PostgreSQL for Atlas" and "We used PostgreSQL for Atlas" (0.97 alike)
    were merged as one fact; a helper's probe. Word endings count nowhere else."""
    phrases = [" ".join(ws) for ws in words]
    habits = [" used to " in f" {p} " for p in phrases]
    if len(set(habits)) > 1:
        return "one says 'used to' where another does not"
    forms = [{index_term(w): w for w in ws} for ws in words]
    for i, mine in enumerate(forms):
        for theirs in forms[i + 1 :]:
            for stem in sorted(mine.keys() & theirs.keys()):
                a, b = mine[stem], theirs[stem]
                if a != b and a.endswith("ed") != b.endswith("ed"):
                    return f"one says '{a}' where another says '{b}'"
    return None


def _sign_swapped(contents: Sequence[str]) -> str | None:
    """Two memories each holding a marked word the other lacks: a word with a sign or symbol
    in it, as `statement_key` keeps them ("8 a.m." and "8 p.m.", "A+" and "A-", "load > 90"
    and "load < 90", "Mood: 😀" and "Mood: 😢"). Words alone missed them: "a" is a function
    word, and signs are not words, so such pairs were merged as one fact."""
    marked = [_marked_words(c) for c in contents]
    for i, mine in enumerate(marked):
        for theirs in marked[i + 1 :]:
            only_mine, only_theirs = mine - theirs, theirs - mine
            if only_mine and only_theirs:
                return f"one says '{min(only_mine)}' where another says '{min(only_theirs)}'"
    return None


_AFTER_A_NUMBER = re.compile(r"(?<=\d)(?=[^\W\d_])")


def _marked_words(content: str) -> set[str]:
    """The words of `content` (runs between spaces) with a sign or symbol that changes what
    they say, as `statement_key` reads them: "a.m", "a+", ">", "$5", "😀"."""
    out: set[str] = set()
    for chunk in unicodedata.normalize("NFC", content.casefold()).split():
        kept = "".join(ch for ch, counts in zip(chunk, meaningful(chunk), strict=True) if counts)
        kept = _clock_with_colon(kept)
        # "9:30am" is "9:30 am": the letters after a number are a word of their own
        for part in _AFTER_A_NUMBER.sub(" ", kept).split():
            if not part.isalnum():
                out.add(part)
    return out


def _word_swapped(words: Sequence[list[str]]) -> str | None:
    """Two memories each holding a word the other lacks: one said in place of the other ("on
    Monday" and "on Tuesday", "enabled" and "disabled", "pass" and "fail"). As alike in
    meaning as near-copies (cosine 0.92-0.97), they were merged as one fact. Word endings do
    not count ("works on" is "working on"), nor articles; a memory that only adds words
    to another's ("prefers green tea over coffee") is no disagreement."""
    # Content words first, so that the note names the word that matters ("one says 'uses'",
    # not "'as'"); then function words: "on" and "off", "to" and "from", "his" and "her",
    # "one approval" and "two approvals" were merged as one fact, since only the content word
    # stood on one side. Articles alone say nothing. A function word is one said in place of
    # another only where little else differs: "I'm allergic to peanuts" and "Peanuts give me a
    # bad allergic reaction" (0.90) were held for review as "one says 'am' where another says
    # 'bad'".
    return _swapped(words, STOPWORDS) or _swapped(words, ARTICLES, SWAPPED_AT_MOST)


# How many words each of two memories may hold that the other lacks, for a function word of
# one to be said in place of one of the other ("on" / "off", "to" / "from", "his" / "her").
SWAPPED_AT_MOST = 2


def _swapped(
    words: Sequence[list[str]], passed_over: frozenset[str], at_most: int | None = None
) -> str | None:
    # Each memory's stems, with the word each stands for as written: the note quoted stems
    # ("one says 'version' where another says 'us'", of "uses").
    stems = [{index_term(w): w for w in reversed(ws) if w not in passed_over} for ws in words]
    for i, mine in enumerate(stems):
        for theirs in stems[i + 1 :]:
            only_mine, only_theirs = mine.keys() - theirs.keys(), theirs.keys() - mine.keys()
            variants = {(a, b) for a in only_mine for b in only_theirs if _spelled_otherwise(a, b)}
            only_mine -= {a for a, _ in variants}
            only_theirs -= {b for _, b in variants}
            if at_most is not None and max(len(only_mine), len(only_theirs)) > at_most:
                continue
            if only_mine and only_theirs:
                said, other = mine[min(only_mine)], theirs[min(only_theirs)]
                return f"one says '{said}' where another says '{other}'"
    return None


def _spelled_otherwise(a: str, b: str) -> bool:
    """One word in another spelling ("colour" and "color", "organise" and "organize"): long
    words a letter apart. Short ones a letter apart are other words ("on" and "off")."""
    return min(len(a), len(b)) >= 5 and a.isalpha() and b.isalpha() and OSA.distance(a, b) <= 1


# Words that set two things on either side of them, each the same way round wherever it stands:
# "tea over coffee", "the violin more than the piano", "from Lisbon to Paris". One added word
# ("Actually I prefer coffee over tea these days", "…to Lisbon on Friday") hid the swap from
# the same-words test above, and consolidation merged the old preference with its reversal,
# and two flights, as one fact (a helper's probe).
_SIDES = {
    **dict.fromkeys(("over", "than", "vs", "versus", "rather", "instead"), "over"),
    **dict.fromkeys(("to", "into"), "to"),
    "from": "from",
    "before": "before",
    "after": "after",
}
# Passed over between a side's word and the word that sets it there: "likes the violin more
# than the piano".
_NOT_A_SIDE = STOPWORDS | frozenset("over more less better worse rather instead".split())
# How far from that word a side's word may stand.
SIDE_REACH = 3


def sides_swapped(text: str, old: str) -> tuple[str, str] | None:
    """The two words `text` sets the other way round from `old` (`_sides_swapped`), or None."""
    return _sides_swapped([_compared_words(text), _compared_words(old)])


def _sides_swapped(words: Sequence[list[str]]) -> tuple[str, str] | None:
    """Two words one memory sets on either side of "over", "than", "to"…, and another the
    other way round: ("tea", "coffee") of "I prefer tea over coffee" and "Actually I prefer
    coffee over tea these days". Only around the same word: "moved from Portland to Denver"
    and "relocated to Denver from Portland" say the same."""
    sides = [_sides(ws) for ws in words]
    for i, mine in enumerate(sides):
        for theirs in sides[i + 1 :]:
            for by, left, right in sorted(mine):
                turned = (by, right, left) in theirs and (by, left, right) not in theirs
                if left != right and turned:  # named in one order, whichever memory is first
                    return min(left, right), max(left, right)
    return None


def _sides(words: list[str]) -> set[tuple[str, str, str]]:
    """(what sets them, the word before, the word after) for each such word in `words`."""
    found: set[tuple[str, str, str]] = set()
    for at, word in enumerate(words):
        by = _SIDES.get(word)
        if by is None:
            continue
        before = [w for w in reversed(words[max(at - SIDE_REACH, 0) : at]) if w not in _NOT_A_SIDE]
        after = [w for w in words[at + 1 : at + 1 + SIDE_REACH] if w not in _NOT_A_SIDE]
        if before and after:
            found.add((by, before[0], after[0]))
    return found
