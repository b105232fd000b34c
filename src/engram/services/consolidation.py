"""Consolidation: find clusters of memories that say the same thing, merge them, undo a merge.

Clusters (`engram.core.clustering`) come from each active memory's nearest neighbours in the
vector index, on every backend. A merge (`engram.core.merge` has the rules) is written so that a
crash at any moment leaves either the originals active or the merged memory active, never both
and never neither:

1. the merged memory is inserted *archived*, with a `consolidated_from` relation to each
   original and a copy of every relation the originals had with memories outside the cluster;
2. one atomic `modify` activates it and archives the originals — refusing, and writing nothing,
   if an original changed since the cluster was found (other content, tags or entities, or no
   longer active).

A crash between the two leaves an archived, never-activated merged memory (marked
`meta.consolidation.state = "pending"`); its id is derived from the cluster's, so the next apply
of the same cluster finds and replaces it, and the next merge of any cluster removes it (the
cluster may have changed since). Undo is the same in reverse: one `modify` restores the
originals and archives the merged memory, then the merged memory is deleted with its relations.
Originals are archived, never deleted, so undo restores them exactly; a merged memory that was
edited, related, merged again or promoted since is not silently deleted (see `undo`).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engram.core.clustering import (
    ROUNDING,
    Cluster,
    action_for,
    all_pairs,
    build_clusters,
    cluster_id,
    cohesion,
    repeat_clusters,
    repeated,
    weakest_link,
)
from engram.core.disagreement import disagreement
from engram.core.merge import merge, merged_id, said_by_one, statement_key, version
from engram.core.models import Memory, Status
from engram.core.own_name import names_the_user
from engram.errors import BusyError, ConfigError, NotFoundError, ValidationError
from engram.services import validation as check
from engram.services.cluster_vectors import ClusterVectors, notes_of_the_user
from engram.services.context import Context
from engram.services.keep_apart import mark_apart
from engram.services.merge_apply import (
    ConflictError,
    MergeWriter,
    all_found,
    only_active,
    outdated_among,
)
from engram.services.merge_undo import undo_merge
from engram.services.results import (
    ClusterResult,
    ClusterView,
    ConsolidateResult,
    KeepApartResult,
    MergeDone,
    UndoResult,
)
from engram.storage.protocol import Filter

log = logging.getLogger(__name__)

PAGE = 2_000  # memories whose neighbours are asked for in one batch
# The note of a cluster below the merge band that the rules merge: one of its memories says
# every other whole.
LOSSLESS = "one of them says the others whole: merged by the rules, no word is lost"
SAME_WORDS = "the same words in the same order: one statement, merged by the rules"


class ConsolidationService:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._seen: dict[str, ClusterView] = {}  # the last clusters found, by id
        # Each active memory's links found by the last run (its version, [(other, cosine)]),
        # and the threshold they were found at: the next run searches only what changed.
        self._links: dict[str, tuple[str, list[tuple[str, float]]]] = {}
        self._links_at: float | None = None
        self._keys: dict[str, tuple[str, str]] = {}  # id -> (version, its words), as linked
        self._writer = MergeWriter(ctx)
        self._vectors = ClusterVectors(ctx)  # a note of the user as the user says it

    # -- finding clusters ---------------------------------------------------------------------

    def clusters(
        self, memory_ids: Sequence[str] | None = None, link_at: float | None = None
    ) -> ClusterResult:
        """Clusters among all active memories (or among `memory_ids`), most cohesive first."""
        model = self._model()
        link = self.ctx.settings.cluster_link_threshold if link_at is None else link_at
        link = check.unit(link, "similarity_threshold")
        if memory_ids is not None:
            ids = check.memory_ids(memory_ids)
            found = {m.id: m for m in self.ctx.store.get_many(ids)}
            all_found(ids, found)
            only_active(found.values())  # as a merge refuses them: no cluster it could not merge
            self.ctx.vectors_ready()
            told = notes_of_the_user({i: m.content for i, m in found.items()})
            vectors = self._vectors.vectors(model, list(found), told, found)
            pairs = all_pairs(vectors)
            considered = len(found)
        repeats: dict[str, str] = {}  # id -> its words, of memories saying the same as others
        if memory_ids is None:
            self.ctx.vectors_ready()
            pairs, vectors, considered, repeats = self._neighbour_pairs(model, link)
            # Copies of one statement are merged first, in a cluster of their own: in one with
            # another statement they went to review whole. What they are like is clustered
            # once they are one memory (a cluster sharing members could not be applied after).
            pairs = [p for p in pairs if p[0] not in repeats and p[1] not in repeats]
        members = sorted({x for a, b, _ in pairs for x in (a, b)} | set(repeats))
        versions = {m.id: version(m) for m in self.ctx.store.get_many(members)}
        settings = self.ctx.settings
        apart = self._kept_apart(members)
        found_clusters = build_clusters(
            pairs,
            vectors,
            link,
            settings.cluster_merge_cohesion,
            settings.cluster_review_cohesion,
            versions,
            apart,
        )
        found_clusters = repeat_clusters(repeats, versions, apart) + found_clusters
        views = [self._view(c) for c in found_clusters]
        if memory_ids is None:  # clusters among named memories are merged by their ids
            self._seen = {v.id: v for v in views}
        return ClusterResult(count=len(views), clusters=views, memories_considered=considered)

    def _kept_apart(self, members: Sequence[str]) -> set[frozenset[str]]:
        """The pairs among `members` a person said are different facts (`keep_apart`)."""
        if not members:
            return set()
        inside = set(members)
        return {
            frozenset((r.from_id, r.to_id))
            for r in self.ctx.store.relations(members)
            if r.type == "distinct_from" and r.from_id in inside and r.to_id in inside
        }

    def _model(self) -> str:
        embedder = self.ctx.semantic
        if embedder is None:
            raise ConfigError(
                "clustering compares meanings: it needs embeddings (ENGRAM_EMBEDDING_MODEL)"
            )
        return embedder.model_id

    def _neighbour_pairs(
        self, model: str, link: float
    ) -> tuple[list[tuple[str, str, float]], dict[str, Any], int, dict[str, str]]:
        """Each active memory's nearest active neighbours (one batch per page), kept when their
        exact cosine is at least `link`; the vectors of the memories in those pairs; how many
        were considered; the words (`statement_key`) of those another one repeats.

        Incremental: a memory this service linked before, saying the same as then, keeps its
        links (to memories that also say the same as then) without a new neighbour search;
        only new and changed memories are searched. A changed memory's links are found again
        by its own search. So a run after 1 % of memories changed searches 1 % of them."""
        active = Filter(statuses=(Status.ACTIVE,))
        store = self.ctx.store
        cache = self._links if self._links_at == link else {}
        current: dict[str, str] = {}  # id -> version, every active memory
        fresh: set[str] = set()
        considered = 0
        after: str | None = None
        new_links: dict[str, tuple[str, list[tuple[str, float]]]] = {}
        keys: dict[str, tuple[str, str]] = {}  # id -> (version, its words)
        told: dict[str, str] = {}  # the notes of the user (`ClusterVectors`)
        while True:
            page = store.page_texts(after, PAGE)
            if not page:
                break
            after = page[-1][0]
            todo = []
            for ident, status, content in page:
                if status != Status.ACTIVE:
                    continue
                considered += 1
                # Links follow from vectors, and vectors from the content alone.
                current[ident] = hashlib.sha256(content.encode()).hexdigest()[:16]
                said = self._keys.get(ident)
                keys[ident] = (
                    current[ident],
                    said[1] if said and said[0] == current[ident] else statement_key(content),
                )  # read again only when it changed
                if names_the_user(content):
                    told[ident] = content
                known = cache.get(ident)
                # a note of the user is searched again: a memory saying it in the first person
                # finds no link to its stored vector
                if known is not None and known[0] == current[ident] and ident not in told:
                    new_links[ident] = known
                else:
                    todo.append(ident)
            fresh.update(todo)
            if todo:
                found_links = self._vectors.links(model, todo, active, link, told, current)
                for ident, hits in found_links.items():
                    new_links[ident] = (current[ident], hits)
        pairs: list[tuple[str, str, float]] = []
        for ident, (_, hits) in new_links.items():
            for other, cos in hits:
                # a link found by an earlier run counts only while its other end is unchanged
                if other in current and (
                    ident in fresh or cache.get(other, ("",))[0] == current[other]
                ):
                    pairs.append((ident, other, cos))
        self._links, self._links_at, self._keys = new_links, link, keys
        members = sorted({x for a, b, _ in pairs for x in (a, b)})
        linked = self._vectors.vectors(model, members, told, current) if members else {}
        repeats = repeated({i: key for i, (_, key) in keys.items()})
        return [p for p in pairs if p[0] in linked and p[1] in linked], linked, considered, repeats

    def _view(self, cluster: Cluster) -> ClusterView:
        preview = None
        action, note = cluster.action, None
        merge_at = self.ctx.settings.cluster_merge_cohesion
        if action == "review" and cluster.cohesion >= merge_at - ROUNDING:
            # As cohesive as near-copies on average: say why a person is asked (the review
            # band was named though the cohesion was in the merge band; audit).
            note = (
                f"two of its memories are only {cluster.weakest:.2f} alike: the rules merge "
                f"when every two are at least {merge_at:.2f} alike"
            )
        if cluster.same_words:
            note = SAME_WORDS
        if cluster.action != "keep":
            members = self.ctx.store.get_many(list(cluster.members))
            if len(members) == len(cluster.members):
                outdated = outdated_among(self.ctx.store, cluster.members)
                preview = merge(members, cluster.cohesion, merged_id(cluster.id), outdated)
                # Said in the review band too: "only 0.85 alike" hid that one memory said
                # March 3 and another March 4, and a person approved a merge of the two.
                said = self.veto(members, cluster.cohesion)
                if said is not None:
                    note = said if note is None else f"{said}; {note}"
                    if action == "merge":
                        action = "review"  # as alike as near-copies, but they disagree
                elif action == "review" and said_by_one([m.content for m in members]):
                    # "Atlas uses PostgreSQL 16" and "… 16 (decided at the kickoff)": no word
                    # is lost, so no person is needed (a probe: three copies of one fact were
                    # left for review at 0.83-0.90, and none was merged).
                    action = "merge"
                    note = LOSSLESS
        return ClusterView(
            id=cluster.id,
            member_ids=list(cluster.members),
            cohesion=round(cluster.cohesion, 6),
            action=action,
            merged_preview=preview,
            note=note,
        )

    def veto(self, members: Sequence[Memory], cohesion: float) -> str | None:
        """Why the rules must not merge these memories, a cluster `cohesion` alike, or None:
        near-copies are told apart by any word one says in place of another, less alike ones
        only by what plainly differs (`disagreement`)."""
        merge_at = self.ctx.settings.cluster_merge_cohesion
        return self.disagreement(members, cohesion >= merge_at - ROUNDING)

    def disagreement(self, members: Sequence[Memory], near_copies: bool = True) -> str | None:
        """Why memories as alike as near-copies must not be merged by the rules, or None;
        for memories less alike, only what plainly differs (`core.disagreement`)."""
        ids = {m.id for m in members}
        inside = [
            r for r in self.ctx.store.relations(sorted(ids)) if r.from_id in ids and r.to_id in ids
        ]
        if any(r.type == "contradicts" for r in inside):
            return "two of them are related as contradicting each other"
        # "Update: the Lisbon trip is now June 5 to June 12" and the plan it replaced were
        # offered as one fact (an MCP probe): a merge would hold both dates as current.
        news = next((r for r in inside if r.type == "supersedes"), None)
        if news is not None:
            return (
                f"{news.from_id} supersedes {news.to_id}: the newer one holds (a merge leaves "
                "out the older one's words, but where the newer names the value it replaces)"
            )
        return disagreement([m.content for m in members], near_copies)

    # -- merging ------------------------------------------------------------------------------

    def consolidate(
        self,
        mode: str = "preview",
        auto_detect: bool = True,
        memory_ids: Sequence[str] | None = None,
        cohesion_threshold: float | None = None,
        cluster_ids: Sequence[str] | None = None,
        merged_content: str | None = None,
        similarity_threshold: float | None = None,
        on_merge: Callable[[MergeDone], None] | None = None,
    ) -> ConsolidateResult:
        """Merge every cluster at least `cohesion_threshold` cohesive (default: the merge band,
        ENGRAM_CLUSTER_MERGE_COHESION), or exactly the given memories (one cluster), or the
        clusters a preview named (`cluster_ids`). Preview (the default) changes nothing.

        `similarity_threshold` links memories into clusters, as in `clusters`: a cluster id
        found at another threshold than the default is found again only at that threshold
        (another process, such as a second CLI command, has not seen it).

        `merged_content` replaces the rules' text of one merge (memory_ids, or one cluster id):
        the rules never rewrite related statements into one, so a review-band cluster is
        merged in words an assistant (the client's own model) or a person wrote.

        `on_merge` hears of each merge as made: Ctrl-C left merges no one could name (a probe)."""
        if mode not in ("preview", "apply"):
            raise ValidationError("mode", "must be preview or apply")
        if similarity_threshold is not None:  # refused with memory_ids too, as MCP refuses it
            check.unit(similarity_threshold, "similarity_threshold")
        if merged_content is not None:
            merged_content = check.content(merged_content, "merged_content")
            if memory_ids is None and len(set(cluster_ids or [])) != 1:
                raise ValidationError(
                    "merged_content",
                    "is the text of one merged memory: give it with memory_ids or one cluster id",
                )
        threshold = check.unit(
            self.ctx.settings.cluster_merge_cohesion
            if cohesion_threshold is None
            else cohesion_threshold,
            "cohesion_threshold",
        )
        if memory_ids is not None and cluster_ids is not None:
            raise ValidationError(
                "cluster_ids", "give memory_ids (one cluster) or cluster_ids, not both"
            )
        left = 0
        if memory_ids is not None:
            ids = check.memory_ids(memory_ids)
            if len(set(ids)) < 2:
                raise ValidationError("memory_ids", "name at least two different memories")
            chosen = self._explicit(ids)
        elif cluster_ids is not None:
            chosen = self._named_clusters(cluster_ids, similarity_threshold)
        elif check.flag(auto_detect, "auto_detect"):
            found_views = self.clusters(None, similarity_threshold).clusters
            chosen = [
                c
                for c in found_views
                if (c.cohesion >= threshold and c.action != "keep")
                or (c.note == LOSSLESS and threshold >= self.ctx.settings.cluster_merge_cohesion)
            ]
            left = sum(1 for c in found_views if c.action == "review" and c not in chosen)
        else:
            raise ValidationError("auto_detect", "give memory_ids, cluster_ids or auto_detect")
        merged: list[MergeDone] = []
        skipped: dict[str, str] = {}
        found_here = memory_ids is None and cluster_ids is None
        for view in chosen:
            if found_here and view.action == "review":
                # Related, not near-copies: merging them is a judgement the rules do not make.
                # The cluster stays for a person (or an assistant) to approve; a preview says
                # so too, so that it shows what an apply would do.
                why = view.note or f"review band (cohesion {view.cohesion:.2f})"
                # In words every adapter can stand behind: the CLI's options are not the
                # tool's parameters ("(cluster_ids)" was shown to a CLI user; probe).
                skipped[view.id] = (
                    f"{why}: left for a person to approve by naming the cluster, or its "
                    "memories, to merge"
                )
        if mode == "apply":
            for view in chosen:
                if view.id in skipped:
                    continue
                try:
                    done = self.apply(view, merged_content)
                    path = (
                        ("lossless" if view.note in (LOSSLESS, SAME_WORDS) else "merge band")
                        if found_here
                        else "approved"
                        if merged_content is None
                        else "approved with the caller's text"
                    )
                    merged.append(done.model_copy(update={"path": path}))
                    if on_merge is not None:
                        on_merge(merged[-1])
                except (ConflictError, ValidationError, NotFoundError) as exc:
                    skipped[view.id] = str(exc)  # NotFound: a member deleted meanwhile
                except BusyError:
                    skipped[view.id] = (
                        "another merge is running in this store now (this client's or another's): "
                        "look again"
                    )
        else:
            for view in chosen:
                # A preview says what an apply would refuse: the union of the members' tags
                # past its limit was a "merge" in the preview and a skip when applied.
                if view.id not in skipped and view.merged_preview is not None:
                    try:
                        self._writer.stored_form(view, view.merged_preview, merged_content)
                    except ValidationError as exc:
                        skipped[view.id] = str(exc)
        if merged_content is not None:  # the preview shows the text that would be saved
            chosen = [_with_text(view, merged_content) for view in chosen]
        return ConsolidateResult(
            mode=mode,
            cohesion_threshold=threshold,
            clusters=chosen,
            merged=merged,
            skipped=skipped,
            left_for_review=left,
        )

    def _named_clusters(
        self, cluster_ids: Sequence[str], similarity_threshold: float | None
    ) -> list[ClusterView]:
        """The clusters of these ids as they are now; ValidationError naming one that is not."""
        wanted = check.sequence(cluster_ids, "cluster_ids", "a non-empty list of cluster ids")
        if not wanted or not all(isinstance(c, str) for c in wanted):
            raise ValidationError("cluster_ids", "must be a non-empty list of cluster ids")
        wanted = list(dict.fromkeys(wanted))
        # Clusters this process found are checked member by member; a full clustering run
        # is needed only for ids it has not seen.
        chosen = [self._seen[c] for c in wanted if c in self._seen and self._current(c)]
        if len(chosen) < len(wanted):
            found = {c.id: c for c in self.clusters(None, similarity_threshold).clusters}
            chosen = [found[c] for c in wanted if c in found]
            unknown = [c for c in wanted if c not in found]
            if unknown:
                raise ValidationError(
                    "cluster_ids",
                    f"{sorted(unknown)[0]} is not a cluster now: its memories changed since "
                    "it was found, it was merged already, or it was found at another "
                    "similarity threshold (give that one too), or among named memories "
                    "(merge those by their ids); look for clusters again",
                )
        return chosen

    def _current(self, ident: str) -> bool:
        """Whether a cluster seen earlier still has the same members saying the same."""
        view = self._seen[ident]
        members = self.ctx.store.get_many(view.member_ids)
        if len(members) != len(view.member_ids) or any(m.status != Status.ACTIVE for m in members):
            return False
        return cluster_id(view.member_ids, {m.id: version(m) for m in members}) == ident

    def _explicit(self, ids: list[str]) -> list[ClusterView]:
        members = {m.id: m for m in self.ctx.store.get_many(ids)}
        all_found(ids, members)
        only_active(members[ident] for ident in ids)
        # Named memories are merged whatever their similarity (docs/tools.md): without
        # embeddings their cohesion is unknown, counted 0, and the merge goes ahead.
        value, weakest = 0.0, 0.0
        if (embedder := self.ctx.semantic) is not None:
            self.ctx.vectors_ready()
            told = notes_of_the_user({i: m.content for i, m in members.items()})
            vectors = self._vectors.vectors(embedder.model_id, list(members), told, members)
            stacked = np.stack(list(vectors.values())) if len(vectors) >= 2 else None
            if stacked is not None:
                value, weakest = cohesion(stacked), weakest_link(stacked)
        settings = self.ctx.settings
        ordered = sorted(members)
        ident = cluster_id(ordered, {m.id: version(m) for m in members.values()})
        review_at = settings.cluster_review_cohesion
        action = action_for(value, settings.cluster_merge_cohesion, review_at, weakest)
        # The action says what the rules would do with them; named, they are merged all the
        # same, and a preview of unrelated memories said "keep" with no word of it (probe).
        note = (
            f"merged because named: by the rules they would be kept apart (cohesion "
            f"{value:.2f}, below the review band's {review_at:.2f})"
            if action == "keep"
            else None
        )
        # Declined before: a merge of them said nothing of it (an MCP probe)
        marked = any(
            r.type == "distinct_from" and r.from_id in members and r.to_id in members
            for r in self.ctx.store.relations(ordered)
        )
        if marked:
            rest = "" if note is None else ";" + note.removeprefix("merged because named:")
            note = (
                "merged because named: two of them were marked as different facts (keep "
                f"apart){rest}"
            )
        return [
            ClusterView(
                id=ident,
                member_ids=ordered,
                cohesion=round(value, 6),
                action=action,
                merged_preview=merge(
                    list(members.values()),
                    value,
                    merged_id(ident),
                    outdated_among(self.ctx.store, members),
                ),
                note=note,
            )
        ]

    def apply(self, view: ClusterView, content: str | None = None) -> MergeDone:
        """Merge one cluster as it was found (with `content` as the merged text, when given);
        refused (ConflictError, nothing written) if a member no longer exists, no longer says
        what it said then, or is no longer active.

        One merge at a time per store, across processes (`Store.exclusive("consolidation")`,
        BusyError at once otherwise): two clients merging the same cluster used to interleave
        here, and the loser's clean-up could delete the memory the winner had just made."""
        with self.ctx.store.exclusive("consolidation"):
            return self._writer.write(view, content)

    # -- keeping apart -------------------------------------------------------------------------

    def keep_apart(
        self,
        memory_ids: Sequence[str] | None = None,
        cluster_ids: Sequence[str] | None = None,
        similarity_threshold: float | None = None,
    ) -> KeepApartResult:
        """Mark memories as different facts, however alike (a `distinct_from` relation between
        every two of them): what a person decides on a review-band cluster that is not one
        fact. Without it the same cluster came back at every run and pipeline review. Delete
        the relation to undo; a merge carries it to the merged memory."""
        if (memory_ids is None) == (cluster_ids is None):
            raise ValidationError("cluster_ids", "give memory_ids or cluster_ids (one of them)")
        if memory_ids is not None:
            ids = check.memory_ids(memory_ids)
            if len(set(ids)) < 2:
                raise ValidationError("memory_ids", "name at least two different memories")
            found = {m.id: m for m in self.ctx.store.get_many(ids)}
            all_found(ids, found)
            # an archived memory is never clustered: marking it changed nothing (an MCP probe)
            archived = next((i for i in ids if found[i].status == Status.ARCHIVED), None)
            if archived is not None:
                raise ValidationError(
                    "memory_ids",
                    f"{archived} is archived: archived memories are never clustered, so there "
                    "is nothing to keep apart (unarchive it first)",
                )
            groups = [sorted(set(ids))]
        else:
            named = self._named_clusters(cluster_ids or [], similarity_threshold)
            groups = [view.member_ids for view in named]
        members = sorted({m for g in groups for m in g})
        added = mark_apart(self.ctx, groups, self._kept_apart(members))
        pairs = sum(len(g) * (len(g) - 1) // 2 for g in groups)
        return KeepApartResult(memory_ids=members, marked=added, already=pairs - added)

    # -- undo ---------------------------------------------------------------------------------

    def undo(self, merged_id: str, force: bool = False) -> UndoResult:
        """Restore the originals of a merge and remove the merged memory (with its relations).

        Refused when that would break something: the merged memory was merged again (undo
        that merge first), promoted (its note names it), or never finished. Refused too, unless
        `force`, when it was edited or related to other memories after the merge: deleting it
        would delete that work with it.

        Under the consolidation lock, like a merge: a merge of the same memory by another
        client between the checks and the delete would otherwise be lost."""
        ident = check.memory_id(merged_id, "merged_id")
        with self.ctx.store.exclusive("consolidation"):
            return undo_merge(self.ctx, ident, check.flag(force, "force"))


def _with_text(view: ClusterView, content: str) -> ClusterView:
    preview = view.merged_preview
    if preview is None:
        return view
    written = preview.model_copy(update={"content": content})
    return view.model_copy(update={"merged_preview": written})
