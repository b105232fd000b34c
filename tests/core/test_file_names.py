"""One rule set for the names Engram creates in a vault (`engram.core.file_names`): the
configured folder and the notes promotion writes refuse the same names."""

from __future__ import annotations

import pytest

from engram.config import check_ltm_folder
from engram.core.file_names import ends_badly, is_reserved
from engram.errors import ValidationError
from engram.vault.writer import check_relative

NOT_PORTABLE = [
    "a:b",
    "what?",
    "pipe|d",
    "tab\there",
    "CON",
    "aux.md",
    "Nul .txt",
    "com1",
    "x.",
]


@pytest.mark.parametrize("name", NOT_PORTABLE)
def test_the_folder_setting_and_the_note_writer_refuse_the_same_names(name: str) -> None:
    with pytest.raises(ValueError):
        check_ltm_folder(f"Memory/{name}")
    with pytest.raises(ValidationError):
        check_relative(f"Memory/{name}")


@pytest.mark.parametrize("name", ["Engram", "console", "auxiliary.md", "com10", "café", "a.b"])
def test_ordinary_names_pass_both(name: str) -> None:
    assert check_ltm_folder(f"Memory/{name}") == f"Memory/{name}"
    assert check_relative(f"Memory/{name}") == f"Memory/{name}"


def test_reserved_and_badly_ending_names() -> None:
    assert is_reserved("LPT9.log") and is_reserved("prn") and not is_reserved("prnt")
    assert ends_badly("notes.") and ends_badly("notes ") and not ends_badly("notes")


@pytest.mark.parametrize("name", [".hidden", "Engram.", "Notes "])
def test_a_refused_folder_says_the_rule_it_breaks(name: str) -> None:
    """ ".hidden" was refused as "(no '', '.', '..')", a rule it does not break (a probe)."""
    with pytest.raises(ValueError, match=r"not hidden .*no trailing dot or space"):
        check_ltm_folder(f"Memory/{name}/x")
