"""The write API: a :class:`Writer` is one write transaction holding the store's write lock."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from orbital.store._base import Host, category
from orbital.store._credentials import CredentialWrites
from orbital.store._db import Conn
from orbital.store._keys import KeyWrites
from orbital.store._logged import LoggedWrites
from orbital.store._projects import ProjectWrites
from orbital.store._purge import PurgeWrites
from orbital.store._reads import Reader
from orbital.store._search import SearchWrites
from orbital.store._snapshots import Checkpoint, SnapshotWrites

if TYPE_CHECKING:
    from orbital.project import Project


class Writer(
    ProjectWrites,
    LoggedWrites,
    SnapshotWrites,
    CredentialWrites,
    PurgeWrites,
    SearchWrites,
    KeyWrites,
    Reader,
):
    """One write transaction: reads inside it see a stable state, appends commit together.

    Obtained from :meth:`EventStore.writing`; on SQLite it holds the write lock from its first
    statement (``BEGIN IMMEDIATE``), on PostgreSQL an exclusive lock on ``events``; so
    load → decide → append cannot interleave with another writer.
    """

    def __init__(self, store: Host, conn: Conn) -> None:
        super().__init__(store, conn)
        self._on_commit: list[Callable[[], None]] = []
        self._on_rollback: list[Callable[[], None]] = []
        # Nothing else writes while this transaction holds the lock, so what it read of
        # heads and checkpoints stays true until it changes them itself.
        self._heads: dict[tuple[str, str], int] = {}
        self._checkpoints: dict[tuple[str, str], Checkpoint | None] = {}

    def on_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the transaction committed (e.g. publish a cached state:
        state read inside a transaction that rolls back must never be cached)."""
        self._on_commit.append(callback)

    def on_rollback(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` if the transaction does not commit (e.g. put a file back)."""
        self._on_rollback.append(callback)

    def prefix_head(self, project: str, prefix: str) -> int:
        key = (project, prefix)
        if key not in self._heads:
            self._heads[key] = super().prefix_head(project, prefix)
        return self._heads[key]

    def checkpoint(self, checkout: Project, name: str) -> Checkpoint | None:
        key = (checkout.checkout, name)
        if key not in self._checkpoints:
            self._checkpoints[key] = super().checkpoint(checkout, name)
        return self._checkpoints[key]

    def set_checkpoint(self, checkout: Project, name: str, checkpoint: Checkpoint) -> None:
        super().set_checkpoint(checkout, name, checkpoint)
        self._checkpoints[checkout.checkout, name] = checkpoint

    def _appended(self, project: str, stream: str, last_position: int) -> None:
        name = category(stream)  # the newest position now, for every prefix covering it
        for known, prefix in list(self._heads):
            covers = name == prefix[:-1] if prefix.endswith(":") else name.startswith(prefix)
            if known == project and covers:
                self._heads[known, prefix] = last_position
