"""SQLite on the pysqlite3 driver directly: a safe multi-process store (DESIGN.md §8).

* writes start with ``BEGIN IMMEDIATE``, taking the write lock before the first read, so a
  read-decide-append transaction waits for ``busy_timeout`` instead of failing with
  "database is locked" when another process committed meanwhile; reads use plain deferred
  transactions on connections of their own, so they never take the lock. The driver's own
  transaction handling is off (``isolation_level=None``): every BEGIN is ours;
* ``journal_mode=WAL`` lets readers run beside the single writer; ``synchronous=FULL`` makes a
  returned commit durable across power loss, which is what we acknowledge (ARCHITECTURE.md);
* ``foreign_keys=ON`` so an event can never name an unregistered project;
* the SQLite library is pysqlite3's (a wheel with SQLite built in), not the Python build's: a
  store is written by a server, CLI runs and hooks at once, exactly the trigger of the
  WAL-reset corruption bug fixed in 3.51.3 (backports 3.50.7, 3.44.6). A SQLite without the
  fix is refused unless ``ORBITAL_ALLOW_UNFIXED_SQLITE=1`` (the check and the pragmas:
  :mod:`orbital.store._sqlite_lib`, which Alembic's engine uses too);
* instants are written as SQLAlchemy writes a ``DateTime`` on SQLite
  (``YYYY-MM-DD HH:MM:SS.ffffff``, text that sorts as time does), so stores written before
  read back and compare alike; they come back as that text (:func:`~._base.instant` reads it).
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import pysqlite3.dbapi2 as sqlite_dbapi

from orbital.store._db import Params, prepare_sqlite_file
from orbital.store._sqlite_lib import check_sqlite, set_pragmas

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

#: Idle connections kept for the next transaction.
_KEEP = 5


def _value(value: Any) -> Any:
    """A value as bound: an instant as its text."""
    return value.isoformat(" ", "microseconds") if isinstance(value, dt.datetime) else value


def _bound_rows(rows: Sequence[Sequence[Any]]) -> Sequence[Sequence[Any]]:
    """``rows`` as bound: the instants of a column of instants as their text (a column holds
    one type, so its first value that is not NULL says which it is)."""
    width = len(rows[0]) if rows else 0
    firsts = [next((row[i] for row in rows if row[i] is not None), None) for i in range(width)]
    dated = [i for i, first in enumerate(firsts) if isinstance(first, dt.datetime)]
    if not dated:
        return rows
    bound = []
    for row in rows:
        values = list(row)
        for i in dated:
            values[i] = _value(values[i])
        bound.append(values)
    return bound


def _bound(params: Params | None) -> Params:
    if not params:
        return {}
    return {k: _value(v) for k, v in params.items()}


class SqliteConn:
    """Statements on one driver connection, inside the transaction it has open."""

    dialect = "sqlite"
    __slots__ = ("_c",)

    def __init__(self, connection: Any) -> None:
        self._c = connection

    def execute(self, sql: str, params: Params | None = None) -> list[Sequence[Any]]:
        rows: list[Sequence[Any]] = self._c.execute(sql, _bound(params)).fetchall()
        return rows

    def first(self, sql: str, params: Params | None = None) -> Sequence[Any] | None:
        row: Sequence[Any] | None = self._c.execute(sql, _bound(params)).fetchone()
        return row

    def scalar(self, sql: str, params: Params | None = None) -> Any:
        row = self._c.execute(sql, _bound(params)).fetchone()
        return None if row is None else row[0]

    def scalars(self, sql: str, params: Params | None = None) -> list[Any]:
        return [row[0] for row in self._c.execute(sql, _bound(params))]

    def run(self, sql: str, params: Params | None = None) -> int:
        count: int = self._c.execute(sql, _bound(params)).rowcount
        return count

    def executemany(self, sql: str, rows: Sequence[Params]) -> None:
        self._c.executemany(sql, [_bound(row) for row in rows])

    def insert_rows(
        self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
    ) -> None:
        marks = ", ".join("?" for _ in columns)
        self._c.executemany(
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", _bound_rows(rows)
        )

    def write_all(self, writes: Sequence[tuple[str, Sequence[Params]]]) -> None:
        for sql, rows in writes:
            self.executemany(sql, rows)

    def stream(self, sql: str, params: Params | None = None) -> Iterator[Sequence[Any]]:
        cursor = self._c.execute(sql, _bound(params))
        try:
            yield from cursor
        finally:
            cursor.close()


class SqliteDatabase:
    """A pool of driver connections to one SQLite database, each with the store's pragmas."""

    dialect = "sqlite"

    def __init__(
        self,
        url: str,
        database: str,
        *,
        uri: bool,
        immediate: bool,
        timeout_ms: int,
        immutable: bool,
    ) -> None:
        check_sqlite(sqlite_dbapi)
        self._url = url
        prepare_sqlite_file(database)
        if immutable and not uri and database != ":memory:":
            database, uri = f"file:{database}?immutable=1", True
        self._database = database
        self._uri = uri
        self._timeout_ms = timeout_ms
        self._begin = "BEGIN IMMEDIATE" if immediate else "BEGIN"
        self._lock = threading.Lock()
        self._idle: list[Any] = []
        #: Connections opened before the last :meth:`dispose` are closed when given back.
        self._generation = 0
        self.errors: tuple[type[BaseException], ...] = (sqlite_dbapi.Error,)
        self.integrity: tuple[type[BaseException], ...] = (sqlite_dbapi.IntegrityError,)

    @property
    def version(self) -> str:
        return f"SQLite {sqlite_dbapi.sqlite_version}"

    def _connect(self) -> Any:
        conn = sqlite_dbapi.connect(
            self._database,
            timeout=self._timeout_ms / 1000,
            isolation_level=None,
            check_same_thread=False,
            uri=self._uri,
        )
        try:
            set_pragmas(conn, self._timeout_ms)
        except BaseException:
            conn.close()
            raise
        return conn

    def _checkout(self) -> tuple[Any, int]:
        with self._lock:
            generation = self._generation
            if self._idle:
                return self._idle.pop(), generation
        return self._connect(), generation

    def _checkin(self, conn: Any, generation: int) -> None:
        with self._lock:
            if generation == self._generation and len(self._idle) < _KEEP:
                self._idle.append(conn)
                return
        conn.close()

    @contextmanager
    def begin(self) -> Iterator[SqliteConn]:
        conn, generation = self._checkout()
        try:
            conn.execute(self._begin)
            yield SqliteConn(conn)
            conn.execute("COMMIT")
        except BaseException:
            if not _rolled_back(conn):
                generation = -1  # closed when given back
            raise
        finally:
            self._checkin(conn, generation)

    def touch(self) -> None:
        conn, generation = self._checkout()
        self._checkin(conn, generation)

    @contextmanager
    def migrating(self) -> Iterator[Connection]:
        """The driver's error is raised as itself, as every other statement's is."""
        from orbital.store._engine import create_write_engine, migration_connection

        engine = create_write_engine(self._url, timeout_ms=self._timeout_ms)
        with migration_connection(engine, sqlite_dbapi.Error) as conn:
            yield conn

    def compact(self, tables: Sequence[str]) -> bool:
        """``VACUUM`` between two ``wal_checkpoint(TRUNCATE)``: the rebuilt file holds no free
        page, and the WAL that held the pages before is cut to nothing. ``secure_delete``
        zeroes whatever the rebuild frees. ``tables``: all of them are rebuilt on SQLite."""
        conn, generation = self._checkout()
        try:
            conn.execute("PRAGMA secure_delete = ON")
            busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            conn.execute("VACUUM")
            busy |= conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            conn.execute("PRAGMA secure_delete = OFF")
        finally:
            self._checkin(conn, generation)
        return not busy

    def analyze(self, tables: Sequence[str]) -> None:
        """Nothing: SQLite's planner runs without statistics here (an ``ANALYZE`` would let
        it choose other plans than the ones every read was measured with)."""

    def dispose(self) -> None:
        with self._lock:
            self._generation += 1
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


def _rolled_back(conn: Any) -> bool:
    """Roll back what is open; False when the connection cannot be used again."""
    try:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        return True
    except sqlite_dbapi.Error:
        return False
