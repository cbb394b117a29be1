"""The whole write path of one memory file, pure: parse, decide, fold, render."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet

from msgspec.structs import replace

from orbital.domain.entries import fold_file
from orbital.domain.writes import Decision, decide_write
from orbital.events._base import Event
from orbital.grammar.model import FileState
from orbital.grammar.parse import parse_proposed
from orbital.grammar.state_blocks import malformed_dues
from orbital.grammar.text import to_lf


def decide_file_write(
    state: FileState,
    proposed: str,
    today: dt.date,
    *,
    mint: Callable[[], str],
    ever_used: AbstractSet[str],
) -> Decision:
    """Events (and warnings) for a writer's proposed full text of ``state.key``'s file; its
    line endings are no part of it (``\r\n`` reads as ``\n``). A PROJECT_STATE ``[due:…]`` tag
    that is not a date is kept, with a warning."""
    doc = parse_proposed(state, to_lf(proposed))
    decision = decide_write(state, doc, today, mint=mint, ever_used=ever_used)
    if state.key != "state" or not (lint := malformed_dues(to_lf(proposed))):
        return decision
    return replace(decision, warnings=(*decision.warnings, *lint))


def apply(state: FileState, events: Iterable[Event]) -> FileState:
    """``state`` after ``events`` (the shell renders the result with ``render_file``)."""
    return fold_file(state.key, events, state)
