"""Wikilinks that follow a note renamed or moved outside Obsidian (which follows renames made
inside it; a file manager or git does not): in every note of the vault, and in the text of the
promoted memories whose notes they are."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable

from engram.core.models import Memory, Schedule, Status
from engram.core.notes import link_name
from engram.errors import ValidationError
from engram.services.context import Context
from engram.vault.index import readable, scan
from engram.vault.render import NoteMove, retarget_links
from engram.vault.writer import VaultFiles

log = logging.getLogger(__name__)


def retarget(ctx: Context, files: VaultFiles, moves: list[tuple[str, str]]) -> list[str]:
    """Point the links to each (old path, new path) at the new path; the notes rewritten."""
    names = [link_name(old) for old, _ in moves]
    entries = list(scan(files.root))
    named = Counter(link_name(entry.path) for entry in entries)  # names of the notes now

    # A name a moved note took is not "taken" from the notes that moved away from it: two
    # notes that swapped names keep their bare links, each to its own note.
    arrived = Counter(link_name(new) for _, new in moves)
    rules = [
        NoteMove(
            old,
            new,
            name_taken=named[link_name(old)] > arrived[link_name(old)],
            new_name_shared=named[link_name(new)] > 1,
        )
        for old, new in moves
    ]

    def followed(text: str) -> str:
        return retarget_links(text, rules) or text

    touched = []
    for entry in entries:
        read = readable(files.root, entry.path)
        if read is None:
            continue
        lowered = read[0].decode("utf-8", "replace").casefold()
        if not any(name in lowered for name in names):  # cheap test before the parse
            continue
        try:
            note = files.read_note(entry.path)
            updated = followed(note.text)
            if updated != note.text and files.rewrite(entry.path, note, updated):
                touched.append(entry.path)
        except (OSError, ValidationError) as exc:  # the moves are recorded: this note stays
            log.warning("links in %s not retargeted: %s", entry.path, exc)
    _follow_in_memories(ctx, touched, followed)
    return touched


def _follow_in_memories(ctx: Context, touched: list[str], followed: Callable[[str], str]) -> None:
    """A promoted memory whose note had its links retargeted says the same. Otherwise the next
    change of the memory took the note's new links for the user's edit: both versions in the
    note, tagged as a conflict, and the memory's text kept the dead link (audit)."""
    paths = set(touched)
    owners = sorted(
        ident for ident, notes in ctx.store.ltm_claims().items() if paths.intersection(notes)
    )

    def follow(m: Memory) -> tuple[Memory, Schedule] | None:
        if m.status != Status.PROMOTED or m.promoted_to not in paths:
            return None
        content = followed(m.content)
        if content == m.content:
            return None
        return ctx.scheduled(m.model_copy(update={"content": content}))

    changed = ctx.store.modify(owners, follow) if owners else []
    ctx.embed_later([(new.id, new.content) for _, new in changed])
