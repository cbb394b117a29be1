"""The calendar feed: a project's dated memory as iCalendar (RFC 5545) for a calendar app.

Two kinds of line carry a day: an open ask's due (``- open … due:YYYY-MM-DD[THH:MM]``) and a
PROJECT_STATE fact tagged ``[due:YYYY-MM-DD[THH:MM]]``. Each becomes one event whose UID is
made of the ask's or entry's id, so a calendar app that polls the feed sees the same event
move, not a new one, when the line is reworded or its due changes; a closed ask or a fact
that left the live file is simply absent, which removes its event.

The render is pure: everything it says comes from the asks' and the entries' folded state, so
``DTSTAMP`` is the day of the line's last change (not the time of the request) and two renders
of the same state are the same bytes.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import TYPE_CHECKING

from orbital.catalogue import MEMORY_PREFIXES, PROJECT_STREAM
from projections._contract import Projector

if TYPE_CHECKING:
    from icalendar import Event

    from orbital.domain.asks import Ask
    from orbital.grammar.model import FileState

_PRODUCT = "-//Orbital//orbital-memory calendar//EN"


class CalendarProjector(Projector):
    """One project's feed: its open asks with a due and its dated PROJECT_STATE facts."""

    name = "calendar"
    reads = ("ask:", *MEMORY_PREFIXES, f"{PROJECT_STREAM}:")  # the project's name too

    def render(self, project: str, title: str, asks: Iterable[Ask], state: FileState) -> str:
        """The feed's text (CRLF lines, as RFC 5545 has them); ``title``: the project's
        display name, what the calendar app calls the feed."""
        from icalendar import Calendar

        calendar = Calendar()
        calendar.add("prodid", _PRODUCT)
        calendar.add("version", "2.0")
        calendar.add("calscale", "GREGORIAN")
        calendar.add("x-wr-calname", f"Orbital: {title}")
        for ask in sorted(asks, key=lambda a: (a.due or "", a.id)):
            if ask.state == "open" and ask.due:
                calendar.add_component(
                    _event(
                        f"ask-{ask.id}@{project}.orbital",
                        ask.text,
                        ask.due,
                        ask.updated,
                        f"Ask {ask.id}, opened {ask.opened.isoformat()}: waiting on you. "
                        "Close it in the Workbench or in orbital/ASKS.md.",
                    )
                )
        from orbital.grammar.state_blocks import dated_fact

        for entry_id in state.live_ids():
            entry = state.entries[entry_id]
            dated = dated_fact(entry.text)
            if dated is not None:
                due, words = dated
                calendar.add_component(
                    _event(
                        f"state-{entry_id}@{project}.orbital",
                        words,
                        due,
                        entry.touched,
                        f"From PROJECT_STATE.md (entry {entry_id}).",
                    )
                )
        feed: bytes = calendar.to_ical()
        return feed.decode()


def _start(due: str) -> dt.date | dt.datetime:
    """A due (the grammar checked it is a real day) as the event's start: a day (an all-day
    event) or a local time, floating: the project's people read a due in their own day."""
    from orbital.grammar.asks_md import due_value

    start = due_value(due)
    assert start is not None  # an ask's due and a dated fact's are checked when read
    return start


def _event(uid: str, summary: str, due: str, changed: dt.date, description: str) -> Event:
    from icalendar import Event

    event = Event()
    event.add("uid", uid)
    event.add("summary", summary)
    event.add("dtstart", _start(due))
    event.add("dtstamp", dt.datetime.combine(changed, dt.time(), dt.UTC))
    event.add("description", description)
    event.add("categories", ["Orbital"])
    return event


CALENDAR_PROJECTOR = CalendarProjector()
