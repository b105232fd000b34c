"""Episodes of memories saved together without one. Search credits a match's neighbours in
its episode (the turn that answers a question often sits next to the one that names it), and a
client that saves a transcript without naming its conversations (in a batch, or turn by turn,
with each turn's time or now) still saves conversations: turns saved within a few minutes of
each other. Such a memory joins the episode of the one saved just before it, if that one was
saved without an episode too and not longer than the gap before it; otherwise it starts an
episode named after itself (`IMPLICIT_PREFIX` + its id), so that the name is stable and says
where it came from. A note saved alone and now is not a turn (`a_turn`) and joins none:
unrelated facts saved a minute apart passed each other context credit. On REALTALK saved
without episodes, R@10 is 0.607; with the gap of 30 minutes 0.676, as with each session as its
episode (docs/search.md, section 2)."""

from __future__ import annotations

from collections.abc import Sequence

from engram.core.text import (
    STOPWORDS,
    USER_LABELS,
    speaker_label,
    without_kind_label,
)

IMPLICIT_PREFIX = "auto:"

# (id, created_at in epoch seconds, episode given or None), in the order saved
Saved = tuple[str, float, str | None]


def implicit(episode: str | None) -> bool:
    """Whether `episode` was given by Engram to memories saved without one."""
    return episode is not None and episode.startswith(IMPLICIT_PREFIX)


def a_turn(content: str) -> bool:
    """Whether `content` is a turn of a chat: it opens with its speaker's label, a name
    ("Fahim Khan: …", "elise: …") or a role ("User: …"); not with a note's kind ("TODO: …")
    nor with the topic of a note, whose words a name does not hold ("Allergic to peanuts:
    never suggest…")."""
    label = speaker_label(content)
    if not label or without_kind_label(content) != content:
        return False
    folded = label.casefold()  # "user" is a stopword, and a role
    return folded in USER_LABELS or not any(word in STOPWORDS for word in folded.split())


def saved_together(
    saved: Sequence[Saved], before: tuple[float, str] | None, gap: float
) -> list[str | None]:
    """The episode of each of `saved`: its own where given; otherwise the implicit episode of
    the last memory saved without one, if it was saved at most `gap` seconds apart from it, or
    a new one. `before`: (created_at, episode) of the memory saved without one before these,
    if any. A memory given an episode does not break a chain: another client's conversation
    saved meanwhile is not this one's."""
    out: list[str | None] = []
    last = before
    for ident, created, episode in saved:
        if episode is not None:
            out.append(episode)
            continue
        if last is not None and abs(created - last[0]) <= gap:
            name = last[1]
        else:
            name = IMPLICIT_PREFIX + ident
        out.append(name)
        last = (created, name)
    return out
