"""`engram analyze`: what a user's message asks of the memory (docs/activation.md)."""

from __future__ import annotations

from typing import Any

import click
from rich.console import Console

from engram.cli.common import (
    State,
    open_app,
    output,
    pass_state,
    resolve_all,
    say,
    store_is_there,
)
from engram.services.results import MessageAnalysis, RecallAnalysis


@click.command()
@click.argument("message")
@click.option("--recall", "for_recall", is_flag=True, help="Analyse it as a request to recall.")
@click.option(
    "--recent",
    "recent_ids",
    multiple=True,
    help="A memory just shown (repeatable): a confirmation says which of them to reinforce.",
)
@pass_state
def analyze(state: State, message: str, for_recall: bool, recent_ids: tuple[str, ...]) -> None:
    """Should MESSAGE be remembered, recalled from memory, or does it confirm a memory?"""
    # The store's memories, as the MCP tools read them (a question naming someone it knows is
    # a recall, a fact it holds already is no save); with no store yet (a fresh install) the
    # rules read the message alone, in a scratch store, rather than refuse the analysis. The
    # store was read only for --recent, and the command told other answers than the tools
    # it says it is (a helper's probe).
    reads_store = bool(recent_ids) or store_is_there(state)
    scratch: dict[str, Any] = (
        {} if reads_store else {"storage_path": ":memory:", "embedding_model": "none"}
    )
    with open_app(state, create=not reads_store, **scratch) as app:
        if for_recall:
            recall = app.activation.analyze_for_recall(message)
            output(state, recall, lambda c: render_recall(c, recall))
        else:
            recent = resolve_all(app, recent_ids, "--recent")  # short ids, as everywhere
            found = app.activation.analyze_message(message, recent)
            # A recall said only "intent: recall": what to search for is --recall's answer.
            asks = found.intent == "recall" and not state.as_json
            wanted = app.activation.analyze_for_recall(message) if asks else None
            output(state, found, lambda c: render_message(c, found, wanted))


def render_message(out: Console, a: MessageAnalysis, recall: RecallAnalysis | None = None) -> None:
    phrase = f' ("{a.phrase}")' if a.phrase else ""
    say(out, f"intent: {a.intent}, confidence {a.confidence:.2f}{phrase}")
    if recall is not None and recall.queries:
        say(out, f"search: {' | '.join(recall.queries)}")
    if a.should_save:
        say(out, f"save: {a.content}")
        say(out, f"  tags: {', '.join(a.tags) or '-'}; entities: {', '.join(a.entities) or '-'}")
        say(out, f"  strength: {a.strength:g}" + (f" ({'; '.join(a.why)})" if a.why else ""))
    if a.touch:
        known = " (they say it already, in other words)" if a.intent == "save" else ""
        say(out, f"touch: {', '.join(a.touch)}{known}")
    if a.intent == "forget":
        named = ", ".join(a.forget) if a.forget else "none stored (search for it)"
        say(out, f"forget: {named}; delete them once the user confirms (engram delete ID)")
    if a.missing:
        say(out, f"no memory has the id{'s' if len(a.missing) > 1 else ''} {', '.join(a.missing)}")


def render_recall(out: Console, a: RecallAnalysis) -> None:
    if not a.should_search:
        say(out, f"no recall intent (confidence {a.confidence:.2f})")
        return
    say(out, f'recall, confidence {a.confidence:.2f} ("{a.phrase}")')
    say(out, f"search: {' | '.join(a.queries)}")
    if a.window_days is not None:
        say(out, f"  within the last {a.window_days} days")


COMMANDS = (analyze,)
