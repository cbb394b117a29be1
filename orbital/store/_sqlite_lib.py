"""The SQLite library the store runs on and the pragmas every connection to it gets: the
runtime's own (:mod:`orbital.store._sqlite_db`) and Alembic's SQLAlchemy engine
(:mod:`orbital.store._engine`) alike, so both import them from here and neither the other."""

from __future__ import annotations

import os
from typing import Any

from orbital.errors import UnsafeSqlite

#: The lines that got the WAL-reset fix as a backport, and the release that has it.
_BACKPORTS: dict[tuple[int, ...], tuple[int, ...]] = {(3, 50): (3, 50, 7), (3, 44): (3, 44, 6)}


def has_wal_reset_fix(version: tuple[int, ...]) -> bool:
    """Whether a SQLite version has the WAL-reset fix: 3.51.3 on, or the 3.50.7 and 3.44.6
    backports within their own lines."""
    if version >= (3, 51, 3):
        return True
    backport = _BACKPORTS.get(version[:2])
    return backport is not None and version >= backport


def check_sqlite(driver: Any) -> None:
    """Refuse a SQLite without the fix, unless allowed; ``driver`` is the DB-API module the
    caller connects with (pysqlite3's ``dbapi2``), whose library is the one that counts."""
    if has_wal_reset_fix(driver.sqlite_version_info):
        return
    if os.environ.get("ORBITAL_ALLOW_UNFIXED_SQLITE", "").strip() != "1":
        raise UnsafeSqlite(driver.sqlite_version)


def set_pragmas(conn: Any, timeout_ms: int) -> None:
    """The store's pragmas, on every connection opened to it (also Alembic's)."""
    conn.execute(f"PRAGMA busy_timeout = {int(timeout_ms)}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")
