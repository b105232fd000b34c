"""Transcripts: memories that open with their speaker's label ("Fahim Khan: I've been learning
to watercolor"), and a query naming one of the speakers ("What are Fahim's hobbies?"). Such a
query asks of that speaker's own turns, but every turn of the conversation names the people in
it or answers them, and the other speaker's turns took a sixth of the top ten (REALTALK: 93 %
of the evidence for a question naming one speaker is that speaker's). Read over `Store`, for
`SearchService` (docs/search.md, "Transcripts: a speaker named")."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence

from engram.core.chat_roles import chat_roles
from engram.core.dates import MONTH_NAMES, WEEKDAYS
from engram.core.own_name import in_first_person, without_name
from engram.core.questions import only_asks
from engram.core.ranking import Candidate
from engram.core.text import STOPWORDS, speaker_label, unlabelled
from engram.storage.protocol import MemoryText, Store, Stub

# The best matches whose labels are read: a query names a speaker of those, or of none; the
# best few first, and none more where those have no label (an assistant's notes: each memory
# read is a row fetched and parsed, on every search naming someone).
READ = 60
PEEK = 10
# A label is a speaker's where its memories of a few words speak as a person ("I", "my",
# "you") at least this often, and share a conversation (an episode) with another label's. Not
# an assistant's notes labelled by subject or kind ("Atlas: deploys go out on Tuesdays",
# "Correction: Lisa eats fish now", "Jordan: my brother, a firefighter"): a probe's notes
# lost their correction below the outdated fact when those were taken for speakers.
PERSONAL_SHARE = 0.25
TELLING_WORDS = 4
# A label with fewer telling turns than this among the best matches is judged on the turns
# around the best `AROUND_SOURCES` too (`AROUND` either side in their episodes): the matches of
# a query naming one speaker are that speaker's turns (56 of 60, by the name in each label),
# and the other speaker, seen in a few short or third-person turns, failed the test above, so
# the question went unread as theirs (a helper's blind chats, bench/data/friends: R@10 0.763 →
# 0.779 at 10, 0.772 at 4; docs/search.md, section 1d).
SAMPLE_TURNS = 10
AROUND_SOURCES = 20
AROUND = 2
# A question may name the wrong speaker: the user mixes up who said what, and LoCoMo-style
# benchmarks ask so on purpose ("What did Caroline realize after her charity race?" of
# Melanie's race). Where another speaker's memory matches it better than every memory of the
# speaker it names, it is lowered only to just below their best (`BELOW_NAMED`), and where
# one matches it `MISNAMED_LEAD` times better, none is lowered: the name is likelier wrong
# than the match. Questions of REALTALK, the friends' and the named speakers' chats naming one
# speaker whose evidence is theirs (593), asked of the other speaker instead: R@10 / MRR
# 0.435 / 0.176 -> 0.510 / 0.340; asked as written, 0.770 / 0.654 -> 0.763 / 0.635. A lead of
# 2 gave 0.501 / 0.298 and 0.764 / 0.642; 1.5 won on a helper's blind LoCoMo-style chats
# (docs/search.md, section 1d).
BELOW_NAMED = 0.9
MISNAMED_LEAD = 1.5
# ... nor where one holds the query's words this many times as well as every memory of theirs
# and comes near their best (`BELOW_NAMED`): the words were said, by someone else (the name is
# wrong, or the other speaker told it of them). On the LoCoMo-style chats MRR +0.005 to
# +0.009, their misnamed questions +0.007 to +0.018 (docs/search.md, section 1d).
MISNAMED_TEXT_LEAD = 2.0
# Words shorter than this name no speaker ("Al", "Jo" are words of other things as often);
# from the longer length up, the start of a name names it too ("Jess" for "Jessica").
NAME_MIN_CHARS = 3
NAME_START_CHARS = 4
# Names that are days and months too: "Is the wedding in June?" does not name June Carter.
_NOT_NAMES = frozenset(name.casefold() for name in (*MONTH_NAMES, *WEEKDAYS))

_WORD = re.compile(r"[\w'’]+")
_POSSESSIVE = re.compile(r"['’]s$")
# A person speaking: to someone, or of themselves ("its incredible", "we'll see" say neither).
_PERSONAL = re.compile(
    r"\b(?:i|i'm|i've|i'll|i'd|me|my|mine|we|we're|we've|us|our|you|you're|your|u|ur)\b",
    re.IGNORECASE,
)
# Of oneself, as a user's own notes say it ("I have a beagle named Rufus").
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'll|i'd|me|my|mine)\b", re.IGNORECASE)


def _role(label: str) -> str:
    return label.strip().casefold()


class Speakers:
    """The labels of the memories a search reads, each read once, and the speaker the query
    names among them."""

    def __init__(
        self,
        store: Store,
        query: str,
        texts: Callable[[Sequence[str]], Mapping[str, MemoryText]] | None = None,
    ) -> None:
        self._store = store
        self._texts = store.texts if texts is None else texts  # a search's `SearchReads.texts`
        # The words that may name someone, written with a capital: a query naming nobody so
        # reads no memory
        self._asked = {
            w.casefold()
            for w in (_POSSESSIVE.sub("", w) for w in _WORD.findall(query))
            if w[0].isupper()
            and len(w) >= NAME_MIN_CHARS
            and w.casefold() not in STOPWORDS | _NOT_NAMES
            and not w.startswith(("I'", "I’"))
        }
        # "What were my 10K times?" asks of the user of a chat with an assistant, "What did you
        # suggest for my knee?" of the assistant
        self._roles = chat_roles(query)
        self._labels: dict[str, str] = {}
        self._episodes: dict[str, str | None] = {}
        self._personal: dict[str, bool] = {}
        self._said: dict[str, str] = {}  # each memory read, without its label
        self._of_themselves: set[str] = set()  # unlabelled, in the first person
        self.named: set[str] = set()  # the speakers `asked_as_them` asks as
        self.others: set[str] = set()  # ... and the other speakers beside them

    def _read_labelled(self, ids: list[str]) -> dict[str, str]:
        """The labels of `ids`, best first, where the best `PEEK` have any; else none."""
        if not any(self._read(ids[:PEEK]).values()):
            return {}
        return self._read(ids)

    def _read(self, ids: Iterable[str]) -> dict[str, str]:
        """The labels of `ids` ("" for a memory without one)."""
        wanted = list(ids) if self._asked or self._roles is not None else []
        missing = [i for i in wanted if i not in self._labels]
        for ident, (content, episode) in self._texts(missing).items():
            label = speaker_label(content)
            self._labels[ident] = label
            self._episodes[ident] = episode
            said = unlabelled(content)
            self._said[ident] = said
            if len(said.split()) >= TELLING_WORDS:  # "Nope", "its incredible" tell nothing
                self._personal[ident] = _PERSONAL.search(said) is not None
            if not label and _FIRST_PERSON.search(said):
                self._of_themselves.add(ident)
        return {i: self._labels.get(i, "") for i in wanted}

    def _speakers(self, labels: dict[str, str]) -> set[str]:
        """Of the labels of `labels` (id: label), those of people speaking in a conversation:
        judged on the matches, and a label seen in few telling turns among them judged again
        on the turns around the best ones, if it speaks in a conversation of a speaker the
        query names (an assistant's "Correction:" notes saved in other sessions than its
        "Atlas:" notes were taken for a speaker, and lowered for "When does Atlas deploy?":
        a helper's probe). Where the query names the label of most of the matches (at least
        `SAMPLE_TURNS`, by the name in each) and no other speaker was judged beside it, the
        other speaker was not among the matches at all ("What hobbies does Nicolas have?": 60
        of 60 were his, so the question was not asked as his and "Nicolas: Umm" came third
        by the name): every label around the best ones is judged then. An assistant's notes
        labelled by subject ("Atlas: we deploy on Tuesdays") are a few of the matches, not
        most, and are not read so."""
        turns: dict[str, list[str]] = defaultdict(list)
        for ident, label in labels.items():
            if label:
                turns[label].append(ident)
        found = self._judged(turns)
        named = {label for label in found if self._names(label)}
        labelled = sum(len(ids) for ids in turns.values())
        crowding = {  # the named label of most of the matches
            label
            for label, ids in turns.items()
            if self._names(label) and len(ids) >= SAMPLE_TURNS and 2 * len(ids) > labelled
        }
        if crowding and not (len(found) >= 2 and crowding <= found):
            return found | self._speaking_with(self._read_around(labels), crowding)
        thin = [
            label
            for label in turns
            if label not in found and sum(i in self._personal for i in turns[label]) < SAMPLE_TURNS
        ]
        if not named or not thin:
            return found
        everyone = self._read_around(labels)
        matched = {label: everyone[label] for label in turns}
        return found | (self._speaking_with(matched, named) & set(thin))

    def _read_around(self, labels: dict[str, str]) -> dict[str, list[str]]:
        """Every labelled turn read so far, by label, once the turns around the best of
        `labels` are read too."""
        around = self._store.episode_neighbours(list(labels)[:AROUND_SOURCES], AROUND)
        self._read({n for _, n in around})
        everyone: dict[str, list[str]] = defaultdict(list)
        for ident, label in self._labels.items():
            if label:
                everyone[label].append(ident)
        return everyone

    def _speaking_with(self, turns: dict[str, list[str]], named: set[str]) -> set[str]:
        """The labels of `turns` judged speakers (`_judged`) that share a conversation with a
        label of `named`, those included."""
        theirs = {self._episodes[i] for label in named for i in turns.get(label, [])} - {None}
        return {
            label
            for label in self._judged(turns)
            if theirs & {self._episodes[i] for i in turns[label]}
        }

    def _judged(self, turns: dict[str, list[str]]) -> set[str]:
        """The labels of `turns` (label: ids) whose turns speak as a person often enough and
        share a conversation with another label's."""
        episodes = {
            label: {self._episodes[i] for i in ids} - {None} for label, ids in turns.items()
        }
        found = set()
        for label, ids in turns.items():
            told = [self._personal[i] for i in ids if i in self._personal]
            talks = any(
                episodes[label] & held for other, held in episodes.items() if other != label
            )
            if talks and sum(told) >= PERSONAL_SHARE * len(told):
                found.add(label)
        return found

    def _words_of(self, ident: str) -> set[str]:
        """The words a memory read says, without its label, casefolded, possessives cut."""
        said = self._said.get(ident, "").casefold()
        return {_POSSESSIVE.sub("", word) for word in _WORD.findall(said)}

    def _names(self, label: str) -> bool:
        """Whether a word of the query names `label`."""
        return bool(self._naming(label))

    def _naming(self, label: str) -> set[str]:
        """The words of the query naming `label`: one of its words, or the start of one."""
        words = [w.casefold() for w in _WORD.findall(label) if len(w) >= NAME_MIN_CHARS]
        return {
            a
            for a in self._asked
            if a in words or (len(a) >= NAME_START_CHARS and any(w.startswith(a) for w in words))
        }

    def asked_as_them(self, text: str, found: list[Stub]) -> str | None:
        """`text` as the speakers it names among the labels of its best text matches `found`
        would ask it, where there are several speakers: "What are Fahim's hobbies?" as "What
        are my hobbies?" (by the name, every turn of the conversation was like it). A question
        naming several of them, without their names: in "Is Muhhamed more of a gamer than
        Akib?" the rarer word pieces of one name made that speaker's every turn alike, and
        theirs took the top ten (REALTALK: 95 of 706 questions name both speakers). None
        otherwise, and where the user's own notes are among the matches ("I have a beagle
        named Rufus" answered "What breed is my dog?" of Maya's dog: a probe). Meant for the
        named speakers' memories only (`theirs`)."""
        top = sorted(found, key=lambda s: -s.relevance)[:READ]
        labels = self._read_labelled([s.id for s in top])
        speakers = self._speakers(labels)
        named = {label for label in speakers if self._names(label)}
        if not named or len(speakers) < 2 or self._of_themselves & set(labels):
            return None
        self.named, self.others = named, speakers - named
        words = {word for label in named for word in self._naming(label)}
        for word in sorted(words, key=lambda w: (-len(w), w)):  # one order, whatever the hash
            text = in_first_person(text, word) if len(named) == 1 else without_name(text, word)
        return text

    @staticmethod
    def _told_by_another(
        found: list[tuple[Stub, Candidate]],
        labels: Mapping[str, str],
        named: set[str],
        answering: set[str],
        best_named: float,
    ) -> bool:
        """Whether a memory of another speaker holds the query's words `MISNAMED_TEXT_LEAD`
        times as well as every memory of the speaker it names, and comes near their best
        (`BELOW_NAMED`): "Which project did Walter become lead of?" of Nora's "Priya made me
        project lead", "What coffee did Carol want Nora to bring?" of her father's "Your mother
        wants that coffee", both lowered below ten of the named speaker's turns."""
        text = {c.id: c.text or 0.0 for _, c in found}
        relevance = {c.id: c.relevance for _, c in found}
        theirs = [text.get(i, 0.0) for i, label in labels.items() if label in named]
        lead = MISNAMED_TEXT_LEAD * max(theirs, default=0.0)
        return any(
            text[i] > 0 and text[i] >= lead and relevance[i] >= BELOW_NAMED * best_named
            for i in answering
        )

    def theirs(self, ids: Iterable[str]) -> set[str]:
        """Of `ids`, the memories of the speakers `asked_as_them` asked as."""
        return self._said_by(self.named, ids)

    def the_others(self, ids: Iterable[str]) -> set[str]:
        """Of `ids`, the memories of the other speakers beside them."""
        return self._said_by(self.others, ids)

    def _said_by(self, labels: set[str], ids: Iterable[str]) -> set[str]:
        return {i for i, label in self._read(ids).items() if label and label in labels}

    def named_first(
        self, found: list[tuple[Stub, Candidate]], share: float
    ) -> list[tuple[Stub, Candidate]]:
        """For a query naming the speakers of some of its best matches and not of others, the
        memories of speakers it does not name keep `share` of their relevance
        (ENGRAM_SEARCH_OTHER_SPEAKERS_SHARE); memories without a label, or with a label of no
        speaker, as they are. In a chat with an assistant, a query naming no speaker lowers
        the side it does not ask of (`core.chat_roles`)."""
        top = sorted(found, key=lambda f: -f[1].relevance)[:READ]
        labels = self._read_labelled([c.id for _, c in top])
        speakers = self._speakers(labels)
        named = {label for label in speakers if self._names(label)}
        lowered = speakers - named
        by_name = bool(named)  # not a side of a chat with an assistant (below)
        if not named and self._roles is not None:
            named = {label for label in speakers if _role(label) in self._roles.named}
            lowered = {label for label in speakers if _role(label) in self._roles.lowered}
            share = max(share, self._roles.least_share)
        if not named or not lowered:
            return found
        others = {i for i, label in labels.items() if label in lowered}
        relevance = {c.id: c.relevance for _, c in found}
        best_named = max((relevance[i] for i, label in labels.items() if label in named), default=0)
        # Not those saying the name: "Emi: Hi Paola! How was your day?" matched "What kind of
        # housework did Paola do?" by it, better than Paola's laundry.
        naming = {word for label in named for word in self._naming(label)} if by_name else set()
        # Nor those that only ask ("how did the interview at the museum go?", of Lena's
        # interview): a question answers nothing, whoever is named.
        answering = {
            i
            for i in others
            if naming and not naming & self._words_of(i) and not only_asks(self._said.get(i, ""))
        }
        if answering and max(relevance[i] for i in answering) > MISNAMED_LEAD * best_named:
            return found  # the query likelier names the wrong speaker (`MISNAMED_LEAD`)
        if self._told_by_another(found, labels, named, answering, best_named):
            return found

        def lowered_to(ident: str, value: float) -> float:
            if ident in answering and value > best_named:  # better than every one of theirs
                return max(value * share, BELOW_NAMED * best_named)
            return value * share

        return [
            (s, c._replace(relevance=lowered_to(c.id, c.relevance)) if c.id in others else c)
            for s, c in found
        ]
