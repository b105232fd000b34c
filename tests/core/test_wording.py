"""Counts read by people agree with their number: "1 clusters" and "Imported 1 memories" were
printed before one helper said them all."""

from __future__ import annotations

import pytest

from engram.core.wording import counted, plural


@pytest.mark.parametrize(
    ("noun", "many"),
    [
        ("memory", "memories"),
        ("audit entry", "audit entries"),
        ("relation", "relations"),
        ("cluster", "clusters"),
        ("day", "days"),  # a vowel before the y keeps it
    ],
)
def test_plural(noun: str, many: str) -> None:
    assert plural(noun) == many


def test_counted_agrees_with_its_number_and_separates_thousands() -> None:
    assert counted(1, "memory") == "1 memory"
    assert counted(0, "memory") == "0 memories"
    assert counted(1_200, "relation") == "1,200 relations"
