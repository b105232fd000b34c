"""Engram: local-first memory for AI assistants, with human-like decay and reinforcement."""

from engram.api import Engram
from engram.clock import FixedClock
from engram.core.models import Memory, Relation, Status
from engram.errors import ConfigError, EngramError, NotFoundError, StoreError, ValidationError
from engram.services.memories import Draft

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
