"""How a cluster of memories becomes one: the merge rules of consolidation.

Nothing a person saved may silently disappear, so the merged content keeps the originals,
oldest first, as they were written (lines, indentation, repeats within one: a code snippet stays
code), leaving out only an original an earlier one said whole, its statements in the same
order, exactly or near-exactly (the same letters, digits and symbols in the same order: other
case, spacing or punctuation, but never another number or sign: "1.5" is not "15", "1-2" not
"12", "-5" not "5", "A+" not "A-", "$500" not "€500", "dana.kim@x.com" not "dana_kim@x.com").
Memories alike in meaning that still say different things (`core.disagreement`: "is not",
another number, the same words in another order, one word, sign or tense in place of another)
are no near-copies: a person decides.
The rest:

- tags and entities: the union, first spelling kept (case-insensitive);
- created_at: the earliest; last_used and last_review_at: the latest;
- use_count, review_count, cross_domain_count: summed — a use of any copy was a use of the fact;
- strength: the strongest original's, plus 0.1 × cohesion for each further copy, at most 2.0 —
  several confirmations of one fact make it more important, never beyond the range;
- source, context, episode (and its place): the earliest original's that has one; meta: the
  originals' keys, earlier originals winning a conflict.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from engram.core.fact_values import brought_up_to_date
from engram.core.models import MAX_COUNT, MAX_STRENGTH, Memory, Relation, Status
from engram.core.own_name import in_one_voice
from engram.core.text import statements, tag_key, uncontracted
from engram.core.wording import counted

STRENGTH_PER_COPY = 0.1
MARK = "consolidation"  # the meta key a merged memory carries
MERGED_PREFIX = "merged-"  # a merged memory's id: this and its cluster's digest
# In the metadata of a relation a merge copied from an original: the merged memory it was
# copied for. Such a relation is the merge's work, not the user's.
CARRIED = "carried_by"
# In the metadata of a `supersedes` relation a merge carried: the news superseded every
# original, so it supersedes the merged memory whole, though that holds a statement of each
# (search lets news take the place of a fact of several statements only where it does). A
# change made again marks so the last news of it (`services.save_report.supersede`).
SUPERSEDES_WHOLE = "supersedes_whole"


NUMBER_MARKS = ".,:/"  # between two digits they make a number
SIGNS = "-+\u2212"  # a sign before a digit: "-5 C" is not "5 C" (U+2212 is the minus sign)
# Signs that end a word and change it: a blood type or a grade (A+, A-), C# and C++.
WORD_END_SIGNS = "-+#\u2212"
# A percentage is one wherever its sign stands: "5%" and "5 %" (as French writes it) are
# the same, and neither is "5".
PER_SIGNS = "%\u2030\u2031"
# Unicode symbols (currency, mathematical, modifier, other: $ € < > = ^ ° ©, emoji) say
# something; only punctuation and spacing are left out of a statement's key.
SYMBOLS = frozenset({"Sc", "Sm", "Sk", "So"})
# Marks that open a word in prose: before it they say nothing ("(my wife)", '"yes"', "¿qué?").
OPENING = "([{\"'\u201c\u2018\u00ab\u00bf\u00a1"
# Marks inside a word that join its parts as a space would: "well-known", "Alice's".
JOINING = "-'\u2019\u2010"
# Marks that stand alone between words as prose does: a dash, a colon, an ellipsis, French
# spacing before ! ? ; (a lone "*", "/", "&&" or "!=" is an operator, and says something).
PROSE_MARKS = "-\u2013\u2014:,.;!?\u2026\u2022\u00b7"
# The punctuation of scripts written without spaces (Chinese, Japanese): inside a run of text
# it is still prose ("東京に住んでいます。寿司" and "東京に住んでいます、寿司" say the same).
IDEOGRAPHIC_PROSE = (
    "\u3001\u3002\uff0c\uff01\uff1f\uff1a\uff1b\u300c\u300d\u300e\u300f\uff08\uff09\u30fb"
)
# An ordinary word, its case free ("Alice", "ALICE", "well-known"): a word with digits or marks
# inside ("sk-AbC123", "/srv/Data", "x.Y") is a key, a path or a name, whose case matters.
_PLAIN_WORD = re.compile(r"[^\W\d_]+(?:[-'\u2019\u2010][^\W\d_]+)*")
# A number with its unit run on ("9:30AM", "5GB", "2FA"): its case says nothing either ("9:30am"
# was another fact than "9:30AM", saved as a copy beside it; a probe).
_NUMBER_WITH_UNIT = re.compile(r"\d[\d.,:/]*[^\W\d_]+")


def statement_key(statement: str) -> str:
    """What two near-exact statements share: their words, numbers and symbols in order, with
    the case of ordinary words and the punctuation of prose left out — the marks around and
    between words ("Prefers tea, over coffee!" is "prefers tea over coffee"). What marks a word
    from within or at its start counts: a point, comma, colon or slash between two digits, a
    sign before one, a sign ending a word ("A+" is not "A-", "C#" not "C", "5%" not "5"), any
    mark inside a word but a hyphen or an apostrophe ("foo(bar)" is not "foo[bar]",
    "dana.kim@x.com" not "dana_kim@x.com"), a mark before a word but an opening bracket or quote
    ("#general" is not "general", "./build" not "/build", "-rf" not "rf"), and a lone mark
    that is no prose ("x != 0" is not "x = 0", "a * b" not "a / b"). Currency and mathematical
    signs are symbols: "$500" is not "€500", nor "load > 5" "load < 5". Two words or numbers
    apart are two ("1-2" is not "12", "not able" not "notable", "e-mail" not "email";
    "well-known" is "well known", "9am" "9 am"), and a contraction is the words it stands for
    ("I'm" is "I am", "don't" "do not": merged, both stood in one memory), and the user is
    one subject as a note and in their own words (`in_one_voice`: "User works as a nurse" is
    "I work as a nurse"). Case is ignored in
    ordinary words only: a word with digits or marks inside keeps it ("sk-AbC1" is not
    "sk-abc1"). Canonically composed first: "café" typed as one character or as "e" and a
    combining accent (macOS file names, some keyboards) is the same word; compatibility forms
    stay ("10³" is not "103"). A statement with neither words nor marks that count (a row of
    dashes) is compared by everything but its spacing.

    Every mark read as nothing makes two texts one: a correction saved after the text it
    corrects was merged into it as a repeat, and the correction was lost."""
    normal = in_one_voice(uncontracted(unicodedata.normalize("NFC", statement)))
    kept: list[str] = []
    gap = False
    for token in normal.split():
        if _PLAIN_WORD.fullmatch(core := _core(token)) or _NUMBER_WITH_UNIT.fullmatch(core):
            token = token.casefold()
        for ch, counts in zip(token, meaningful(token), strict=True):
            if not counts:
                gap = True
                continue
            if gap and kept and _same_kind(kept[-1], ch):
                # Two words, not one: "not able" is not "notable", "1-2 tablets" not "12 tablets"
                # (joined, they were the same statement, and a repeat's other text was dropped);
                # "9 am" is "9am".
                kept.append(" ")
            kept.append(ch)
            gap = False
        gap = True
    return "".join(kept) or "".join(normal.split())


def _core(token: str) -> str:
    """A word without the marks around it: `token` from its first letter or digit to its last."""
    letters = [i for i, ch in enumerate(token) if ch.isalnum()]
    return token[letters[0] : letters[-1] + 1] if letters else ""


def _same_kind(a: str, b: str) -> bool:
    """Two letters or two digits: what a gap between them keeps apart."""
    return (a.isdigit() and b.isdigit()) or (a.isalpha() and b.isalpha())


def meaningful(token: str) -> list[bool]:
    """For each character of `token` (a run without spaces), whether it counts in a
    statement's key. Where its letters start and end is found once: found again for every
    character, a 49,000-character token of marks took minutes to save (a helper's probe)."""
    letters = [j for j, c in enumerate(token) if c.isalnum()]
    span = (letters[0], letters[-1]) if letters else None
    operator_end = len(token.rstrip(PROSE_MARKS))
    return [_counts(token, i, span, operator_end) for i in range(len(token))]


def _counts(token: str, i: int, span: tuple[int, int] | None, operator_end: int) -> bool:
    ch = token[i]
    if ch.isalnum() or ch in PER_SIGNS or unicodedata.category(ch) in SYMBOLS:
        return True
    if ch in IDEOGRAPHIC_PROSE:
        return False
    if span is None:  # a lone mark, or a run of them: an operator ("!=", "*", "&&") ...
        return i < operator_end  # ... but not the prose marks that end it ("%.")
    if _in_number(token, i):
        return True
    if i < span[0]:  # before the word: "#general", "@dana", "./build", "-rf"
        return ch not in OPENING
    if i > span[1]:  # after it: a sign that changes it ("A+", "C#"), not a full stop
        return _ends_word(token, i)
    return ch not in JOINING  # inside it: "foo(bar)", "dana.kim@x.com", "prod_db.yaml"


def _ends_word(text: str, i: int) -> bool:
    before = text[i - 1] if i > 0 else ""
    after = text[i + 1] if i + 1 < len(text) else ""
    return (
        text[i] in WORD_END_SIGNS
        and (before.isalnum() or before in WORD_END_SIGNS)
        and not (after.isalnum())
    )


def _in_number(text: str, i: int) -> bool:
    before = text[i - 1] if i > 0 else ""
    after = text[i + 1] if i + 1 < len(text) else ""
    if not after.isdigit():
        return False
    if before.isdigit():
        return text[i] in NUMBER_MARKS  # "1.5", "10:30", "3/4", "1,000"; not "12 34"
    return text[i] in SIGNS and not before.isdigit()  # "UTC-1", "-5"; "12-34" is a range


def merged_content(contents: Iterable[str]) -> str:
    """The originals' texts, oldest first, without those another one says whole: their
    statements (or clauses), in their order, one after another in that other text. A later
    one that says more ("Atlas uses PostgreSQL 16 (decided at the kickoff)") takes an earlier
    one's place; of two saying the same, the earlier stays. One that adds anything is kept
    whole: a statement it repeats may hang on one it does not ("- peanuts" under "Alice's
    daughter's allergies:", "No" after another question), and cutting the repeats left the
    heading without its list. Order counts too: "Tuesday:" then "- pasta" is another plan than
    "Tuesday:" then "- salad", though the first plan says "- pasta" (under Monday), and
    counting statements alone merged the newer plan away."""
    texts = [content.rstrip().lstrip("\r\n") for content in contents]
    return "\n".join(texts[i] for i in _kept(texts))


def said_by_one(contents: Sequence[str]) -> bool:
    """Whether one of `contents` says every other whole: their merge loses no word, and is
    the rules' to make even where the texts are only related in meaning ("Anna lives in
    Berlin" and "Anna lives in Berlin, Germany, with her wife")."""
    return len(_kept([content.strip() for content in contents])) == 1


def _kept(texts: Sequence[str]) -> list[int]:
    """Which of `texts` no other one says whole (of two saying each other, the first)."""
    parts = [_parts(text) for text in texts]

    def left_out(i: int) -> bool:
        return any(
            j != i and _says(parts[j], parts[i]) and (j < i or not _says(parts[i], parts[j]))
            for j in range(len(texts))
        )

    return [i for i, text in enumerate(texts) if text and not left_out(i)]


def says_whole(text: str, other: str) -> bool:
    """Whether `text` says `other` whole: its statements, in their order, one after another
    (compared by `statement_key`), as a merged memory says each of its originals. Clauses do
    not count here, as they do in a merge: said again on its own, a part of a statement may be
    said anew ("Dana is my manager" after "Dana is my manager: no longer")."""
    run = [statement_key(piece) for piece in statements(other)]
    return bool(run) and _holds_run([statement_key(p) for p in statements(text)], run)


# Where a clause ends inside a statement: a comma, semicolon or colon before a space, a dash
# standing alone, a bracket around words. "1,000" and "9:30" are numbers, no clauses.
_CLAUSE_END = re.compile(r"[,;:](?=\s)|\s[-\u2013\u2014]+\s|\s\(|\)(?=[\s.,;:!?]|$)")

Parts = tuple[list[str], list[str]]


def _parts(text: str) -> Parts:
    """The keys of `text`'s statements, and of its clauses."""
    said = statements(text)
    clauses = [c for piece in said for c in _CLAUSE_END.split(piece)]
    return [statement_key(p) for p in said], [k for c in clauses if (k := statement_key(c))]


def _says(text: Parts, other: Parts) -> bool:
    """Whether `other`'s statements, or its clauses, stand in `text` one after another."""
    return any(bool(run) and _holds_run(keys, run) for keys, run in zip(text, other, strict=True))


def _holds_run(text: Sequence[str], run: Sequence[str]) -> bool:
    """Whether `run` stands in `text`, one after another (statement keys)."""
    n = len(run)
    return any(list(text[i : i + n]) == list(run) for i in range(len(text) - n + 1))


def _union(groups: Iterable[Sequence[str]]) -> tuple[str, ...]:
    seen: set[str] = set()
    out: list[str] = []
    for group in groups:
        for value in group:
            if tag_key(value) not in seen:
                seen.add(tag_key(value))
                out.append(value)
    return tuple(out)


def merged_strength(strengths: Sequence[float], cohesion: float) -> float:
    extra = STRENGTH_PER_COPY * max(cohesion, 0.0) * (len(strengths) - 1)
    return min(MAX_STRENGTH, max(strengths) + extra)


def merge(
    memories: Sequence[Memory], cohesion: float, new_id: str, outdated: Collection[str] = ()
) -> Memory:
    """One active memory standing for `memories` (two or more), by the rules above.

    `outdated`: those of them another of them supersedes. What they said is left out (their
    words, names and day), their uses are counted: a merge of a fact with the news that
    replaced it read "lives in Montreal" then "moved to Toronto", dated from the old fact and
    marked outdated nowhere (an MCP probe). Where the news names the value it replaces in one
    ("Thursday, not Wednesday"), that one's text stays with the new value
    (`core.fact_values.brought_up_to_date`): its other details held. All of them outdated is none
    outdated."""
    if len(memories) < 2:
        raise ValueError("a merge needs at least two memories")
    oldest_first = sorted(memories, key=lambda m: (m.created_at, m.id))
    current = [m for m in oldest_first if m.id not in outdated] or oldest_first
    updated = {
        m.id: text
        for m in oldest_first
        if m not in current
        and (
            text := next(
                filter(None, (brought_up_to_date(m.content, n.content) for n in current)), None
            )
        )
    }
    said = [m for m in oldest_first if m in current or m.id in updated]
    meta: dict[str, Any] = {}
    for m in reversed(oldest_first):
        meta.update(m.meta)
    first_episode = next((m for m in current if m.episode is not None), None)
    return Memory(
        id=new_id,
        content=merged_content(updated.get(m.id, m.content) for m in said),
        tags=_union(m.tags for m in oldest_first),
        entities=_union(
            [
                e
                for e in m.entities
                if m.id not in updated or e.casefold() in updated[m.id].casefold()
            ]
            for m in said
        ),
        source=next((m.source for m in current if m.source), None),
        context=next((m.context for m in current if m.context), None),
        meta=meta,
        created_at=current[0].created_at,
        last_used=max(m.last_used for m in memories),
        use_count=_total(m.use_count for m in memories),
        strength=merged_strength([m.strength for m in memories], cohesion),
        status=Status.ACTIVE,
        review_count=_total(m.review_count for m in memories),
        last_review_at=max((m.last_review_at for m in memories if m.last_review_at), default=None),
        cross_domain_count=_total(m.cross_domain_count for m in memories),
        episode=None if first_episode is None else first_episode.episode,
        episode_seq=None if first_episode is None else first_episode.episode_seq,
    )


def _total(counts: Iterable[int]) -> int:
    """The originals' counts together, stopping at the most a count holds, as a use does: two
    memories used 2^31 - 1 and 1 times could not be merged (audit)."""
    return min(sum(counts), MAX_COUNT)


def version(memory: Memory) -> str:
    """What a cluster id (and a merge, for its undo) remembers of a memory: a digest of what
    it says."""
    said = "\x1f".join([memory.content, *memory.tags, "\x1e", *memory.entities])
    return hashlib.sha256(said.encode()).hexdigest()[:12]


def edit_stamp(memory: Memory) -> str:
    """What an undo checks was not edited since the merge: everything a person can change
    (`update`), not only what the memory says. Its own merge mark is left out (the merge
    writes the stamp into it)."""
    meta = {k: v for k, v in memory.meta.items() if k != MARK}
    fields = [memory.content, memory.tags, memory.entities, memory.source, memory.context]
    said = json.dumps([*fields, meta, memory.strength], sort_keys=True, default=str)
    return hashlib.sha256(said.encode()).hexdigest()[:12]


def merged_id(cluster: str) -> str:
    """The merged memory's id: derived from the cluster's, so a retry finds its leftovers."""
    return MERGED_PREFIX + cluster.removeprefix("cluster-")


def is_pending(memory: Memory) -> bool:
    """A merged memory written but never activated (a merge stopped half-way)."""
    return _state(memory) == "pending"


def is_leftover(memory: Memory) -> bool:
    """A merged memory a stopped process left behind: never activated (a merge stopped
    half-way), or archived by an undo that stopped before deleting it."""
    return _state(memory) in ("pending", "undone")


def is_undone(memory: Memory) -> bool:
    return _state(memory) == "undone"


def _state(memory: Memory) -> object:
    mark = memory.meta.get(MARK)
    return mark.get("state") if isinstance(mark, dict) else None


def recorded_members(mark: dict[str, Any]) -> frozenset[str] | None:
    """The originals a merge recorded in its mark; None for a merge from before it did."""
    members = mark.get("members")
    return frozenset(str(m) for m in members) if isinstance(members, list) else None


def merges_into(merged: Memory, original_id: str) -> bool:
    """Whether `merged` is a merge that took `original_id` in: its mark says so. A
    `consolidated_from` relation alone proves nothing (any client may create one)."""
    mark = merged.meta.get(MARK)
    if not isinstance(mark, dict):
        return False
    members = recorded_members(mark)
    return merged.id.startswith(MERGED_PREFIX) if members is None else original_id in members


def merge_originals(merged: Memory, relations: Sequence[Relation]) -> list[str]:
    """The originals an undo restores: those the merge recorded that are still there (their
    `consolidated_from` relation goes with them when deleted)."""
    return sorted(
        r.to_id
        for r in relations
        if r.type == "consolidated_from" and r.from_id == merged.id and merges_into(merged, r.to_id)
    )


def undo_refusal(
    merged: Memory,
    mark: dict[str, Any],
    relations: Sequence[Relation],
    force: bool,
    merged_again_into: Sequence[str] = (),
) -> str | None:
    """Why undoing this merge must not happen, or None. `relations`: all of the merged
    memory's; `mark`: its meta[MARK] as the merge left it (the version it was saved with);
    `merged_again_into`: the merged memories that took this one in since."""
    ident = merged.id
    if merged_again_into:
        return (
            f"{ident} was merged again, into {sorted(merged_again_into)[0]}: undo that merge first"
        )
    if merged.status == Status.PROMOTED:
        return (
            f"{ident} was promoted to the vault since the merge ({merged.promoted_to}): its "
            "note names it, so it stays"
        )
    # An archived merge (faded and archived by gc, or by hand) is undone as an active one:
    # "not an active merge" refused it though its originals were all there to restore.
    if is_pending(merged) or merged.status not in (Status.ACTIVE, Status.ARCHIVED):
        return f"{ident} is not a finished merge (nothing to undo)"
    if force:
        return None
    lost = []
    if "edits" in mark:  # a merge that stamps every field a person can change
        if mark["edits"] != edit_stamp(merged):
            lost.append("edited (its text, tags, entities, source, context, meta or strength)")
    elif "version" in mark and mark["version"] != version(merged):  # an older merge's mark
        lost.append("edited (content, tags or entities)")
    if "version" in mark:  # a merge that marks the relations it carried (older ones do not)
        originals = set(merge_originals(merged, relations))
        made = [
            r
            for r in relations
            if not (r.type == "consolidated_from" and r.from_id == ident and r.to_id in originals)
            and CARRIED not in r.metadata
        ]
        if made:
            lost.append(f"related to {counted(len(made), 'more memory')}")
    if merged.use_count > mark.get("uses", merged.use_count):  # the originals never had them
        uses = merged.use_count - mark["uses"]
        lost.append("used once" if uses == 1 else f"used {uses:,} times")
    if not lost:
        return None
    return (
        f"{ident} was {' and '.join(lost)} after the merge; undoing deletes it and that work "
        "with it. Undo with force=true to do it anyway"
    )
