"""Conversions between aware datetimes (the API's unit) and epoch seconds (the maths' unit)."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo

DAY = 86_400.0  # seconds: settings and policies speak in days, the maths in seconds
# The start of the last day a datetime can name: a time computed past it cannot be shown.
LAST_DAY = datetime(9999, 12, 31, tzinfo=UTC).timestamp()


def to_epoch(moment: datetime) -> float:
    if moment.tzinfo is None:
        raise ValueError("datetimes must be timezone-aware")
    return moment.timestamp()


def from_epoch(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, tz=UTC)


def round_trips(moment: datetime) -> bool:
    """Whether a store, which keeps epoch seconds, gives `moment` back: 9999-12-31T23:59:59.999999
    (a common "never") rounds to the year 10000 there, and 0001-01-01T00:30+01:00 is in the year
    0 in UTC; every read of a memory holding one failed, its delete included."""
    if 1 < moment.year < 9999:  # far from both ends: the common case, without a conversion
        return True
    try:
        from_epoch(to_epoch(moment))
    except (ValueError, OverflowError, OSError):
        return False
    return True


def asker_local(moment: datetime) -> datetime:
    """`moment` as the asker's wall clock reads it: in this machine's time zone, unless it
    carries a zone of its own other than UTC (a clock set to the asker's zone). "Yesterday"
    and "last Friday" are counted in those days."""
    offset = moment.utcoffset()
    return moment if offset is not None and offset.total_seconds() != 0 else moment.astimezone()


def moment_in(moment: datetime, zone: tzinfo | None = None) -> str:
    """`moment` to the second in `zone` (this machine's if None), with its offset: the day a
    search hit says it was saved is that zone's too (`day_in`; a probe saw "saved 2026-12-05"
    beside "created 2026-12-04T22:56:48+00:00"). In UTC where the zone would leave the years 1
    to 9999."""
    try:
        return moment.astimezone(zone).isoformat(timespec="seconds")
    except OverflowError:
        return moment.astimezone(UTC).isoformat(timespec="seconds")


def day_in(moment: datetime, zone: tzinfo | None = None) -> str:
    """The ISO day `moment` falls on in `zone` (this machine's if None), as a search hit shows
    when its memory was saved; the UTC day where that day would fall outside the years 1 to
    9999 (0001-01-01T00:30Z is in the year 0 in New York)."""
    try:
        return moment.astimezone(zone).date().isoformat()
    except OverflowError:
        return moment.astimezone(UTC).date().isoformat()


def minute_in(moment: datetime, zone: tzinfo | None = None) -> str:
    """`moment` to the minute in `zone` ("2026-12-04 08:30"), as the dashboard shows when a
    memory was saved and used: beside `day_in`'s days, a UTC time without its zone named put
    one memory on two days. "… UTC" where the zone would leave the years 1 to 9999."""
    try:
        return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M")
    except OverflowError:
        return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


DATE_RANGE = "must be a date from the year 1 to 9999 in UTC"


def ensure_aware(moment: datetime, field: str) -> datetime:
    """Naive datetimes are ambiguous; refuse them with the field's name."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{field} must be timezone-aware (e.g. 2026-01-31T12:00:00+00:00)")
    return moment.astimezone(UTC)
