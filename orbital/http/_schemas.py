"""Request and response bodies (msgspec Structs; the OpenAPI schema is generated from them)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import msgspec


class Health(msgspec.Struct, frozen=True):
    status: str
    version: str
    backend: str
    head: int


class HistoryEvent(msgspec.Struct, frozen=True):
    """One event: who recorded it, when, and a one-line summary beside the full payload."""

    position: int
    recorded_at: dt.datetime
    stream: str
    type: str
    actor: str
    session: str | None
    summary: str
    data: dict[str, Any]


class History(msgspec.Struct, frozen=True):
    project: str
    events: list[HistoryEvent]


class WorkbenchProject(msgspec.Struct, frozen=True):
    project_id: str
    root: str
    timezone: str


class Workbench(msgspec.Struct, frozen=True):
    """The person's overview: the projects their credential reaches."""

    projects: list[WorkbenchProject]
