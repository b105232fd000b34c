"""Environment variables around Engram's own: the seed's names, and misspelled ones.

Users of the seed (CortexGraph) have `CORTEXGRAPH_*` variables and `LTM_VAULT_PATH` set; ignoring
them without a word would run Engram with other settings than they believe. They are read as
the Engram setting of the same name, each with a one-line notice on stderr (stdout may be an MCP
channel), unless the `ENGRAM_` name is set too, which wins. An `ENGRAM_*` variable that is no
setting gets a warning naming the closest one. Each notice is given once per process.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Collection, Mapping

ENV_PREFIX = "ENGRAM_"
SEED_PREFIX = "CORTEXGRAPH_"
SEED_RENAMED = {"LTM_VAULT_PATH": "vault_path"}
# Seed variables with no meaning here, and what to do instead.
SEED_NOT_READ = {
    "CORTEXGRAPH_STORAGE_PATH": (
        "is not read: Engram keeps its own store (ENGRAM_STORAGE_PATH); bring the seed's "
        "memories over with `engram import cortexgraph <that directory>`"
    ),
}
# Names the project's own tooling uses (test and benchmark servers): not settings.
TOOLING_PREFIXES = ("ENGRAM_TEST_", "ENGRAM_BENCH_")

_told: set[str] = set()


def seed_values(
    environ: Mapping[str, str], settings: Collection[str], engram_set: Collection[str]
) -> dict[str, str]:
    """Setting name → value for the seed's variables in `environ` whose Engram name is unset
    (`engram_set`: the `ENGRAM_*` names given in the environment or in .env files)."""
    found: dict[str, str] = {}
    for var, value in sorted(environ.items()):
        if var in SEED_RENAMED:
            name = SEED_RENAMED[var]
        elif var.startswith(SEED_PREFIX):
            name = var[len(SEED_PREFIX) :].lower()
        else:
            continue
        ours = ENV_PREFIX + name.upper()
        if var in SEED_NOT_READ:
            tell(f"{var} {SEED_NOT_READ[var]}")
        elif name not in settings:
            tell(f"{var} is not read: Engram has no setting {ours}")
        elif ours in engram_set:
            tell(f"{var} is not read: {ours} is set and wins")
        else:
            tell(f"{var} is read as {ours}; rename it (the seed's names are read for migration)")
            found[name] = value
    return found


def seed_variable(name: str, environ: Collection[str]) -> str | None:
    """The seed's variable for setting `name` that `environ` has, if any."""
    for var, setting in SEED_RENAMED.items():
        if setting == name and var in environ:
            return var
    var = SEED_PREFIX + name.upper()
    return var if var in environ and var not in SEED_NOT_READ else None


def warn_unknown(environ: Collection[str], settings: Collection[str]) -> None:
    """A warning for each `ENGRAM_*` variable that names no setting, with the closest one:
    compared without the prefix every name shares, which made any name close to some setting
    (ENGRAM_BOGUS_SETTING "meant" ENGRAM_LOG_LEVEL: a probe)."""
    names = sorted(s.upper() for s in settings)
    for var in sorted(environ):
        if (
            not var.startswith(ENV_PREFIX)
            or var.startswith(TOOLING_PREFIXES)
            or var[len(ENV_PREFIX) :].lower() in settings
        ):
            continue
        close = difflib.get_close_matches(var[len(ENV_PREFIX) :], names, n=1, cutoff=0.6)
        hint = f"; did you mean {ENV_PREFIX}{close[0]}?" if close else ""
        tell(f"{var} is not an Engram setting and is ignored{hint}")


def tell(line: str) -> None:
    """A notice on stderr (stdout may be an MCP channel), once per process."""
    if line not in _told:
        _told.add(line)
        print(f"engram: {line}", file=sys.stderr)
