"""Decode-time upcasting: a stored row in an older shape is read in today's shape.

Rows are immutable (triggers refuse UPDATE), so a field renamed or a value spelled another way
is fixed here, on every decode, never by rewriting the log. Only the types listed in
:data:`_UPCASTERS` pay anything, and only they may need the raw JSON again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from orbital.catalogue import ASKS_KEY, MEMORY_FILES
from orbital.events._base import Event
from orbital.events.editor import EditorRunStarted
from orbital.events.files import HandEditConflict, HandEditDetected, HandEditResolved

#: ASKS.md hand-edit events once stored the file name; every other file event stores the key.
_ASKS_NAME = MEMORY_FILES[ASKS_KEY]


def _asks_file_key(event: HandEditDetected | HandEditConflict | HandEditResolved) -> Event:
    if event.file == _ASKS_NAME:
        return msgspec.structs.replace(event, file=ASKS_KEY)
    return event


def _run_started_positions(event: EditorRunStarted, data: bytes | str) -> Event:
    if event.positions:
        return event
    stored = msgspec.json.decode(data, type=dict[str, Any])
    if "versions" not in stored:
        return event
    positions = msgspec.convert(stored["versions"], dict[str, int])
    return msgspec.structs.replace(event, positions=positions)


_UPCASTERS: dict[type[Event], Callable[[Any, bytes | str], Event]] = {
    HandEditDetected: lambda event, _: _asks_file_key(event),
    HandEditConflict: lambda event, _: _asks_file_key(event),
    HandEditResolved: lambda event, _: _asks_file_key(event),
    EditorRunStarted: _run_started_positions,
}


def upcast(event: Event, data: bytes | str) -> Event:
    """``event`` (decoded from ``data``) in today's shape."""
    fix = _UPCASTERS.get(type(event))
    return event if fix is None else fix(event, data)
