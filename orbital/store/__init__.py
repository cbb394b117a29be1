"""The event store (shell layer).

:class:`EventStore` hands out transactions: a :class:`Reader` (every read) or a
:class:`Writer` (a Reader that also appends and records snapshots, checkpoints, projects and
credentials, under the single write lock).
"""

from orbital.store._appends import AppendResult
from orbital.store._base import Reducer
from orbital.store._credentials import StoredCredential, StoredPageSession
from orbital.store._engine import has_wal_reset_fix
from orbital.store._reads import Reader
from orbital.store._snapshots import Checkpoint
from orbital.store._store import EventStore, StoreStatus
from orbital.store._writer import Writer

__all__ = [
    "AppendResult",
    "Checkpoint",
    "EventStore",
    "Reader",
    "Reducer",
    "StoreStatus",
    "StoredCredential",
    "StoredPageSession",
    "Writer",
    "has_wal_reset_fix",
]
