"""An imported conversation in a store that holds another of the same name: its memories follow
the ones there. Kept as exported, their places in the episode (`episode_seq`) were those of the
store's own memories too (two memories at each place), and search took the other conversation's
memories for the neighbours of a match (`Store.episode_neighbours`)."""

from __future__ import annotations

from collections.abc import Sequence

from engram.core.models import MAX_SEQ, Memory
from engram.storage.protocol import Store


def after_episodes_there(target: Store, memories: Sequence[Memory]) -> list[Memory]:
    """`memories`, those of an episode the target already holds numbered after its last place,
    in the order and with the gaps they were exported with. An episode some of whose memories
    the target holds already is this import run again (after a crash, or of this store's own
    export): its memories are moved as far as those held were, so a second run places the
    rest where the first would have."""
    places: dict[str, list[int]] = {}
    for m in memories:
        if m.episode is not None and m.episode_seq is not None:
            places.setdefault(m.episode, []).append(m.episode_seq)
    tails = target.episode_tails(sorted(places)) if places else {}
    if not tails:
        return list(memories)
    exported = {m.id: m for m in memories if m.episode in tails}
    shift: dict[str, int] = {}
    for held in target.get_many(list(exported)):
        was = exported[held.id]
        same = held.episode is not None and held.episode == was.episode
        if same and held.episode_seq is not None and was.episode_seq is not None:
            shift[str(held.episode)] = held.episode_seq - was.episode_seq
    for episode, tail in tails.items():
        shift.setdefault(episode, tail.seq + 1 - min(places[episode]))
    return [
        m.model_copy(update={"episode_seq": min(max(m.episode_seq + shift[m.episode], 0), MAX_SEQ)})
        if m.episode in shift and m.episode_seq is not None
        else m
        for m in memories
    ]
