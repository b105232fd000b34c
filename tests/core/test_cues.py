"""Cues: the words of the turn before that a reply answers without saying them."""

from __future__ import annotations

from engram.core.cues import cues
from engram.core.models import MAX_CUES


def test_a_reply_keeps_the_words_of_the_question_it_answers() -> None:
    found = cues("Omar: how did the interview at the harbour museum go?", "Lena: i got it!!")
    assert set(found) == {"interview", "harbour", "museum"}


def test_only_the_asking_sentences_of_a_turn_that_tells_first() -> None:
    """News before a question is not what the reply answers: "I got promoted to sous-chef"
    is no cue of the thesis it is asked about."""
    before = "Imogen: I got promoted to sous-chef last month. What is your thesis about?"
    found = cues(before, "Tariq: Earthquake-resistant housing made from bamboo")
    assert "thesis" in found
    assert not {"promoted", "sous-chef", "month"} & {c.lower() for c in found}


def test_of_a_sentence_that_tells_then_asks_only_its_question() -> None:
    """ "Noor doesn't eat pork…, is Portuguese food going to be hard?": the assistant's reply
    held "Noor" and "pork" as cues, and came before the user's turn that tells it."""
    before = "User: Noor doesn't eat pork for religious reasons, is Portuguese food hard?"
    found = cues(before, "Assistant: It leans on seafood, so it's very manageable.")
    assert {c.lower() for c in found} == {"portuguese", "food", "hard"}


def test_the_whole_sentence_when_its_question_points_back_or_names_too_little() -> None:
    """ "…, are you ready for that?" asks of the exercise; "…, what do you think?" of the club."""
    asked = "Hiroko: Border collies need a lot of exercise, are you ready for that?"
    ready = cues(asked, "Dale: Yes")
    assert {"exercise", "ready"} <= set(ready)
    club = cues("Kim: I was thinking of joining a book club, what do you think?", "Jo: go for it")
    assert {"book", "club"} <= set(club)


def test_a_short_question_without_its_mark_asks_too() -> None:
    assert "amira" in cues("Kai: wait how's amira", "Noor: she's good, back at work")


def test_a_speakers_own_question_is_no_cue_of_their_next_turn() -> None:
    assert cues("Lena: is the flat near the station?", "Lena: also the car broke down") == ()


def test_a_turn_speaking_of_someone_by_a_pronoun_keeps_the_names_before_it() -> None:
    before = "Omar: my sister Dana starts at the Tate on Monday."
    assert set(cues(before, "Lena: she will love it there")) == {"Dana", "Tate"}
    assert cues(before, "Lena: the bus was late again") == ()  # speaks of no one unnamed


def test_no_word_the_turn_holds_nor_a_speakers_name() -> None:
    found = cues("Omar: did Lena pass the driving test?", "Lena: yes! the test was easy")
    assert "test" not in found and "Lena" not in found and "Omar" not in found
    assert {"pass", "driving"} <= set(found)


def test_a_name_is_kept_once_with_its_capitals() -> None:
    found = cues("Omar: how's Owen doing?", "Lena: he passed")
    assert [c for c in found if c.lower() == "owen"] == ["Owen"]


def test_at_most_max_cues() -> None:
    question = "Which " + " ".join(f"topic{i}" for i in range(40)) + "?"
    assert len(cues(f"A: {question}", "B: all of them")) == MAX_CUES


def test_a_statement_before_gives_no_cue_to_a_turn_of_no_one() -> None:
    assert cues("Omar: the gig is on friday at the Elbow Room.", "Lena: cool") == ()
