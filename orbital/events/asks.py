"""Ask events (stream ``ask:<id>``; audit events on stream ``asks``).

An ask's state is its last event. ``date`` is the project-local calendar day the event
carries in ASKS.md (it can differ from ``recorded_at``, e.g. for migrated legacy lines).
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from orbital.events._base import Event


class AskOpened(Event, frozen=True, tag="ask.opened"):
    ask_id: str
    text: str
    date: dt.date
    due: str | None = None
    #: Where the ask came from when it was not typed as an ``- open`` line (legacy migration).
    provenance: str | None = None


class AskClosed(Event, frozen=True, tag="ask.closed"):
    ask_id: str
    kind: Literal["done", "dropped"]
    date: dt.date
    #: The ``by:`` written in ASKS.md (user/agent/editor); derived from the actor on new writes.
    by: str
    note: str = ""


class AskReopened(Event, frozen=True, tag="ask.reopened"):
    ask_id: str
    date: dt.date
    by: str
    note: str = ""


class AskOpenRefused(Event, frozen=True, tag="ask.open_refused"):
    """Audit: an agent tried to open an ask and was refused (nothing else changed)."""

    text: str
    reason: str
    message: str
    ask_id: str | None = None


ASK_EVENTS: tuple[type[Event], ...] = (AskOpened, AskClosed, AskReopened, AskOpenRefused)
