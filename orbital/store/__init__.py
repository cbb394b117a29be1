"""The event store (shell layer).

:class:`EventStore` hands out transactions: a :class:`Reader` (every read) or a
:class:`Writer` (a Reader that also appends and records snapshots, checkpoints, projects and
credentials, under the single write lock). The names below load on first use (PEP 562): the
quick reader (``_quick.py``) is importable alone. A SQLite store runs on its driver and never
imports SQLAlchemy; PostgreSQL runs through it (:mod:`orbital.store._db`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from orbital.lazy import lazy_names

if TYPE_CHECKING:
    from orbital.store._appends import AppendResult
    from orbital.store._base import Reducer
    from orbital.store._credentials import StoredCredential, StoredPageSession
    from orbital.store._follow import LogWatch
    from orbital.store._keys import Projected
    from orbital.store._reads import Reader
    from orbital.store._rescue import Rescued, rescue_store
    from orbital.store._snapshots import Checkpoint
    from orbital.store._sqlite_lib import has_wal_reset_fix
    from orbital.store._store import EventStore, StoreStatus
    from orbital.store._writer import Writer

_WHERE = {
    "AppendResult": "orbital.store._appends",
    "Checkpoint": "orbital.store._snapshots",
    "EventStore": "orbital.store._store",
    "LogWatch": "orbital.store._follow",
    "Projected": "orbital.store._keys",
    "Reader": "orbital.store._reads",
    "Reducer": "orbital.store._base",
    "Rescued": "orbital.store._rescue",
    "rescue_store": "orbital.store._rescue",
    "StoreStatus": "orbital.store._store",
    "StoredCredential": "orbital.store._credentials",
    "StoredPageSession": "orbital.store._credentials",
    "Writer": "orbital.store._writer",
    "has_wal_reset_fix": "orbital.store._sqlite_lib",
}

__all__ = [
    "AppendResult",
    "Checkpoint",
    "EventStore",
    "LogWatch",
    "Projected",
    "Reader",
    "Reducer",
    "Rescued",
    "StoreStatus",
    "StoredCredential",
    "StoredPageSession",
    "Writer",
    "has_wal_reset_fix",
    "rescue_store",
]


__getattr__ = lazy_names(__name__, _WHERE)
