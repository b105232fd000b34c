"""What a review note says two alike memories disagree on."""

from __future__ import annotations

from engram.core.disagreement import disagreement


def test_a_number_in_words_or_in_digits_and_a_time_with_its_am_are_one() -> None:
    """A probe's notes: "they hold different numbers" of "3-year-old" and "three years old",
    and "one says '30am' where another says '30'" of "9:30am" and "9:30 am"."""
    assert disagreement(["My son Leo is a 3-year-old.", "My son Leo is three years old."]) is None
    assert disagreement(["Standup is at 9:30am.", "Standup is at 9:30 am."]) is None
    assert disagreement(["Standup is at 9:30am every weekday.", "Daily standup at 9:30 am."]) == (
        "one says 'weekday' where another says 'daily'"
    )
    assert disagreement(["I have two cats", "I have three cats"]) == "they hold different numbers"
    assert (
        disagreement(["Meet at 8 a.m.", "Meet at 8 p.m."])
        == "one says 'a.m' where another says 'p.m'"
    )


def test_a_negation_note_names_the_word() -> None:
    assert (
        disagreement(["Lisa is allergic to peanuts", "Lisa is not allergic to peanuts"])
        == "one says 'not' where another does not"
    )


def test_paraphrases_are_told_apart_only_by_what_plainly_differs() -> None:
    """Less alike than near-copies, memories say one fact in other words: every cluster of an
    MCP probe's review band had a note ("one says 'actually' where another says 'google'",
    "one says not what another says" of two ways of a peanut allergy). Numbers, opposites,
    signs and word order still are told."""
    same = [
        ["Standup is at 9:30am every weekday.", "Daily standup at 9:30 am."],
        ["I'm allergic to peanuts.", "I can't eat peanuts - I have a peanut allergy."],
        ["Sarah Kim was my manager.", "Sarah Kim is my manager."],
    ]
    for contents in same:
        assert disagreement(contents, near_copies=False) is None, contents
        assert disagreement(contents) is not None, contents  # as near-copies they would differ
    actually = ["Sarah Kim is my manager now.", "Actually my manager is Sarah Kim, from Google."]
    assert disagreement(actually, near_copies=False) is None
    assert disagreement(["Dentist on March 3", "Dentist appointment March 4"], near_copies=False)
    assert (
        disagreement(["I like tea", "I dislike tea"], near_copies=False)
        == "'dislike' against 'like'"
    )
    assert disagreement(["Meet at 8 a.m.", "Meet at 8 p.m."], near_copies=False)


def test_a_word_written_another_way_is_one_word_and_a_past_is_another_time() -> None:
    """A helper's probe: four of five trivial rewordings (0.96-0.97 alike) were held for
    review as disagreeing, and two statements of a past habit were merged with the present."""
    same = [
        ["I'm vegetarian", "I am vegetarian"],
        ["I can't eat peanuts", "I cannot eat peanuts"],
        ["My favourite colour is blue", "My favourite color is blue"],
        ["Standup is at 9:30am", "Standup is at 9.30 am"],
        ["Send the invoice by e-mail", "Send the invoice by email"],
    ]
    for contents in same:
        assert disagreement(contents) is None, contents
    assert (
        disagreement(["We use PostgreSQL for Atlas", "We used PostgreSQL for Atlas"])
        == "one says 'use' where another says 'used'"
    )
    assert (
        disagreement(["I drink coffee every morning", "I used to drink coffee every morning"])
        == "one says 'used to' where another does not"
    )
    # short words a letter apart stay other words, and numbers stay numbers
    assert disagreement(["The light is on", "The light is off"]) is not None
    assert disagreement(["Dose 1.25 mg", "Dose 1.5 mg"]) == "they hold different numbers"


def test_a_number_one_memory_adds_is_no_disagreement() -> None:
    """ "Maya is vegetarian (for about five years)" and "Maya doesn't eat meat (vegetarian)"
    were held for review as holding different numbers (a probe): one adds a number, and the
    other holds none. "one" against a number is still one (a pronoun elsewhere)."""
    added = ["Maya is vegetarian (for about five years)", "Maya doesn't eat meat (vegetarian)"]
    assert disagreement(added, near_copies=False) is None
    assert disagreement(["Standup at 9:30", "Standup"], near_copies=False) is None
    approvals = ["Merges need one approval", "Merges need two approvals"]
    assert disagreement(approvals, near_copies=False) == "they hold different numbers"


def test_a_function_word_is_said_in_place_of_another_only_where_little_else_differs() -> None:
    """A paraphrase holds many words the other lacks, function words among them: "I'm allergic
    to peanuts" and "Peanuts give me a bad allergic reaction" (0.90, near-copies by meaning)
    were held for review as "one says 'am' where another says 'bad'"."""
    assert (
        disagreement(["I'm allergic to peanuts", "Peanuts give me a bad allergic reaction"]) is None
    )
    joined = ["Sarah Kim is my manager now.", "Actually my manager is Sarah Kim, from Google."]
    assert disagreement(joined) is None
    assert disagreement(["Turn the light on", "Turn the light off"]) == (
        "one says 'on' where another says 'off'"
    )
    assert disagreement(["Alice reports to him", "Alice reports to her"]) == (
        "one says 'him' where another says 'her'"
    )


def test_a_number_said_twice_is_the_same_number() -> None:
    """A merged memory says its fact once per original ("Sam's birthday is March 14" and "Sam
    was born on March 14th"), and a new copy saying it once was held for review as holding
    different numbers (a probe). Another number is still told."""
    merged = "Sam's birthday is March 14\nSam was born on March 14th"
    assert disagreement([merged, "Sam's birthday: March 14"]) is None
    assert disagreement([merged, "Sam's birthday: March 15"]) == "they hold different numbers"


def test_the_user_named_by_a_note_is_the_user_who_says_i() -> None:
    """An assistant's note ("User is allergic to peanuts") and the user's own words ("I am
    allergic to peanuts") say one fact: the person a verb is said in tells nothing. What they
    hold apart still is told."""
    assert disagreement(["User is allergic to peanuts", "I am allergic to peanuts"]) is None
    assert disagreement(["The user's sister lives in Lyon", "My sister lives in Lyon"]) is None
    assert disagreement(["User has a dog named Rex", "I have a dog named Rex"]) is None
    assert disagreement(["User is allergic to peanuts", "I am not allergic to peanuts"]) == (
        "one says 'not' where another does not"
    )
    assert disagreement(["User has two cats", "I have three cats"]) == (
        "they hold different numbers"
    )
    assert disagreement(["User works on Monday", "I work on Tuesday"]) == (
        "one says 'monday' where another says 'tuesday'"
    )
    assert disagreement(["Users love the API", "I love the API"]) is not None  # other people


def test_two_things_set_the_other_way_round_disagree_though_words_are_added() -> None:
    """A probe: "I prefer tea over coffee" and "Actually I prefer coffee over tea these days"
    (0.94), two flights "from Lisbon to Paris" and "from Paris to Lisbon on Friday" (0.93)
    were merged as one fact: the added words hid the swap."""
    turned = ["I prefer tea over coffee", "Actually I prefer coffee over tea these days"]
    assert disagreement(turned) == "they say 'coffee' and 'tea' the other way round"
    assert disagreement(turned, near_copies=False) is not None  # as paraphrases too
    flights = [
        "The flight goes from Lisbon to Paris",
        "The flight goes from Paris to Lisbon on Friday",
    ]
    assert disagreement(flights) == "they say 'lisbon' and 'paris' the other way round"
    piano = [
        "Mia likes the violin more than the piano",
        "Mia now likes the piano more than the violin",
    ]
    assert disagreement(piano) is not None
    # the same two things around other words say the same; an added thing says more
    moved = ["I moved from Portland to Denver", "We relocated to Denver from Portland"]
    assert disagreement(moved, near_copies=False) is None
    assert disagreement(["I prefer tea over coffee", "I really prefer tea over coffee"]) is None


def test_a_word_of_three_hyphenated_parts_is_named_whole() -> None:
    """A review note said "one says 'brother' where another says 'brotherin'" (a probe)."""
    assert disagreement(["Tom is my brother", "Tom is my brother-in-law"]) == (
        "one says 'brother' where another says 'brother-in-law'"
    )
    assert disagreement(["We use e-mail for invoices", "We use email for invoices"]) is None


def test_a_contraction_typed_without_its_apostrophe_is_the_same_words() -> None:
    """A probe: "I'm", "I am" and "Im allergic to peanuts!!" went to review as "one says 'i'
    where another says 'im'"."""
    allergic = ["I'm allergic to peanuts", "I am allergic to peanuts", "Im allergic to peanuts!!"]
    assert disagreement(allergic) is None
    assert (
        disagreement(["I dont eat meat", "I eat meat"]) == "one says 'not' where another does not"
    )
