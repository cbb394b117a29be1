"""An as-of resolved to a place in the log: the one rule every read "as of" goes through
(files, the view, beliefs, workspace texts), so a date means the same everywhere."""

from __future__ import annotations

import datetime as dt

from orbital.clock import Clock, end_of_day
from orbital.errors import InvalidInput
from orbital.store import EventStore

#: An as-of: an instant, or a position in the log (None: now).
AsOf = dt.datetime | dt.date | int | None


def resolve_as_of(
    store: EventStore, clock: Clock, project: str, when: AsOf
) -> tuple[int, dt.datetime] | None:
    """``when`` (an instant, a date: the end of that day in the project's timezone, or a
    position) as ``(position, instant)``; None for now."""
    if when is None:
        return None
    with store.reader() as r:
        found = r.project(project)
        if isinstance(when, int):
            if when < 0:
                raise InvalidInput(f"a position is 0 or more, not {when}")
            instant = r.recorded_at(project, when)
            return when, instant or clock.now()
        if not isinstance(when, dt.datetime):  # a date: the end of that day, project's time
            when = end_of_day(when, found.tz())
        return r.position_at(project, when), when
