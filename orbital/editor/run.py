"""One editor pass: the tool loop, then the choices applied in pure form.

The pass returns events; the service appends them (actor ``editor``) in one transaction after
making the backup. A failed model call yields ``outcome="failed"`` and no events at all.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal

import msgspec

from orbital.domain.asks import Asks
from orbital.domain.editor.apply import EntryChoicesApplier, apply_choices
from orbital.domain.editor.choices import Applied, parse_choices
from orbital.domain.editor.closes import MessagesOf
from orbital.editor.loop import LoopResult
from orbital.events import Event

Outcome = Literal["edited", "no_change", "failed"]


class RunRecord(msgspec.Struct, frozen=True, kw_only=True):
    """What a pass did, for ``editor-run.json`` and ``--json`` output."""

    outcome: Outcome
    calls: int
    choices: dict[str, object] | None
    applied: tuple[Applied, ...] = ()
    rejected: tuple[str, ...] = ()
    skipped_files: tuple[str, ...] = ()
    error: str = ""


@dataclass(frozen=True, slots=True)
class EditorRun:
    record: RunRecord
    #: Events to append with actor ``editor``; empty when the pass failed.
    events: tuple[Event, ...] = ()


def finish_run(
    loop: LoopResult,
    *,
    asks: Asks,
    today: dt.date,
    messages_of: MessagesOf,
    apply_entries: EntryChoicesApplier,
) -> EditorRun:
    """The events and record of a finished conversation. The service calls this inside its
    write transaction (with ``apply_entries`` bound to the state then and the baseline taken
    before the model call), so no write can slip between the OCC check and the append."""
    if loop.choices is None:
        record = RunRecord(outcome="failed", calls=loop.calls, choices=None, error=loop.error)
        return EditorRun(record)
    done = apply_choices(parse_choices(loop.choices), asks, today, messages_of, apply_entries)
    record = RunRecord(
        outcome=done.outcome,
        calls=loop.calls,
        choices=loop.choices,
        applied=done.applied,
        rejected=done.rejected,
        skipped_files=done.skipped_files,
    )
    return EditorRun(record, done.events)
