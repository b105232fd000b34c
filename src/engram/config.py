"""Settings: every threshold, weight and model parameter, read once at start.

Sources, highest priority first: keyword overrides (`Engram.open(..., beta=0.7)`), environment
variables `ENGRAM_*`, `./.env`, `$XDG_CONFIG_HOME/engram/.env`, the seed's
`$XDG_CONFIG_HOME/cortexgraph/.env`. Names mirror the upstream's
`CORTEXGRAPH_*` settings where one exists.
"""

from __future__ import annotations

import difflib
import math
import os
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote

import platformdirs
from dotenv import dotenv_values
from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from engram.config_env import ENV_PREFIX, seed_values, tell, warn_unknown
from engram.core.decay import DecayModel, DecayParams
from engram.core.file_names import UNSAFE_CHARS, ends_badly, is_reserved
from engram.core.reinforce import Reinforcement
from engram.core.scoring import Policy
from engram.core.timeutil import DAY
from engram.errors import ConfigError


def config_dir() -> Path:
    return platformdirs.user_config_path("engram")


def seed_env_file() -> Path:
    """The seed's own settings file (CortexGraph's "primary" one): read before Engram's, so a
    user moving over keeps their decay model and thresholds (they fell back to the defaults
    without a word: a probe). Its CORTEXGRAPH_* names are read as Engram's (`config_env`)."""
    return platformdirs.user_config_path("cortexgraph") / ".env"


def data_dir() -> Path:
    return platformdirs.user_data_path("engram")


def cache_dir() -> Path:
    """Files Engram derives and can always make again (the embedding model's integer graph)."""
    return platformdirs.user_cache_path("engram")


def default_storage_path() -> str:
    return str(data_dir() / "engram.db")


# An HTTP bearer token's length, as a setting or in the token file (engram.mcp.http).
MIN_TOKEN, MAX_TOKEN = 16, 512


def usable_token(token: str) -> bool:
    """The rule for an HTTP bearer token, wherever it comes from: too long to be guessed, and
    printable ASCII without spaces (a request cannot carry spaces: every client got 401; nor,
    in most clients, other letters than ASCII: "ä" failed to make the header)."""
    return MIN_TOKEN <= len(token) <= MAX_TOKEN and all("!" <= c <= "~" for c in token)


class Settings(BaseSettings):
    # allow_inf_nan off: ENGRAM_PL_ALPHA=nan was "less than or equal to 10"; now "a finite number"
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, extra="ignore", frozen=True, allow_inf_nan=False
    )

    # Where the store lives: a path to a SQLite file (or a sqlite:/// URL).
    storage_path: str = Field(default_factory=default_storage_path, min_length=1)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "WARNING"

    # Decay models
    decay_model: DecayModel = "power_law"
    pl_alpha: float = Field(default=1.1, ge=0.05, le=10)  # 2 ** (1/α) stays finite
    pl_halflife_days: float = Field(default=3.0, gt=0, le=3650)
    decay_lambda: float = Field(default=math.log(2) / (3 * DAY), gt=0, le=1)
    tc_lambda_fast: float = Field(default=1.603e-5, gt=0, le=1)
    tc_lambda_slow: float = Field(default=1.147e-6, gt=0, le=1)
    tc_weight_fast: float = Field(default=0.7, ge=0, le=1)
    decay_beta: float = Field(default=0.6, ge=0, le=2)

    # Thresholds
    forget_threshold: float = Field(default=0.05, gt=0, lt=1)
    promote_threshold: float = Field(default=0.65, gt=0, le=10)
    promote_use_count: int = Field(default=5, ge=1, le=1_000_000)
    promote_time_window: float = Field(default=14.0, gt=0, le=3650)  # days
    promote_min_age_days: float = Field(default=3.0, ge=0, le=3650)

    # Natural spaced repetition
    review_blend_ratio: float = Field(default=0.3, ge=0, le=0.9)
    review_danger_zone_min: float = Field(default=0.15, gt=0, lt=10)
    review_danger_zone_max: float = Field(default=0.35, gt=0, le=10)
    auto_reinforce: bool = True
    cross_domain_threshold: float = Field(default=0.3, ge=0, le=1)
    cross_domain_boost: float = Field(default=0.1, ge=0, le=2)
    touch_boost: float = Field(default=0.1, ge=0, le=2)

    # Search
    search_decay_weight: float = Field(default=0.05, ge=0, le=1)
    search_candidates: int = Field(default=200, ge=10, le=10_000)
    fts_weight_content: float = Field(default=1.0, gt=0, le=100)
    fts_weight_tags: float = Field(default=2.0, gt=0, le=100)
    fts_weight_entities: float = Field(default=2.0, gt=0, le=100)
    # A memory's cues: the words of the question it answers (`core.cues`, docs/search.md).
    fts_weight_cues: float = Field(default=1.0, gt=0, le=100)

    # Embeddings and hybrid search
    embedding_model: Literal["minilm", "none"] = "minilm"
    # Two cores nearly double embedding throughput (178 → 335 texts/s here) and cut a query's
    # embedding from 4.4 to 2.6 ms; more gain little for a model this small.
    embedding_threads: int = Field(default_factory=lambda: min(2, os.cpu_count() or 1), ge=1, le=64)
    # Compute a saved memory's vector on a worker thread just after the save returns (searches
    # wait for it); off: the save waits for its vector.
    embed_in_background: bool = True
    search_semantic_weight: float = Field(default=0.4, ge=0, le=1)
    # How far above unrelated text (in standard deviations, see engram.embeddings.background)
    # a memory's meaning must stand to match without sharing a word with the query.
    search_semantic_min_z: float = Field(default=2.0, ge=0, le=20)
    # Nearest neighbours taken from the vector index per search: 50 found as much as 100 in
    # bench/retrieval_sweep.py (both folds within 0.003) and search is 10-14 % faster.
    search_vector_candidates: int = Field(default=50, ge=10, le=10_000)
    # Context: credit for the neighbours of a match in its episode and its related memories.
    search_context_weight: float = Field(default=0.2, ge=0, le=1)
    search_context_radius: int = Field(default=4, ge=0, le=50)
    # Diversity: the MMR penalty that keeps near-copies of one memory from filling the top.
    search_diversity: float = Field(default=0.15, ge=0, le=1)
    # Query expansion: the words that weigh most in the best matches, and are rare in the
    # store, searched again; what they find gets this share of text relevance (0 turns it off;
    # docs/search.md, "Query expansion").
    search_expansion_weight: float = Field(default=0.6, ge=0, le=2)
    search_expansion_matches: int = Field(default=5, ge=1, le=50)
    search_expansion_terms: int = Field(default=10, ge=1, le=50)
    # A query that names a day ("on 7 Jan 2024", "yesterday"): memories saved on it (or a day
    # either side) have their relevance raised by this share (0 turns it off; docs/search.md,
    # "Days named in the query").
    search_date_weight: float = Field(default=0.5, ge=0, le=5)
    # A short query about how things stand now ("where does she live now?"): news of a better
    # match is as relevant as it, and each match's relevance is raised by up to this share, by
    # how late it was saved among the matches (0 turns it off; docs/search.md, "Queries about
    # the present").
    search_present_weight: float = Field(default=0.2, ge=0, le=5)
    # A question asking when ("When did she move?"): a match among the best whose text says
    # when (a date, a day, "yesterday", "last week") has its relevance raised by this share (0
    # turns it off; docs/search.md, "Days named in the query").
    search_when_weight: float = Field(default=0.25, ge=0, le=5)
    # The same for a question of how many, much, long, old, often or far, and a number.
    search_amount_weight: float = Field(default=0.25, ge=0, le=5)
    # Text relevance is scaled by the share of the query's word weight (idf) its best text
    # match holds, to this power: a match holding only a name and "up" of a paraphrased
    # question cedes the rest to meaning (0 turns it off; docs/search.md, section 1b).
    search_text_coverage: float = Field(default=1.0, ge=0, le=5)
    # A short question among the matches ("is the flat near the station?") asks and tells
    # little: its relevance is lowered by this share (0 turns it off; docs/search.md, 1f).
    search_question_discount: float = Field(default=0.2, ge=0, le=1)
    # A turn of a transcript that tells only of its listener ("Emi: you should sell your
    # prints") loses this share of its relevance: it tells nothing of its speaker (0 turns it
    # off; docs/search.md, 1f).
    search_listener_discount: float = Field(default=0.4, ge=0, le=1)
    # The memory saved right after a turn among the matches that asks (ends in "?", or a short
    # question without it), in its episode (the reply), receives this share of the turn's
    # relevance as context credit, where a neighbour receives the context weight (0 turns it
    # off; docs/search.md, section 2).
    search_reply_weight: float = Field(default=0.4, ge=0, le=1)
    # A query naming one speaker of a transcript ("What are Fahim's hobbies?", its memories
    # opening "Fahim Khan: …"): a match labelled with a speaker it does not name keeps this
    # share of its relevance (1 turns it off; docs/search.md, "Transcripts: a speaker named").
    search_other_speakers_share: float = Field(default=0.3, ge=0, le=1)

    # What a save does with a repeat of a stored memory (docs/consolidation.md)
    save_duplicates: Literal["merge", "reinforce", "keep"] = "merge"
    # A save reports stored memories at least this similar in meaning (0 turns it off):
    # paraphrases of one fact score 0.74-0.89 (docs/consolidation.md, "Repeats at save time")
    save_similar_threshold: float = Field(default=0.8, ge=0, le=1)
    # A save that says something changed ("Lisa is no longer vegetarian") supersedes the stored
    # memory most like it, by a `supersedes` relation (docs/consolidation.md)
    save_supersedes: bool = True
    # Names found in a saved memory's text join its entities; its strength, unless given, comes
    # from the words that mark importance (docs/activation.md)
    enrich_on_save: bool = True
    # A new memory that names a kind of fact wanted for good (an allergy, a condition, a
    # birthday, who the user is) or asks never to be forgotten is kept for good: gc never
    # forgets it (docs/decay.md, "Kept for good"), unless the save says `keep` itself.
    keep_vital: bool = True
    # A memory saved without an episode in a batch, given its time, or a chat's turn saved
    # now (a transcript), joins the one of the memory saved so just before it, within this
    # many minutes (0 turns it off): search credits a match's episode neighbours
    # (docs/search.md, section 2).
    episode_gap_minutes: float = Field(default=30, ge=0, le=1440)

    # Consolidation (docs/consolidation.md): the seed's clustering thresholds
    cluster_link_threshold: float = Field(default=0.83, ge=0, le=1)
    cluster_merge_cohesion: float = Field(default=0.9, ge=0, le=1)
    cluster_review_cohesion: float = Field(default=0.75, ge=0, le=1)
    # The maintenance pipeline: store-changing steps applied per minute (the seed's default)
    pipeline_rate_limit: int = Field(default=60, ge=1, le=100_000)

    # Long-term memory: the Obsidian vault (docs/ltm.md)
    vault_path: str | None = None
    ltm_folder: str = Field(default="Engram", min_length=1, max_length=200)
    auto_promote: bool = False
    # Without a server watching the vault, unified search re-scans it at most this often
    # (seconds; 0: before every search)
    vault_refresh_seconds: float = Field(default=2.0, ge=0, le=86_400)

    # MCP over HTTP (`engram serve --http`): the bearer token every request must carry (unset:
    # one is generated and kept in the config directory's http-token file)
    http_token: str | None = Field(default=None, min_length=MIN_TOKEN, max_length=MAX_TOKEN)
    # The names a TLS proxy on this machine forwards as Host, comma-separated
    # ("engram.example.com"): a server bound to loopback answers only loopback's names, and
    # behind such a proxy every page and action was refused (a helper's probe)
    http_allowed_hosts: str = Field(default="", max_length=2_000)

    # SQLite
    sqlite_busy_timeout: float = Field(default=30.0, gt=0, le=3600)  # seconds

    # PostgreSQL
    postgres_pool_size: int = Field(default=4, ge=1, le=100)  # connections per client at most

    @model_validator(mode="after")
    def _zone_is_an_interval(self) -> Settings:
        if self.review_danger_zone_min >= self.review_danger_zone_max:
            raise ValueError(
                "review_danger_zone_min must be below review_danger_zone_max "
                f"(got {self.review_danger_zone_min} >= {self.review_danger_zone_max})"
            )
        if self.forget_threshold > self.review_danger_zone_min:
            # A memory offered for review may already be on gc's list (a CLI probe): said, not
            # refused, since the seed's settings files allow it (CORTEXGRAPH_FORGET_THRESHOLD).
            tell(
                f"ENGRAM_FORGET_THRESHOLD ({self.forget_threshold}) is above "
                f"ENGRAM_REVIEW_DANGER_ZONE_MIN ({self.review_danger_zone_min}): memories offered "
                f"for review below {self.forget_threshold} are already forgotten by gc"
            )
        if self.cluster_review_cohesion > self.cluster_merge_cohesion:
            raise ValueError(
                "cluster_review_cohesion must not be above cluster_merge_cohesion "
                f"(got {self.cluster_review_cohesion} > {self.cluster_merge_cohesion})"
            )
        return self

    @field_validator("vault_path")
    @classmethod
    def _blank_vault_is_none(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        return _unpadded(value)

    @field_validator("storage_path")
    @classmethod
    def _store_is_named(cls, value: str) -> str:
        """A blank path made a SQLite file named " " in the working directory."""
        if not value.strip():
            raise ValueError("must not be blank")
        if any(ord(c) < 32 or ord(c) == 127 for c in value):
            raise ValueError("must not contain control characters")
        return _unpadded(value)

    @field_validator("http_allowed_hosts")
    @classmethod
    def _hosts_are_names(cls, value: str) -> str:
        for name in (n.strip() for n in value.split(",")):
            if name and not re.fullmatch(
                r"[A-Za-z0-9.-]+(?::\d{1,5})?|\[[0-9A-Fa-f:.]+\](?::\d{1,5})?", name
            ):
                raise ValueError(
                    f"{name!r} is not a host name (host or host:port, comma-separated)"
                )
        return value

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        """Printed without its secrets: `repr(app)` showed the HTTP token and a store URL's
        password in clear (a probe), where `engram config` hides them."""
        for name, value in super().__repr_args__():
            if name == "http_token" and value is not None:
                yield name, "<hidden>"
            elif name == "storage_path":
                yield name, redact_url(value)
            else:
                yield name, value

    @field_validator("http_token", mode="before")
    @classmethod
    def _blank_token_is_unset(cls, value: object) -> object:
        """`ENGRAM_HTTP_TOKEN=` in a .env file means no token set (one is generated), as a
        blank vault path means no vault: it stopped every command, HTTP or not."""
        return None if isinstance(value, str) and value == "" else value

    @field_validator("http_token")
    @classmethod
    def _token_is_a_secret(cls, value: str | None) -> str | None:
        """Sixteen spaces passed the length check and then matched no request: every client
        was refused with 401 and no word why."""
        if value is not None and not usable_token(value):  # its length is checked first
            raise ValueError("must be printable ASCII without spaces")
        return value

    @field_validator("ltm_folder")
    @classmethod
    def _folder_stays_inside_the_vault(cls, value: str) -> str:
        return check_ltm_folder(value)

    @model_validator(mode="after")
    def _auto_promote_needs_a_vault(self) -> Settings:
        if self.auto_promote and self.vault_path is None:
            raise ValueError(
                "ENGRAM_AUTO_PROMOTE is on but ENGRAM_VAULT_PATH is not set: set it to your "
                "Obsidian vault folder, or turn auto-promotion off"
            )
        return self

    def policy(self) -> Policy:
        return Policy(
            decay=DecayParams(
                model=self.decay_model,
                pl_alpha=self.pl_alpha,
                pl_halflife_days=self.pl_halflife_days,
                decay_lambda=self.decay_lambda,
                tc_lambda_fast=self.tc_lambda_fast,
                tc_lambda_slow=self.tc_lambda_slow,
                tc_weight_fast=self.tc_weight_fast,
            ),
            beta=self.decay_beta,
            forget_threshold=self.forget_threshold,
            promote_threshold=self.promote_threshold,
            promote_use_count=self.promote_use_count,
            promote_time_window_days=self.promote_time_window,
            promote_min_age_days=self.promote_min_age_days,
            danger_zone_min=self.review_danger_zone_min,
            danger_zone_max=self.review_danger_zone_max,
        )

    def reinforcement(self) -> Reinforcement:
        return Reinforcement(
            touch_boost=self.touch_boost,
            cross_domain_boost=self.cross_domain_boost,
            cross_domain_threshold=self.cross_domain_threshold,
            auto_reinforce=self.auto_reinforce,
        )


# A folder name with these breaks the wikilinks to the notes in it.
_BREAKS_LINKS = re.compile(r"[\[\]#^]")


def check_ltm_folder(value: str) -> str:
    """A folder path relative to the vault (`Engram`, `Memory/Engram`): no absolute path, `..`,
    hidden, reserved or wikilink-breaking names, so promoted notes stay inside the vault."""
    raw = value.strip()
    folder = raw.rstrip("/")
    if not folder or raw.startswith(("/", "~")) or re.match(r"^[A-Za-z]:", raw):
        raise ValueError("must be a folder path relative to the vault, e.g. Engram")
    for part in folder.split("/"):
        if part in ("", ".", "..") or part.startswith(".") or ends_badly(part):
            raise ValueError(
                f"{part!r} is not allowed as a folder name (not empty, '.' or '..', not hidden "
                "(a leading '.'), no trailing dot or space)"
            )
        if UNSAFE_CHARS.search(part) or _BREAKS_LINKS.search(part) or is_reserved(part):
            raise ValueError(f"{part!r} is not a portable folder name")
    return folder


def project_env_file() -> Path | None:
    """The working directory's `.env`; None when there is no working directory (a shell
    still in a folder deleted since: every command stopped with a bare "No such file")."""
    try:
        return Path.cwd() / ".env"
    except OSError:
        return None


def env_files() -> tuple[Path, ...]:
    """Later files win: the seed's settings file first (`seed_env_file`), then the user's
    config, then the working directory's. A folder the user may not look into (a working
    directory owned by someone else) holds no settings file for them: it was a
    PermissionError at start-up."""
    listed = (seed_env_file(), config_dir() / ".env", project_env_file())
    return tuple(f for f in listed if f is not None and _is_file(f))


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def readable_env_files() -> tuple[tuple[Path, ...], dict[str, str]]:
    """The settings files to read and the variables they set (a later file's value wins). A
    file that is not UTF-8 text is left out with a notice rather than stopping every command
    with a traceback: the `.env` of a working directory often belongs to another tool."""
    files: list[Path] = []
    names: dict[str, str] = {}
    for path in env_files():
        try:
            names |= {k: v or "" for k, v in dotenv_values(path).items()}
        except OSError as exc:
            raise ConfigError(f"cannot read the settings file {path}: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            tell(f"ignoring the settings file {path}: it is not UTF-8 text (byte {exc.start + 1})")
            continue
        files.append(path)
    return tuple(files), names


def load_settings(*, keywords: bool = False, **overrides: Any) -> Settings:
    """Read settings once, turning any bad value into a ConfigError naming the variable (or,
    with `keywords`, an override by the keyword the caller gave: `Engram.open(forget_threshold
    =-1)` was told of ENGRAM_FORGET_THRESHOLD, a probe). The seed's variable names are read
    too, and unknown ENGRAM_* names warned about (`engram.config_env`)."""
    names = set(Settings.model_fields)
    unknown = sorted(set(overrides) - names)
    if unknown:
        # `decay_betta=0.5` said only "unknown setting(s)", where a misspelt variable is told
        # its name (a probe)
        close = [difflib.get_close_matches(u, names, n=1, cutoff=0.6) for u in unknown]
        hints = [f"; did you mean {c[0]}?" for c in close if c]
        raise ConfigError(f"unknown setting(s): {', '.join(unknown)}{''.join(hints[:1])}")
    files, from_files = readable_env_files()
    warn_unknown(set(os.environ) | set(from_files), names)
    engram_set = {
        k.upper() for k in (set(os.environ) | set(from_files)) if k.upper().startswith(ENV_PREFIX)
    }
    # The seed's variables count in a settings file too, as the seed read them from one
    # (a CORTEXGRAPH_* line in .env was ignored without a word); the environment wins.
    seen = {**from_files, **os.environ}
    seed: dict[str, Any] = {
        k: v for k, v in seed_values(seen, names, engram_set).items() if k not in overrides
    }
    try:
        settings = Settings(_env_file=files, **seed, **overrides)
    except ValidationError as exc:
        given_here = set(overrides) | {k.upper() for k in os.environ}
        where = describe_errors(
            exc,
            lambda n: _file_setting(n, given_here, files),
            lambda n: n if keywords and n in overrides else ENV_PREFIX + n.upper(),
        )
        raise ConfigError(where) from None
    given = {k[len(ENV_PREFIX) :].lower() for k in engram_set} | set(seed)
    _tell_unused_decay_settings(settings.decay_model, given)
    return settings


# What each decay model reads (docs/decay.md); a value set for another model has no effect.
DECAY_MODEL_SETTINGS: dict[str, tuple[str, ...]] = {
    "power_law": ("pl_alpha", "pl_halflife_days"),
    "exponential": ("decay_lambda",),
    "two_component": ("tc_lambda_fast", "tc_lambda_slow", "tc_weight_fast"),
}


def _tell_unused_decay_settings(model: str, given: set[str]) -> None:
    """A λ tuned as the seed's cheat sheet tunes it was read, announced, and unused: the
    default model (power law) does not read it. Say so, once."""
    used = DECAY_MODEL_SETTINGS[model]
    for name in sorted(given & {n for names in DECAY_MODEL_SETTINGS.values() for n in names}):
        if name not in used:
            reads = ", ".join(ENV_PREFIX + n.upper() for n in used)
            tell(
                f"{ENV_PREFIX}{name.upper()} has no effect: the {model} decay model reads "
                f"{reads} (ENGRAM_DECAY_MODEL chooses the model)"
            )


def describe_errors(
    exc: ValidationError,
    source: Callable[[str], str] = lambda name: "",
    named: Callable[[str], str] = lambda name: ENV_PREFIX + name.upper(),
) -> str:
    """One line per bad setting, `named` as the user set it; `source(name)` says where a
    setting was read from, when the environment did not give it."""
    lines = []
    for err in exc.errors():
        name = ".".join(str(p) for p in err["loc"])
        if name in Settings.model_fields:
            # pydantic's "String should have at least 1 character" for an empty one
            empty = err["type"] == "string_too_short" and err.get("ctx", {}).get("min_length") == 1
            # A field validator's message as written ("Value error, '..' is not allowed")
            said = "must not be empty" if empty else err["msg"].removeprefix("Value error, ")
            lines.append(f"invalid setting {named(name)}{source(name)}: {said}")
        else:  # a rule between settings: name them as the user sets them
            message = _SETTING_NAME.sub(
                lambda m: ENV_PREFIX + m.group().upper(), err["msg"].removeprefix("Value error, ")
            )
            lines.append(f"invalid settings: {message}")
    return "; ".join(lines)


def _file_setting(name: str, given: set[str], files: Sequence[Path]) -> str:
    """ " (in FILE)" for a setting a settings file gave (the last that sets it), not the
    environment nor the caller: `ENGRAM_DECAY_BETA=abc` in ./.env said only "invalid setting
    ENGRAM_DECAY_BETA", and the user looked in their shell."""
    variable = ENV_PREFIX + name.upper()
    if name in given or variable in given:
        return ""
    found = [f for f in files if variable in {k.upper() for k in dotenv_values(f)}]
    return f" (in {found[-1]})" if found else ""


_SETTING_NAME = re.compile(
    r"\b(?:" + "|".join(sorted(Settings.model_fields, key=len, reverse=True)) + r")\b"
)


# Query parameters of a PostgreSQL URL that carry a secret, by name as libpq reads it
# (percent-decoded: "pass%77ord" is "password").
_SECRET_PARAMS = frozenset({"password", "sslpassword"})
# "scheme://user:" then the password, up to the last "@": found on the raw text, so that a
# password with an unencoded "#", "/" or "?" (which URL parsing reads as the path or the
# fragment) is hidden too.
_USER_PASSWORD_GREEDY = re.compile(r"^([a-z][a-z0-9+.-]*://[^:/?#@]*:)(.+)@", re.IGNORECASE)


def _user_password(url: str) -> re.Match[str] | None:
    """The password after "user:", up to the "@" before the host: the last "@" unless that
    would reach into the query ("?application_name=a@b" holds no password)."""
    found = _USER_PASSWORD_GREEDY.match(url)
    while found is not None and _reaches_query(found.group(2)):
        found = _USER_PASSWORD_GREEDY.match(url[: found.end() - 1])
    return found


def _reaches_query(candidate: str) -> bool:
    """Whether a password candidate runs on into the query ("…/db?name=a"): a "?" with an
    "=" after it. An "=" alone is the password's own (base64 passwords end in "=="): taking
    every "=" for the query left such a password printed in full."""
    mark = candidate.find("?")
    return mark >= 0 and "=" in candidate[mark:]


def redact_secrets(message: str, url: str) -> str:
    """A driver's message about `url` without its password: libpq quotes the part of a URL
    it cannot parse ("invalid percent-encoded token: \"<password>\""). The password and its
    pieces between URL delimiters are replaced wherever they appear."""
    secrets: list[str] = []
    userinfo = _user_password(url)
    if userinfo is not None:
        secrets.append(userinfo.group(2))
    for value in _secret_values(url):
        secrets += [value, unquote(value)]
    pieces = {p for s in secrets for p in [s, *re.split(r"[/?#@:&]", s)] if len(p) >= 3}
    # A password with an "@" written as is: libpq takes what follows it for the host and
    # quotes it ("failed to resolve host '&3@127.0.0.1'" of "Tr0ub4dor@&3"; a helper's probe).
    pieces |= {p for s in secrets for p in s.split("@")[1:] if len(p) >= 2}
    for piece in sorted(pieces, key=len, reverse=True):
        message = message.replace(piece, "***")
    return message


def redact_url(url: str) -> str:
    """The URL without its passwords (after the user name, or as `?password=`), for messages,
    `stats` and `engram config`."""
    userinfo = _user_password(url)
    if userinfo is not None:
        url = f"{userinfo.group(1)}***@{url[userinfo.end() :]}"
    head, sep, rest = url.partition("?")
    if not sep:
        return url
    query, mark, fragment = rest.partition("#")
    params = [
        f"{key}=***" if eq and _secret_key(key) else param
        for param in query.split("&")
        for key, eq, _ in [param.partition("=")]
    ]
    return head + sep + "&".join(params) + mark + fragment


def _secret_key(key: str) -> bool:
    return unquote(key).strip().casefold() in _SECRET_PARAMS


def _secret_values(url: str) -> list[str]:
    """The values of the URL's query parameters that carry a secret, as written."""
    query = url.partition("?")[2].partition("#")[0]
    pairs = [param.partition("=") for param in query.split("&")]
    return [value for key, eq, value in pairs if eq and _secret_key(key)]


def _unpadded(path: str) -> str:
    """A path is taken as written, so a space (or a no-break space, pasted from a web page)
    before or after it is refused, not silently part of it: " /home/me/engram.db" was a
    relative path, a new store in whatever folder a client started the server in (audit)."""
    if path != path.strip():
        raise ValueError("must not begin or end with a space")
    return path
