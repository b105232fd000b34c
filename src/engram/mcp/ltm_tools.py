"""Tools over long-term memory, the Obsidian vault: promote a memory, search both layers."""

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from engram.mcp import hints
from engram.mcp.declare import tool
from engram.mcp.params import TAG_LIMITS, Flag, Limit, Number, OptionalMemoryId, OptionalTags, Query
from engram.mcp.runtime import EngramRuntime
from engram.services.ltm import IndexReport, VaultStatus
from engram.services.promotion import PromotionResult
from engram.services.unified import LTM_WEIGHT, MAX_WEIGHT, STM_WEIGHT, UnifiedResult

Weight = Annotated[float, Field(ge=0, le=MAX_WEIGHT, allow_inf_nan=False), Number]


def register_ltm_tools(server: MCPServer[Any], runtime: EngramRuntime) -> None:
    """Promotion writes into the user's vault (ENGRAM_VAULT_PATH) and nowhere else."""

    @tool(server, "Promote to long-term memory", hints.ADD_IDEMPOTENT)
    async def promote_memory(
        memory_id: Annotated[
            OptionalMemoryId,
            Field(description="The memory to promote; omit when auto_detect is true."),
        ] = "",
        auto_detect: Annotated[
            Flag,
            Field(description="Promote every promotion candidate (see promotion_candidates)."),
        ] = False,
        dry_run: Annotated[
            Flag, Field(description="Only report what would be promoted, and where.")
        ] = False,
        target: Annotated[
            Literal["obsidian"],
            Field(description="Where long-term memory lives: the Obsidian vault (the only one)."),
        ] = "obsidian",
    ) -> PromotionResult:
        """Make a memory permanent: write it as a Markdown note (YAML frontmatter, tags, [[links]]
        to related promoted notes) in the user's Obsidian vault and mark it promoted, so it no
        longer fades. Give memory_id, or auto_detect=true to promote every current promotion
        candidate; dry_run=true only lists what would happen. Promoting an already promoted memory
        changes nothing. Needs ENGRAM_VAULT_PATH."""
        return await runtime.call(
            lambda app: app.promotion.promote(
                memory_id or None, auto_detect=auto_detect, dry_run=dry_run
            )
        )

    @tool(server, "Search memories and vault notes", hints.READ)
    async def search_unified(
        query: Annotated[
            Query,
            Field(
                description="What to look for in memories and notes, in words or as a "
                "question: matched by meaning as well as by words, at most 1,000 characters; "
                "may be empty when tags are given."
            ),
        ] = "",
        tags: Annotated[
            OptionalTags,
            Field(description=f"Only results carrying any of these tags ({TAG_LIMITS})."),
        ] = None,
        limit: Limit = 10,
        stm_weight: Annotated[
            Weight, Field(description=f"Weight of short-term memories, 0 to {MAX_WEIGHT:g}.")
        ] = STM_WEIGHT,
        ltm_weight: Annotated[
            Weight, Field(description=f"Weight of vault notes, 0 to {MAX_WEIGHT:g}.")
        ] = LTM_WEIGHT,
    ) -> UnifiedResult:
        """Search short-term memories and the notes of the Obsidian vault (long-term memory) at
        once: one list ranked by relevance, each result marked source 'stm' (a memory, with its id)
        or 'ltm' (a note, with its path), with a title, a preview and why it ranked. A promoted
        memory and its note appear once. The weights scale each layer. Notes edited in the vault are
        seen at once (the server watches the vault; `vault` in the result says so). Searching does
        not count as a use."""
        return await runtime.call(
            lambda app: app.unified.search_unified(
                query or None, tags, limit, stm_weight, ltm_weight
            )
        )

    @tool(server, "Vault and index status", hints.READ)
    async def vault_status() -> VaultStatus:
        """Whether the vault's notes and Engram's index of them agree: notes on disk and indexed,
        notes new or edited since indexed (changed), indexed notes gone from the disk (removed),
        promoted memories whose note is gone (orphaned), and whether this server watches the vault
        (then edits are indexed within seconds). Changes nothing. Needs ENGRAM_VAULT_PATH."""
        return await runtime.call(lambda app: app.ltm.status())

    @tool(server, "Index the vault now", hints.ADD_IDEMPOTENT)
    async def index_vault() -> IndexReport:
        """Bring the index of the vault's notes up to date now (only files that changed are read;
        new and edited notes are embedded for search by meaning). Rarely needed: the server watches
        the vault. Needs ENGRAM_VAULT_PATH."""
        return await runtime.call(lambda app: app.ltm.index())
