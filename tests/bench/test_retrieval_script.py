"""bench/retrieval.py measures recall through the public API on data in either supported format.

The development sets are not in the repository (a fresh clone has none beside it); this
checks the plumbing and the scoring on small files written here, in the documented formats.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

import psycopg
import pytest
from tests.postgres import TestPostgres
from tests.support import locomo_conversation as conversation
from tests.support import run_script

from engram.core.text import speaker_label, unlabelled

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from conversations import (  # noqa: E402
    CATEGORIES,
    LOGGED,
    evidence_ids,
    load,
    logged,
    misnamed,
    padded,
)
from retrieval import store_path  # noqa: E402


def write_sets(data: Path) -> None:
    data.mkdir()
    first = conversation(
        "c1",
        [
            ("Ana", "I adopted a grey cat called Miso last week"),
            ("Ben", "Nice! I started learning the cello"),
            ("Ana", "My sister moved to Porto for her new job"),
        ],
        [
            {"question": "What is the name of Ana's cat?", "evidence": ["D1:1"], "category": 4},
            {"question": "Which instrument is Ben learning?", "evidence": ["D1:2"], "category": 4},
            # a question of the world, in words no memory holds together: no recall
            {"question": "How do I get from Lisbon to Porto?", "evidence": ["D1:3"], "category": 4},
        ],
    )
    second = conversation(
        "c2",
        [("Ben", "The marathon is on Sunday"), ("Ana", "Good luck with the race")],
        [{"question": "When is the marathon?", "evidence": ["D1:1"], "category": 2}],
    )
    (data / "c1.json").write_text(json.dumps(first))
    (data / "c2.json").write_text(json.dumps(second))


def run_bench(tmp_path: Path, *options: str, env: dict[str, str] | None = None) -> dict:
    out = tmp_path / "result.json"
    run = run_script(
        ROOT / "bench" / "retrieval.py",
        *("--data", str(tmp_path / "data"), "--json", str(out), *options),
        env=None if env is None else {**os.environ, **env},
    )
    assert run.returncode == 0, run.stderr
    assert "Engram R@10" in run.stdout and "BM25 R@10" in run.stdout
    result: dict = json.loads(out.read_text())["data"]
    assert result["engram"]["overall"]["n"] == 4
    assert set(result["engram"]) == {"overall", "temporal", "single-hop"}
    return result


def test_retrieval_bench_reports_recall_through_engram(tmp_path: Path) -> None:
    write_sets(tmp_path / "data")
    result = run_bench(tmp_path)
    assert result["engram"]["overall"]["R@1"] == 1.0  # each answer shares a word with its question
    assert result["bm25"]["overall"]["R@1"] == 1.0


def test_each_way_of_saving_a_conversation_keeps_a_store_of_its_own(tmp_path: Path) -> None:
    """A probe's `--saved-now` run in a kept workdir searched the stores saved at the turns'
    own times: both had one name."""
    write_sets(tmp_path / "data")
    conv = load(tmp_path / "data")[0]
    paths = {
        store_path(tmp_path, conv),
        store_path(tmp_path, conv, saved_now=True),
        store_path(tmp_path, conv, time_scale=12),
        store_path(tmp_path, conv, time_scale=12, saved_now=True),
    }
    assert len(paths) == 4


def test_two_conversations_of_one_name_keep_stores_of_their_own(tmp_path: Path) -> None:
    """Two sets of user-assistant chats each held a "priya": run in one workdir, the second
    set's questions were searched in the first set's store."""
    write_sets(tmp_path / "data")
    conv = load(tmp_path / "data")[0]
    other = replace(conv, turns=[replace(conv.turns[0], content="something else"), *conv.turns[1:]])
    assert store_path(tmp_path, conv) != store_path(tmp_path, other)
    assert store_path(tmp_path, conv) == store_path(tmp_path, replace(conv))


def test_retrieval_bench_scores_the_search_analyze_for_recall_advises(tmp_path: Path) -> None:
    """--as-recall: only the questions read as recalls, searched with the advised query,
    beside the same questions searched as asked."""
    write_sets(tmp_path / "data")
    out = tmp_path / "result.json"
    run = run_script(
        ROOT / "bench" / "retrieval.py",
        *("--data", str(tmp_path / "data"), "--json", str(out), "--as-recall"),
    )
    assert run.returncode == 0, run.stderr
    assert "Engram R@10" in run.stdout and "as asked R@10" in run.stdout
    result = json.loads(out.read_text())["data"]
    asked = sum(1 for conv in load(tmp_path / "data") for _ in conv.questions)
    assert 0 < result["engram"]["overall"]["n"] == result["as_asked"]["overall"]["n"] < asked
    assert result["engram"]["overall"]["R@1"] == 1.0


def test_the_sweep_validates_settings_across_the_two_folds(tmp_path: Path) -> None:
    """bench/retrieval_sweep.py --only: the defaults and the values around one setting, each
    scored per set and per fold (c1 against c2), and the choice made on each fold reported."""
    write_sets(tmp_path / "data")
    run = run_script(
        ROOT / "bench" / "retrieval_sweep.py",
        *("--data", str(tmp_path / "data"), "--only", "search_diversity"),
    )
    assert run.returncode == 0, run.stderr
    rows = [line for line in run.stdout.splitlines() if line.startswith("| ")]
    assert [r.split(" | ")[0] for r in rows[1:]] == [
        "| defaults",
        "| diversity=0.0",
        "| diversity=0.3",
    ]
    assert all(r.endswith("| 1.000 | 1.000 | 1.000 |") for r in rows[1:])  # set, fold 0, fold 1
    assert "chosen on fold 0:" in run.stdout and "chosen on fold 1:" in run.stdout


def test_retrieval_bench_searches_copies_on_postgres(
    tmp_path: Path, postgres_server: TestPostgres
) -> None:
    """--postgres: the stores copied to a database each on the server named by
    ENGRAM_BENCH_POSTGRES_URL; a second run (stores kept) reuses the copies."""
    write_sets(tmp_path / "data")
    env = {"ENGRAM_BENCH_POSTGRES_URL": postgres_server.url}
    options = ("--postgres", "--workdir", str(tmp_path / "stores"))
    for _ in range(2):
        result = run_bench(tmp_path, *options, env=env)
        assert result["engram"]["overall"]["R@1"] == 1.0
        assert result["bm25"]["overall"]["R@1"] == 1.0
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:
        copies = conn.execute(
            "SELECT count(*) FROM pg_database WHERE datname LIKE 'engram_retrieval_%'"
        ).fetchone()
        for (name,) in conn.execute(
            "SELECT datname FROM pg_database WHERE datname LIKE 'engram_retrieval_%'"
        ).fetchall():
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    assert copies == (2,)


def test_retrieval_bench_on_postgres_needs_a_folder_its_server_outlives(tmp_path: Path) -> None:
    """Without --workdir the embedded server's data was in a temporary folder removed while
    the server still ran: the server was left running on a deleted folder."""
    write_sets(tmp_path / "data")
    env = {k: v for k, v in os.environ.items() if k != "ENGRAM_BENCH_POSTGRES_URL"}
    script = ROOT / "bench" / "retrieval.py"
    run = run_script(script, "--data", str(tmp_path / "data"), "--postgres", env=env, timeout=120)
    assert run.returncode == 2 and "--postgres needs --workdir" in run.stderr


def test_the_loader_reads_sessions_as_episodes_and_repairs_evidence(tmp_path: Path) -> None:
    turns = [("Ana", "first"), ("Ben", "second"), ("Ana", "third")]
    qa = [
        {"question": "q1", "evidence": ["D1:1; D1:3"], "category": 1},
        {"question": "q2", "evidence": ["D1:7"], "category": 1},  # not in the conversation
    ]
    (tmp_path / "c.json").write_text(json.dumps(conversation("c", turns, qa)))
    (conv,) = load(tmp_path)
    assert [t.episode for t in conv.turns] == ["session-1"] * 3
    assert conv.turns[0].content == "Ana: first"
    assert [sorted(q.gold) for q in conv.questions] == [["D1:1", "D1:3"]]
    assert evidence_ids(["D12:3-D12:5", "D:11:26", "D30:05"]) == [
        "D12:3",
        "D12:4",
        "D12:5",
        "D11:26",
        "D30:5",
    ]


def test_the_loader_reads_madial_memories_and_dialogues(tmp_path: Path) -> None:
    memories = [
        {
            "1": {
                "time": "2023-12-25",
                "scene": "Activity",
                "emotion": "Happy",
                "event": "Bart danced.",
            }
        },
        {
            "2": {
                "time": "2023-03-07",
                "scene": "Activity",
                "emotion": "Happy",
                "event": "Bart won.",
            }
        },
    ]
    dialogue = {
        "dialogue": [
            "<BOD>\n",
            '<Bart>: "I will dance at the party!"\n',
            '<Assistant>: "Great!"\n',
            '<Bart>: "What should I wear?"\n',
            '<Assistant>: "Remember the Christmas dance?"\n',
            "<EOD>\n",
        ],
        "test-turn": [4],
        "relevant-id": [1, 99],
        "user-id": 1,
    }
    (tmp_path / "MADial-Bench-en-memory.json").write_text(
        "\n".join(json.dumps(m) for m in memories)
    )
    (tmp_path / "MADial-Bench-en-dialogue.json").write_text(json.dumps(dialogue))
    (conv,) = load(tmp_path)
    assert [t.id for t in conv.turns] == ["1", "2"] and conv.turns[0].episode != conv.turns[
        1
    ].episode
    (question,) = conv.questions
    assert question.text == "I will dance at the party! What should I wear?"
    assert question.gold == frozenset({"1"})


def test_padding_puts_the_other_conversations_into_each_ones_span(tmp_path: Path) -> None:
    """--padded: one user's store of many chats, each conversation's questions still about its
    own turns, and its own last turn still the last."""
    write_sets(tmp_path / "data")
    first, second = load(tmp_path / "data")
    one, two = padded([first, second])
    assert len(one.turns) == len(first.turns) + len(second.turns)
    assert one.questions == first.questions and two.questions == second.questions
    assert max(one.turns, key=lambda t: t.created_at).id in {t.id for t in first.turns}
    others = [t for t in one.turns if t.id not in {u.id for u in first.turns}]
    assert {t.id for t in others} == {f"{second.name}/{t.id}" for t in second.turns}
    assert all(t.episode.startswith(f"{second.name}/") for t in others)
    assert one.name != first.name  # a store of its own


def test_misnamed_questions_ask_of_the_other_speaker_for_the_same_evidence(
    tmp_path: Path,
) -> None:
    """--misnamed: LoCoMo's adversarial questions, made of those naming one of two speakers
    whose evidence is theirs; the rest are left out."""
    write_sets(tmp_path / "data")
    first, second = load(tmp_path / "data")
    asked = misnamed(first)
    assert [(q.text, q.category) for q in asked.questions] == [
        ("What is the name of Ben's cat?", 5),
        ("Which instrument is Ana learning?", 5),
    ]
    assert [q.gold for q in asked.questions] == [q.gold for q in first.questions[:2]]
    assert misnamed(second).questions == []  # it names neither
    assert asked.turns == first.turns


@pytest.mark.parametrize("shape", sorted(LOGGED))
def test_a_logged_chat_keeps_its_turns_speakers_and_questions(tmp_path: Path, shape: str) -> None:
    """--logged: each turn as a harness logging the chat might save it; the same turns (ids,
    times, episodes), questions and evidence, in a store of its own."""
    write_sets(tmp_path / "data")
    first = load(tmp_path / "data")[0]
    shaped = logged(first, shape)
    assert shaped.questions == first.questions and shaped.name != first.name
    for before, after in zip(first.turns, shaped.turns, strict=True):
        assert (after.id, after.created_at, after.episode) == (
            before.id,
            before.created_at,
            before.episode,
        )
        assert unlabelled(before.content) in after.content
        label = "" if shape == "unlabelled" else speaker_label(before.content)
        assert speaker_label(after.content) == label
    assert shaped.turns[0].content != first.turns[0].content
    assert store_path(tmp_path, shaped) != store_path(tmp_path, first)


def test_retrieval_bench_saves_the_turns_as_logged(tmp_path: Path) -> None:
    write_sets(tmp_path / "data")
    result = run_bench(tmp_path, "--logged", "bracketed")
    assert result["engram"]["overall"]["R@1"] == 1.0


@pytest.mark.parametrize(("folder", "asked"), [("locomo_style", 124), ("locomo_style_2", 126)])
def test_the_locomo_style_chats_are_well_formed(folder: str, asked: int) -> None:
    """bench/data/locomo_style and _2: two chats of two people each, LoCoMo's five
    categories, every question's evidence among the turns."""
    conversations = load(ROOT / "bench" / "data" / folder)
    assert len(conversations) == 2
    assert sum(len(c.questions) for c in conversations) == asked
    for conv in conversations:
        assert len({t.content.split(":", 1)[0] for t in conv.turns}) == 2
        assert {q.category for q in conv.questions} == {1, 2, 3, 4, 5}
        assert len({t.episode for t in conv.turns}) == 16


def test_the_developer_notes_are_well_formed() -> None:
    """bench/data/developer_notes: three stores of a coding assistant's notes, saved as
    written (no speaker), frozen by their SHA256SUMS."""
    folder = ROOT / "bench" / "data" / "developer_notes"
    for line in (folder / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split()
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name
    conversations = {c.name: c for c in load(folder)}
    shape = {name: (len(c.turns), len(c.questions)) for name, c in conversations.items()}
    assert shape == {
        "developer-backend": (72, 33),
        "developer-mobile": (64, 31),
        "developer-ml": (62, 31),
    }
    for name, conv in conversations.items():
        raw = json.loads((folder / f"{name.removeprefix('developer-')}.json").read_text())
        written = {
            turn["dia_id"]: turn["text"]
            for key, turns in raw["conversation"].items()
            if isinstance(turns, list)
            for turn in turns
        }
        assert {t.id: t.content for t in conv.turns} == written  # notes: no speaker's label
        assert {q.category for q in conv.questions} == {4, 14}
        assert sum(not q["evidence"] for q in raw["qa"]) == 4  # never saved: not scored


def test_the_user_assistant_chats_are_well_formed() -> None:
    """bench/data/user_assistant: four sets of six chats, every question scorable."""
    root = ROOT / "bench" / "data" / "user_assistant"
    for folder, asked in (("first", 124), ("second", 117), ("third", 132), ("fourth", 136)):
        conversations = load(root / folder)
        assert len(conversations) == 6
        assert sum(len(c.questions) for c in conversations) == asked
        for conv in conversations:
            assert {t.content.split(":", 1)[0] for t in conv.turns} == {"User", "Assistant"}
            assert {q.category for q in conv.questions} <= set(range(11, 17))
            assert all(CATEGORIES[q.category] for q in conv.questions)


@pytest.mark.parametrize(
    ("folder", "chats", "asked"),
    [
        ("friends", 6, 133),
        ("named_speakers", 4, 147),
        ("replies", 5, 150),
        ("two_styles/long_turns", 3, 75),
        ("two_styles/texting", 3, 75),
        ("multi_evidence", 4, 160),
        ("validation", 4, 140),
    ],
)
def test_the_chats_between_two_people_are_well_formed(folder: str, chats: int, asked: int) -> None:
    """bench/data/friends, named_speakers, replies, two_styles, multi_evidence and validation:
    chats of two people each, every question scorable."""
    conversations = load(ROOT / "bench" / "data" / folder)
    assert len(conversations) == chats
    assert sum(len(c.questions) for c in conversations) == asked
    for conv in conversations:
        assert len({t.content.split(":", 1)[0] for t in conv.turns}) == 2
        assert {q.category for q in conv.questions} <= {1, 2, 3, 4, 6}
        assert all(q.gold for q in conv.questions)


def test_the_chats_asking_when_are_well_formed() -> None:
    """bench/data/asked_when: three chats of two friends and three of a user with an
    assistant, every question scorable."""
    root = ROOT / "bench" / "data" / "asked_when"
    friends, with_assistant = load(root / "friends"), load(root / "user_assistant")
    assert (len(friends), len(with_assistant)) == (3, 3)
    assert sum(len(c.questions) for c in friends) == 116
    assert sum(len(c.questions) for c in with_assistant) == 104
    for conv in friends:
        assert len({t.content.split(":", 1)[0] for t in conv.turns}) == 2
        assert {q.category for q in conv.questions} <= {1, 2, 3, 4, 6}
    for conv in with_assistant:
        assert {t.content.split(":", 1)[0] for t in conv.turns} == {"User", "Assistant"}
        assert {q.category for q in conv.questions} <= set(range(11, 17))
    assert all(q.gold for conv in [*friends, *with_assistant] for q in conv.questions)


def test_the_life_chats_are_well_formed() -> None:
    """bench/data/life_chats: eight people's chats, each of two speakers, with questions of a
    fact that changed (knowledge-update) beside LoCoMo's kinds; every question scorable."""
    conversations = load(ROOT / "bench" / "data" / "life_chats")
    assert len(conversations) == 8
    assert sum(len(c.turns) for c in conversations) == 704
    assert sum(len(c.questions) for c in conversations) == 115
    for conv in conversations:
        assert len({t.content.split(":", 1)[0] for t in conv.turns}) == 2
        assert {q.category for q in conv.questions} <= {1, 2, 3, 4, 6, 14}
        assert all(q.gold for q in conv.questions)
        assert [t.created_at for t in conv.turns] == sorted(t.created_at for t in conv.turns)
