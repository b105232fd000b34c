"""The vectors consolidation compares, and the links between memories they give: a note of the
user read as the user says it.

An assistant notes facts as "User works as a nurse at St. Mary's"; the user says "I work as a
nurse at St. Mary's". The save reports the two 0.99 alike (it embeds the other side's form too,
`save_report.near`), but their stored vectors are only 0.70–0.80 alike, below the link of a
cluster: consolidation never offered to merge them, and search listed both (a helper's probe).
So a note naming the user in the third person is clustered by the vector of its words in the
first person (`core.own_name.in_the_users_words`): the row a save stores for it, or embedded
here for a note saved before there was one, and kept for the life of the service.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Container, Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from engram.core.clustering import ROUNDING
from engram.core.own_name import in_the_users_words, names_the_user
from engram.core.text import passages
from engram.services.context import Context
from engram.storage.protocol import Filter

# How many first-person vectors are kept between runs (a CLI run starts with none).
KEPT = 20_000
NEIGHBOURS = 10  # each memory's nearest neighbours considered for linking
MARGIN = 0.02  # how far below the link threshold an approximate similarity is still checked

Vector = NDArray[np.float32]


class ClusterVectors:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._said: OrderedDict[str, Vector] = OrderedDict()  # the first-person text's vector

    def vectors(
        self,
        model: str,
        ids: Sequence[str],
        told: dict[str, str],
        seen: Container[str] = (),
    ) -> dict[str, Vector]:
        """The stored vectors of `ids`, a note of the user's in its first-person form. `told`:
        the notes of the user known so far (id -> content), added to; `seen`: the other ids
        whose content is known not to name the user. The content of any other is read."""
        return self.in_the_users_words(model, self._stored(model, ids, told, seen), told)

    def _stored(
        self, model: str, ids: Sequence[str], told: dict[str, str], seen: Container[str]
    ) -> dict[str, Vector]:
        """The stored vectors of `ids`; `told` learns which of them are notes of the user."""
        found = self.ctx.store.get_vectors(list(ids), model)
        unknown = [i for i in found if i not in told and i not in seen]
        if unknown:
            read = {m.id: m.content for m in self.ctx.store.get_many(unknown)}
            told.update(notes_of_the_user(read))
        return found

    def links(
        self,
        model: str,
        ids: list[str],
        active: Filter,
        link: float,
        told: dict[str, str],
        seen: Container[str],
    ) -> dict[str, list[tuple[str, float]]]:
        """For each of `ids`, the `active` memories at least `link` similar (exact cosine, of
        the vectors above) among its nearest neighbours in the index. A note is looked up by
        both its vectors: the index holds the stored ones, and two notes of the user are near
        there ("The user is (not) allergic to peanuts", 0.96; their first-person forms 0.95,
        while each stands at 0.81 to the other's stored vector)."""
        stored = self._stored(model, ids, told, seen)
        found = self.in_the_users_words(model, stored, told)
        store = self.ctx.store
        near = store.vector_neighbours(found, active, NEIGHBOURS)
        notes = {i: stored[i] for i in stored if i in told}
        if notes:
            for ident, hits in store.vector_neighbours(notes, active, NEIGHBOURS).items():
                near[ident] = _best_of(near.get(ident, []), hits)
        # The index's similarities may be approximate: anything close is checked exactly.
        wanted = {o for hits in near.values() for o, cos in hits if cos >= link - MARGIN}
        rest = sorted(wanted - set(found))
        others = self.vectors(model, rest, told, seen) if rest else {}
        out: dict[str, list[tuple[str, float]]] = {}
        for ident, hits in near.items():
            kept = []
            for other, cos in hits:
                if cos < link - MARGIN:
                    continue
                vector = found.get(other)
                vector = others.get(other) if vector is None else vector
                if vector is None:
                    continue
                exact = float(found[ident] @ vector)
                if exact >= link - ROUNDING:
                    kept.append((other, exact))
            out[ident] = kept
        return out

    def in_the_users_words(
        self, model: str, found: dict[str, Vector], told: Mapping[str, str]
    ) -> dict[str, Vector]:
        """`found` with the vector of each note in `told` in its first-person form: the row a
        save stores last for it (`Context.embed_and_store`), embedded here for a note saved
        before there was one."""
        embedder = self.ctx.semantic
        notes = [i for i in found if i in told]
        if embedder is None or not notes:
            return found
        missing = [i for i in notes if told[i] not in self._said]
        rows = self.ctx.store.get_vectors(missing, model, passages=True) if missing else {}
        for ident, matrix in rows.items():
            content = told[ident]
            if len(matrix) == 2 + len(passages(content, embedder.pieces)):
                self._said[content] = matrix[-1]
        wanted = list(dict.fromkeys(told[i] for i in missing if told[i] not in self._said))
        if wanted:
            said = embedder.embed_batch([in_the_users_words(content) for content in wanted])
            for content, vector in zip(wanted, said, strict=True):
                self._said[content] = vector
        for content in (told[i] for i in notes):
            self._said.move_to_end(content)
        out = {i: self._said[told[i]] if i in told else v for i, v in found.items()}
        while len(self._said) > KEPT:
            self._said.popitem(last=False)
        return out


def _best_of(
    hits: Sequence[tuple[str, float]], more: Sequence[tuple[str, float]]
) -> list[tuple[str, float]]:
    """Two searches' neighbours as one list, each at its higher similarity, nearest first."""
    best = dict(hits)
    for other, cos in more:
        best[other] = max(cos, best.get(other, cos))
    return sorted(best.items(), key=lambda hit: -hit[1])


def notes_of_the_user(contents: Mapping[str, str]) -> dict[str, str]:
    """Of `contents` (id -> text), those naming the user in the third person."""
    return {i: text for i, text in contents.items() if names_the_user(text)}
