"""Which language a text is written in, by its function words: the languages whose reference
sentences judge meaning (`engram.core.meaning.Background`).

To the model, text in one language is alike to all text in it, so a German question is judged
against German sentences. Its vector alone cannot tell what a text is written in from what it
is about: "I want to pick up some basic Portuguese too, how should I go about it?" was 0.27
nearer the Portuguese sentences than the English ones, as near as German questions are to
German ones, and judged against them it lost its answer (a user-assistant chat). The small
words a sentence cannot do without can: that question says "I", "to", "some", "how",
"should", "about", "it". Only words that are no English word are listed ("die", "was", "son",
"come", "van" are).
"""

from __future__ import annotations

import re

from engram.core.text import STOPWORDS

ENGLISH = "en"

FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "de": frozenset(
        """der den dem des das ein eine einer einem einen und ist sind nicht mit von zu zum zur
        auf für ich du er sie es wir ihr mein meine meinen meiner meines dein deine sein seine
        ihre unser unsere wie wo wer warum welche welcher welches wann ob oder aber auch noch
        schon nach bei aus sich kein keine habe haben hast wird werden wurde kann können muss
        mich mir dich dir uns euch als gern immer heute morgen""".split()
    ),
    "es": frozenset(
        """el los las un una unos unas y que del en es está están estoy por para mi mis tu
        tus su sus nuestro nuestra dónde donde cuándo cuando cómo como qué quién cuál pero muy
        también yo tengo tiene hay lo les se ya""".split()
    ),
    "fr": frozenset(
        """le la les un une des du de et est sont je tu il elle nous vous ils elles mon ma mes
        ton ta tes sa ses notre votre leur dans pour avec sur pas ne qui que quoi où quand
        comment pourquoi quel quelle quels quelles c'est j'ai suis ai avez avons au aux ce
        cette ces mais très aussi""".split()
    ),
    "it": frozenset(
        """il lo la gli le un una uno di del della dei delle è sono che non per con mio mia
        miei mie tuo tua suo sua nostro dove quando perché quale chi cosa anche molto ho hai
        ha abbiamo sei siamo questo questa quello nel nella sul sulla dal dalla""".split()
    ),
    "pt": frozenset(
        """os um uma uns umas é são está estão do da dos das de em na nas nos com para por meu
        minha meus minhas seu sua nosso nossa onde quando como porque qual quem que não muito
        também eu tenho tem há ao à pelo pela isso este esta""".split()
    ),
    "nl": frozenset(
        """de het een en zijn niet met voor op ik jij je hij zij wij mijn jouw onze waar
        wanneer hoe waarom welke wie wat ook maar heel heb hebt heeft hebben bent dat dit deze
        naar bij uit""".split()
    ),
}

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")


def language_of(text: str) -> str | None:
    """The language of which the text says the most distinct function words, two at least;
    None when it says none of any (a name, a few nouns: "Quantenphysik Vorlesung"), one
    ("treating ya"), or as many of English as of another ("Mijn zus woont in Utrecht":
    "mijn", "in"): its vector then tells."""
    words = {w.lower().replace("’", "'") for w in _WORD.findall(text)}
    english = len(words & STOPWORDS)
    counts = {code: len(words & listed) for code, listed in FUNCTION_WORDS.items()}
    best = max(counts, key=lambda code: counts[code])
    if counts[best] > english and counts[best] >= 2:
        return best
    return ENGLISH if english > counts[best] else None
