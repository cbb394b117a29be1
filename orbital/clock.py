"""The injectable clock.

Pure code never reads the time: the shell asks a :class:`Clock` and passes the value down.
``ORBITAL_NOW`` pins "now" for reproducible runs and tests.
"""

from __future__ import annotations

import os
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import NamedTuple, Protocol

from orbital.errors import InvalidInput


class Clock(Protocol):
    def now(self) -> datetime:
        """The current instant, timezone-aware, in UTC."""
        ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class FixedClock(NamedTuple):
    at: datetime

    def now(self) -> datetime:
        return self.at


def day_or_none(value: str | None) -> date | None:
    """``value`` as an ISO day (YYYY-MM-DD); None when it is missing or not one."""
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def parse_instant(text: str) -> datetime:
    """Parse an ISO 8601 instant; a naive value is taken as UTC."""
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        raise InvalidInput(
            f"{text!r} is not an ISO 8601 date or time (e.g. 2026-11-01 or 2026-11-01T09:30:00Z)"
        ) from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise InvalidInput(f"{text!r} is out of range once taken to UTC") from None


def clock_from_env(environ: dict[str, str] | None = None) -> Clock:
    """``ORBITAL_NOW`` set: a fixed clock at that instant; otherwise the system clock."""
    env = os.environ if environ is None else environ
    pinned = env.get("ORBITAL_NOW", "").strip()
    if pinned:
        try:
            return FixedClock(parse_instant(pinned))
        except InvalidInput as exc:
            raise InvalidInput(f"ORBITAL_NOW: {exc}") from None
    return SystemClock()


#: The largest log position a store can hold (a signed 64-bit integer column).
MAX_POSITION = 2**63 - 1


def parse_as_of(value: str | None) -> datetime | date | int | None:
    """An as-of as people write it: an ISO 8601 instant, a date (``YYYY-MM-DD``: the whole of
    that day, resolved with the project's timezone by :func:`end_of_day`), or ``@N`` for log
    position N."""
    if value is None:
        return None
    if value.startswith("@"):
        if not value[1:].isdigit():
            raise InvalidInput(f"{value!r} is not a position: write @ and a number, e.g. @120")
        position = int(value[1:])
        if position > MAX_POSITION:
            raise InvalidInput(f"{value!r} is not a position: positions end at @{MAX_POSITION}")
        return position
    text = value.strip()
    day = day_or_none(text) if len(text) == 10 else None
    return day if day is not None else parse_instant(value)


def end_of_day(day: date, tz: tzinfo) -> datetime:
    """The last instant of ``day`` in ``tz``, in UTC: "as of 1 November" is what was true at
    the end of that day where the project is, so it includes what was written that day."""
    try:
        midnight = datetime.combine(day + timedelta(days=1), time(), tz).astimezone(UTC)
    except OverflowError:  # the last day there is: its end is after everything
        return datetime.max.replace(tzinfo=UTC)
    return midnight - timedelta(microseconds=1)
