"""The words the activation rules (`engram.core.intent`) are written with: the people, pets,
counts, days and conditions a user names, the topics of a team's saved facts, what was said
before. Kept apart from the rules so that each list has one place and the rules stay
readable."""

from __future__ import annotations

# Past forms only: "how do I say thank you in Japanese?" is a question about the world ("did I
# say" has rules of its own).
SAID = (
    r"\b(?:i|we) (?:said|told|mentioned|decided|agreed|discussed|chose|picked|liked|"
    r"settled)\b"
)
MY_THING = (
    # one word may stand between: "my new manager", "my older son", "my mom's birthday"
    r"\bmy (?:\w+(?:'s)? )?(?:name|wife|husband|partner|daughter|son|kids?|children|manager|boss|"
    r"birthday|email|phone|address|job|title|team|cat|dog)\b"
)
# A thing of the user's that changed ("My email changed to …"), that they changed ("I updated my
# phone number to …"), or that they got anew ("I got a new car"); not "my code changed to…", nor
# "my phone changed to dark mode".
DETAIL = (
    r"(?:(?:last |first |user ?|display )?name|e-?mail(?: address)?|(?:phone |mobile |cell )?"
    r"number|(?:home |postal |mailing )?address|job|(?:job )?title|team|manager|boss|doctor|"
    r"dentist|therapist|bank|insurer|insurance(?: provider)?|pronouns|timezone|time zone)"
)
CHANGED_THING = (
    rf"\b(?:my|our) (?:new )?{DETAIL} (?:has |just )?(?:changed|switched|moved) (?:over )?to\b"
    r"|\b(?:i|we)(?:'ve| have)? (?:just |finally |recently )?(?:changed|updated|switched) "
    rf"(?:my|our) {DETAIL} to\b"
    r"|\b(?:i|we)(?:'ve| have)? (?:just |finally |recently )?(?:got|bought|leased) (?:a|an|my|our) "
    r"new (?:phone number|number|email address|email|address|car|house|home|apartment|flat|"
    r"doctor|dentist|manager|boss)\b"
)
TOPIC = r"(?:budget|limit|deadline|repo|standup|meeting)\b"
# People and pets a user names: "my son Leo", "our landlord is Mr. Okafor".
KIN = (
    r"(?:wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?|daughter|son|kids?|children|baby|"
    r"brother|sister|mother|mom|mum|father|dad|parents|grandmother|grandfather|grandma|grandpa|"
    r"grandparents|grandson|granddaughter|grandkids?|grandchildren|aunt|uncle|cousin|niece|"
    r"nephew|in-laws|siblings?|roommate|flatmate|friend)"
)
RELATION = (
    rf"(?:{KIN}|manager|boss|landlord|doctor|dentist|therapist|neighbou?r|colleague|coworker|"
    r"co-worker|team ?mate|cat|dog|puppy|kitten)"
)
# A count, in digits or in words: "every 90 days", "fifteen minutes", "five engineers".
COUNT = (
    r"(?:\d[\d.,:]*(?:am|pm)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
    r"twelve|fifteen|twenty|thirty|forty|fifty|sixty|ninety|a hundred|half an?)"
)
# A day or a time named outright: a month, a weekday, "the 14th", "3pm" ("may" is a verb too
# often to count; "today", "tomorrow" speak of the moment).
WHEN = (
    r"(?:(?:january|february|march|april|june|july|august|september|october|november|"
    r"december|jan|feb|aug|sept?|oct|nov|dec)\b|(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|"
    r"(?:the )?\d{1,2}(?:st|nd|rd|th)\b|\d{1,2}(?::\d\d)? ?(?:am|pm)\b)"
)
# A condition, a diet or a trait: "I'm diabetic", "I've been vegan for years".
CONDITION = (
    r"(?:\w+ )?(?:intolerant|diabetic|celiac|coeliac|asthmatic|epileptic|dyslexic|deaf|"
    r"hard of hearing|pregnant|colou?r ?blind|left-handed|right-handed|pescatarian|sober)\b"
)
# What happened in the user's life: a job, a marriage, a diagnosis, an injury to a part of the
# body, a pet, a child ("I got the job done" and "I broke my build" are about work).
LIFE_EVENT = (
    r"\b(?:i|we)(?:'ve| have)? (?:just |finally |officially )?(?:got|landed|accepted|"
    r"received|was offered|were offered) (?:a |an |the |my |our )?(?:new |first )?(?:job|"
    r"position|role|offer|job offer|internship|promotion|scholarship|visa|green card|"
    r"mortgage)\b(?! done\b)"
    r"|\b(?:i|we)(?:'ve| have)? (?:just )?(?:got|gotten|been|was|were) (?:married|engaged|elected|"
    r"appointed|nominated|selected|accepted into|admitted to|"
    r"divorced|promoted|hired|laid off|fired|diagnosed with)\b"
    r"|\bi (?:just )?(?:broke|sprained|fractured|tore|injured|dislocated|twisted|hurt) my "
    r"(?:\w+ )?(?:wrist|arm|leg|ankle|knee|foot|hand|finger|toe|back|neck|shoulder|hip|ribs?|"
    r"nose|collarbone|elbow|acl|meniscus)\b"
    r"|\b(?:i|we)(?:'ve| have)? (?:just )?(?:got|adopted|rescued|bought|brought home) "
    r"(?:a|an|two|three|\d+) (?:new )?(?:\w+ )?(?:cat|dog|puppy|kitten|pet|rabbit|bunny|"
    r"hamster|parrot|bird|horse)s?\b"
    r"|\b(?:i|we)(?:'ve| have)? (?:just )?(?:had|welcomed) (?:a|our) (?:baby|son|daughter|"
    r"first child|second child)\b|\b(?:i|we) graduated\b|\bwe(?:'re| are) expecting\b"
    # a move and a diet: "We finally moved!", "I've gone fully vegan as of this month" (none
    # in a probe); not "we moved the meeting", "I moved on"
    r"|\b(?:i|we)(?:'ve| have)? (?:just |finally |recently |officially )?(?:moved|relocated)"
    r"\b(?! (?:the|it|that|this|on|forward|ahead|past|up|over|away from)\b)"
    r"|\b(?:i|we)(?:'ve| have)? (?:just |finally |recently |officially )?(?:gone|went|turned|"
    r"become|became) (?:fully |completely |strictly |)(?:vegan|vegetarian|pescatarian|"
    r"gluten[- ]free|dairy[- ]free|sober|teetotal)\b"
)

# A date of someone's ("Daniel's birthday is March 3", none: a probe), said, not asked.
SOMEONES_DATE = r"(?-i:\b[A-Z][\w-]+)'s (?:birthday|anniversary|due date|wedding) is\b(?=[^?]*$)"
# A date that moved: "Ugh, the Harbor beta slipped to February 3", "the deadline got pushed
# back to October 1" (none: a probe).
# A day something was pushed to, with words between or none: "Okafor pushed the deadline to Nov
# 22" (a blind probe's: none, and the old date first), "pushed to next week"; a day after "to",
# not "pushed the fix to main".
DAY_PUSHED = (
    r"\bpushed (?:[\w'-]+ ){0,5}?(?:back )?(?:to|until|till) (?:next |the )?"
    rf"(?:{WHEN}|may \d|(?:week|month|tomorrow)\b|\d)"
)
DATE_MOVED = (
    r"\b(?:pushed back|postponed|rescheduled|delayed|slipped|brought forward|moved up) "
    rf"(?:again )?(?:to|until|till)\b(?=[^?]*$)|{DAY_PUSHED}(?=[^?]*$)"
)
# What happened on a day gone by, as a question asks it ("what happened in June", "…was going
# on in early June", "…happened yesterday"; not "happened to the economy in 2008").
HAPPENED = (
    r"(?:happened|went on|was going on|was happening)\b(?! to the\b)[^.!?]*?"
    rf"\b(?:{WHEN}|may \d|yesterday\b|last (?:week|weekend|month|night)\b|"
    r"this (?:week|month)\b|(?:early|mid|late)[ -]\w+)"
)
