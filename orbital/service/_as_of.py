"""An as-of resolved to a place in the log: the one rule every read "as of" goes through
(files, the view, beliefs, workspace texts), so a date means the same everywhere."""

from __future__ import annotations

import datetime as dt

from orbital.clock import Clock, end_of_day
from orbital.errors import InvalidInput, NotFound, UnknownBase
from orbital.store import EventStore, Reader

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
            head = r.span(project)[1]
            if when > head:  # a version that does not exist (yet): not found
                raise NotFound(
                    f"@{when} is past the head of the log (@{head}): nothing is recorded "
                    f"there yet; read as of @{head} or before, or without an as-of for now"
                )
            instant = r.recorded_at(project, when)
            return when, instant or clock.now()
        if not isinstance(when, dt.datetime):  # a date: the end of that day, project's time
            when = end_of_day(when, found.tz())
        return r.position_at(project, when), when


def check_base(r: Reader, project: str, base: int) -> None:
    """A version a writer says it read (``--base``, ``If-Match``, MCP ``base``) must be one
    a read of this project can have given: 0 (a file never written), or a position from the
    project's first event to the head of the log. Anything else would be decided against a
    state the writer never saw (an empty file before the project began, a future): a
    conflict, as a base that changed since is (HTTP 409), not a malformed request."""
    if base < 0:
        raise InvalidInput(f"a version is a position, 0 or more, not {base}")
    first, head = r.span(project)
    if base == 0 or first <= base <= head:
        return
    where = "older than the project's first event" if base < first else "past the head of the log"
    raise UnknownBase(base, where, first, head)
