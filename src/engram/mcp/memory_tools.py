"""Tools over single memories: save, search, open, update, delete, and reinforcement."""

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from engram.core.models import Memory
from engram.mcp import hints
from engram.mcp.declare import tool
from engram.mcp.params import (
    TAG_LIMITS,
    Content,
    ContextText,
    Flag,
    Keep,
    Limit,
    MemoryId,
    MemoryIds,
    NewContent,
    Number,
    OptionalEntities,
    OptionalMeta,
    OptionalStrength,
    OptionalTags,
    Query,
    Source,
    StatusName,
)
from engram.mcp.runtime import EngramRuntime
from engram.services.drafts import Draft
from engram.services.results import (
    DeleteResult,
    ObserveUsageResult,
    OpenResult,
    Recalled,
    RecallResult,
    SaveResult,
    TouchResult,
    cut_for_answer,
)


def register_memory_tools(server: MCPServer[Any], runtime: EngramRuntime) -> None:
    """Reading and editing memories: none of these counts as a use, so none slows decay."""

    @tool(server, "Save memory", hints.ADD)
    async def save_memory(
        content: Content,
        tags: OptionalTags = None,
        entities: OptionalEntities = None,
        source: Source = "",
        context: ContextText = "",
        meta: OptionalMeta = None,
        strength: OptionalStrength = None,
        keep: Annotated[
            Keep,
            Field(
                description="true: keep it for good, gc never forgets it however long it "
                "goes unused: for what must not be lost though it may not be needed for months "
                "(a contact's number, a health fact, a document's expiry). Left out: kept where "
                "its words name an allergy, a condition, a document, a birthday or who the user "
                "is, or ask never to forget it (see enrichment.kept_for); false: not by its words."
            ),
        ] = None,
        ctx: Context | None = None,
    ) -> SaveResult:
        """Save something worth remembering later: a fact, preference, decision or piece of context,
        with tags and entities so it can be found again. A new memory starts at its strength and
        fades with time unless it is used (see observe_memory_usage), and gc forgets it once
        faded; give strength up to 2 for something important, and keep=true for what must never
        be forgotten. Memories saved in one conversation form an episode (filled in
        automatically), so a later search also reaches what was saved next to a match. Saving a
        memory that is already stored (the same words, any case or punctuation) does not make a
        copy: the stored one takes the new tags and counts a use (action 'merged', duplicate_of its
        id); stored memories close to it in meaning are listed in `similar` with their
        `similarity`: where one says the same fact in other words, update it instead of keeping
        both; one that is only alike (another fact on the same topic) stays as it is. A save that
        says something changed ('Lisa is no longer vegetarian') supersedes the old fact and its
        copies by itself (`supersedes`; the old memory stays, as what held before), and search
        lists it first wherever an old fact matches.
        Names in the text are added as entities, and without a strength the wording sets one
        ('important', 'always'…). Returns the memory and what was done."""
        draft = Draft(
            content=content,
            tags=tuple(tags or ()),
            entities=tuple(entities or ()),
            source=source or None,
            context=context or None,
            meta=meta or {},
            strength=strength,
            episode=_episode(runtime, ctx),
            keep=keep,
        )
        return _echoed(await runtime.call(lambda app: app.memories.save(draft)))

    @tool(server, "Search memories", hints.READ)
    async def search_memory(
        query: Query = "",
        tags: Annotated[
            OptionalTags,
            Field(description=f"Only memories carrying any of these tags ({TAG_LIMITS})."),
        ] = None,
        status: Annotated[
            list[StatusName] | None,
            Field(
                min_length=1,
                max_length=3,
                description="Statuses to include; default active and promoted.",
            ),
        ] = None,
        window_days: Annotated[
            float | None,
            Field(
                gt=0,
                allow_inf_nan=False,
                description="Only memories saved or used (touched, observed) in the last N "
                "days: by last use, not by when they were said; to ask about a day, name it "
                "in the query ('what did I say last Tuesday?').",
            ),
            Number,
        ] = None,
        min_score: Annotated[
            float | None,
            Field(ge=0, allow_inf_nan=False, description="Only memories scoring at least this."),
            Number,
        ] = None,
        limit: Limit = 10,
        verbose: Annotated[
            Flag,
            Field(description="Also return each memory's full record and the parts of its rank."),
        ] = False,
    ) -> RecallResult:
        """Find memories by what they say and what they mean (ask in plain language, e.g.
        'which database did we pick'). Ranks are relative to this query's best match: the
        first is near 1 even when nothing fits, so a hit sharing no word (why 'text 0') is a
        guess by meaning to check against what was asked. Searching does not count as a use:
        call observe_memory_usage for the memories you actually use.
        Besides the memories sharing the query's words or saying the same in other words, it
        finds the memories saved next to a match in the same conversation or related to it
        (why.context) and those sharing rarer words with the best matches (why.expansion); a
        day the query names ('on 7 Jan 2024', 'yesterday') lifts the memories saved on it
        (why.day); a question about how things stand now ('where does she live now?',
        'currently', 'still') puts the latest of alike memories first; a misspelled word the
        store lacks is searched as the store's word it misspells ('searched "kafak" as
        "kafka"'); 'my husband' is searched by the name the store gives him too. Ranks are
        re-weighted a little by how alive each memory still is (its decay score); near-copies
        of one memory do not fill the list; some slots go to fading memories that match well
        (reason 'review') so they can be reinforced. Filter by tags; archived memories are left
        out unless `status` asks for them. Each hit is compact (id, content, tags, the day it
        was saved, rank, why in one line); verbose=true adds the full record and the rank's
        parts, open_memories reads records by id."""
        hits, zone = await runtime.call(
            lambda app: (
                app.search.search(
                    query or None,
                    tags=tags,
                    status=status,
                    window_days=window_days,
                    min_score=min_score,
                    limit=limit,
                ),
                app.context.local_zone(),
            )
        )
        return RecallResult(count=len(hits), hits=[Recalled.of(h, verbose, zone) for h in hits])

    @tool(server, "Open memories", hints.READ)
    async def open_memories(memory_ids: MemoryIds) -> OpenResult:
        """Read memories in full by id (ids come from search_memory, read_graph or the candidate
        tools). Does not count as a use. Ids that match nothing are listed in `missing`."""
        return await runtime.call(lambda app: app.memories.open(memory_ids))

    @tool(server, "Update memory", hints.OVERWRITE)
    async def update_memory(
        memory_id: MemoryId,
        content: NewContent = "",
        tags: OptionalTags = None,
        entities: OptionalEntities = None,
        source: Source = "",
        context: ContextText = "",
        meta: OptionalMeta = None,
        strength: OptionalStrength = None,
        keep: Annotated[
            Keep,
            Field(
                description="true: keep it for good (gc never forgets it); false: let it fade "
                "and be forgotten again. Left out: as it is, even where meta is replaced."
            ),
        ] = None,
    ) -> Memory:
        """Change one memory: only the fields given change, and tags/entities/meta are replaced as a
        whole. Give at least one field. Editing does not count as a use. Fails if the memory does
        not exist."""
        return await runtime.call(
            lambda app: app.memories.update(
                memory_id,
                content=content or None,
                tags=tags,
                entities=entities,
                # "" (the schema's default) and blank: unchanged here, not cleared
                source=source if source.strip() else None,
                context=context if context.strip() else None,
                meta=meta,
                strength=strength,
                keep=keep,
            )
        )

    @tool(server, "Delete memories", hints.OVERWRITE)
    async def delete_memory(
        memory_ids: MemoryIds,
        archive: Annotated[
            Flag, Field(description="Archive instead of deleting: nothing is lost.")
        ] = False,
    ) -> DeleteResult:
        """Delete memories for good (ids that do not exist are skipped), or with archive=true keep
        them in the store but out of default search and garbage collection (every id must then
        exist). Their relations go with a deletion."""
        return await runtime.call(lambda app: app.memories.remove(memory_ids, archive))


def register_reinforcement_tools(server: MCPServer[Any], runtime: EngramRuntime) -> None:
    """The only tools that count a use: reinforcement is always an explicit act of the model."""

    @tool(server, "Reinforce memory", hints.ADD)
    async def touch_memory(
        memory_id: MemoryId,
        boost: Annotated[Flag, Field(description="Also raise the memory's strength.")] = False,
    ) -> TouchResult:
        """Reinforce one memory you just relied on: counts a use and restarts its decay from now.
        boost=true also raises its strength a step (capped at 2). Returns the memory with its score
        before and after."""
        return await runtime.call(lambda app: app.memories.touch(memory_id, boost=boost))

    @tool(server, "Observe memory usage", hints.ADD)
    async def observe_memory_usage(
        memory_ids: MemoryIds,
        context_tags: Annotated[
            OptionalTags,
            Field(
                description=f"Tags of the current conversation ({TAG_LIMITS}); without "
                "them no use can count as cross-domain."
            ),
        ] = None,
    ) -> ObserveUsageResult:
        """Report the memories you actually used in a response, with tags describing the current
        conversation. Each counts a use and a review, which slows its decay; when the conversation's
        tags barely overlap the memory's own tags the use is cross-domain and the memory also gains
        strength. Prefer this to touch_memory after answering with memories."""
        context = context_tags or []
        results = await runtime.call(lambda app: app.memories.observe(memory_ids, context))
        return ObserveUsageResult(results=results)


def _echoed(result: SaveResult) -> SaveResult:
    """The save's answer with every text past HIT_CONTENT characters cut (" …"), as a search
    hit is: the client sent the text a moment ago, and a 50,000-character save came back
    whole, 50 KB of the assistant's context (a probe). open_memories gives it whole."""
    memory = result.memory.model_copy(update={"content": cut_for_answer(result.memory.content)})
    similar = [s.model_copy(update={"content": cut_for_answer(s.content)}) for s in result.similar]
    return result.model_copy(update={"memory": memory, "similar": similar})


def _episode(runtime: EngramRuntime, ctx: Context | None) -> str | None:
    """The client session's episode. Over stdio the server process is the session; over HTTP
    the session the transport names (its `mcp-session-id` header). A request of a protocol
    version without sessions (2026-07-28) belongs to none: every such client shared one
    episode for the server's whole life, credited with each other's memories."""
    headers = None if ctx is None else ctx.headers
    if headers is None:
        return runtime.episode_for(None)
    session = headers.get("mcp-session-id")
    return runtime.episode_for(session) if session else None
