"""Waking a follower when the shared log moves, without polling the database.

PostgreSQL: a trigger on ``events`` (migration 0006) sends ``NOTIFY orbital_log`` in the
append's transaction, delivered when it commits; the follower ``LISTEN``s on a connection of
its own and sleeps in ``select`` until one arrives. SQLite: the follower watches the store's
files (a commit changes the WAL's size or mtime), a ``stat`` every few milliseconds that
never opens the database.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any


class LogWatch:
    """``wait(timeout)``: True once the log may have moved since the last call."""

    def __init__(self, url: str, sqlite_file: Path | None, interval: float = 0.02) -> None:
        self._interval = interval
        self._files = [] if sqlite_file is None else [sqlite_file, Path(f"{sqlite_file}-wal")]
        self._seen = self._stats()
        self._conn: Any = None
        if sqlite_file is None:
            import psycopg

            from orbital.store._pg_db import conninfo

            self._conn = psycopg.connect(conninfo(url), autocommit=True)
            self._conn.execute("LISTEN orbital_log")

    def _stats(self) -> list[tuple[int, int] | None]:
        found: list[tuple[int, int] | None] = []
        for path in self._files:
            try:
                info = path.stat()
            except FileNotFoundError:
                found.append(None)
                continue
            found.append((info.st_size, info.st_mtime_ns))
        return found

    def wait(self, timeout: float) -> bool:
        if self._conn is not None:
            moved = any(True for _ in self._conn.notifies(timeout=timeout, stop_after=1))
            if moved:  # the rest of a burst: one wake-up for all
                for _ in self._conn.notifies(timeout=0.001):
                    pass
            return moved
        deadline = time.monotonic() + timeout
        while True:
            now = self._stats()
            if now != self._seen:
                self._seen = now
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(self._interval)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
