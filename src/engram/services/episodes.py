"""Memories' places in their episodes: implicit episodes for memories saved without one
(`engram.core.episodes`), read over the store (the memory saved before a batch, for its first
memory to join); the numbering of new memories after an episode's last, and their cues (the
words of the turn before that they answer, `engram.core.cues`)."""

from __future__ import annotations

from engram.core.cues import cues
from engram.core.episodes import implicit, saved_together
from engram.core.models import MAX_SEQ, Memory
from engram.core.timeutil import to_epoch
from engram.services.context import Context
from engram.storage.protocol import Filter, Store

# The latest memories saved within the gap before a batch that are looked at for one saved
# without an episode: another client's, saved meanwhile in its own conversations, may be among
# them.
LOOKED_AT = 10


def with_implicit_episodes(ctx: Context, memories: list[Memory]) -> list[Memory]:
    """`memories` (in the order saved), those without an episode given one by
    ENGRAM_EPISODE_GAP_MINUTES; as they are where it is 0."""
    gap = ctx.settings.episode_gap_minutes * 60
    first = next((m for m in memories if m.episode is None), None)
    if gap <= 0 or first is None:
        return memories
    before = _saved_before(ctx.store, to_epoch(first.created_at), gap)
    names = saved_together(
        [(m.id, to_epoch(m.created_at), m.episode) for m in memories], before, gap
    )
    return [
        m if m.episode == name else m.model_copy(update={"episode": name})
        for m, name in zip(memories, names, strict=True)
    ]


def _saved_before(store: Store, created: float, gap: float) -> tuple[float, str] | None:
    """(created_at, episode) of the latest memory with an implicit episode saved at most `gap`
    seconds before `created` (or at that moment: the turns of one session often share it)."""
    stubs = store.saved_between(created - gap, created + 1e-3, Filter(), LOOKED_AT)
    # Newest first: the memories of the latest moment are read before the others (a turn
    # saved now is most often right after the one it follows: one row read, not ten).
    for moment in sorted({s.created_at for s in stubs}, reverse=True):
        ids = [s.id for s in stubs if s.created_at == moment]
        found = [m for m in store.get_many(ids) if implicit(m.episode)]
        if found:
            latest = max(found, key=lambda m: m.episode_seq or 0)
            assert latest.episode is not None
            return moment, latest.episode
    return None


def in_episode_order(store: Store, memories: list[Memory]) -> list[Memory]:
    """`memories` numbered after the places their episodes already have, in the order given,
    each with the cues of the turn before it (the episode's last stored memory for the first).
    Two processes appending to one episode at the same instant may share a number; that only
    makes them both neighbours of the same memories, which is harmless."""
    episodes = [m.episode for m in memories if m.episode is not None]
    if not episodes:
        return memories
    tails = store.episode_tails(episodes)
    seqs = {episode: tail.seq for episode, tail in tails.items()}
    held = store.texts([tail.id for tail in tails.values()]) if tails else {}
    before = {e: held[t.id].content for e, t in tails.items() if t.id in held}
    out: list[Memory] = []
    for m in memories:
        if m.episode is None:
            out.append(m)
            continue
        # The last place stays the last (a restored record may hold it): a memory more
        # shares it, as two processes appending at once may; numbering past it overflowed.
        seq = min(seqs.get(m.episode, -1) + 1, MAX_SEQ)
        seqs[m.episode] = seq
        update: dict[str, object] = {"episode_seq": seq}
        if m.episode in before and not m.cues:
            update["cues"] = cues(before[m.episode], m.content)
        before[m.episode] = m.content
        out.append(m.model_copy(update=update))
    return out
