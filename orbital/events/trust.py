"""Trust events: whether a durable entry is still believed (issue 16).

Streams: ``entry:<entry_id>``, beside the entry's other events, so the entry's history shows
its trust changes in order and an as-of read folds them like any other change. Who may record
which is decided by the trust deciders (:mod:`orbital.domain.trust`), never by these types:
the person disputes, retracts and reaffirms; an agent's ``Supersedes:`` line or the editor's
merge supersedes. Moving a superseded or retracted entry out of the live file is a separate
``entry.archived`` event, so the file fold and the archive keep one way of demoting.
"""

from __future__ import annotations

import datetime as dt

from orbital.events._base import Event


class EntryDisputed(Event, frozen=True, tag="entry.disputed"):
    """The person doubts the entry; ``reason`` is shown beside it in the view."""

    entry_id: str
    reason: str
    date: dt.date


class EntryRetracted(Event, frozen=True, tag="entry.retracted"):
    """The person says the entry is wrong: it leaves the view and the live file."""

    entry_id: str
    date: dt.date
    reason: str = ""


class EntryReaffirmed(Event, frozen=True, tag="entry.reaffirmed"):
    """The person holds the entry true again (after a dispute, a retraction or a supersession)."""

    entry_id: str
    date: dt.date
    reason: str = ""


class EntrySuperseded(Event, frozen=True, tag="entry.superseded"):
    """Newer entries ``by`` replace this one; ``since`` is when that took effect (None: the
    day it was recorded, ``date``)."""

    entry_id: str
    by: tuple[str, ...]
    date: dt.date
    since: dt.date | None = None


class EntryRestates(Event, frozen=True, tag="entry.restates"):
    """A new entry says again what the superseded or retracted entry ``restates`` said: the
    writer was warned, and the two are linked."""

    entry_id: str
    restates: str
    date: dt.date


class EntryRetractedRepeat(Event, frozen=True, tag="entry.retracted_repeat"):
    """Audit, on the retracted entry's stream: an agent's new entry ``new_entry`` said again
    what this one said, and was not added: refused (certainly the same) or held (possibly;
    written again naming this entry on a ``Distinct from:`` line it is taken)."""

    entry_id: str
    new_entry: str
    text: str
    date: dt.date
    held: bool


TRUST_EVENTS: tuple[type[Event], ...] = (
    EntryDisputed,
    EntryRetracted,
    EntryReaffirmed,
    EntrySuperseded,
    EntryRestates,
    EntryRetractedRepeat,
)
