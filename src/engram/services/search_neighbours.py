"""A search's neighbours by meaning, as the query's probes found them, and how the neighbours
of the query as written and as the speaker it names would ask it are joined
(docs/search.md, section 1d)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from engram.core.meaning import Calibration, Probe
from engram.services.speakers import Speakers
from engram.storage.protocol import Stub

# A memory's z against one sentence of a query of several (`probe_sentences`) is lowered by
# this: the best of several probes is high by chance more often.
SENTENCE_PROBE_SHRINK = 0.5
# The other speakers' turns are judged by the query as the speaker it names would ask it too
# (`theirs_as_them`), their z that way lowered by this: a question that mixes up who said what
# names the wrong speaker, and the name made the right one's turns unlike it. 0, 0.25 and 0.5
# were measured; 0.25 was chosen on the development sets and checked on the held-out one.
OTHER_SPEAKERS_SHRINK = 0.25


class Neighbours(NamedTuple):
    stubs: dict[str, Stub]  # relevance: the cosine with the probe that gave the best z
    calibration: Calibration | None
    z: dict[str, float]
    probes: list[Probe]
    rows: dict[str, NDArray[np.float32]]  # the stored rows the store read to find them, if any


NO_NEIGHBOURS = Neighbours({}, None, {}, [], {})


def theirs_as_them(asked: Neighbours, as_them: Neighbours, speakers: Speakers) -> Neighbours:
    """The neighbours of a query asked as the speaker it names would ask it, for that
    speaker's memories; the others' as asked (the user's own notes answered "What breed is my
    dog?" of Maya's dog, a probe). Each z is its own query's. The speaker's memories found
    only as asked are left out: the name made them alike (kept, REALTALK R@10 0.646 -> 0.591).
    The other speakers' turns take the better of their z as asked and as the speaker named
    would ask, less OTHER_SPEAKERS_SHRINK: a name not theirs made them unlike the query, and a
    user who mixed up who said what ("What did Caroline realize after her charity race?" of
    Melanie's race) asks of them."""
    theirs = speakers.theirs([*as_them.stubs, *asked.stubs])
    stubs = {i: s for i, s in asked.stubs.items() if i not in theirs}
    z = {i: v for i, v in asked.z.items() if i not in theirs}
    for i in speakers.the_others(as_them.stubs):
        other = as_them.z[i] - OTHER_SPEAKERS_SHRINK
        if other > z.get(i, -np.inf):
            z[i], stubs[i] = other, as_them.stubs[i]
    stubs |= {i: s for i, s in as_them.stubs.items() if i in theirs}
    z |= {i: v for i, v in as_them.z.items() if i in theirs}
    return Neighbours(stubs, as_them.calibration, z, as_them.probes, asked.rows | as_them.rows)
