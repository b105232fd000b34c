"""Names in a memory's text — people, organisations, places, products, technologies — found by
rules on how English writes names, not by a statistical model.

Why rules: spaCy's English pipelines are not on the package registry (they install from GitHub
releases), and a model adds hundreds of megabytes and tens of milliseconds to every save; these
rules cost microseconds and score precision/recall 0.9+ on the labelled set in
tests/fixtures/activation/entities.tsv (docs/activation.md gives the measured numbers).

What counts as a name:
- a word with a capital after its first letter or mixing letters and digits (TypeScript, JWT,
  GitHub, 1Password, M2), not a date word or a quarter (Q3);
- a capitalised word inside a sentence (Atlas, Berlin), or at its start when it is not a common
  English word that begins sentences ("Use", "Deploys", "Remind", "Hey"); what follows a colon
  ("Kate: …", "User: …", "Note: …") counts as a sentence's start;
- a compass word at a sentence's start when a name follows it ("North Carolina"), and "New"
  before the few places named with it ("New York"; "New Docker image" is Docker);
- runs of these joined into one name ("Dana Kim", "Golden State Warriors"), with a title
  before ("Dr. Alvarez") and a version number after ("PostgreSQL 16", "Python 3.11") unless
  the number counts what follows ("Tom 3 times");
- never a common word in capitals that flags a line ("IMPORTANT:", "TODO:", "Do NOT");
- a short list of technology names usually written in lower case (npm, nginx, pgvector).
"""

from __future__ import annotations

import re
import unicodedata

from engram.core.intent_words import KIN
from engram.core.message import masked

_TOKEN = re.compile(r"[^\W_][\w.+#'’/-]*[\w+#]|[^\W_]", re.UNICODE)
_SENTENCE_END = re.compile(r"[.!?:;]\s*$")
_VERSION = re.compile(r"^v?\d+(\.\d+)*$")
_TITLES = frozenset({"dr", "mr", "mrs", "ms", "prof", "st"})
_QUARTER = re.compile(r"^q[1-4]$", re.IGNORECASE)

DATE_WORDS = frozenset(
    """monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays
    thursdays fridays saturdays sundays january february march april may june july august
    september october november december today tomorrow yesterday""".split()
)

# Abbreviated day and month names, written as such ("Feb", "Wed."; "SAT" and "DEC" in capitals
# are an exam and a company): dates, not names. "Jan", "Jun" and "Sun" are also names, so they
# are dates only beside a number ("3 Jan", "Jun 2026").
_DATE_ABBREVIATIONS = frozenset(
    "mon tue tues wed thu thur thurs fri sat feb mar apr jul aug sep sept oct nov dec".split()
)
_DATES_BESIDE_A_NUMBER = frozenset({"jan", "jun", "sun"})

# Words that begin sentences without being names: pronouns, determiners, question words,
# conjunctions, the verbs people begin an instruction or a note with ("Prefers tea"), the
# roles that label a line ("User: …") and the interjections and praise that begin a chat turn.
COMMON_STARTS = frozenset(
    """i i'm i've i'd i'll me my mine we we're we've our ours you you're your yours he she it
    it's its they they're their them this that these those there here the a an some any all
    every each no not yes yeah yep yup ok okay sure thanks thank please hi hello hey so and but
    or if when while what which who whom whose why how where because since after before also
    just then now today tomorrow yesterday let let's lets maybe perhaps actually always never
    often usually sometimes only still again use used using ask send store remind remember note
    keep make take give get set put run add check call tell show find write read try start stop
    go going deploy deploys deployed send sends save do does did don't doesn't didn't is are
    am was were be been being have has had can could would should will shall might must need
    needs our meeting meetings every most many much more less few other another same new old
    first last next one two three four five six seven eight nine ten important critical
    reminder heads fyi btw note notes prefer prefers like likes love loves hate hates want wants
    decided decide chose picked agreed switched moved works work lives live plans planning
    likes dislikes enjoys wants needs knows thinks said says told asked met bought user
    assistant oh ah aw aww wow whoa haha lol omg um uh hmm well cool nice great awesome amazing
    lovely good sounds sorry honestly definitely absolutely totally exactly right true congrats
    congratulations welcome in on at for with from to of by as even whether though although
    back once yet went got saw paid made took gave came found felt left ran sent spent thought
    lost won ate wrote heard kept sold began brought built caught drove fell flew forgot held
    knew meant quit sat slept spoke stood taught threw woke wore lunch dinner breakfast brunch
    coffee update correction edit summary todo agenda status warning tip decision team
    weather quick big intro guess exciting ugh anyway anyways welp argh meh yay oops delete
    remove erase forget scratch cancel gotcha gotchas convention conventions feature features
    true false null post put patch create job jobs
    daily weekly monthly yearly quarterly annual nightly hourly biweekly morning mornings
    evening evenings afternoon night weekend weekends weekday weekdays summer winter autumn
    spring holiday holidays vacation severe mild allergic chronic data project projects sprint
    release build production staging line code tests bug bugs issue issues server database
    client customer customers budget rent salary invoice favourite favorite current previous
    former latest recent upcoming regular usual main primary
    her him his hers everyone everybody someone somebody anyone anybody nobody nothing
    something everything anything both either neither none whoever whatever
    ooh ouch cheers yikes phew hooray oof eek ahh ohh hm mm mmm yum bravo gosh geez jeez nah
    nope perfect happy glad sad bad busy fine fair deal done enjoy look wait very really mostly
    almost already about pretty gorgeous wonderful fantastic brilliant excellent sweet fun
    funny crazy weird luckily sadly hopefully probably
    play drink eat buy cook watch walk swim bike cycle drive wear sleep pay order pick bring
    visit study practice practise teach travel hike climb dance sing paint draw bake grow own
    speak attend volunteer commute host lead manage shop""".split()
) | frozenset(
    # ...and in the other languages notes are most often kept in, the first person and its
    # possessives ("Ich wohne in Hamburg", "Mi perro se llama Toño", "Je travaille chez
    # Renault" each named "Ich", "Mi" and "Je": a multilingual probe)
    """ich wir mein meine meinen meinem meiner unser unsere yo mi mis nuestro nuestra
    nuestros nuestras je nous mon mes notre nos""".split()
)
# Numbers written out, opening a sentence ("Eighteen jars!", "Forty-two!"); before a name or
# inside a sentence they name ("Fifth Avenue", "the Twenty One Pilots").
_NUMBER_WORDS = frozenset(
    """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty
    ninety hundred thousand million billion dozen second third fourth fifth sixth seventh
    eighth ninth tenth eleventh twelfth twentieth""".split()
)
# A pronoun's contraction ("You'll", "We'd", "Wouldn't"): a name takes only the possessive.
_CONTRACTED = re.compile(r"['’](?:ll|ve|d|re|m)$|n['’]t$", re.IGNORECASE)
# Laughter and a word drawn out ("Hahaha", "Heh", "Sooo", "Yesss"): no name has a letter three
# times running.
_DRAWN_OUT = re.compile(r"^(?:h[ae]h?)+$|(\w)\1\1", re.IGNORECASE)
# Words written in capitals to flag a line, not to name anything ("TODO: …", "IMPORTANT: …").
# A capitalised common word (NOTE, NEVER, SO) is read the same way.
_FLAGS = frozenset("todo fixme tbd asap urgent warning nb ps".split())
# Given names that end like a past tense or a gerund, which otherwise would be read as the
# verb a note begins with ("Fixed the build", "Planning the trip").
_NAMES_LIKE_VERBS = frozenset(
    """alfred fred ted ned jed manfred wilfred winifred mildred siegfried ahmed mohammed
    muhammed mohamed javed saeed rasheed zayed sterling beijing nanjing boeing""".split()
)
# What a number after a name counts ("Tom 3 times", "Berlin 2 years ago"), when it is no
# version of that name ("PostgreSQL 16").
_COUNTED = frozenset(
    """times time years year days day weeks week months month hours hour minutes minute
    seconds nights night people kids children more ago""".split()
)
# Words that begin place names at a sentence's start.
_PLACE_STARTS = frozenset({"new", "north", "south", "east", "west"})
# "New" starts a name only before these (elsewhere it says something is new).
_AFTER_NEW = frozenset(
    "york zealand delhi orleans jersey mexico hampshire england brunswick caledonia guinea "
    "haven south".split()
)
# What follows the verb an instruction opens with ("Book a table", "Forget my old address",
# "Call him"): a word before one of these, at a sentence's start, is no name. Not "the": a
# pet or a person is named so ("Pixel the dog chased a ball").
_OBJECT_WORDS = frozenset("a an my your our his her their its it them me us him".split())
# A clock's half of the day and time zones, written after a time ("9 AM CET"), name nothing.
_CLOCK_WORDS = frozenset(
    """am pm utc gmt cet cest eet eest wet west bst ist jst kst aest aedt est edt cst cdt mst
    mdt pst pdt""".split()
)
# A time with its half of the day run on ("5PM"; "9:30AM" is the tokens "9" and "30AM").
_CLOCK_TIME = re.compile(r"^\d{1,2}(?:am|pm|a\.m\.|p\.m\.)$")
# "I" and its contractions, capitalised anywhere in a sentence.
# A note's first word naming one of the user's people, before their name ("Daughter Maya…" was
# the entity "Daughter Maya", which no memory saying "Maya's best friend" linked to: a probe).
_ONES_PERSON = re.compile(KIN, re.IGNORECASE)
_I_FORMS = frozenset({"i", "i'm", "i've", "i'd", "i'll"})

# Technology names commonly written in lower case.
LOWERCASE_TECH = frozenset(
    """npm pnpm yarn pip pipx uv conda nginx pgvector git bash zsh vim neovim emacs docker
    kubectl helm terraform ansible ffmpeg curl wget sqlite postgres mysql redis kafka
    numpy pandas pytorch tensorflow pytest django flask fastapi react vue svelte webpack vite
    eslint prettier ruff mypy rustc cargo gcc clang llvm jq grep sed awk ssh tmux systemd""".split()
)


def extract_entities(text: str) -> list[str]:
    """The names in `text`, in order of appearance, each once (case-insensitively)."""
    found: list[str] = []
    seen: set[str] = set()
    # Composed: an accent typed as a letter plus a combining mark ("E\u0301mile", as some
    # keyboards and macOS file names write it) would otherwise cut the word in two. Links and
    # email addresses hold no names: a query's "orgId", "Dana.Kim@Globex.com" were two.
    for sentence in _sentences(masked(unicodedata.normalize("NFC", text))):
        for name in _names(_words(sentence)):
            key = name.casefold()
            if key not in seen:
                seen.add(key)
                found.append(name)
    return found


_SPLIT = re.compile(
    r"(?<!\bDr\.)(?<!\bProf\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bSt\.)(?<!\bMrs\.)(?<=[.!?])\s+|\n+"
)


def _sentences(text: str) -> list[str]:
    """Sentences; a title's full stop ("Dr. Alvarez") does not end one."""
    return [s for s in _SPLIT.split(text) if s and s.strip()]


def _words(sentence: str) -> list[str]:
    """Its tokens; "," stands between two words that punctuation separates (a name never
    runs across "Figma, Miro"), ":" after a colon (what follows "Kate: " or "Note: " begins a
    sentence of its own)."""
    out: list[str] = []
    end = 0
    for match in _TOKEN.finditer(sentence):
        gap = sentence[end : match.start()].strip()
        if out and gap == "." and out[-1].casefold() in _TITLES:
            out[-1] += "."  # "Dr. Alvarez": the title's full stop
        elif out and gap:
            out.append(":" if gap.endswith(":") else ",")
        out.append(match.group())
        end = match.end()
    return out


def _names(tokens: list[str]) -> list[str]:
    names: list[str] = []
    run: list[str] = []

    def close() -> None:
        if run:
            names.append(" ".join(run))
            run.clear()

    for i, raw in enumerate(tokens):
        token = raw.rstrip(".")
        bare = token.removesuffix("'s").removesuffix("’s")
        low = bare.casefold()
        if run and _VERSION.match(token) and not _counts(tokens, i):  # "PostgreSQL 16", "Pi 5"
            run.append(token)
            continue
        if _is_name(bare, i, tokens):
            if run and run[-1].casefold().rstrip(".") in _TITLES:
                run[-1] = run[-1] if run[-1].endswith(".") else run[-1] + "."
            run.append(bare)
            if bare != token or (raw.endswith(".") and low not in _TITLES):
                close()  # a possessive or a sentence end closes the name
            continue
        close()
        if low in LOWERCASE_TECH:
            names.append(bare)
    close()
    return names


def _counts(tokens: list[str], position: int) -> bool:
    """Whether the number at `position` counts what follows it ("3 times", "2 years ago"):
    a whole number only ("Python 3.11 years" is still a version)."""
    if not tokens[position].isdigit():
        return False
    following = tokens[position + 1] if position + 1 < len(tokens) else ""
    return following.casefold() in _COUNTED


def _abbreviated_date(word: str, position: int, tokens: list[str]) -> bool:
    """A day or month written short: as names ("Dentist on 3 Feb", "Gym on Mon and Wed") they
    linked unrelated memories as if they named the same thing (audit)."""
    low = word.casefold()
    if not (word[:1].isupper() and word[1:].islower()):
        return False
    if low in _DATE_ABBREVIATIONS:
        return True
    beside = tokens[max(position - 1, 0) : position] + tokens[position + 1 : position + 2]
    return low in _DATES_BESIDE_A_NUMBER and any(t[:1].isdigit() for t in beside)


def _is_name(word: str, position: int, tokens: list[str]) -> bool:
    low = word.casefold().replace("’", "'")  # "I’m" as "I'm": phones type the curly one
    if not word or low in DATE_WORDS or _QUARTER.match(word) or low in _I_FORMS:
        return False
    if _abbreviated_date(word, position, tokens):
        return False
    if _CONTRACTED.search(low):
        return False  # "You'll catch up", "Wouldn't miss it"
    if _DRAWN_OUT.search(low) and not word.isupper():
        return False  # "Hahaha, …", "Sooo good" (not an acronym: "WWW", "AAA")
    if word.isupper() and len(word) > 1 and (low in COMMON_STARTS or low in _FLAGS):
        return False  # "IMPORTANT:", "Do NOT deploy": emphasis, not an acronym
    if low in _CLOCK_WORDS and position > 0 and _after_a_time(tokens, position):
        return False
    if _CLOCK_TIME.match(low):  # "9:30AM" (its "30AM"), "5PM": a time, not a name (a probe)
        return False
    following = tokens[position + 1].casefold() if position + 1 < len(tokens) else ""
    opens = position == 0 or tokens[position - 1] == ":"
    named_next = position + 1 < len(tokens) and tokens[position + 1][:1].isupper()
    if opens and named_next and _ONES_PERSON.fullmatch(low):
        return False  # "Daughter Maya is 7", "Brother Sam lives…": the name is Maya, Sam
    if opens and word.isupper() and len(word) > 5 and following == ":":
        return False  # "FEATURE: …", "BLOCKER: …": a line's label, not an acronym
    inner_caps = any(c.isupper() for c in word[1:]) and any(c.isalpha() for c in word)
    letters_and_digits = any(c.isdigit() for c in word) and any(c.isupper() for c in word)
    if inner_caps or letters_and_digits:
        return True
    if not word[0].isupper():
        return False
    if low.rstrip(".") in _TITLES:
        return position + 1 < len(tokens) and tokens[position + 1][:1].isupper()
    if position > 0 and tokens[position - 1] != ":":
        return True
    if low in _PLACE_STARTS and position + 1 < len(tokens):  # "North Carolina", "New York"
        following = tokens[position + 1]
        if low == "new":  # "New Docker image is out": new is an adjective there
            return following.casefold() in _AFTER_NEW
        return following[:1].isupper() and following.casefold() not in COMMON_STARTS
    if low in _NAMES_LIKE_VERBS:
        return True
    if following in _OBJECT_WORDS and not inner_caps:
        return False  # "Book a …", "Forget my …": the verb an instruction opens with
    if (low.endswith("ed") and len(low) > 4) or (low.endswith("ing") and len(low) > 5):
        return False  # "Decided …", "Fixed …", "Planning …"
    if all(part in _NUMBER_WORDS for part in low.split("-")) and not named_next:
        return False  # "Eighteen jars!", "Forty-two!" (not "Fifth Avenue")
    if len(low) >= 7 and low.endswith("ly") and not low.endswith(("rly", "ily")):
        # "Currently working on …", "Recently started …": an adverb (a probe's notes had
        # "Currently" among their entities); names so long end "-rly" or "-ily" (Kimberly)
        return False
    # "Uses neovim …", "Runs a marathon …": the verb a note about someone begins with
    return low not in COMMON_STARTS and not (low.endswith("s") and low[:-1] in COMMON_STARTS)


def _after_a_time(tokens: list[str], position: int) -> bool:
    """Whether the word at `position` follows a time: a number ("9 AM", "9:30 PM") or the
    half of the day after one ("9 AM CET")."""
    before = tokens[position - 1]
    if before[:1].isdigit():
        return True
    return position > 1 and before.casefold() in {"am", "pm"} and tokens[position - 2][:1].isdigit()
