"""The event store (shell layer). Public API: :class:`EventStore` and its value types."""

from orbital.store._schema import credential_projects, credentials
from orbital.store._store import (
    AppendResult,
    Checkpoint,
    EventStore,
    Project,
    Reader,
    Reducer,
    Writer,
    category,
)

__all__ = [
    "AppendResult",
    "Checkpoint",
    "EventStore",
    "Project",
    "Reader",
    "Reducer",
    "Writer",
    "category",
    "credential_projects",
    "credentials",
]
