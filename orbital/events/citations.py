"""Citation events: the files an entry cites and what became of them (issue 29).

Streams: ``entry:<entry_id>``, beside the entry's other events, so its history shows when a
cited file moved and who confirmed it, and an as-of read folds them like any other change.
The shell observes the files (their bytes hashed when their stat changed); whether an
observation is an event is decided by :mod:`orbital.domain.citations`.
"""

from __future__ import annotations

import datetime as dt

import msgspec

from orbital.events._base import Event


class Cite(msgspec.Struct, frozen=True):
    """One cited file (``lines``: a range of it, ``""`` the whole) and the SHA-256 of the
    cited content (``""``: the file is gone)."""

    path: str
    lines: str = ""
    hash: str = ""


class EntryCited(Event, frozen=True, tag="entry.cited"):
    """The entry cites ``cites`` as they are now: written with the entry's text (created or
    rewritten), or ``confirmed`` by the agent or the person after a cited file moved."""

    entry_id: str
    cites: tuple[Cite, ...]
    date: dt.date
    confirmed: bool = False


class CitationChecked(Event, frozen=True, tag="entry.citation_checked"):
    """A check found the entry's citation of ``path`` (``lines``) at a new ``hash`` (``""``:
    gone): it no longer matches what was cited, or matches again."""

    entry_id: str
    path: str
    lines: str
    hash: str
    date: dt.date


CITATION_EVENTS: tuple[type[Event], ...] = (EntryCited, CitationChecked)
