"""Conversational retrieval data for the benchmarks: loaders and recall metrics.

Two formats, both turned into the same shape: a `Conversation` is the memories of one store (in
the order they were said, each with its episode) and the questions asked of it, each with the
ids of the memories that answer it.

- REALTALK / LoCoMo style (`../shared/data/realtalk`): one JSON file per conversation with
  `session_N` turn lists (`dia_id`, `speaker`, `clean_text` or `text`, `date_time`),
  `session_N_date_time` and `qa` (`question`, `evidence` dia ids, `category`). Every turn is one
  memory "<speaker>: <text>" saved at its own time in episode "session-N" — the protocol of the
  shared harness (`../shared/bench/retrieval_eval.py`), whose question and evidence counts this
  loader reproduces (706 scorable REALTALK questions).
  A turn without a `speaker` is a note an assistant saved, kept as written
  (`bench/data/developer_notes`).
- MADial-Bench (`../shared/data/madial-bench-en`): 160 memories of one user (each its own
  episode: they were not said in one conversation) and 160 dialogues; the query is what the
  user said before the turn where the assistant should recall, the gold is `relevant-id`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from engram.core.text import speaker_label, unlabelled

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
# bench/data/friends: a question that shares almost no word with its evidence.
CATEGORIES[6] = "paraphrase"
MADIAL_CATEGORY = 10
CATEGORIES[MADIAL_CATEGORY] = "recall (MADial)"
# The kinds of question of the user-assistant chats in bench/data/user_assistant (those of
# LongMemEval, which the helpers who wrote them followed).
CATEGORIES |= {
    11: "single-session-user",
    12: "single-session-assistant",
    13: "multi-session",
    14: "knowledge-update",
    15: "temporal-reasoning",
    16: "preference",
}


@dataclass(frozen=True)
class Turn:
    id: str
    content: str
    created_at: datetime
    episode: str


@dataclass(frozen=True)
class Question:
    text: str
    gold: frozenset[str]
    category: int


@dataclass
class Conversation:
    name: str
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    @property
    def now(self) -> datetime:
        return max(t.created_at for t in self.turns)

    @property
    def fingerprint(self) -> str:
        """A short digest of the turns: two sets may hold conversations of one name (a "priya"
        in two folders of user–assistant chats), and a store kept for one was searched for the
        other's questions."""
        digest = hashlib.sha1()
        for t in self.turns:
            digest.update(
                f"{t.id}\0{t.content}\0{t.created_at.isoformat()}\0{t.episode}\n".encode()
            )
        return digest.hexdigest()[:10]


# -- REALTALK / LoCoMo ----------------------------------------------------------------------------

_SESSION = re.compile(r"^session_(\d+)$")
_RANGE = re.compile(r"D\s*:?\s*(\d+)\s*[:;]\s*(\d+)\s*-\s*D?\s*:?\s*(\d+)\s*[:;]\s*(\d+)", re.I)
_ONE = re.compile(r"D\s*:?\s*(\d+)\s*[:;]\s*(\d+)", re.I)
_LOCOMO_MOMENT = re.compile(
    r"(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})", re.I
)
_MONTHS = {
    m: i
    for i, m in enumerate(
        "january february march april may june july august september october november "
        "december".split(),
        start=1,
    )
}


def parse_moment(text: str) -> datetime | None:
    """The date formats of the data files, as UTC: "29.12.2023, 22:42:04" (REALTALK),
    "1:56 pm on 8 May, 2023" (LoCoMo), ISO 8601."""
    text = (text or "").strip()
    if m := re.match(r"(\d{1,2})\.(\d{1,2})\.(\d{4}),?\s+(\d{1,2}):(\d{2})(?::(\d{2}))?", text):
        day, month, year, hour, minute, second = m.groups()
        return datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second or 0), tzinfo=UTC
        )
    if m := _LOCOMO_MOMENT.match(text):
        hour, minute, half, day, month_name, year = m.groups()
        month = _MONTHS.get(month_name.lower())
        if month:
            h = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
            return datetime(int(year), month, int(day), h, int(minute), tzinfo=UTC)
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def evidence_ids(raw: Iterable[object]) -> list[str]:
    """Annotated evidence as dia ids: "D3:5", and the data's variants ("D8:6; D9:17",
    "D:11:26", "D30:05", "D12:3-D12:5" within one session)."""
    out: list[str] = []
    for item in raw:
        text = str(item)
        for m in _RANGE.finditer(text):
            s1, t1, s2, t2 = (int(x) for x in m.groups())
            if s1 == s2 and t1 <= t2 <= t1 + 50:
                out += [f"D{s1}:{t}" for t in range(t1, t2 + 1)]
            else:
                out += [f"D{s1}:{t1}", f"D{s2}:{t2}"]
        out += [f"D{int(a)}:{int(b)}" for a, b in _ONE.findall(_RANGE.sub(" ", text))]
    return list(dict.fromkeys(out))


def load_dialogues(path: Path) -> list[Conversation]:
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    out: list[Conversation] = []
    for file in files:
        obj = json.loads(file.read_text(encoding="utf-8"))
        for i, sample in enumerate(obj if isinstance(obj, list) else [obj]):
            name = str(sample.get("sample_id") or (file.stem if i == 0 else f"{file.stem}-{i}"))
            out.append(_dialogue(name, sample))
    return out


def _dialogue(name: str, sample: dict[str, object]) -> Conversation:
    block = sample["conversation"] if isinstance(sample.get("conversation"), dict) else sample
    assert isinstance(block, dict)
    conv = Conversation(name)
    sessions = sorted(
        (int(m.group(1)), key)
        for key in block
        if (m := _SESSION.match(key)) and isinstance(block[key], list)
    )
    for number, key in sessions:
        start = parse_moment(str(block.get(f"{key}_date_time", "")))
        for turn in block[key]:
            text = turn.get("text", turn.get("clean_text", "")) or ""
            moment = parse_moment(str(turn.get("date_time", ""))) or start
            if moment is None:
                raise ValueError(f"{name}: turn {turn['dia_id']} has no time")
            # a turn of a chat is said by its speaker; a note (no speaker) is saved as written
            said = f"{turn['speaker']}: {text}" if turn.get("speaker") else text
            conv.turns.append(Turn(turn["dia_id"], said, moment, f"session-{number}"))
    ids = {t.id for t in conv.turns}
    qa = sample.get("qa", [])
    assert isinstance(qa, list)
    for q in qa:
        gold = frozenset(e for e in evidence_ids(q.get("evidence") or []) if e in ids)
        if gold:  # questions whose evidence is not in the conversation cannot be scored
            conv.questions.append(Question(q["question"], gold, int(q["category"])))
    return conv


# -- MADial-Bench -------------------------------------------------------------------------------


def load_madial(path: Path) -> list[Conversation]:
    conv = Conversation("madial-bench-en")
    for line in (path / "MADial-Bench-en-memory.json").read_text(encoding="utf-8").splitlines():
        for ident, memory in json.loads(line).items():
            moment = datetime.fromisoformat(memory["time"]).replace(tzinfo=UTC)
            conv.turns.append(Turn(ident, memory["event"], moment, f"memory-{ident}"))
    ids = {t.id for t in conv.turns}
    lines = (path / "MADial-Bench-en-dialogue.json").read_text(encoding="utf-8").splitlines()
    for line in lines:
        dialogue = json.loads(line)
        said = dialogue["dialogue"][1 : dialogue["test-turn"][0]]
        user = [_utterance(s) for s in said if ">:" in s and not s.startswith("<Assistant>")]
        gold = frozenset(str(i) for i in dialogue["relevant-id"]) & ids
        if user and gold:
            conv.questions.append(Question(" ".join(user), gold, MADIAL_CATEGORY))
    return [conv]


def _utterance(line: str) -> str:
    return line.split(">:", 1)[1].strip().strip('"')


def load(path: Path) -> list[Conversation]:
    """Either format, by what the path holds."""
    if (path / "MADial-Bench-en-memory.json").exists():
        return load_madial(path)
    return load_dialogues(path)


def padded(conversations: Sequence[Conversation]) -> list[Conversation]:
    """Each conversation with the sessions of all the others, as one user's store holds many
    chats: each other conversation's sessions are moved onto its own span (their starts mapped
    linearly from the first to a day before its last turn, each turn kept at its offset in its
    session), so its questions still ask of its own turns and its last turn is still the last.
    The others' ids and episodes are prefixed with their conversation's name."""
    out = []
    for own in conversations:
        first = min(t.created_at for t in own.turns)
        last = max(first, max(t.created_at for t in own.turns) - timedelta(days=1))
        turns = list(own.turns)
        for other in conversations:
            if other is not own:
                turns += _moved(other, first, last)
        turns.sort(key=lambda t: t.created_at)
        out.append(Conversation(f"{own.name}.padded", turns, list(own.questions)))
    return out


ADVERSARIAL = 5


def misnamed(conv: Conversation) -> Conversation:
    """Its questions naming one of its two speakers (by first name) whose evidence is all
    that speaker's turns, asked of the other speaker instead, their evidence unchanged:
    LoCoMo's adversarial questions ("What did Caroline realize after her charity race?" of
    Melanie's race), which a user mixing up who said what asks too. Categorised so."""
    speaker = {t.id: speaker_label(t.content) for t in conv.turns}
    names = sorted(set(speaker.values()) - {""})
    if len(names) != 2:
        return Conversation(conv.name, conv.turns, [])
    first = {name: re.escape(name.split()[0]) for name in names}
    questions = []
    for q in conv.questions:
        named = [n for n in names if re.search(rf"\b{first[n]}\b", q.text)]
        if len(named) != 1 or any(speaker.get(g) != named[0] for g in q.gold):
            continue
        other = names[1 - names.index(named[0])]
        text = re.sub(rf"\b{first[named[0]]}\b", other.split()[0], q.text)
        questions.append(Question(text, q.gold, ADVERSARIAL))
    return Conversation(conv.name, conv.turns, questions)


# How a harness that logs a chat may save each turn ("Caroline: Hey Mel!" as written), from
# the time it was said, its speaker's label and what it says.
LOGGED: dict[str, Callable[[datetime, str, str], str]] = {
    "bracketed": lambda at, speaker, said: f"[{at:%Y-%m-%d %H:%M}] {speaker}: {said}",
    "spelled": lambda at, speaker, said: (
        f"({at.hour % 12 or 12}:{at:%M %p} on {at.day} {at:%B, %Y}) {speaker}: {said}"
    ),
    "stamped": lambda at, speaker, said: f"{speaker} ({at:%Y-%m-%d}): {said}",
    "markdown": lambda at, speaker, said: f"**{speaker}**: {said}",
    "narrated": lambda at, speaker, said: f"{speaker} said: {said}",
    "unlabelled": lambda at, speaker, said: said,
}


def logged(conv: Conversation, shape: str) -> Conversation:
    """Its turns saved in another `shape` (`LOGGED`): with the time each was said before or
    after its speaker's label, the label in bold or told ("Kevin said: …"), or no label. The
    questions and their evidence are the same; a turn without a label is kept as written."""
    turns = []
    for turn in conv.turns:
        speaker = speaker_label(turn.content)
        if speaker:
            content = LOGGED[shape](turn.created_at, speaker, unlabelled(turn.content))
            turn = Turn(turn.id, content, turn.created_at, turn.episode)
        turns.append(turn)
    return Conversation(f"{conv.name}.{shape}", turns, list(conv.questions))


def _moved(conv: Conversation, first: datetime, last: datetime) -> list[Turn]:
    """`conv`'s turns, its sessions' starts mapped linearly onto [first, last]."""
    starts: dict[str, datetime] = {}
    for turn in conv.turns:
        starts[turn.episode] = min(starts.get(turn.episode, turn.created_at), turn.created_at)
    early, late = min(starts.values()), max(starts.values())
    span = (late - early).total_seconds() or 1.0
    moved = []
    for turn in conv.turns:
        start = starts[turn.episode]
        share = (start - early).total_seconds() / span
        at = first + (last - first) * share + (turn.created_at - start)
        episode = f"{conv.name}/{turn.episode}"
        moved.append(Turn(f"{conv.name}/{turn.id}", turn.content, at, episode))
    return moved


# -- metrics ------------------------------------------------------------------------------------

KS = (1, 5, 10)


@dataclass(frozen=True)
class Scored:
    category: int
    recall: tuple[float, ...]  # at each of KS
    reciprocal_rank: float  # of the first gold id within the top max(KS), else 0


def score(question: Question, ranked: Sequence[str]) -> Scored:
    recall = tuple(len(question.gold.intersection(ranked[:k])) / len(question.gold) for k in KS)
    first = next((i for i, ident in enumerate(ranked[: max(KS)]) if ident in question.gold), None)
    return Scored(question.category, recall, 0.0 if first is None else 1.0 / (first + 1))


def summary(rows: Sequence[Scored]) -> dict[str, dict[str, float]]:
    """Mean R@k and MRR per category name, and "overall"."""
    groups: dict[str, list[Scored]] = defaultdict(list)
    for row in rows:
        groups[CATEGORIES.get(row.category, str(row.category))].append(row)
        groups["overall"].append(row)
    out: dict[str, dict[str, float]] = {}
    for name, members in groups.items():
        stats = {
            f"R@{k}": sum(r.recall[i] for r in members) / len(members) for i, k in enumerate(KS)
        }
        stats["MRR"] = sum(r.reciprocal_rank for r in members) / len(members)
        stats["n"] = len(members)
        out[name] = stats
    return out
