"""MCP prompts: how to use this memory well, and a topic's context fetched in one step.

`use_memory` is the seed's natural cycle (search before answering, save what lasts, report
what helped) in our tools' real names, for clients that let the user add a prompt to a
conversation. `recall_context` searches for a topic and hands the assistant what was found,
with the ids to report back through observe_memory_usage when they help.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from engram.core.ranking import why_summary
from engram.core.timeutil import day_in
from engram.errors import ValidationError
from engram.mcp.runtime import EngramRuntime
from engram.services import validation as check
from engram.services.results import cut_for_answer

RECALL_LIMIT = 8

USE_MEMORY = """\
You have a long-term memory through the Engram tools. Use it the way a person uses theirs:

1. Before answering, call search_memory with the user's topic in plain words; it matches by \
meaning as well as by words. If the user asks what they said before ("what did I say about…", \
"remind me…", "do you remember…"), always search first.
2. When the user states something durable (a preference, a decision, a fact about themselves or \
their work, "remember that…", "from now on…"), call save_memory with one idea per memory, a few \
tags and the names it mentions as entities. Give strength up to 2 for what must last ("always", \
"never", "important"). Repeating a stored fact does not copy it: the stored memory is merged.
3. After a memory actually shaped your answer, call observe_memory_usage with its id and tags \
describing this conversation. That is what keeps useful memories from fading; searching does \
not count. When the user confirms something again ("yes, still using TypeScript"), call \
touch_memory on that memory.
4. If a remembered fact is wrong or out of date, update_memory it. When the user asks you to \
forget something, analyze_message lists the memories it names (forget): confirm, then \
delete_memory them.
5. Now and then, check review_candidates (memories about to fade) and promotion_candidates \
(memories that earned a permanent note: promote_memory writes it to the user's vault).

Do not announce every memory operation; mention what you remembered when it matters to the user.\
"""


def register_prompts(server: MCPServer[Any], runtime: EngramRuntime) -> None:
    @server.prompt(
        name="use_memory",
        title="Use Engram memory",
        description="How to use the memory tools in a conversation: search, save, reinforce.",
    )
    def use_memory() -> str:
        return USE_MEMORY

    @server.prompt(
        name="recall_context",
        title="Recall context for a topic",
        description=(
            f"Search the memory for a topic and start the conversation with what was found "
            f"(up to {RECALL_LIMIT} memories, with their ids)."
        ),
    )
    async def recall_context(
        topic: Annotated[str, Field(description="What the conversation is about.")],
    ) -> str:
        if not check.query(topic, "topic") or not topic.strip():
            # A blank topic listed the latest memories as what Engram "remembers about ''".
            raise ValidationError("topic", "give the topic to recall")
        hits, zone = await runtime.call(
            lambda app: (app.search.search(topic, limit=RECALL_LIMIT), app.context.local_zone())
        )
        if not hits:
            return (
                f"Engram has no memories about {_quoted(topic)} yet. If this conversation settles "
                "anything worth keeping, save it with save_memory."
            )
        # One line a memory, cut as a search answer cuts it: a 50,000-character memory came
        # whole into the context window, and its line breaks broke the list (an MCP probe).
        lines = [  # the day saved: which of two memories is the newer, when it was said
            f"- [{h.memory.id}] ({day_in(h.memory.created_at, zone)}) "
            + " ".join(cut_for_answer(h.memory.content).split())
            + (f" (tags: {', '.join(h.memory.tags)})" if h.memory.tags else "")
            + f" — {why_summary(h)}"
            for h in hits
        ]
        return (
            f"Here is what Engram remembers about {_quoted(topic)}, best match first:\n\n"
            + "\n".join(lines)
            + "\n\nUse what is relevant. After a memory helps your answer, report its id with "
            "observe_memory_usage; correct outdated ones with update_memory."
        )


def _quoted(topic: str) -> str:
    """The topic as the user wrote it, on one line, in quotation marks (Python's repr showed
    its quotes and apostrophes escaped: 'what\\'s my dog\\'s name')."""
    return f"“{' '.join(topic.split())}”"
