"""Tools that tell an assistant when to use memory without being asked: analyze_message (save
or reinforce?) and analyze_for_recall (search?), the seed's decision-support tools."""

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from engram.mcp import hints
from engram.mcp.declare import tool
from engram.mcp.params import Content, IdText
from engram.mcp.runtime import EngramRuntime
from engram.services.results import MessageAnalysis, RecallAnalysis
from engram.services.validation import MAX_IDS

Message = Annotated[Content, Field(description="The user's message, as they wrote it.")]


def register_activation_tools(server: MCPServer[Any], runtime: EngramRuntime) -> None:
    @tool(server, "Should this be remembered?", hints.READ)
    async def analyze_message(
        message: Message,
        recent_memory_ids: Annotated[
            list[IdText] | None,
            Field(
                max_length=MAX_IDS,
                description=(
                    f"Up to {MAX_IDS} memories just shown to the user, for a confirmation to "
                    "name; none (or an empty list) when nothing was shown."
                ),
            ),
        ] = None,
    ) -> MessageAnalysis:
        """Analyse a user's message: is it worth remembering (a preference, decision, fact,
        standing instruction, 'remember that…'), a confirmation of something remembered ('yes,
        still using TypeScript'), a request to recall or to forget, or none of these. Returns
        the intent with a confidence and the phrase that decided it; for a save, the content,
        tags, entities and strength to pass to save_memory, unless a memory says it already
        (should_save false, touch lists them: touch_memory them instead of saving a copy); for
        a confirmation, which of recent_memory_ids to touch_memory (with none given, the stored
        memory it names; naming nothing, the first shown). A save at confidence 0.6 is read
        from the message's form, a plain statement or a fact told in names, days and amounts,
        that no rule names: weigh it before saving; a correction of a stored fact is 0.75.
        For a recall, call analyze_for_recall for the query. For a request to forget ('forget
        what I said about the job'), forget lists the stored memories it names: confirm with
        the user, then delete_memory them. Changes nothing."""
        recent = recent_memory_ids or []
        return await runtime.call(lambda app: app.activation.analyze_message(message, recent))

    @tool(server, "Does this ask for a memory?", hints.READ)
    async def analyze_for_recall(message: Message) -> RecallAnalysis:
        """Analyse a user's message for recall intent ('what did I say about…', 'remind me…', 'do
        you remember…', or a question about the user's own world: 'where do I work?', 'who is my
        dentist?', 'what's on Friday?', or about someone memory knows: 'is Lisa still
        vegetarian?'): should_search, the phrase, and the search_memory query to run (queries adds
        one per name mentioned; window_days when the message says when). Changes nothing."""
        return await runtime.call(lambda app: app.activation.analyze_for_recall(message))
