"""The activation rules: phrase patterns, each with the intent it reads and its weight
(`engram.core.intent` decides between those that match). Written plainly a rule can take time
growing with the square of a message's length; `until` and `Rule.after_last_question` are
how the rules stay linear (`engram.core.intent_rule`, `bench/activation_speed.py`)."""

from __future__ import annotations

from engram.core.asking_rules import ASKING_RULES
from engram.core.confirming_rules import CONFIRMING_RULES
from engram.core.dropping_rules import DROPPING_RULES
from engram.core.intent_rule import IN_ONE_SENTENCE, Rule, rule, until
from engram.core.intent_words import (
    CHANGED_THING,
    CONDITION,
    COUNT,
    DATE_MOVED,
    HAPPENED,
    LIFE_EVENT,
    MY_THING,
    RELATION,
    SAID,
    SOMEONES_DATE,
    TOPIC,
    WHEN,
)
from engram.core.message import (
    KEEP_FOR_LATER,
    KEEP_IN_MIND,
    NOT_ABLE,
    OPENERS,
    REQUEST_FRAME,
    SAVE_THIS,
)
from engram.core.questions import ADVICE
from engram.core.told_fact_rules import TOLD_FACT_RULES

# How the user is, a word written with a capital or not: no name.
_HOW_I_AM = (
    r"(?:fine|good|great|ok|okay|home|done|back|here|there|ready|sorry|sure|tired|busy|free|late|"
    r"early|new|happy|sad|sick|ill|excited|glad|well|bored|alone|in|out|off|on|so|very|really|"
    r"not|just|also|still|always|never|almost|finally|hungry|exhausted|lost|confused|serious)"
)

# Help asked for after a lapse ("I can't remember my password, how do I reset it?"): the
# question is the message's, not what was kept.
_NO_HELP = r"(?![^?]*\b(?:how (?:do|can|should|would|to)|what (?:should|can|do) (?:i|we)))"
# The work at hand, named in an instruction about it.
_AT_HAND = (
    r"\b(?:th(?:is|ese) (?!(?:project|repo|repository|codebase|code ?base|team|company|app|"
    r"service|monorepo)\b)[\w'-]+|here\b|right now\b|for now\b|yet\b|this time\b|just give me\b)"
)

# How long before something a reminder is wanted: "a week before", "2 days ahead", "the day
# before", "beforehand".
_AHEAD = (
    r"(?:(?:a|an|one|two|three|a few|\d+) (?:days?|weeks?|hours?|months?) (?:before|ahead|"
    r"early|in advance|prior)|the (?:day|night|week|morning) before|beforehand|ahead of time)\b"
)

RULES: tuple[Rule, ...] = (
    *DROPPING_RULES,
    # recall: "Remember what I told you about Sarah?", "You remember my dog, right?": a
    # question about the past, not a request to keep what follows (which "remember" is).
    rule(
        "recall",
        OPENERS + r"(?:(?:don'?t )?you )?remember\b[^.!]*\?\s*$",
        0.97,
    ),
    # recall: the user asks for something said or decided before
    rule("recall", r"\b(?:do|did|can|could|would) you (?:still )?(?:remember|recall)\b", 0.95),
    # "Remind me what we decided"; not a reminder asked for ("Remind me in future: Tom's
    # birthday is March 14", "Remind me to call Mom on Friday": a probe's recall kept nothing)
    rule(
        "recall",
        r"\bremind me\b(?!\s*:|\s+(?:in (?:the )?future|next time|later|to|on|that|every)\b"
        # a reminder set by when: "…, remind me a week before" (a blind probe's recall)
        rf"|\s+{_AHEAD})",
        0.9,
    ),
    # "look up what the weather is" is a request for work: what is looked up must be ours
    rule(
        "recall",
        r"\brecall (?:what|everything|anything)\b"
        r"|\blook up (?:what (?:i|we)|my|our|everything|anything)\b",
        0.9,
    ),
    rule(
        "recall",
        r"\b(?:what (?:do|did) (?:you|u)|tell me what (?:you|u)) (?:know|remember) about\b",
        0.9,
    ),
    # "Can you pull up everything you know about my mom?" (a blind probe's, read as nothing)
    rule(
        "recall",
        r"\b(?:everything|anything|all) (?:you (?:know|have|remember|'ve got|have got)|"
        r"we (?:talked|said) about)(?: (?:about|on|of) |\?|\s*$)",
        0.9,
    ),
    # the user's own lapse of memory: "i was trying to remember my dentists name" was a save
    # (0.95, of "remember my") and "I can't recall who…" nothing (a blind probe); not "I
    # forgot my umbrella", a fact
    rule(
        "recall",
        OPENERS + r"(?:(?:i|we)(?:'m| am| was| were)? (?:(?:just )?trying to|can'?t|cannot|"
        r"couldn'?t|don'?t|do not) (?:remember|recall)\b(?! (?:to|that|this)\b)"
        r"|(?:i|we) (?:forget|forgot) (?:what|where|who|when|which|how|the name)\b)" + _NO_HELP,
        0.96,
    ),
    rule("recall", until(r"\b(?:what|which|where|when|how|who)\b", "[^.!]", SAID), 0.9),
    rule(
        "recall",
        r"\b(?:did|have|didn't|haven't) (?:i|we) (?:ever )?(?:tell|told|mention|mentioned|say|"
        r"said|settle|settled|decide|decided|agree|agreed|pick|picked|choose|chose|discuss|"
        r"discussed)\b",
        0.9,
    ),
    rule("recall", r"\bwhat (?:did|have) (?:i|we) (?:say|said|tell|told|ask|asked)\b", 0.9),
    # asked for as a task: "Summarize everything I've told you about my health" (a blind
    # set's miss)
    rule(
        "recall",
        r"\b(?:summari[sz]e|list|recap|go over|tell me) (?:everything|all|what) "
        r"(?:(?:i|we)(?:'ve| have)? )(?:told you|said|shared|mentioned)\b",
        0.9,
    ),
    rule(
        "recall",
        # in one sentence: "Ugh what a day. The bus was late again …" asks nothing (an MCP
        # probe: its landlord and rent day were never saved)
        # ("how much was the consumables budget again?", a sixth blind probe's: none)
        until(
            r"\b(?:what|which|where|when|who|how (?:much|many|long|often|old))"
            r"(?:'?s| is| are| was| were)? ",
            IN_ONE_SENTENCE,
            r"\bagain\b\??",
        ),
        0.85,
    ),
    rule(
        "recall",
        # "What is my best option for …" asks for advice, not for something said before
        until(
            r"\bwhat(?:'?s| is| are| was| were) (?:my|our)\b(?! (?:best|better|next)\b)",
            "[^?]",
            r"\?$",
        )
        + r"|\bwhat (?:are|were) my\b",
        0.8,
    ),
    rule("recall", r"\b(?:my|our) notes (?:on|about)\b", 0.8),
    # A task that needs what the user told before: "Book a table at my favorite restaurant",
    # "Order my usual" (a probe: saved as a preference, the request itself as its text), asked
    # politely too ("Could you order my usual?" was none, an MCP probe). Above the preference
    # rule it matched.
    rule(
        "recall",
        rf"{OPENERS}(?:(?:can|could|would|will) you )?(?:please )?"
        r"(?:book|order|buy|get me|find|play|put on|send|reserve|cook|"
        r"make|call|text|email|plan)\b[^.?!]*\b(?:my|our) (?:usual|favou?rite|regular)\b",
        0.86,
    ),
    # "What was that restaurant you recommended?", "…that book Anna mentioned?": a thing the
    # conversation shared before ("that", said by someone); "Which book would you recommend?"
    # asks for something new.
    rule(
        "recall",
        until(
            r"\bthat ",
            "[^.!?]",
            r"\b(?:you|he|she|they|(?-i:[A-Z])[\w-]*) (?:recommended|mentioned|suggested|"
            r"talked about|told (?:me|us) about)\b[^.!]*\?",
        ),
        0.85,
    ),
    # "Do you know where I parked?", "…who my dentist is?"; not "…where I can buy one?"
    rule(
        "recall",
        r"\bdo you (?:still )?(?:have|know) (?:(?:what |where |when |who |which )?(?:my|our)\b"
        r"|(?:what|where|when|who|which) (?:i|we)\b(?! (?:can|could|should|might|need)\b))",
        0.8,
    ),
    rule(
        "recall",
        until(r"\b(?:told|mentioned to) you\b", "[^?]", r"\?")
        + "|"
        + until(r"\bi (?:told|mentioned)\b", "[^.]", r"\?"),
        0.8,
    ),
    rule("recall", until(r"\blast time\b", "[^.]", r"\?"), 0.75),
    # A question about the user's own world, which only what was said before can answer ("Where
    # do I work?", "Who is my dentist?", "What framework are we using?", "How old is my son?");
    # not one asking for advice or how to do something ("What should I cook?", "Do I need a
    # visa?", "How do I center a div?").
    rule(
        "recall",
        rf"^(?!.*\b(?:{ADVICE})\b){OPENERS}(?:"
        r"(?:what|which|where|when|who|whose)\b(?: \w+){0,3}? "
        r"(?:do|does|did|am|is|are|was|were|have|has)(?:n't)? (?:i|we|my|our)\b"
        r"|(?:what|which|where|when|who|whose)(?:'?s| is| are| was| were) "
        r"(?:the \w+ of )?(?:my|our)\b"
        r"|how (?:old|long|many|much|often|far)\b(?: \w+)? (?:is|are|do|does|did|was|were) "
        r"(?:(?:on|in|at|with|for) )?(?:i|we|my|our)\b"
        r"|(?:do|does|did|am|was|have|had) (?:i|we|my \w+|our \w+)\b"
        rf"|(?:is|are) (?:my|our) (?:\w+ )?{RELATION}\b"
        r"|who (?:\w+ )?(?:manages|runs|owns|leads|handles|maintains|approves|pays|looks after) "
        r"(?:my|our)\b"
        r")[^.!?]*\?\s*$",
        0.8,
    ),
    rule("recall", r"^\W*what (?:was|were) (?:the|that|my|our)\b.*\b(?:called|named)\b", 0.8),
    *ASKING_RULES,
    # How a thing of the user's is going, and what they must not forget ("How is my knee doing
    # these days?", "What birthdays do I need to remember?"); not "Is my code still broken?"
    rule(
        "recall",
        r"^(?!.*\b(?:broken|bugs?|errors?|crash\w*|fail\w*|wrong|slow)\b)"
        rf"{OPENERS}(?:how(?:'?s| is| are) (?:my|our) (?:[\w'-]+ ){{0,2}}?"
        r"(?:doing|going|coming along|getting on|these days|lately|at the moment)"
        r"|(?:is|are) (?:my|our) (?:[\w'-]+ ){1,2}?(?:getting (?:better|worse)|still)"
        r"|(?:is )?any(?:thing| \w+) (?:coming up|planned|scheduled|due)"
        r"|(?:what|which|who)\b[^.!?]*\bdo (?:i|we) (?:need to |have to )?remember"
        # the user's own to-dos: "what do i need to do before march?", "What else do we have
        # to get done this week?"; not "What do I need to do to get a visa?" (advice)
        r"|what (?:else )?(?:do|did) (?:i|we) (?:still )?(?:need|have|got) to (?:do|get done|"
        r"take care of|finish|pay|buy|book)(?: (?:by|before|this|next|on|today|tomorrow|tonight|"
        r"for (?:the|this|next))\b[^.!?]*)?(?=\s*\?\s*$)"
        r"|what(?:'?s| is) (?:on )?my to[- ]?do list"
        # "Anything about my health I should remember?" (a probe: none, 0.9)
        r"|(?:is there )?any(?:thing| \w+)\b[^.!?]*\b(?:i|we) (?:should|need to|have to|must) "
        r"(?:remember|keep in mind|not forget)"
        # what the user must avoid or tell of themselves, which only they told: "Is there
        # anything I shouldn't eat at a seafood restaurant?", "Any allergies I should mention
        # when ordering?" (an MCP probe: none)
        r"|(?:is there )?anything (?:that )?(?:i|we) (?:shouldn'?t|can'?t|mustn'?t|should avoid) "
        r"(?:eat|drink|take)\b"
        r"|any (?:allergies|allergy|dietary restrictions|intolerances|medications?)"
        r"(?=\s*\?|(?: that)? (?:i|we) )"
        # what the team learnt the hard way: "Anything I should know before touching the
        # worker?", "Any gotchas with the migrations?" (a coding assistant's probe: none)
        # (of the team's own things: "…know about decorators?" asks of the world)
        r"|(?:is there )?anything (?:else )?(?:i|we) (?:should|need to|ought to) know "
        r"(?:before|about (?:the|our|my)\b)"
        r"|any (?:gotchas|caveats|pitfalls|quirks)\b"
        # how the user likes a thing: "How do I take my coffee?" (not "How do I reset my …")
        r"|how do (?:i|we) (?:usually )?(?:like|take|drink|eat) (?:my|our) [\w'-]+(?: [\w'-]+)?"
        r"(?=\s*\?\s*$)"
        # the household's and the team's own: "What school do the kids go to?", "When is the
        # dog's vet appointment?", "What time is standup?" (a probe); not "What time is it?"
        r"|(?:what|when|where|which|who)\b[^.!?]*\b(?:the|our) (?:kids|children|baby|dog|cat)\b"
        r"|(?:what time|when)(?:'?s| is| are) (?:the |our )?(?:[\w'-]+ )?(?:standup|stand-up|"
        r"sync|retro|meeting|appointment|deadline|recital|practice|lesson|check-?up|flight)s?)"
        r"\b[^.!?]*\?\s*$",
        0.7,
    ),
    # Advice only the user's own facts can make right (a personal assistant's probe: each
    # none, and the allergy, the wife's tastes, the window seat were in the store): what they
    # may eat or must avoid ("What food should I avoid?", "Can I eat cheese?"), a booking or a
    # meal for them ("Which seat should you book for me?", "What's a good weeknight dinner for
    # the four of us?"); the neighbour's things too. A gift for one of their people stays advice
    # (the labelled messages say so), though their tastes are what search finds for it.
    rule(
        "recall",
        rf"{OPENERS}(?:(?:what|which) (?:[\w'-]+ ){{0,2}}?(?:should|must|do) (?:i|we) avoid\b"
        r"|(?:can|could|may|should) (?:i|we) (?:eat|drink)\b"
        r"|[^.!?]*\bshould you (?:book|order|get|reserve|pick|choose) (?:for )?(?:me|us)\b"
        r"|[^.!?]*\b(?:good|best|ideas?|suggestions?)\b[^.!?]*\bfor (?:me|us|the \w+ of us)\b"
        # "Any dinner ideas that fit my diet?" (a blind probe's: none, the diet stored)
        r"|[^.!?]*\b(?:my|our) (?:diet|dietary (?:needs|restrictions)|allerg(?:y|ies)|"
        r"food restrictions)\b"
        r"|(?:what|when|where|which|who)\b[^.!?]*\bthe neighbou?rs?'?s?\b)[^.!?]*\?\s*$",
        0.7,
    ),
    # Where a thing the user follows stands, or what changed since a day: "What's the latest on
    # Kafka?", "Any update on the apartment?", "What's changed since Christmas?" (a time probe:
    # none at 0.9, where search found the answers)
    rule(
        "recall",
        rf"{OPENERS}(?:what(?:'?s| is| are) (?:the )?(?:latest|newest|status|news|update)s? "
        r"(?:on|with|about|for|of)\b|any (?:news|updates?|progress) (?:on|with|about)\b"
        r"|what(?:'?s| has| have)? (?:changed|new|happened) since\b)[^.!?]*\?\s*$",
        0.75,
    ),
    # What is planned on a day: "What's on April 15?", "Anything happening on Friday?", "What
    # is scheduled for tomorrow?" — only the user's calendar answers; not "What's on TV?".
    rule(
        "recall",
        # "whats" as phones leave it; "May" only with its day ("Anything on May 20?")
        rf"{OPENERS}(?:what(?:'?s| is)|is there anything|anything) "
        r"(?:on|happening|planned|scheduled|booked|due|coming up)(?: (?:on|for))? (?:the )?"
        rf"(?:{WHEN}|may \d|tomorrow\b|this weekend\b|next (?:week|weekend)\b)[^.!?]*\?\s*$",
        0.8,
    ),
    # What happened on a day gone by ("What happened in June?", "…yesterday?": none at 0.9 in an
    # MCP probe, though search reads their days); not of the world ("…to the economy in 2008?").
    rule("recall", rf"{OPENERS}what {HAPPENED}[^.!?]*\?\s*$", 0.7),
    # Any other question of who, what or when about the user's things ("Who cleans our office on
    # weekends?"), read from its form with less confidence; not advice, how-to or trouble ("How
    # do I reset my router?", "What's wrong with my sourdough?").
    rule(
        "recall",
        rf"^(?!.*\b(?:{ADVICE}|how (?:do|can|should) i|how to|wrong|errors?|problems?|causing|"
        r"good|improve|this|that)\b)"
        rf"{OPENERS}(?:what|which|where|when|who|whose|how (?:many|much|often|long|old|far))\b"
        # two lookaheads, one pass each ("[^?]* my [^?]* ?" was quadratic on long messages)
        r"(?=[^?]*\?\s*$)(?=[^?]*?\b(?:my|our|me|i|we)\b)",
        0.6,
    ),
    *CONFIRMING_RULES,
    *TOLD_FACT_RULES,
    # save: something to keep
    rule(
        "save",
        rf"\b{NOT_ABLE}(?:please )?remember(?: (?:that|this|i|my|we|our)\b|(?=\s*:))"
        r"|" + OPENERS + r"remember\b",
        0.95,
    ),
    # "can you remember that I'm vegan": a request to keep it, not a question about the past
    rule(
        "save",
        r"\b(?:can|could|would|will) you (?:please )?remember (?:that )?(?:i|i'm|my|we|our)\b",
        0.96,
    ),
    # "Keep this in mind: …" as "keep in mind"; not "I'll keep that in mind", said of oneself
    rule(
        "save",
        r"\b(?:don'?t|do not) forget\b|\bkeep in mind\b|\bfor future reference\b"
        + rf"|(?<!i'll )(?<!i will )(?<!we'll )\b{KEEP_IN_MIND}\b",
        0.95,
    ),
    # "Note: …", "Store this for later: …" ask as "note that" does (a probe). "Save this" is a
    # request where a clause opens with it and it ends there or before what to keep: "How do
    # I save this file in vim?" asked how (a probe).
    rule(
        "save",
        r"\bnote (?:to self|that)\b|\bheads up\b|"
        + OPENERS
        # "note for luis: hes working on slap technique" (a ninth blind probe's, none)
        + r"note(?: (?:for|re|on|about) [\w'-]+(?: [\w'-]+){0,2})?\s*:"
        + rf"|\b{KEEP_FOR_LATER}\b"
        # after a mark, only a few words may come first: the openers' `\W*` tried from every
        # mark of a long run of them took minutes (a probe: 20,000 dots, 100 s)
        r"|(?:"
        + OPENERS
        + r"|(?<=[.!?,;:—–-])\s*(?:(?:and|so|please|just) )?)"
        + rf"(?:{REQUEST_FRAME})?(?:please )?"
        + SAVE_THIS
        + r"(?=\s*[:—–-]|\W*$|\W+(?:please|thanks|thank you)\b)",
        0.9,
    ),
    rule("save", r"\b(?:from now on|going forward|in future|in the future)\b", 0.9, "instruction"),
    rule("save", rf"\bremind me (?:to|on|every|next time|later|{_AHEAD})|\bremind me\s*:", 0.9),
    # What happened in the lives of the user's people, and what they booked: "Tom and his wife
    # Grace just had a baby girl, Ivy!", "Hannah got engaged to her partner Luis!", "Booked the
    # Tokyo hotel: …" (a personal assistant's probe: each none)
    rule(
        "save",
        r"\b(?:got|are|is|just) (?:engaged|married|divorced)\b|\b(?:had|having|expecting) a "
        r"baby\b|\bpassed away\b|\bgraduated (?:from|in|with)\b"
        r"|^\W*(?:(?:i|we) (?:just |finally |have |'ve )?)?(?:booked|reserved)\b",
        0.75,
        "personal",
    ),
    rule(
        "save",
        r"^\W*(?:please )?(?:always|never)\b(?!\s+(?:mind|happy|glad)\b)"
        # (not a lapse: "Calgary or Edmonton, I always forget", a seventh blind probe's save)
        r"|\bi (?:always|never)\b(?! (?:remember|recall|forget|mix|confuse|get (?:it|that|them))\b)"
        # asked as a wish: "I'd like you to always include type hints" (a blind set's miss)
        rf"|{OPENERS}{REQUEST_FRAME}(?:always|never)\b",
        0.85,
        "instruction",
    ),
    # "Don't use semicolons in my code": a standing instruction, as "never use" is; only verbs
    # of how to do the work ("don't send it yet" is about now, "don't worry" about nothing).
    rule(
        "save",
        r"^\W*(?:please )?(?:don'?t|do not)(?: ever)? (?:use|add|write|put|suggest|recommend|"
        r"include|mention|format|call me|ask me)\b"
        # not of the work at hand: "Don't add comments to this function, just give me the
        # code", "don't mention the budget in this email" (a blind probe's saves); a project's
        # rule stands ("Don't use semicolons in this repo")
        rf"(?![^.!?]*{_AT_HAND})"
        # "Stop suggesting JavaScript solutions" says the same (probe)
        r"|^\W*(?:please )?stop (?:using|adding|writing|putting|suggesting|recommending|"
        r"including|mentioning|formatting|calling me|asking me)\b",
        0.85,
        "instruction",
    ),
    rule("save", r"\b(?:important|critical|crucial|essential)\b", 0.8, said_outright=True),
    rule(
        "save",
        # Not of "this", "it": "I like this answer", "I hate this error" speak of the moment.
        r"\bi (?:really |now |also |still |always |generally )?(?:prefer|like|love|hate|dislike|"
        r"enjoy|don'?t (?:like|eat|drink))\b"
        r"(?!\s+(?:this|it|these|those)\b)|"
        r"\bmy (?:favou?rite)\b|\bi usually\b",
        0.85,
        "preference",
    ),
    rule(
        "save",
        # not a case supposed: "if I picked up one extra 12h shift a week, how much…" (a sixth
        # blind probe's save)
        r"(?<!\bif )\b(?:we|i)(?:'ve| have)? (?:decided|agreed|chose|picked|settled|switched|"
        r"went with)\b|"
        r"\b(?:we|i)(?:'re| are| am|'m)? (?:going with\b|(?:switching|moving|migrating)"
        r"(?: (?:the|our|my) \w+| everything| all)? to\b)|"
        r"\blet'?s go with\b",
        0.85,
        "decision",
    ),
    rule(
        "save",
        # in one sentence: "my phone died …. Anyway, my landlord is …" read the phone
        until(MY_THING, IN_ONE_SENTENCE, r"\b(?:is|are|was|called|named|plays)\b"),
        0.85,
        "personal",
    ),
    # A thing of the user's that changed, or that they changed: "My phone number changed to
    # 555-0134", "I updated my email to ana@example.com", "I got a new car, a red Mazda" (each
    # none in a probe: "changed" and "got" read as work narrated and the moment).
    rule("save", CHANGED_THING, 0.85, "personal"),
    # What someone close does, and what happened to them: "My sister lives in Toronto", "My
    # dad plays the piano", "my sister jenna just moved to austin", "my dad retired in June"
    # (a name typed in lower case, and news, were none).
    rule(
        "save",
        rf"\bmy (?:\w+ )?{RELATION}(?: [\w-]+)?(?: (?:just|recently|finally|also|now))? "
        r"(?:lives|works|plays|studies|teaches|speaks|owns|runs|likes|loves|hates|stays|visits|"
        r"moved|is moving|retired|graduated|started|passed away|died|is pregnant|is expecting|"
        r"turned|turns|was born|was diagnosed|got (?:married|engaged|divorced|hired|promoted|"
        r"a new job|a job|into))\b",
        0.85,
        "personal",
    ),
    # Who fills a role, by name: "Our designer is Mei Lin", "My dentist is Dr. Silva" (the
    # name's capital tells it from "my code is throwing an error"); and how long or how much
    # something of the user's is: "Our release cycle is six weeks", "My commute is 40 minutes".
    rule(
        "save",
        r"\b(?:my|our) (?:\w+ ){1,3}?(?:is|are) "
        r"(?:(?-i:Mr|Mrs|Ms|Dr)\.? |(?:prof|professor|dr)\.? )?(?-i:[A-Z][a-z])[\w'-]*"
        r"|\b(?:my|our) (?:\w+ ){1,3}?(?:is|are|takes) (?:about |around |roughly )?"
        r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve) "
        r"(?:minutes?|hours?|days?|weeks?|months?|years?|km|miles)\b",
        0.8,
        "personal",
    ),
    # When or how often something of the user's happens, how long it lasts, how many it has:
    # "Our office closes at 6pm on Fridays", "The API key rotates every 90 days", "Our
    # standups last fifteen minutes", "Our team has five engineers".
    rule(
        "save",
        r"^\W*(?:my|our|the) (?:\w+ ){1,3}?(?:lasts?|takes|closes|opens|starts|ends|rotates|"
        r"expires|renews|runs|happens|meets?) (?:at |every |for |on |about |around |after )?"
        rf"{COUNT}\b[^?]*$"
        rf"|\b(?:my|our) (?:\w+ )?(?:team|company|family|household|class|office) (?:has|have) "
        rf"{COUNT}\b[^?]*$",
        0.8,
        "personal",
        tail=True,
    ),
    # Someone named by their place in the user's life: "My son Leo turns seven in May", "Our
    # landlord is Mr. Okafor" (the name's capital tells it from "my son is sick").
    # the user's name, as people introduce themselves: "Hi! I'm Marco." was none, while "My
    # name is Marco" was kept (an MCP probe); a name ends the clause ("I'm Marco, nice to meet
    # you"), not a word written with a capital before more ("I'm Not sure"), nor how the user
    # is ("I'm Fine.", "I'm Home!")
    rule(
        "save",
        rf"{OPENERS}i(?:'?m| am) (?!{_HOW_I_AM}\b)(?-i:[A-Z][a-z'-]+)(?: (?-i:[A-Z][a-z'-]+))?"
        r"(?=\s*(?:[,.!;:—–-]|$)|\s+(?:and|from|here)\b)",
        0.85,
        "personal",
    ),
    rule(
        "save",
        # "my new landlord is called Mr. Okafor" too (an MCP probe: none)
        rf"\b(?:my|our) (?:\w+ )?{RELATION}(?:'s name)? (?:is |are )?(?:called |named )?"
        r"(?:(?-i:Mr|Mrs|Ms|Dr)\.? )?(?-i:[A-Z])[\w'-]+",
        0.85,
        "personal",
    ),
    rule(
        "save",
        # "not" and "no longer" too: a correction of a stored fact is worth saving; not a
        # role played for an answer ("explain p99 latency like I'm a PM", a blind probe's)
        r"(?<!\blike )(?<!\bas if )(?<!as though )(?<!pretend )"
        r"\bi(?:'?m| am) (?:(?:not|no longer) (?:allergic|vegetarian|vegan)|(?:a (?:bit|little) |"
        r"slightly |mildly |very |severely |really )?allergic|vegetarian|"
        # "a bit confused", "on it", "on my way": how the user is now, nothing to keep
        r"vegan|a (?!bit\b|little\b|lot\b)|an |learning|based|on (?!it\b|my way\b)|from )|"
        r"\bi (?:work|live|use|started|drive|own|don'?t eat|never drink)\b|\bcall me\b|"
        # a correction: "Actually I don't live in Berlin anymore", "I no longer work at Acme"
        r"\bi (?:(?:don'?t|do not) (?:live|work|drive|own)\b[^.!?]*\b(?:anymore|any more)\b|"
        r"no longer (?:live|work|use|drive|own)\b)|"
        # "Actually Tom isn't my manager anymore, it's Sarah Kim now" (a probe)
        rf"\b(?:is|are)(?:n't| not| no longer) (?:my|our) (?:\w+ )?{RELATION}\b|"
        # where the user lives now, not what they moved in the code ("I moved the check")
        r"\b(?:i|we)(?:'ve| have)? (?:just )?moved (?:to|from|back|here|there|abroad|away|out|"
        r"in with|house|cities|countries)\b|"
        r"\bi(?:'?m| am) (?:flying|travelling|traveling|moving|relocating|training for|"
        r"studying|preparing for)\b|"
        # a condition, a diet or a trait: "I'm diabetic", "I've been vegan for three years"
        rf"\bi(?:'?m| am) {CONDITION}|"
        rf"\bi(?:'ve| have) been (?:an? )?(?:vegan|vegetarian|{CONDITION})|"
        # what the user does for a living: "I teach chemistry", "I run a small bakery"
        r"\bi (?:teach|lecture|coach|run an?|own an?|manage an?|manage the|lead the)\b|"
        # a step in it: "I'm getting promoted to team lead" (a blind set's miss)
        r"\bi(?:'m| am|'ve been| have been| was| got)? (?:getting |being |just )?promoted\b|"
        # not "I can't eat right now": about the moment
        r"\bi (?:can'?t|cannot) (?:eat|drink|have)\b"
        r"(?! (?:right now|now|today|tonight|yet|anything|much|more|that|this|it)\b)|"
        r"\bi speak (?!(?:too|very|so|fast|slowly|quickly|softly|loudly|up)\b)|\bwe use\b|"
        r"\bwe(?:'re| are) (?:now )?using\b|\bwe (?:deploy|host|ship|run) (?:on|to)\b|"
        r"\b(?:i|we|my \w+) (?:have|has) (?:an? )?(?:\w+ ){0,2}(?:allergy|allergies|intolerance)\b|"
        rf"\b(?:i|we) (?:have|own) (?:an?|two|three|four|\d+) (?:\w+ )?{RELATION}s?\b",
        0.8,
        "personal",
    ),
    # When something of the user's happens: "My flight home is on December 20th", "Our sprint
    # reviews happen every other Thursday"; what they have on a day: "I've got a dentist
    # appointment on the 14th", "We have a no-meetings policy on Wednesdays".
    rule(
        "save",
        r"^\W*(?:my|our) (?:[\w'-]+ ){1,3}?(?:is|are|starts?|begins?|ends?|happens?|falls?|"
        r"leaves?|departs?|arrives?|lands?|opens?|closes?|runs?|turns|is turning|is due)\b"
        rf"[^?]{{0,40}}?\b{WHEN}[^?]*$"
        r"|\b(?:i|we)(?:'ve| have)(?: got)? (?:an?|my|our) (?:[\w'-]+ ){1,4}?"
        rf"(?:on|at|every|this|next) {WHEN}[^?]*$",
        0.8,
        "personal",
        tail=True,
    ),
    # Where the user's work lives: "Our company uses Google Workspace", "We migrated the
    # monolith to Kubernetes", "The staging API key is stored in 1Password".
    rule(
        "save",
        r"\b(?:our|my) (?:\w+ ){0,2}(?:company|team|org|organi[sz]ation|startup|school|office|"
        r"department|lab|project|app|repo|repository|site|website|blog|service|product|stack|"
        r"backend|frontend|codebase) (?:uses|runs on|is built (?:on|with)|lives (?:on|in)|"
        r"is hosted (?:on|at|by)|is written in|deploys to)\b[^?]*$"
        + "|"
        + until(
            r"\b(?:we|i)(?:'ve| have)? (?:migrated|upgraded|ported) "
            r"(?:the|our|my|everything|all)\b",
            "[^?]",
            r" to\b[^?]*$",
        )
        + "|"
        + r"^\W*(?:my|our|the) (?:[\w-]+ ){1,3}?(?:is|are) (?:stored|kept|saved) "
        r"(?:in|on|at|under)\b[^?]*$",
        0.8,
        "personal",
        tail=True,
    ),
    # What happened in the user's life: a job, a marriage, a diagnosis, an injury, a pet, a
    # child ("Great news, I got the job at Spotify!", "I broke my wrist yesterday", "We got a
    # cat named Miso!" were none: their past tense reads as work narrated, a probe).
    rule("save", LIFE_EVENT, 0.8, "personal"),
    rule("save", SOMEONES_DATE, 0.8, "personal"),
    rule("save", DATE_MOVED, 0.75),
    # "I just started learning the cello", "I recently began taking piano lessons".
    rule(
        "save",
        r"\bi(?:'ve| have)? (?:just |recently |finally )?(?:started|began|begun) (?:learning|"
        r"taking|playing|practi[cs]ing|studying|training)\b",
        0.8,
        "personal",
    ),
    rule(
        "save",
        until(r"\b(?:our|the) \w+ (?:is|are|was) (?:at|on|in|called)\b", "[^?]", "$"),
        0.7,
        tail=True,
    ),
    rule(
        "save",
        r"\b(?:our|the) (?:\w+ ){1,2}(?:is|are|runs|lives) (?:at|on) [\w-]+\.[\w-]+\.?\w*[^?]*$",
        0.75,
        tail=True,
    ),
    # `\w` rather than `\w+`: what follows matches the same, without a backtrack per letter.
    rule("save", until(r"\bname is \w", "[^?]", "$"), 0.75, "personal", tail=True),
    rule(
        "save",
        # The gap stops at the next topic, unless that topic's optional word is "is" or "are":
        # that word may be the verb the rule waits for ("the budget repo the are repo").
        rf"\b(?:our|the) (?:\w+ )?{TOPIC}"
        rf"(?:(?!\b(?:our|the) (?:(?!(?:is|are)\b)\w+ )?{TOPIC})[^?])*\b(?:is|are)\b[^?]*$",
        0.7,
        tail=True,
    ),
)
