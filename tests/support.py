"""Constants shared by tests."""

from __future__ import annotations

from datetime import UTC, datetime

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
