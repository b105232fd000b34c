"""Which language a text is written in, read from its function words."""

from __future__ import annotations

import pytest

from engram.core.languages import language_of


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Wie heißt der Hund?", "de"),
        ("Was ist die Hauptstadt von Peru?", "de"),  # "was" and "die" are English words too
        ("Meine Schwester wohnt in Hamburg und arbeitet als Ärztin.", "de"),
        ("¿Dónde vive mi hermana?", "es"),
        ("Quel est mon plat préféré ?", "fr"),
        ("J'adore la cuisine italienne, surtout les pâtes.", "fr"),
        ("Il mio gatto si chiama Micio.", "it"),
        ("Minha irmã mora em Lisboa.", "pt"),
        ("Mijn zus woont bij haar vriend in Utrecht.", "nl"),
        ("Mijn zus woont in Utrecht.", None),  # "in" is English too: the vector tells
        # English about other languages and places: said in English words
        ("I want to pick up some basic Portuguese too, how should I go about it?", "en"),
        ("Emi: It's an Italian cooking class and today we're making pasta", "en"),
        ("Do you have a favorite Italian region when it comes to food?", "en"),
        # no function word of any language: the vector tells (`Background.calibration`)
        ("Quantenphysik Vorlesung", None),
        ("Hund", None),
        ("k8s", None),
    ],
)
def test_a_text_is_in_the_language_whose_function_words_it_says_most(
    text: str, language: str | None
) -> None:
    assert language_of(text) == language
