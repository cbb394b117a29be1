"""Memory-editor runs (stream ``editor``): the backup point, the run record, the watermark.

The edits a run makes are ordinary entry/file/ask events with actor ``editor``; these events
say *why* they happened and make each run auditable and undoable:

* ``editor.run_started`` — the backup. Every memory change is an event and the files are
  projections, so the state before the run is fully kept by the log: ``memory_position`` is
  the position the run starts from (after taking in any hand edit), and the files as they
  were render from it. The event is appended *before* the model is called; if it cannot be
  appended, nothing is edited.
* ``editor.run_recorded`` — what came of it: outcome, model calls, the choices document,
  what was applied, what was rejected and why, the files skipped by optimistic concurrency;
  a checkpoint's (trigger ``requested``) result reaches the agent's next reminder from it.
* ``editor.watermark_advanced`` — a run that succeeded with no skipped file: when it started
  and the memory position after the backstop (the scheduler's "changed since" gate).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import msgspec

from orbital.events._base import Event


class AppliedChoice(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One choice that took effect (kind ``archive``, ``merge``, ``index``, ``close_ask`` or
    ``lesson``)."""

    kind: str
    file: str = ""
    id: str = ""
    ids: tuple[str, ...] = ()
    session: str = ""


class EditorRunStarted(Event, frozen=True, tag="editor.run_started"):
    run_id: str
    #: ``auto``, ``requested``, ``session_end``, ``forced`` (a model pass) or ``apply``.
    trigger: str
    #: The newest memory event when the run started: the files render as of it.
    memory_position: int
    #: Per memory file, the position of the last event that changed it (the OCC baseline).
    #: Stored as ``versions`` before it was named for what it holds (upcast on decode).
    positions: dict[str, int] = msgspec.field(default_factory=dict)
    #: Why an agent asked for this pass (a checkpoint, ``requested``); empty otherwise.
    reason: str = ""


class EditorRunRecorded(Event, frozen=True, tag="editor.run_recorded"):
    run_id: str
    #: ``edited``, ``no_change`` or ``failed``.
    outcome: str
    calls: int = 0
    choices: dict[str, Any] | None = None
    applied: tuple[AppliedChoice, ...] = ()
    rejected: tuple[str, ...] = ()
    skipped_files: tuple[str, ...] = ()
    error: str = ""
    #: The run's trigger and an agent's reason, repeated from ``editor.run_started`` so that
    #: the reminder of a checkpoint's result reads this event alone.
    trigger: str = ""
    reason: str = ""


class EditorWatermarkAdvanced(Event, frozen=True, tag="editor.watermark_advanced"):
    run_id: str
    started_at: dt.datetime
    #: The newest memory event after the run and its backstop.
    memory_position: int


EDITOR_EVENTS: tuple[type[Event], ...] = (
    EditorRunStarted,
    EditorRunRecorded,
    EditorWatermarkAdvanced,
)
