"""`engram embed`: see which memories have vectors for the current model, and fill in the rest."""

from __future__ import annotations

import click
from rich.console import Console

from engram.cli.common import (
    State,
    given,
    open_app,
    output,
    pass_state,
    progress_bar,
    say,
)
from engram.core.wording import counted
from engram.services.embeddings import EmbeddingStatus
from engram.services.results import Result


class BackfillResult(Result):
    embedded: int
    status: EmbeddingStatus


@click.command()
@click.option("--backfill", is_flag=True, help="Embed every memory that lacks a vector.")
@click.option(
    "--batch", type=click.IntRange(1, 1024), default=64, show_default=True, help="Texts per batch."
)
@pass_state
def embed(state: State, backfill: bool, batch: int) -> None:
    """Show embedding coverage; with --backfill, compute missing vectors.

    Needed after importing memories saved without embeddings or after changing
    ENGRAM_EMBEDDING_MODEL. Batched and resumable: stop it any time and run it again.
    """
    if not backfill and given("batch"):  # accepted, and ignored without a word
        raise click.UsageError("--batch goes with --backfill")
    with open_app(state, check_vectors=False) as app:  # what is missing is its report
        before = app.embeddings.status()
        embedded = 0
        if backfill:
            todo = before.missing
            with progress_bar(state) as update:
                done = 0

                def advance(n: int) -> None:
                    nonlocal done
                    done += n
                    update("embedding", done, max(todo, done))

                embedded = app.embeddings.backfill(batch=batch, progress=advance)
        result = BackfillResult(embedded=embedded, status=app.embeddings.status())
    output(state, result, lambda c: render(c, result, backfill))


def render(out: Console, result: BackfillResult, backfilled: bool) -> None:
    status = result.status
    if status.model_id is None:
        say(out, "Embeddings are off (ENGRAM_EMBEDDING_MODEL=none).")
        return
    have = status.vectors.get(status.model_id, 0)
    if backfilled:
        say(out, f"Embedded {counted(result.embedded, 'memory')}.")
    verb = "has" if status.memories == 1 else "have"  # "0 of 1 memory has a vector"
    total = counted(status.memories, "memory")
    say(out, f"Model {status.model_id}: {have:,} of {total} {verb} a vector.")
    for model, count in status.vectors.items():
        if model != status.model_id:
            verb = "is" if count == 1 else "are"
            say(out, f"  {counted(count, 'vector')} from {model} {verb} ignored until re-embedded.")
    if have < status.memories and not backfilled:
        say(out, "Run `engram embed --backfill` to embed the rest.")


COMMANDS = (embed,)
