"""The names a kind of tool goes by, for a query that asks by its kind: "which database did we
pick?" against "Project Atlas uses PostgreSQL 16".

The model does not know that PostgreSQL is a database: the two are at cosine 0.17, below any
bar of meaning, and share no word, so a probe's store of thirty memories answered "database"
and "which database did we pick" with nothing (a developer's assistant is asked this kind of
question all day). A query word naming a kind is therefore searched with the names of its
best-known members too, counted as that one word (`core.word_forms.form_groups`): a memory
naming PostgreSQL matches "database" as one saying "database" would. Only that way round — a
query naming PostgreSQL does not look for MySQL.

The lists hold names that mean the kind and little else: not "Go", "Windows", "Arch", "Edge",
"Cursor" or "Swift", which are everyday words too. A few words for the people of a life are
listed the same way ("wife": "partner").
"""

from __future__ import annotations

from collections.abc import Sequence

from engram.core.index_terms import index_term

_DATABASES = [
    *"postgresql postgres mysql mariadb sqlite mongodb redis cassandra dynamodb cockroachdb "
    "clickhouse neo4j elasticsearch firestore supabase bigquery snowflake duckdb couchdb".split(),
    "sql server",
]
_EDITORS = [
    *"vim neovim nvim emacs vscode intellij pycharm webstorm xcode sublime zed".split(),
    "vs code",
    "visual studio",
]
_SYSTEMS = "linux ubuntu debian fedora macos freebsd centos nixos".split()
_LANGUAGES = (
    "python rust golang typescript javascript java kotlin ruby php scala elixir haskell "
    "clojure erlang perl lua dart julia"
).split()
_FRAMEWORKS = (
    "pytorch tensorflow jax keras django flask fastapi rails laravel react vue angular svelte "
    "nextjs express spring"
).split()
_CLOUDS = [*"aws gcp azure heroku vercel netlify digitalocean cloudflare".split(), "google cloud"]
_BROWSERS = "chrome chromium firefox safari brave vivaldi".split()
_QUEUES = "kafka rabbitmq sqs nats pulsar".split()
_CI = [*"jenkins circleci travis buildkite".split(), "github actions", "gitlab ci"]

# A kind's words (a word, or two read together), each the names searched for it.
_KINDS: dict[tuple[str, ...], list[str]] = {
    ("database",): _DATABASES,
    ("db",): _DATABASES,
    ("editor",): _EDITORS,
    ("ide",): _EDITORS,
    ("operating", "system"): _SYSTEMS,
    ("os",): _SYSTEMS,
    ("distro",): _SYSTEMS,
    ("programming", "language"): _LANGUAGES,
    ("framework",): _FRAMEWORKS,
    ("cloud",): _CLOUDS,
    ("browser",): _BROWSERS,
    ("queue",): _QUEUES,
    ("broker",): _QUEUES,
    ("ci",): _CI,
    # The people of a life go by such names too: a wife or husband is often "my partner" in
    # what was said ("What does my wife do?" against "my partner Sam is a vet nurse", a
    # held-out probe), a boss "my manager". Only that way round: "partner" is also a business's.
    ("wife",): ["partner", "spouse"],
    ("husband",): ["partner", "spouse"],
    ("spouse",): ["wife", "husband", "partner"],
    ("boss",): ["manager"],
    # What is due is a deadline: "what deadlines do I have?" against "my conference abstract
    # for ISMB is due January 10" (cosine 0.12; a blind probe's question found nothing).
    ("deadline",): ["due"],
}
# A food is searched by what an allergy or a diet calls it too: "Can I eat the shrimp paella at
# the department dinner?" found nothing of "He gets hives from shellfish (mild allergy)" (a
# fifteenth blind probe's), which an assistant must not miss. Only that way round: a query
# about shellfish does not look for every crab.
_FOOD_GROUPS = {
    "shrimp prawn crab lobster crayfish oyster mussel clam scallop": ["shellfish"],
    "peanut almond cashew walnut pecan pistachio hazelnut macadamia": ["nuts"],
    "milk cheese butter yogurt yoghurt cream": ["dairy", "lactose"],
    "bread pasta flour barley rye": ["gluten", "wheat"],
}
for _foods, _group in _FOOD_GROUPS.items():
    _KINDS.update({(food,): _group for food in _foods.split()})
_BY_STEMS = {tuple(index_term(w) for w in words): names for words, names in _KINDS.items()}
_LONGEST = max(len(words) for words in _KINDS)


def kind_names(terms: Sequence[str]) -> dict[int, list[str]]:
    """For the position in `terms` (a query's words, in order) of each word naming a kind (the
    last of two: "operating system"), the names of that kind."""
    stems = [index_term(t) for t in terms]
    found: dict[int, list[str]] = {}
    for end in range(len(terms)):
        for size in range(_LONGEST, 0, -1):
            names = _BY_STEMS.get(tuple(stems[max(0, end - size + 1) : end + 1]))
            if names is not None and end - size + 1 >= 0:
                found[end] = names
                break
    return found
