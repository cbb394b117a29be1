"""A cheap "has anything been committed since?" for in-process caches of reads.

SQLite's ``PRAGMA data_version`` on a connection of its own changes whenever any other
connection (another process, or this process's writer) commits to the file, and costs a few
microseconds, where a read transaction through the pool costs a few hundred: a cache keyed
by it answers a repeated read with no query at all. PostgreSQL has no such number, so there
the caller reads as before.
"""

from __future__ import annotations

import threading
from pathlib import Path
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

    def close(self) -> None:
        with self._lock:
            self._drop()

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
