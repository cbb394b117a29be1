"""One-transaction shortcuts for the store tests: the store itself only hands out
transactions (a Reader or a Writer)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Required, TypedDict, Unpack

from orbital.events import Actor, Event, RecordedEvent
from orbital.project import Project
from orbital.store import AppendResult, EventStore


class AppendOptions(TypedDict, total=False):
    """The keyword arguments of :meth:`orbital.store.Writer.append`."""

    expected_version: Required[int | None]
    actor: Required[Actor]
    session: str | None


def append(
    store: EventStore,
    project: str,
    stream: str,
    batch: Sequence[Event],
    **options: Unpack[AppendOptions],
) -> AppendResult:
    with store.writing() as w:
        return w.append(project, stream, batch, **options)


def register(store: EventStore, root: str | Path, *, timezone: str = "") -> Project:
    with store.writing() as w:
        return w.register_project(root, timezone=timezone)


def all_events(store: EventStore, project: str) -> list[RecordedEvent]:
    with store.reader() as r:
        return list(r.read_project(project))
