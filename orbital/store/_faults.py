"""Driver errors that mean something to the person: the lock held too long, a read-only or
full store, a damaged database file. Each becomes Orbital's typed error (one ``error:`` line
on the CLI, a problem type of its own on HTTP) instead of a stack trace or a bare 500.

The error arrives as the driver's (pysqlite3's on SQLite) or wrapped by SQLAlchemy (psycopg's
on PostgreSQL, as ``.orig``); both are read here, by the DB-API's names, without importing
either library."""

from __future__ import annotations

import re

from orbital.errors import (
    DiskFull,
    OrbitalError,
    StoreCorrupt,
    StoreLocked,
    StoreReadOnly,
    StoreUnreachable,
)
from orbital.store._file import StoreFile

_LOCKED = re.compile(r"database is locked|database table is locked|busy", re.IGNORECASE)
#: PostgreSQL SQLSTATEs: lock_not_available, deadlock_detected; disk_full;
#: read_only_sql_transaction; data_corrupted, index_corrupted.
_PG_LOCKED = {"55P03", "40P01"}


def _driver_error(exc: BaseException) -> BaseException:
    """The DB-API exception itself (SQLAlchemy keeps it as ``orig``)."""
    orig = getattr(exc, "orig", None)
    return orig if isinstance(orig, BaseException) else exc


def _operational(orig: BaseException) -> bool:
    """A DB-API ``OperationalError`` (of whichever driver)."""
    return any(kind.__name__ == "OperationalError" for kind in type(orig).__mro__)


def _locked(exc: BaseException) -> bool:
    orig = _driver_error(exc)
    if getattr(orig, "sqlstate", None) in _PG_LOCKED:
        return True
    return _operational(orig) and bool(_LOCKED.search(str(orig)))


def fault(
    exc: BaseException, where: str, timeout_ms: int, file: StoreFile | None
) -> OrbitalError | None:
    """The typed error for a driver error, or None when it is none of these faults. ``file``
    (SQLite) is asked what SQLite does not say: a read-only filesystem shows as "unable to
    open" what cannot be created beside the store, a full one often as "disk I/O error"."""
    orig = _driver_error(exc)
    if _locked(orig):
        return StoreLocked(where, timeout_ms)
    name = str(getattr(orig, "sqlite_errorname", ""))
    sqlstate = getattr(orig, "sqlstate", None)
    if _unreachable(orig):
        return StoreUnreachable(where, _one_line(str(orig)))
    if name.startswith("SQLITE_READONLY") or sqlstate == "25006":
        return StoreReadOnly(where)
    if name == "SQLITE_CANTOPEN" and file is not None and file.read_only():
        return StoreReadOnly(where)
    full = name.startswith("SQLITE_IOERR") and file is not None and file.disk_full()
    if full or name == "SQLITE_FULL" or sqlstate == "53100":
        return DiskFull(where)
    if (
        name.startswith("SQLITE_CORRUPT")
        or name == "SQLITE_NOTADB"
        or sqlstate in {"XX001", "XX002"}
    ):
        return StoreCorrupt(where, str(orig))
    return None


def _unreachable(orig: BaseException) -> bool:
    """psycopg's failure to connect: an OperationalError with no SQLSTATE (no server answered
    one), whatever the cause (refused, no such host, no such database or role)."""
    return (
        _operational(orig)
        and type(orig).__module__.startswith("psycopg")
        and getattr(orig, "sqlstate", None) is None
    )


def _one_line(reason: str) -> str:
    """The driver's message on one line, without psycopg's "connection failed: " prefix."""
    reason = reason.removeprefix("connection failed: ")
    return " ".join(reason.split())
