"""When an editor pass may start: the pure decision behind the single-flight scheduler.

A pass costs a model call of minutes, so automatic passes are rationed: only when a memory
file is over its soft budget and something changed since the last pass, at most every 30
minutes per project, and never twice within the debounce window. An agent's explicit request
(a checkpoint) and the pass at the end of a session whose transcript it reads (its lessons
from the person's corrections are the reason to run) skip the budget and interval gates but
not the debounce; ``orbital editor run --force`` skips everything except single flight — two
passes over the same files would race.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal

Trigger = Literal["auto", "requested", "session_end", "forced"]
Verdict = Literal["run", "in_flight", "debounced", "no_delta", "not_needed", "too_soon"]

AUTO_INTERVAL = dt.timedelta(minutes=30)
DEBOUNCE = dt.timedelta(minutes=5)


@dataclass(frozen=True, slots=True)
class PassHistory:
    """What is known about a project's passes."""

    #: Start of the last pass that completed (the watermark); None if none ever did.
    last_run_at: dt.datetime | None = None
    #: When the last pass was started, successful or not.
    last_started_at: dt.datetime | None = None
    in_flight: bool = False


def decide_schedule(
    history: PassHistory, now: dt.datetime, trigger: Trigger, *, over_soft: bool, changed: bool
) -> Verdict:
    """``"run"`` or the reason not to start a pass now."""
    if history.in_flight:
        return "in_flight"
    if trigger == "forced":
        return "run"
    if history.last_started_at is not None and now - history.last_started_at < DEBOUNCE:
        return "debounced"
    if trigger in ("requested", "session_end"):
        return "run"
    if not changed:
        return "no_delta"
    if not over_soft:
        return "not_needed"
    if history.last_run_at is not None and now - history.last_run_at < AUTO_INTERVAL:
        return "too_soon"
    return "run"
