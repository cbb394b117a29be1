"""The citations fold: an entry's cited files after one citation event (issue 29).

Apart from the deciders (:mod:`orbital.domain.citations`) so the entry fold can use it
without importing them.
"""

from __future__ import annotations

import datetime as dt

from msgspec.structs import replace

from orbital.events._base import Event
from orbital.events.citations import CitationChecked, EntryCited
from orbital.grammar.model import Citation


def fold_citations(citations: tuple[Citation, ...], event: Event) -> tuple[Citation, ...]:
    """``citations`` after one citation event: a citation sets them all as they are now; a
    check moves the one it names, remembering the day it first stopped matching."""
    match event:
        case EntryCited(cites=cites):
            return tuple(Citation(c.path, c.lines, c.hash, c.hash) for c in cites)
        case CitationChecked(path=path, lines=lines, hash=seen, date=day):
            return tuple(
                _observed(c, seen, day) if (c.path, c.lines) == (path, lines) else c
                for c in citations
            )
    return citations


def _observed(cited: Citation, seen: str, day: dt.date) -> Citation:
    if seen == cited.hash:
        return replace(cited, seen=seen, since=None)
    since = cited.since if cited.moved else day
    return replace(cited, seen=seen, since=since)
