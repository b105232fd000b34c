"""Text analysis shared by every backend: which words of a query are worth matching, and how a
memory's text divides into statements and searchable passages."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable

WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
# Chinese, Japanese and Korean: kana, CJK ideographs (and their compatibility forms) and Hangul
# syllables. They write words without spaces between them (Korean attaches its particles), so
# a sentence was one word to the full-text index and "東京" did not find "東京に住んでいます".
# The index holds each of these characters as a word of its own (`cjk_spaced`), and a query
# searches a run of them as its overlapping pairs (`query_terms`).
CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK_CHAR = re.compile(f"[{CJK}]")
_CJK_RUN = re.compile(f"[{CJK}]+")
# A sentence ends at . ! ? and a space, or at the ideographic full stop and marks (Chinese and
# Japanese write no space after them), or a line ends.
_STATEMENT_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*|\n+")
# What a transcript's line may open with before its speaker: when or where it was said, in
# brackets ("[2024-05-01 14:00] User: …", "(1:56 pm on 8 May, 2023) Caroline: …", "[Session 3]
# Kevin: …") or as a date or a time ("2024-05-01 14:00 | User: …", "09:41 Emi: …"); or, in
# brackets, after it ("User (2024-05-01): …"). The label is read as without them. Before, a
# chat logged so was read as notes of no speaker (the first colon, the time's, has no space
# after it): every use of the labels was lost (docs/search.md, section 1d, "Logged chats").
_LEAD_IN = (
    r"(?:[\[(][^\])\n]{1,60}[\])]"
    r"|\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?)?"
    r"|\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\.?)?)"
    r"\s*(?:[-–—|]\s*)?"
)
# "Kevin: …", "User: …", "Decision: …" — a short label before a colon names who or what the
# whole memory is about; at most this many words, or the colon is part of the text.
_LABEL = re.compile(
    rf"^\s*(?>{_LEAD_IN})?([^:\n.!?(\[]{{1,40}}+)(?:[\[(][^\])\n]{{1,60}}[\])])?:\s+",
    re.IGNORECASE,
)
LABEL_MAX_WORDS = 3
# Marks around a label ("**User**: …", "> Kevin: …", "- Emi: …") and the verb of a turn told
# ("Caroline said: …") are no part of the speaker's name: "**User**" was no user, and a query
# naming Caroline named "Caroline said" only by one of its words.
_LABEL_MARKS = re.compile(r"^[\W_]+|[\W_]+$")
_TOLD = frozenset("said says wrote writes asked asks replied replies answered answers".split())
# The labels of a chat with an assistant: the user's own turns ("User: I ran the 10K in
# 56:10") and the assistant's, which echo the user's words (services.speakers, core.tastes).
USER_LABELS = frozenset({"user", "human", "me"})
ASSISTANT_LABELS = frozenset({"assistant", "ai", "bot", "chatbot", "claude", "chatgpt", "gpt"})
# Words written with a point that rarely end a sentence (see `statements`).
ABBREVIATIONS = frozenset(
    "dr mr mrs ms mx prof st jr sr vs etc approx dept fig inc ltd mt vol".split()
)
PASSAGE_MIN_WORDS = 3
MAX_PASSAGES = 16
# The model reads 256 word pieces; a longer statement (a paragraph of notes joined by
# semicolons) is embedded as overlapping windows of this many words, or its end would never
# be found by meaning. English prose is about 1.3 pieces a word; 120 words leave room for
# denser text (names, numbers, identifiers).
WINDOW_WORDS = 120
WINDOW_OVERLAP = 24
# Denser text (German compounds, Polish, Turkish: 3-4 pieces a word) reaches 256 pieces in far
# fewer words, and its end was cut off unread: when the embedder says how many pieces a
# statement takes, a window holds about this many (the rest of the 256 is room for the
# memory's label and an unevenly dense stretch), with a fifth of it overlapping the next.
WINDOW_PIECES = 200
WINDOW_MIN_WORDS = 8

Pieces = Callable[[str], int]  # how many of the embedding model's word pieces a text takes

# Function words that match almost every memory; dropping them keeps "what did I say about X"
# from turning into a scan of the whole store. Kept when a query has nothing else.
STOPWORDS = frozenset(
    [
        *"""a an and are as at be but by did do does for from had has have how i in is it its me
        my of on or our she he so that the their them then there these they this to was we were
        what when where which who whom why will with you your about would could should can just
        than""".split(),
        # Pronouns and determiners: "his" in "what do we know about his kids" was a word match
        # with every memory saying "his", at full text relevance beside no better one.
        *"""his her hers him himself herself itself myself yourself themselves ourselves us
        am been being any some each every into also very those if because while""".split(),
        # "now" asks how things stand (section 2c of docs/search.md), it names nothing: "Where
        # do I work now?" found "eats fish now" by it (a probe). bench/assistant_facts.py:
        # R@10 0.872 -> 0.885, the current fact first 14 -> 15 of 17; REALTALK and MADial as
        # they were.
        "now",
        # The person an assistant's memories are about, as it names them in its queries ("food
        # the user can't eat"): "User lives in Berlin" was the best match by words for every
        # such query (bench/assistant_facts.py). A query of these words alone still searches them.
        "user",
        "user's",
        # "one" and "ones" stem to "on" in the index (Porter): each matched every memory with "on"
        "one",
        "ones",
        # Quantifiers, as "any", "each" and "every" above: "What game do Mike and Dana both
        # play?" found "both car seats?" by it (a helper's blind chats). REALTALK R@5 / R@10
        # 0.562 / 0.661 -> 0.564 / 0.662, the first user-assistant set padded R@10 0.883 ->
        # 0.891, the third R@5 0.920 -> 0.924; no set of docs/search.md lost.
        "both",
        "all",
        # Hedges: a question asking what can be inferred says so ("Would Hana likely be up for
        # a new sport?"), and the word names nothing of the answer, only matches turns hedging
        # about something else (docs/search.md, section 1).
        "likely",
        "probably",
        "possibly",
        "perhaps",
        "might",
    ]
)


# A pronoun's or a verb's contraction, and the words it stands for: "I'm" is "I am", "don't"
# "do not", "can't" "cannot". Not "'s" nor "'d", which stand for more than one ("is" or "has";
# "had" or "would"), nor a possessive.
_CONTRACTED = {"m": " am", "re": " are", "ve": " have", "ll": " will"}
_CONTRACTION = re.compile(r"(?<=[^\W\d_])['’](m|re|ve|ll)\b|\b([^\W\d_]+)n['’]t\b", re.IGNORECASE)


def uncontracted(text: str) -> str:
    """`text` with its contractions written out (`_CONTRACTION`, `_UNMARKED`), in the case of
    the word they end: "I'm" as "I am", "Don't" and "Dont" as "Do not"."""

    def whole(match: re.Match[str]) -> str:
        ending = match.group(1)
        if ending is not None:
            spelled = _CONTRACTED[ending.lower()]
            return spelled.upper() if ending.isupper() else spelled
        verb = match.group(2)  # "ca" of "can't", "wo" of "won't", kept in their case
        if verb.lower() == "ca":
            return verb[0] + "annot"
        if verb.lower() == "wo":
            return ("W" if verb[0].isupper() else "w") + "ill not"
        return verb + " not"

    return _UNMARKED_CONTRACTION.sub(_unmarked_whole, _CONTRACTION.sub(whole, text))


# The same typed without the apostrophe, as chat types them ("Im allergic", "dont"): only
# those that are no other word ("wont", "cant", "ill", "id", "were", "its" are).
_UNMARKED = {
    "im": "I am",
    "ive": "I have",
    "youre": "you are",
    "theyre": "they are",
    **{
        f"{verb}nt": f"{verb} not"
        for verb in ("do does did is was are were have has had could would should".split())
    },
}
_UNMARKED_CONTRACTION = re.compile(r"\b(?:" + "|".join(_UNMARKED) + r")\b", re.IGNORECASE)


def _unmarked_whole(match: re.Match[str]) -> str:
    word = match.group()
    if word.isupper():  # "IM": an instant message, an abbreviation
        return word
    spelled = _UNMARKED[word.lower()]
    return spelled[0].upper() + spelled[1:] if word[0].isupper() else spelled


def cjk_spaced(text: str) -> str:
    """`text` as the full-text index reads it: a space either side of each CJK character."""
    return _CJK_CHAR.sub(r" \g<0> ", text) if _CJK_CHAR.search(text) else text


def has_cjk(text: str) -> bool:
    return _CJK_CHAR.search(text) is not None


# A query longer than this tells more than it asks: "now" and "still" in a child's long
# message to a companion ("It still hurts") narrate, its "I" shares the stage with others, and
# no memory holds much of it. MADial-Bench's messages run 24 words and up; read as questions,
# they lost R@10 (docs/search.md, sections 1b and 2c).
SHORT_QUERY_WORDS = 16


def worded_query(text: str | None) -> str | None:
    """A query as search reads it: None if blank; a query of symbols alone ("🍕", "🎂🎉")
    as their names ("slice of pizza"), which the index and the model read, where they read the
    symbols as nothing and the search found nothing (a probe); any other as it is."""
    if text is None or not text.strip():
        return None
    if any(ch.isalnum() for ch in text):
        return text
    named = [unicodedata.name(ch, "").lower() for ch in text if unicodedata.category(ch) == "So"]
    return " ".join(n for n in named if n) or text


def short_query(text: str) -> bool:
    """Whether `text` is short enough to be read as asking (`SHORT_QUERY_WORDS`)."""
    return len(text.split()) <= SHORT_QUERY_WORDS


def words(text: str) -> list[str]:
    """A text's words, lower-cased, typographic apostrophes made plain, in order; a CJK
    character is a word of its own (`cjk_spaced`). Lower-cased as the full-text index does it,
    not case-folded: folding made "Straße" "strasse" and "ﬁle" "file", words the index never
    holds, so a word was not found by its own spelling and a repeat of a text with it was
    saved again."""
    return [w.lower().replace("’", "'") for w in WORD.findall(cjk_spaced(text))]


def query_terms(query: str) -> list[str]:
    """Distinct lower-cased words of a query, stopwords removed unless nothing else remains;
    a run of CJK characters as its overlapping pairs, each a phrase ("東京都" is "東 京" and
    "京 都"): one character alone ("京") matched every memory naming Kyoto or Tokyo."""
    found: list[str] = []
    start = 0
    for run in _CJK_RUN.finditer(query):
        found += words(query[start : run.start()])
        chars = run.group()
        found += [" ".join(chars[i : i + 2]) for i in range(max(1, len(chars) - 1))]
        start = run.end()
    found += words(query[start:])
    # A possessive is searched as its word: "wife's" is the phrase "wife s" to the index, which
    # "My wife is Maya" does not hold (a probe: "What's my wife's name?" found the dog "named
    # Biscuit" first); "what's" and "it's" become stopwords.
    found = [w[:-2] if w.endswith("'s") and len(w) > 3 else w for w in found]
    distinct = list(dict.fromkeys(found))
    content = [w for w in distinct if w not in STOPWORDS]
    return content or distinct


def leading_phrase(text: str, most: int = 32) -> str:
    """The first `most` words of a text, lower-cased, as one phrase: a text that repeats another
    (other case, punctuation or spacing between words) contains it, and a phrase match is far
    more selective than any of its words."""
    return " ".join(words(text)[:most])


def statements(content: str) -> list[str]:
    """Sentences and lines, stripped; empty pieces dropped. A point after an abbreviation or
    an initial ("Dr. Lee", "9 a.m. in room 4", "J. Smith") ends no sentence: a merge drops
    the statements an earlier memory made, and "Lee" alone was one, so "Sam's dentist is Dr.
    Lee" lost its dentist's name."""
    pieces: list[str] = []
    start = 0
    for end in _STATEMENT_END.finditer(content):
        if "\n" not in end.group() and _after_abbreviation(content, end.start()):
            continue
        pieces.append(content[start : end.start()])
        start = end.end()
    pieces.append(content[start:])
    return [piece.strip() for piece in pieces if piece.strip()]


def _after_abbreviation(content: str, boundary: int) -> bool:
    """Whether the text before `boundary` ends with a point closing an abbreviation: a known
    one, a single letter, or letters with points inside (a.m., e.g., U.S.)."""
    if not content[:boundary].endswith("."):
        return False
    last = content[:boundary].rsplit(None, 1)[-1].lstrip("([{\"'“‘")[:-1]
    initial = len(last) == 1 and last.isalpha()
    dotted = "." in last and last.replace(".", "").isalpha()
    return initial or dotted or last.casefold() in ABBREVIATIONS


def _labelled(content: str) -> tuple[str, int] | None:
    """The speaker's label the content opens with, and where what they say starts."""
    label = _LABEL.match(content)
    if not label or len(label.group(1).split()) > LABEL_MAX_WORDS:
        return None
    return (speaker, label.end()) if (speaker := _speaker(label.group(1).strip())) else None


def _speaker(label: str) -> str:
    """`label` without the verb of a turn told and the marks around it (most have neither:
    a label is read for each of a search's hundreds of memories)."""
    words = label.split()
    if len(words) > 1 and words[-1].casefold() in _TOLD:
        label = label[: label.rindex(words[-1])].rstrip()
    if label[:1].isalnum() and label[-1:].isalnum():
        return label
    return _LABEL_MARKS.sub("", label)


def unlabelled(content: str) -> str:
    """The content without its speaker's label ("Kevin: …"), as `passages` cuts it."""
    label = _labelled(content)
    return content if label is None else content[label[1] :]


# What a note's first word may say of its kind: "TODO: finish the v2 schemas", "Decision: we
# moved to RQ", "Bug: staging Redis evicted jobs"; or of its weight, as docs/activation.md
# asks notes to open ("Remember: …", "Important: …" were read as speakers, and grouped as one
# chat: a probe).
_KIND_LABEL = re.compile(
    rf"\s*(?:{_LEAD_IN})?\W*(?:todo|fixme|note|bug|fix|decision|convention|gotcha|idea|"
    r"reminder|warning|tip|task|goal|plan|question|update|correction|summary|status|agenda|remember|important|"
    r"critical|crucial|urgent|fyi|heads up|never forget|don'?t forget|nb|ps)s?\s*:",
    re.IGNORECASE,
)


def without_kind_label(content: str) -> str:
    """The content without the word its note opens with to say what kind of note it is, as a
    tag would ("TODO: …"), or the content."""
    label = _KIND_LABEL.match(content)
    return content[label.end() :] if label else content


def without_topic_label(content: str) -> str:
    """The content without a label that says what it is about, as a tag would: the kind of
    note (`without_kind_label`), or a label of several words not all capitalised, which names
    no speaker ("Thesis topic: single-cell RNA-seq…", "Emergency contact: …"); or the content.
    """
    bare = without_kind_label(content)
    if bare is not content:
        return bare
    label = _labelled(content)
    if label is None:
        return content
    words = label[0].split()
    named = len(words) == 1 or all(w[:1].isupper() for w in words)
    return content if named else content[label[1] :]


def speaker_label(content: str) -> str:
    """The speaker's label the content opens with ("Fahim Khan" of "Fahim Khan: …"), as
    `unlabelled` cuts it; "" without one."""
    label = _labelled(content)
    return "" if label is None else label[0]


def said_by_the_assistant(content: str) -> bool:
    """Whether a memory is an assistant's turn of a chat ("Assistant: …"), which echoes the
    user's words rather than telling the user's facts."""
    return speaker_label(content).casefold() in ASSISTANT_LABELS


# The speaker's words for the one they talk to, and for themselves (texting spells "im", "ive").
SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself|you're|you've|you'd|you'll|u|ur)\b", re.I)
FIRST_PERSON = re.compile(
    r"\b(?:i|i'm|i've|i'll|i'd|im|ive|me|my|mine|myself|we|we're|we've|we'll|us|our|ours)\b",
    re.IGNORECASE,
)


def of_the_listener(content: str) -> bool:
    """Whether a turn of a transcript speaks of the one it is said to and not of its speaker
    ("Emi: you should sell your prints"): what it tells is the listener's. Not an assistant's
    turn, which is what the assistant said (asked of as such), nor a note without a speaker."""
    if not speaker_label(content) or said_by_the_assistant(content):
        return False
    said = unlabelled(content).replace("’", "'")
    return SECOND_PERSON.search(said) is not None and FIRST_PERSON.search(said) is None


def passages(content: str, pieces: Pieces | None = None) -> list[str]:
    """The pieces of a memory embedded on their own besides its whole text (empty when it is a
    single statement): its statements of at least three words, the first sixteen, each
    prefixed with the memory's label ("Kevin: …") when it has one. A statement longer than
    the model reads is cut into windows (`_windows`), by `pieces` where given.

    One vector for a whole multi-sentence memory averages its sentences: a question about one
    of them ("What sports does Kevin like?" against a turn that also talks about the weather)
    scores a low cosine. Matching the best sentence finds it (bench/retrieval.py: +0.02 R@10 on
    REALTALK); the label keeps who said it, which questions usually name.
    """
    label = _labelled(content)
    prefix = ""
    if label is not None:
        prefix = label[0] + ": "
        content = content[label[1] :]
    cut = [w for s in statements(content) for w in _windows(s, pieces)]
    if len(cut) < 2:
        return []
    return [prefix + piece for piece in cut[:MAX_PASSAGES]]


def _windows(statement: str, pieces: Pieces | None = None) -> list[str]:
    """The statement as one passage, none if it is too short to be one, or overlapping windows
    of words if it is longer than the model reads: WINDOW_WORDS words, or fewer where `pieces`
    says the words are dense (WINDOW_PIECES)."""
    spans = [m.span() for m in WORD.finditer(statement)]
    if len(spans) < PASSAGE_MIN_WORDS:
        return []
    size, overlap = WINDOW_WORDS, WINDOW_OVERLAP
    # Every piece covers a character at least: a shorter statement fits whatever its words.
    if pieces is not None and len(statement) > WINDOW_PIECES:
        count = pieces(statement)
        if count > WINDOW_PIECES:
            size = min(size, max(WINDOW_MIN_WORDS, len(spans) * WINDOW_PIECES // count))
            overlap = size // 5
    if len(spans) <= size:
        return [statement]
    step = size - overlap
    starts = range(0, len(spans) - overlap, step)
    return [statement[spans[i][0] : spans[min(i + size, len(spans)) - 1][1]] for i in starts]


_NOT_A_WORD = re.compile(r"[\W_]+")


def words_of(text: str) -> str:
    """Lower-cased words separated by single spaces, padded with one on each side: what
    `mentions` compares (the same rule as PostgreSQL's `engram_unmentioned`)."""
    return f" {_NOT_A_WORD.sub(' ', text.lower()).strip()} "


def mentions(text: str, name: str) -> bool:
    """Whether `text` contains `name` as whole words ("Rust" is not in "trust")."""
    return words_of(name) in words_of(text)


def unmentioned(entities_json: str, content: str) -> str:
    """A memory's entities that its content does not contain, space-separated: what its
    full-text row indexes as entities (SQLite's `engram_unmentioned`)."""
    if entities_json == "[]":
        return ""
    text = words_of(content)
    words = set(text.split())
    out = []
    for name in json.loads(entities_json):
        if not isinstance(name, str):
            continue
        key = words_of(name)
        # One word (most names): a set lookup; several: their run in the text.
        found = key.strip() in words if key.count(" ") == 2 else key in text
        if not found:
            out.append(name)
    return " ".join(out)


def tag_key(tag: str) -> str:
    """What a tag filter compares, on every backend: the tag lower-cased with Unicode's rules
    (as PostgreSQL's `lower`), in its composed form, so that "ÉTÉ" finds "été"."""
    return unicodedata.normalize("NFC", tag).lower()
