"""Constants and helpers shared by tests."""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import subprocess
import sys
import threading
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from engram import Draft, Engram, FixedClock

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def at_hour(day: date, hour: int = 12) -> datetime:
    """`day` at `hour` o'clock, UTC: a time to save a memory at."""
    return datetime(day.year, day.month, day.day, hour, tzinfo=UTC)


def through_a_fifo(fifo: Path, write: Callable[[], object]) -> str:
    """What `write` sends into a FIFO made at `fifo` (read on a thread, as a pipe's reader
    would), after checking the FIFO is still one: an atomic rename replaced it with a file."""
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    write()
    reader.join(30)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    return received[0]


def signal_another_thread(pid: int, signum: int) -> None:
    """`signum` sent to one thread of process `pid` other than its main one, as the kernel may
    deliver a process's signal (Linux's tgkill; the stdin reader, the workers): once, as one
    Ctrl-C is. Sent to every other thread, one signal each, it was several Ctrl-Cs, and the
    process ended by SIGINT (-2) after "Aborted!" once in six runs (a second one, handled while
    the first one's exit ran, is the likely cause). A thread gone meanwhile (an idle worker)
    is passed over for the next; at least one must be there."""
    tgkill = ctypes.CDLL(None, use_errno=True).tgkill
    threads = sorted(int(tid) for tid in os.listdir(f"/proc/{pid}/task") if int(tid) != pid)
    assert threads, "the process runs more threads than its main one"
    for tid in threads:
        if tgkill(pid, tid, signum) == 0:
            return
        assert ctypes.get_errno() == errno.ESRCH, os.strerror(ctypes.get_errno())
    raise AssertionError("no thread of the process was there to signal")


def run_script(
    script: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """A script run as its user runs it: a child process of this interpreter, output captured,
    its exit code left to the test."""
    return subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )


def leftover_temporaries(stale: Path, young: Path) -> None:
    """Two temporary files as a killed writer leaves them: `stale` two hours old (removable),
    `young` just written (perhaps another process's write in progress: kept)."""
    for leftover in (stale, young):
        leftover.write_bytes(b"x" * 1000)
    two_hours_ago = stale.stat().st_mtime - 7_200
    os.utime(stale, (two_hours_ago, two_hours_ago))


# Facts an assistant saved about a user over half a year, around the two about their job.
OTHER_FACTS = (
    ("Allergic to shellfish", 170),
    ("Uses Neovim with the LazyVim config", 160),
    ("Daughter Mia started school in Lisbon", 100),
    ("Plays padel on Thursday evenings with colleagues", 80),
    ("Favourite cuisine is Japanese, especially ramen", 40),
    ("Learning Portuguese with a tutor twice a week", 20),
)
OLD_JOB = ("Works as a backend engineer at a fintech startup called Paylane", 176)
NEW_JOB = (
    "Left Paylane; started as a staff engineer at Verdigris, a Lisbon climate-tech company, "
    "in February",
    61,
)


def save_facts(mem: Engram, clock: FixedClock, *facts: tuple[str, int]) -> list[str]:
    drafts = [Draft(content=t, created_at=clock.now - timedelta(days=d)) for t, d in facts]
    return [m.id for m in mem.save_many(drafts)]


# A transcript whose other speaker asks what a query asks of the one it names
# (services/speakers.py): the answer is Nebraas's own turn.
NEBRAAS_CHAT = [
    "Vanessa: What activities do you like doing on weekends, Nebraas?",
    "Nebraas: I love badminton the most, and painting pottery",
    "Vanessa: Nebraas, did you like the activity center downtown?",
    "Nebraas: The subway was packed again this morning",
    "Vanessa: I spent the whole weekend drawing comics",
    "Nebraas: weekend incoming!",
    "Vanessa: The new burger place near my office is great",
    "Nebraas: My landlord finally fixed the heating",
    "Vanessa: I have a dentist appointment on Friday",
    "Nebraas: Work has been busy with the quarterly audit",
    "Vanessa: My sister is visiting from Chicago next month",
    "Nebraas: I think it will snow tomorrow",
]

# A chat where the answer to "When did Siobhan move into her new flat?" says a date and a
# turn about the move without one shares more of its words (`search_when_weight`).
MOVE_CHAT = [
    "Siobhan: ok anyway, news, I got the walthamstow flat!",
    "Kaito: amazing!! when do you move",
    "Siobhan: I move into the new flat on the 1st of april, no joke",
    "Kaito: biddy is going to hate the move",
    "Siobhan: she hates moving into a new flat, this one has a garden though",
    "Kaito: is the flat near the station?",
    "Siobhan: ten minutes from the flat to the overground",
    "Kaito: I'm still looking for a flat in peckham",
]

# A chat where the answer to "How many kids does Tomas have?" says a number and a turn about
# the kids without one shares more of its words (`search_amount_weight`).
KIDS_CHAT = [
    "Ana: my sister is visiting in the spring",
    "Tomas: the kids are sick again, kids everywhere",
    "Ana: the printer at work broke again",
    "Tomas: three kids under six is a lot, honestly",
    "Ana: see you at the zoo on saturday",
]

# A chat where a paraphrased question ("Which Irish summit did Siobhan trek up with her
# father?") shares only a name and "up" with any turn, and the answer none of its words
# (`search_text_coverage`).
SUMMIT_CHAT = [
    "Kaito: how was the weekend in galway?",
    "Siobhan: lol. ruth gave me a shoutout in the wrap up for the onboarding research btw",
    "Kaito: nice, she never says anything nice",
    "Siobhan: and I hiked croagh patrick with my dad the day after. my knees are still recovering",
    "Kaito: did the quiz night come up again?",
    "Siobhan: yeah. and I'd have to give up thursday quiz",
    "Kaito: the gig is on friday",
    "Siobhan: it absolutely should have come up. when's the gig",
]

# A chat where a short question shares more of the words of "How far is Siobhan's new flat from
# the station?" than its reply, which answers it (`search_question_discount`).
FLAT_CHAT = [
    "Kaito: the car needs new tyres before the trip",
    "Kaito: is the flat near the station?",
    "Siobhan: it's ten minutes from the new place to the station",
    "Siobhan: my mother is visiting in march",
    "Kaito: the printer is out of ink again",
]

# FLAT_CHAT with a turn between the question and its reply: the reply has no cues.
FLAT_CHAT_APART = [
    "Kaito: the car needs new tyres before the trip",
    "Kaito: is the flat near the station?",
    "Kaito: the printer is out of ink again",
    "Siobhan: it's ten minutes from the new place to the station",
    "Siobhan: my mother is visiting in march",
]

# A chat where the answer to "What happened with Lena's interview at the harbour museum?" is the
# reply to a question and shares none of its words (`search_reply_weight`).
INTERVIEW_CHAT = [
    "Lena: the cat knocked my coffee over again",
    "Omar: how did the interview at the harbour museum go?",
    "Lena: i got it!! i start on may 15th",
    "Omar: no way, congrats",
    "Lena: the bus was late again this morning",
    "Omar: my sister is visiting in june",
    "Lena: i have an interview at the harbour museum next week",
]

# A chat where a turn telling only of its listener shares more of the words of "What will Emi
# sell at the market?" than Emi's own turn that answers it (`search_listener_discount`).
MARKET_CHAT = [
    "Paola: my sister is visiting in june",
    "Emi: you could sell your prints at the market on sunday, they'd sell out",
    "Emi: the bus was late again this morning",
    "Emi: selling mugs at the sunday market this week",
    "Paola: the sunday market is my favourite",
]


def locomo_conversation(
    sample_id: str, turns: list[tuple[str, str]], qa: list[dict[str, object]]
) -> dict[str, object]:
    """One conversation in REALTALK's / LoCoMo's format (`bench/conversations.py`): one
    session of Ana and Ben, its turns D1:1, D1:2, … in order."""
    session = [
        {"speaker": speaker, "dia_id": f"D1:{i + 1}", "text": text}
        for i, (speaker, text) in enumerate(turns)
    ]
    return {
        "sample_id": sample_id,
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "2024-03-01 10:00:00",
            "session_1": session,
        },
        "qa": qa,
    }
