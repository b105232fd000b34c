"""Engram: local-first memory for AI assistants, with human-like decay and reinforcement.

The public names are imported on first use (PEP 562): `import engram` alone loads nothing
heavy, so the console script can catch a Ctrl-C pressed while the rest loads (it printed a
traceback for the first second of every command), and a tool importing one module of Engram
does not pay for all of them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engram.api import Engram
    from engram.clock import FixedClock
    from engram.core.models import Memory, Relation, Status
    from engram.errors import ConfigError, EngramError, NotFoundError, StoreError, ValidationError
    from engram.services.drafts import Draft

# Each public name and the module that defines it.
_PUBLIC = {
    "ConfigError": "engram.errors",
    "Draft": "engram.services.drafts",
    "Engram": "engram.api",
    "EngramError": "engram.errors",
    "FixedClock": "engram.clock",
    "Memory": "engram.core.models",
    "NotFoundError": "engram.errors",
    "Relation": "engram.core.models",
    "Status": "engram.core.models",
    "StoreError": "engram.errors",
    "ValidationError": "engram.errors",
}

__all__ = [
    "ConfigError",
    "Draft",
    "Engram",
    "EngramError",
    "FixedClock",
    "Memory",
    "NotFoundError",
    "Relation",
    "Status",
    "StoreError",
    "ValidationError",
]
__version__ = "0.1.0"


if not TYPE_CHECKING:  # a checker sees the imports above: `from engram import Nonsense` passed

    def __getattr__(name: str) -> Any:
        module = _PUBLIC.get(name)
        if module is None:
            raise AttributeError(f"module 'engram' has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value  # found directly from now on
        return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_PUBLIC])
