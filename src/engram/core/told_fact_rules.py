"""The activation rules of facts told without the user as their subject, or with "my" only in
the middle: "The health inspection is scheduled for Oct 12", "Dr. Patel is my cardiologist",
"Hired a new baker named Luis", "I need to pay payroll every other Friday". A blind probe of
three users (a retired teacher, a graduate student, a bakery's owner) found each read as
nothing: the owner lost 10 of 19 facts, and a later "when is the inspection?" had nothing to
find. Read with the other saves (`engram.core.intent_rules`); asked, each is none."""

from __future__ import annotations

from engram.core.intent_rule import Rule, rule
from engram.core.intent_words import DETAIL, KIN, RELATION, WHEN
from engram.core.message import OPENERS

# A day named, as the rules read one: a month, a weekday, "the 14th", "3pm", or "tomorrow",
# "next week".
_A_DAY = rf"(?:{WHEN}|may \d|tomorrow\b|next (?:week|month|year)\b)"
# The words that start a sentence but name no one: "This is my code" is no fact of a person.
_NO_NAME = r"(?!(?:This|That|It|Here|There|What|Which|Who|He|She|They|These|Those|Today)\b)"

# What a coding session names: "the error is a TypeError", "The function is a Python
# generator" describe the work, not the user's things.
_OF_THE_WORK = (
    r"(?:error|bug|issue|problem|exception|answer|output|result|question|function|method|"
    r"class|variable|file|script|module|endpoint|query|value|type|response|request|test)"
)

# A condition, an allergy or a diet that cannot be broken, of anyone the user names: "Joan has
# celiac disease", "jaylen's allergic to penicillin", "she's also lactose intolerant" (a second
# blind probe's, each none; a later "what can't joan eat" found nothing). Not of people at
# large ("Many people are allergic to peanuts").
_HEALTH = (
    r"(?:allergic|intolerant|celiac|coeliac|diabetic|asthmatic|epileptic|anaphylactic|vegan|"
    r"vegetarian|pescatarian|gluten[- ]free|dairy[- ]free|kosher|halal|"
    r"(?:celiac|coeliac) disease|(?:type [12] )?diabetes|asthma|epilepsy|(?:\w+ )?allerg(?:y|ies)|"
    r"(?:\w+ )?intolerance)\b"
)
_SOMEONE = (
    r"(?<![\w'-])(?!(?:many|most|some|lots|all|few|people|everyone|anyone|someone|nobody|who|"
    r"which|kids|children|adults|dogs|cats)\b)[\w-]+"
)

TOLD_FACT_RULES: tuple[Rule, ...] = (
    rule(
        "save",
        # ("shes allergic to stings", typed without its apostrophe: a tenth blind probe's)
        rf"(?:{_SOMEONE}(?:'s|'re| is| are| has| have| was)|\b(?:shes|hes|theyre|im))"
        r"(?: also| been| always| severely| very| "
        r"mildly| really| just| now| got| recently| diagnosed with| developed)* (?:an? )?"
        rf"(?:[\w-]+ )?{_HEALTH}",
        0.8,
        "personal",
        tail=True,
    ),
    # What the user takes, and how often: "I take lisinopril and a baby aspirin daily" (none
    # with a clause after it: "…, need to pack enough for 3 weeks").
    rule(
        "save",
        r"\b(?:i|we|(?:he|she|they)|my \w+) (?:also )?(?:take|takes|am taking|is taking|are taking)"
        r" (?:[\w'-]+ ){1,6}?(?:daily|every (?:day|morning|night|evening)|twice a day|"
        r"once a day|a day|at night|in the morning|\d+ ?mg)\b",
        0.8,
        "personal",
        tail=True,
    ),
    # When something happens, of any subject: "The health inspection is scheduled for Oct
    # 12", "thesis proposal draft is due to Okafor on Nov 15", "The kids' recital is set for
    # 6pm Friday"; a day must be named ("The function is due for a refactor" is not). In any
    # clause: "The bus was late again and rent is due on the 3rd of every month" (an MCP
    # probe's rent day, never saved). Read after the last "?" alone, each clause start reads
    # a few words at most.
    rule(
        "save",
        r"(?:^\W*|(?<=[.!;,] )|(?<=\band ))(?:(?:the|my|our) )?(?:[\w'-]+ ){1,4}?(?:is|are) "
        r"(?:scheduled|due|booked|planned|set) (?:for |on |at |by |to )?[^?]{0,40}?"
        rf"\b{_A_DAY}",
        0.75,
        "personal",
        tail=True,
    ),
    # Someone by name in a role of the user's: "Dr. Patel is my cardiologist", "Ana is my
    # shift lead", "Okafor is my advisor".
    rule(
        "save",
        rf"^\W*{_NO_NAME}(?:(?-i:Mr|Mrs|Ms|Dr|Prof)\.? )?(?-i:[A-Z][\w'-]+)(?: (?-i:[A-Z][\w'-]+))?"
        r" (?:is|was) (?:my|our) (?:new )?(?:[\w-]+ ){0,2}?[\w-]+\b(?=[^?]*$)",
        0.75,
        "personal",
        tail=True,
    ),
    # Someone new, by name: "Hired a new baker named Luis", "We took on a new intern called
    # Mei".
    rule(
        "save",
        r"\b(?:a|an|our) new (?:[\w-]+ ){1,2}?(?:named|called) (?-i:[A-Z])(?=[^?]*$)",
        0.8,
        "personal",
        tail=True,
    ),
    # A thing of the user's by its make, and who is new in a role: "the espresso machine is a
    # La Marzocco Linea", "Our van is a Ford Transit", "New contact at Miller is Tanya,
    # 555-0199" (a blind probe's, each none); not "the error is a TypeError".
    rule(
        "save",
        r"^\W*(?:(?:oh|and|so|also|btw|fyi)\W+)*(?:the |our |my )?(?!(?:[\w'-]+ ){0,3}?"
        rf"{_OF_THE_WORK}(?: |s ))(?:(?:the|our|my) (?:[\w'-]+ ){{1,3}}?(?:is|are) (?:an? |the )"
        r"|new (?:[\w'-]+ ){1,3}?(?:is|are) )(?:(?-i:[A-Z][\w'-]+)|(?:19|20)\d\d [a-z]+)",
        0.75,
        "personal",
        tail=True,
    ),
    # The people of the user's people, and their details: "Joan's sister Marlene lives in
    # Porto", "his mom is named priya", "Marlene's address is Rua das Flores 112", "jaylen got
    # a job at the pizza place" (a second blind probe's, each none).
    rule(
        "save",
        rf"\b[\w-]+'s (?:\w+ )?{RELATION}(?: (?-i:[A-Z])[\w-]+)? (?:lives|works|studies|teaches|"
        r"owns|runs|is (?:named|called|a|an))\b"
        rf"|\b{KIN} is (?:named|called) \w"
        rf"|(?-i:\b[A-Z][\w-]+)'s (?:{DETAIL}|birthday|address) is\b"
        r"|\b(?!(?:who|which|what|i|we)\b)[\w'-]+ (?:just |finally )?(?:got|landed|started) "
        r"(?:a|an|his|her|their) (?:new |first |part-time |summer )?(?:job|internship|position)\b"
        # "Tomasz got the promotion to staff!!" (a fourth blind probe's: none)
        r"|\b(?!(?:who|which|what|i|we|it|that|this)\b)[\w'-]+ (?:just |finally )?(?:got|was|has "
        r"been|is getting) (?:promoted|engaged|married|divorced|hired|laid off|the promotion|a "
        r"promotion|the job|the offer|an offer|a job offer)\b",
        0.75,
        "personal",
        tail=True,
    ),
    # What someone pays or charges the user: "brightline pays $95/hr net 30".
    rule(
        "save",
        r"\b[\w'-]+ (?:pays|charges|bills) (?:me |us )?(?:[$€£]\d|\d+ ?(?:an? |per )?(?:hour|hr))",
        0.75,
        "personal",
        tail=True,
    ),
    # When a term ends, a booking's number, an event of the user's people on a day, a birth:
    # "lease ends march 31", "confirmation # RR-88213", "first game is against Westfield on
    # november 22", "Tom's wife just had twins!!" (a third blind probe's, each none); not
    # "the weather is nice on Monday".
    rule(
        "save",
        r"\b(?:lease|contract|warranty|subscription|membership|insurance|policy|passport|visa|"
        r"licen[cs]e|registration|plan|trial)\b[^?]{0,30}?\b(?:ends|expires|starts|renews|"
        rf"runs out|is up)\b[^?]{{0,20}}?{_A_DAY}"
        r"|\b(?:confirmation|booking|reservation|order|tracking|policy|account|member(?:ship)?)"
        r" ?(?:#|number|no\.?|code|id)\s*(?:is\s*)?:?\s*[A-Z0-9][\w-]*\d"
        r"|^\W*(?:(?:the|our|my|his|her|their|first|next|last) )*(?:[\w'-]+ ){0,2}?(?:game|match|"
        r"meeting|appointment|recital|concert|show|gig|flight|trip|party|wedding|interview|exam|"
        r"class|practice|tournament|rehearsal|surgery|checkup|check-up)s? (?:is|are) "
        rf"[^?]{{0,40}}?\b{_A_DAY}"
        r"|\b[\w'-]+ (?:just )?(?:had|welcomed) (?:a baby|twins|triplets|a (?:baby )?(?:boy|girl|"
        r"son|daughter))\b",
        0.75,
        "personal",
        tail=True,
    ),
    # What recurs that the user must do: "i need to pay payroll every other friday through
    # Gusto", "We have to renew the permit every March".
    rule(
        "save",
        r"\b(?:i|we) (?:need|have|has|must) (?:to )?(?:[\w'-]+ ){1,6}?every (?:other |second )?"
        rf"(?:{WHEN}|day\b|week\b|month\b|year\b|morning\b|evening\b|night\b|\d)(?=[^?]*$)",
        0.75,
        "personal",
        tail=True,
    ),
    # What the user must do by a day: "I need to renew my passport before March", "gotta get
    # the car inspected before the 30th", "don't let me forget to book the vet on Tuesday";
    # not the work at hand ("I need to fix this bug before Friday").
    rule(
        "save",
        r"(?:\b(?:i|we)(?: really)? (?:need|have|must|got) to|\bi gotta|(?:^|[.!;]\s)(?:gotta|"
        r"need to|have to)|\bdon'?t let me forget to) (?!(?:[\w'-]+ ){0,6}?(?:this|these|it)\b)"
        r"(?:[\w'-]+ ){1,8}?(?:by|before|on|until|no later than) (?:the )?"
        rf"(?:{_A_DAY}|\d{{1,2}}(?:st|nd|rd|th)\b|end of (?:the )?(?:week|month|year)\b)"
        r"(?=[^?]*$)",
        0.75,
        "personal",
        tail=True,
    ),
    # A value the user keeps forgetting, told: "I keep forgetting Tommy's shoe size, it's 2Y";
    # not "…, it's annoying".
    rule(
        "save",
        r"\bi (?:always |keep )?forget(?:ting)? [^,;:?]{1,60}[,;:—-]\s*(?:it'?s|its|it is|"
        r"they'?re|which is) (?:\w+ )?(?-i:[A-Z0-9$€£])(?=[^?]*$)",
        0.8,
        "personal",
        tail=True,
    ),
    # A thing the user got: "got a new (used) van, white transit connect" (a ninth blind
    # probe's, none), "we just bought a new car"; not news of the work ("got a new error").
    rule(
        "save",
        OPENERS + r"(?:(?:i|we)(?:'ve| have)? )?(?:just |finally )?(?:got|bought|adopted|picked up)"
        r" (?:a |an |our |my )?(?:brand |\W*)?(?:new|used|second-?hand)\W+"
        r"(?!(?:error|bug|issue|problem|idea|message|email|ticket|question|request|warning|"
        r"notification|feature|version|build|release)s?\b)",
        0.75,
        "personal",
    ),
    # What the user does for a living: "i shoot weddings for a living, based in truro" (a
    # tenth blind probe's, none).
    rule("save", r"\b(?:i|we)\b[^.!?]{0,60}?\bfor a living\b", 0.85, "personal", tail=True),
)
