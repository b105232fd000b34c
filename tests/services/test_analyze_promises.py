"""What `analyze_message` promises an assistant (docs/activation.md), each promise beside the
messages a QA probe found breaking it: a secret the user said not to keep, a confirmation that
corrects, content changed on the way, importance said not to apply, a link read as a question,
and the request's own words kept as the fact."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engram import Engram, FixedClock


@pytest.fixture
def mem(tmp_path: Path, clock: FixedClock) -> Iterator[Engram]:
    """The rules read the message alone (the store only for the recent ids): one backend."""
    with Engram.open(str(tmp_path / "store.db"), clock=clock) as engram:
        yield engram


# -- a link or an email address is data, not words -------------------------------------------


@pytest.mark.parametrize(
    ("message", "content"),
    [
        ("My website is https://dana.dev/about?x=1", "My website is https://dana.dev/about?x=1"),
        ("My website is https://dana.dev/about", "My website is https://dana.dev/about"),
        (
            "Our dashboard is https://grafana.acme.dev/d/abc?orgId=1&refresh=5s",
            "Our dashboard is https://grafana.acme.dev/d/abc?orgId=1&refresh=5s",
        ),
        ("Remember: Dana's email is Dana.Kim@Globex.com", "Dana's email is Dana.Kim@Globex.com"),
    ],
)
def test_a_link_is_not_a_question_and_holds_no_names(
    mem: Engram, message: str, content: str
) -> None:
    """A "?" in a link's query made a statement a question (none), and the query's
    parameters were names ("orgId"); an email address gave "Dana.Kim" and "Globex.com"."""
    found = mem.analyze_message(message)
    assert (found.intent, found.content) == ("save", content)
    assert all("." not in name and "orgId" not in name for name in found.entities)
    assert found.entities in ([], ["Dana"])


def test_a_link_marks_no_importance(mem: Engram) -> None:
    found = mem.analyze_message("Remember: the runbook is https://wiki.acme.dev/critical-alerts!x")
    assert found.strength == pytest.approx(1.2)  # "remember" alone, not "critical" or "!"
