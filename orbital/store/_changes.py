"""A cheap "has anything been committed since?" for in-process caches of reads.

SQLite's ``PRAGMA data_version`` on a connection of its own changes whenever any other
connection (another process, or this process's writer) commits to the file, and costs a few
microseconds, where a read transaction through the pool costs a few hundred: a cache keyed
by it answers a repeated read with no query at all.

PostgreSQL has no such number; there a long-lived process (a server) counts notifications
instead: every table sends ``NOTIFY orbital_changes`` when a statement changes it (migration
0015), delivered when its transaction commits, and a thread of :class:`NotifiedChanges`
``LISTEN``s on a connection of its own. Another process's commit reaches the count a moment
after it is visible (the notification's trip); this process's own commits count at once. A
short-lived process never listens (the connection would cost more than the reads it saves),
and while the listener is not connected the number is unknown: the caller reads the store.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pysqlite3.dbapi2 as sqlite_dbapi

#: Numbers of a later connection never repeat an earlier one's (they restart at 1).
_GENERATION = 1 << 40


class ChangeCounter:
    """The store's commit counter (:meth:`value`), on a connection that never writes."""

    def __init__(self, path: Path | None) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._conn: sqlite_dbapi.Connection | None = None
        self._generation = 0

    def value(self) -> int | None:
        """A number that differs from every earlier one once anyone committed to the store;
        None when unknown (PostgreSQL, or the file cannot be read): then read the store."""
        if self._path is None:
            return None
        with self._lock:
            try:
                if self._conn is None:
                    self._generation += 1
                    self._conn = sqlite_dbapi.connect(
                        f"file:{quote(str(self._path))}?mode=rw",  # never creates the file
                        uri=True,
                        isolation_level=None,
                        check_same_thread=False,
                    )
                row = self._conn.execute("PRAGMA data_version").fetchone()
                return self._generation * _GENERATION + int(row[0])
            except sqlite_dbapi.Error:
                self._drop()
                return None

    def committed(self) -> None:
        """This process committed: SQLite's number shows it already."""

    def close(self) -> None:
        with self._lock:
            self._drop()

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


#: The channel every table's statement-level trigger notifies (migration 0015).
CHANNEL = "orbital_changes"


class NotifiedChanges:
    """PostgreSQL's commit counter for a long-lived process: notifications counted by a
    listening thread, plus this process's own commits."""

    def __init__(self, url: str, *, retry: float = 0.5) -> None:
        self._url = url
        self._retry = retry
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._listening = False
        self._generation = 0
        self._count = 0
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Listen from now on (idempotent); the number is known once connected."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._listen, name="orbital-changes", daemon=True
            )
            self._thread.start()

    def value(self) -> int | None:
        with self._lock:
            return self._generation * _GENERATION + self._count if self._listening else None

    def committed(self) -> None:
        with self._lock:
            self._count += 1

    def wait_listening(self, timeout: float) -> bool:
        """Whether the listener is connected within ``timeout`` seconds (for a start-up that
        wants its first requests answered from what it keeps)."""
        deadline = time.monotonic() + timeout
        while self.value() is None:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)
        return True

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def _listen(self) -> None:
        import psycopg

        from orbital.store._pg_db import conninfo

        dsn = conninfo(self._url)
        while not self._stop.is_set():
            conn: Any = None
            try:
                conn = psycopg.connect(dsn, autocommit=True)
                conn.execute(f"LISTEN {CHANNEL}")
                with self._lock:  # a new generation: no number of the last one repeats
                    self._generation += 1
                    self._count = 0
                    self._listening = True
                while not self._stop.is_set():
                    for _ in conn.notifies(timeout=0.1):  # how soon close() is heard
                        with self._lock:
                            self._count += 1
            except psycopg.Error:
                pass
            finally:
                with self._lock:
                    self._listening = False
                if conn is not None:
                    conn.close()
            self._stop.wait(self._retry)
