"""SQLAlchemy engines for Alembic on both backends (migrations, and ``alembic`` run by hand).
A store's runtime does not use them (:mod:`orbital.store._sqlite_db`,
:mod:`orbital.store._pg_db`); the engine here gives Alembic the same SQLite library
and pragmas, with ``BEGIN IMMEDIATE`` for writes emitted in SQLAlchemy's ``begin`` event (its
documented recipe, pysqlite's own transaction handling disabled on connect).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import pysqlite3.dbapi2 as sqlite_dbapi
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from orbital.errors import InvalidInput
from orbital.store._db import busy_timeout_ms, prepare_sqlite_file
from orbital.store._sqlite_lib import check_sqlite, set_pragmas


def _sqlite_pragmas(engine: Engine, timeout_ms: int, *, immediate: bool) -> None:
    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves
        set_pragmas(dbapi_connection, timeout_ms)

    begin = "BEGIN IMMEDIATE" if immediate else "BEGIN"

    @sa.event.listens_for(engine, "begin")
    def _on_begin(connection: sa.Connection) -> None:
        try:
            connection.connection.driver_connection.execute(begin)  # type: ignore[union-attr]
        except sqlite_dbapi.Error as exc:
            raise sa.exc.DBAPIError.instance(begin, (), exc, sqlite_dbapi.Error) from exc


def parse_url(url: str) -> sa.URL:
    try:
        return sa.make_url(url)
    except sa.exc.ArgumentError:
        raise InvalidInput(
            f"{url!r} is not a database URL: use sqlite:///PATH or postgresql+psycopg://…"
        ) from None


def create_engine(url: str, *, immediate: bool, timeout_ms: int | None) -> Engine:
    parsed = parse_url(url)
    timeout = busy_timeout_ms() if timeout_ms is None else timeout_ms
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        check_sqlite(sqlite_dbapi)
        prepare_sqlite_file(parsed.database or ":memory:")
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
        return sa.create_engine(
            parsed.difference_update_query(["options"]),
            pool_pre_ping=True,
            connect_args={"options": f"{options} lock_timeout={int(timeout)}".strip()},
        )
    refuse(url)


def refuse(url: str) -> NoReturn:
    """A URL of no backend Orbital runs on: said as the person typed it."""
    parse_url(url)  # not a URL at all: said so first
    raise InvalidInput(
        f"unsupported database URL {url!r}: use sqlite:///PATH or postgresql+psycopg://…"
    )


def create_write_engine(url: str, *, timeout_ms: int | None = None) -> Engine:
    return create_engine(url, immediate=True, timeout_ms=timeout_ms)


@contextmanager
def migration_connection(engine: Engine, driver_error: type[Exception]) -> Iterator[Connection]:
    """A connection of ``engine`` for Alembic, the engine disposed after it; the driver's
    error (``driver_error``) is raised as itself, as every other statement's is."""
    try:
        with engine.connect() as conn:
            yield conn
    except sa.exc.DBAPIError as exc:
        if isinstance(exc.orig, driver_error):
            raise exc.orig from exc
        raise
    finally:
        engine.dispose()
