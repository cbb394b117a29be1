"""Engines for the event store.

SQLite needs care to be a safe multi-process store (DESIGN.md §8):

* writes start with ``BEGIN IMMEDIATE``, taking the write lock before the first read, so a
  read-decide-append transaction waits for ``busy_timeout`` instead of failing with
  "database is locked" when another process committed meanwhile (pysqlite's deferred BEGIN
  would). This is SQLAlchemy's documented recipe: disable pysqlite's own transaction handling
  on connect and emit BEGIN in the ``begin`` event;
* reads use a second engine with plain deferred transactions, so they never take the lock;
* ``journal_mode=WAL`` lets readers run beside the single writer; ``synchronous=FULL`` makes a
  returned commit durable across power loss, which is what we acknowledge (ARCHITECTURE.md);
* ``foreign_keys=ON`` so an event can never name an unregistered project;
* the SQLite library is pysqlite3's (a wheel with SQLite built in, passed to SQLAlchemy's
  pysqlite dialect as its DB-API module), not the Python build's: a store is written by a
  server, CLI runs and hooks at once, exactly the trigger of the WAL-reset corruption bug fixed
  in 3.51.3 (backports 3.50.7, 3.44.6). A SQLite without the fix is refused unless
  ``ORBITAL_ALLOW_UNFIXED_SQLITE=1``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import platformdirs
import pysqlite3.dbapi2 as sqlite_dbapi
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from orbital.errors import InvalidInput, UnsafeSqlite
from orbital.store._quick import has_wal_reset_fix

DEFAULT_BUSY_TIMEOUT_MS = 5000


def _default_directory() -> Path:
    return Path(platformdirs.user_data_dir("orbital", appauthor=False))


def default_url() -> str:
    """``ORBITAL_DB`` if set, else a SQLite file in the user data directory."""
    configured = os.environ.get("ORBITAL_DB", "").strip()
    if configured:
        return configured
    return f"sqlite:///{_default_directory() / 'orbital.db'}"


def busy_timeout_ms() -> int:
    raw = os.environ.get("ORBITAL_BUSY_TIMEOUT_MS", "").strip()
    return int(raw) if raw.isdigit() else DEFAULT_BUSY_TIMEOUT_MS


def _check_sqlite() -> None:
    if has_wal_reset_fix(sqlite_dbapi.sqlite_version_info):
        return
    if os.environ.get("ORBITAL_ALLOW_UNFIXED_SQLITE", "").strip() != "1":
        raise UnsafeSqlite(sqlite_dbapi.sqlite_version)


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite store (None for PostgreSQL, an in-memory or a URI database)."""
    parsed = sa.make_url(url)
    database = parsed.database
    if parsed.get_backend_name() != "sqlite" or not database or database == ":memory:":
        return None
    return None if database.startswith("file:") else Path(database).expanduser()


def _prepare_sqlite_file(url: sa.URL) -> None:
    """The default store's directory is created; a directory named in ``ORBITAL_DB`` or
    ``--db`` must exist, so a typo is reported instead of starting a second, empty store."""
    database = url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    directory = Path(database).expanduser().parent
    if directory == _default_directory():
        directory.mkdir(parents=True, exist_ok=True)
    elif not directory.is_dir():
        raise InvalidInput(
            f"the store's directory {directory} does not exist: check ORBITAL_DB / --db, "
            "or create the directory first"
        )


def _sqlite_pragmas(engine: Engine, timeout_ms: int, *, immediate: bool) -> None:
    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(timeout_ms)}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = FULL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    begin = "BEGIN IMMEDIATE" if immediate else "BEGIN"

    @sa.event.listens_for(engine, "begin")
    def _on_begin(connection: sa.Connection) -> None:
        # On the driver connection: SQLAlchemy's statement machinery costs several times
        # SQLite's own work for one BEGIN, on every write (bench/store.py).
        try:
            connection.connection.driver_connection.execute(begin)  # type: ignore[union-attr]
        except sqlite_dbapi.Error as exc:
            raise sa.exc.DBAPIError.instance(begin, (), exc, sqlite_dbapi.Error) from exc


def _create(
    url: str, *, immediate: bool, timeout_ms: int | None, immutable: bool = False
) -> Engine:
    try:
        parsed = sa.make_url(url)
    except sa.exc.ArgumentError:
        raise InvalidInput(
            f"{url!r} is not a database URL: use sqlite:///PATH or postgresql+psycopg://…"
        ) from None
    timeout = busy_timeout_ms() if timeout_ms is None else timeout_ms
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        _check_sqlite()
        _prepare_sqlite_file(parsed)
        if immutable and parsed.database:  # a read-only store: nothing can change it now
            parsed = parsed.set(database=f"file:{parsed.database}").update_query_dict(
                {"immutable": "1", "uri": "true"}
            )
        engine = sa.create_engine(
            parsed, module=sqlite_dbapi, connect_args={"timeout": timeout / 1000}
        )
        _sqlite_pragmas(engine, timeout, immediate=immediate)
        return engine
    if backend == "postgresql":
        if parsed.drivername == "postgresql":
            parsed = parsed.set(drivername="postgresql+psycopg")
        given = parsed.query.get("options", "")
        options = " ".join([*([given] if isinstance(given, str) else given), "-c"])
        try:
            import psycopg  # noqa: F401  (the driver SQLAlchemy will load)
        except ImportError:
            raise InvalidInput(
                "PostgreSQL needs the psycopg driver: pip install 'orbital-memory[postgres]'"
            ) from None
        return sa.create_engine(
            parsed.difference_update_query(["options"]),
            pool_pre_ping=True,
            connect_args={"options": f"{options} lock_timeout={int(timeout)}".strip()},
        )
    raise InvalidInput(
        f"unsupported database URL {url!r}: use sqlite:///PATH or postgresql+psycopg://…"
    )


def create_write_engine(url: str, *, timeout_ms: int | None = None) -> Engine:
    return _create(url, immediate=True, timeout_ms=timeout_ms)


def create_read_engine(
    url: str, *, timeout_ms: int | None = None, immutable: bool = False
) -> Engine:
    """``immutable``: a SQLite store on a read-only filesystem, read without a ``-shm``."""
    return _create(url, immediate=False, timeout_ms=timeout_ms, immutable=immutable)
