"""PostgreSQL through SQLAlchemy: an engine (:mod:`orbital.store._engine`: psycopg,
``pool_pre_ping``, ``lock_timeout``) running the store's SQL text, each string made into a
``text()`` construct once."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa

from orbital.store._db import Params
from orbital.store._engine import create_engine

_text = functools.lru_cache(maxsize=512)(sa.text)


class PgConn:
    """Statements on one SQLAlchemy connection, inside its transaction."""

    dialect = "postgresql"
    __slots__ = ("_c",)

    def __init__(self, connection: sa.Connection) -> None:
        self._c = connection

    def execute(self, sql: str, params: Params | None = None) -> list[Sequence[Any]]:
        return list(self._c.execute(_text(sql), dict(params or {})).all())

    def first(self, sql: str, params: Params | None = None) -> Sequence[Any] | None:
        return self._c.execute(_text(sql), dict(params or {})).first()

    def scalar(self, sql: str, params: Params | None = None) -> Any:
        return self._c.execute(_text(sql), dict(params or {})).scalar()

    def scalars(self, sql: str, params: Params | None = None) -> list[Any]:
        return list(self._c.execute(_text(sql), dict(params or {})).scalars())

    def run(self, sql: str, params: Params | None = None) -> int:
        return self._c.execute(_text(sql), dict(params or {})).rowcount

    def executemany(self, sql: str, rows: Sequence[Params]) -> None:
        self._c.execute(_text(sql), [dict(row) for row in rows])

    def insert_rows(
        self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
    ) -> None:
        """``COPY``: one statement streaming every row (an ``INSERT`` per row is a round trip
        each, or a pipelined statement each, at half ``COPY``'s rate). On psycopg's own
        connection, in this transaction; its error is raised as SQLAlchemy raises the
        others', so the store reads it alike."""
        import psycopg

        sql = f"COPY {table} ({', '.join(columns)}) FROM STDIN"
        driver = self._c.connection.driver_connection
        assert isinstance(driver, psycopg.Connection)
        try:
            with driver.cursor() as cursor, cursor.copy(sql) as copy:
                for row in rows:
                    copy.write_row(row)
        except psycopg.Error as exc:
            raise sa.exc.DBAPIError.instance(sql, None, exc, psycopg.Error) from exc

    def stream(self, sql: str, params: Params | None = None) -> Iterator[Sequence[Any]]:
        result = self._c.execute(
            _text(sql), dict(params or {}), execution_options={"yield_per": 2000}
        )
        try:
            yield from result
        finally:
            result.close()


class PgDatabase:
    """An SQLAlchemy engine on a PostgreSQL store."""

    dialect = "postgresql"

    def __init__(self, url: str, *, timeout_ms: int) -> None:
        self.engine = create_engine(url, immediate=False, timeout_ms=timeout_ms)
        self.errors: tuple[type[BaseException], ...] = (sa.exc.DBAPIError,)
        self.integrity: tuple[type[BaseException], ...] = (sa.exc.IntegrityError,)

    @property
    def version(self) -> str:
        numbers = self.engine.dialect.server_version_info or ()
        return f"PostgreSQL {'.'.join(str(n) for n in numbers)}"

    @contextmanager
    def begin(self) -> Iterator[PgConn]:
        with self.engine.begin() as conn:
            yield PgConn(conn)

    def touch(self) -> None:
        with self.engine.connect():
            pass

    @contextmanager
    def migrating(self) -> Iterator[sa.Connection]:
        with self.engine.connect() as conn:
            yield conn

    def compact(self, tables: Sequence[str]) -> bool:
        """``VACUUM FULL`` of ``tables`` (their TOAST too): each is written anew and its old
        files removed. It runs outside a transaction, as PostgreSQL requires."""
        with self.engine.connect() as conn:
            conn = conn.execution_options(isolation_level="AUTOCOMMIT")
            for table in tables:
                conn.exec_driver_sql(f"VACUUM FULL {table}")
        return True

    def dispose(self) -> None:
        self.engine.dispose()
