"""PostgreSQL on the psycopg driver directly, as SQLite runs on pysqlite3: a hook or a CLI
command is a new process, and importing SQLAlchemy (~200 ms) cost more than the work it did;
its per-statement machinery also cost more than a small statement's round trip
(``bench/store.py``). SQLAlchemy loads only for Alembic, when the schema is new or behind
(:meth:`PgDatabase.migrating`).

* The store's SQL text names its parameters ``:name``; each string is rewritten once into
  psycopg's ``%(name)s`` by the rule SQLAlchemy's ``text()`` applies (:func:`_pyformat`).
* A small pool keeps idle connections, as SQLite's does. Each transaction starts with an
  explicit ``BEGIN``, which is also the check that a kept connection still reaches the server
  (SQLAlchemy's pre-ping): a kept one that does not is dropped and a new one opened.
* A writer's transaction locks ``events`` as it begins, in the same round trip; the append's
  writes go in one pipeline (:meth:`PgConn.write_all`).
* ``lock_timeout`` is set at connect (``options``), with whatever options the URL names
  (a test's ``search_path``).
"""

from __future__ import annotations

import functools
import itertools
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from orbital.errors import InvalidInput
from orbital.store._db import Params

try:
    import psycopg
    from psycopg import pq
except ImportError:  # installed without the ``postgres`` extra
    raise InvalidInput(
        "PostgreSQL needs the psycopg driver: pip install 'orbital-memory[postgres]'"
    ) from None

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

#: Idle connections kept for the next transaction.
_KEEP = 5
#: SQLAlchemy's ``text()`` bind rule: ``:name``, not ``::cast`` nor ``\\:``.
_BIND = re.compile(r"(?<![:\w\x5c]):(\w+)(?!:)")
_cursor_names = itertools.count()


@functools.lru_cache(maxsize=512)
def _pyformat(sql: str) -> str:
    """The statement with psycopg's placeholders (a literal ``%`` doubled)."""
    return _BIND.sub(r"%(\1)s", sql.replace("%", "%%")).replace("\\:", ":")


def _params(params: Params | None) -> dict[str, Any]:
    return dict(params) if params else {}


def conninfo(url: str, timeout_ms: int | None = None) -> str:
    """A store URL (``postgresql[+psycopg]://…``, as SQLAlchemy reads it) as libpq takes it,
    with ``lock_timeout`` added to the options it names."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    scheme, rest = url.split("://", 1)
    parts = conninfo_to_dict(f"{scheme.split('+', 1)[0]}://{rest}")
    if timeout_ms is not None:
        given = str(parts.get("options") or "")
        parts["options"] = f"{given} -c lock_timeout={int(timeout_ms)}".strip()
    return make_conninfo("", **{k: v for k, v in parts.items() if v is not None})


class PgConn:
    """Statements on one driver connection, inside the transaction it has open."""

    dialect = "postgresql"
    __slots__ = ("_c",)

    def __init__(self, connection: psycopg.Connection[Any]) -> None:
        self._c = connection

    def execute(self, sql: str, params: Params | None = None) -> list[Sequence[Any]]:
        return self._c.execute(_pyformat(sql), _params(params)).fetchall()

    def first(self, sql: str, params: Params | None = None) -> Sequence[Any] | None:
        return self._c.execute(_pyformat(sql), _params(params)).fetchone()

    def scalar(self, sql: str, params: Params | None = None) -> Any:
        row = self._c.execute(_pyformat(sql), _params(params)).fetchone()
        return None if row is None else row[0]

    def scalars(self, sql: str, params: Params | None = None) -> list[Any]:
        return [row[0] for row in self._c.execute(_pyformat(sql), _params(params))]

    def run(self, sql: str, params: Params | None = None) -> int:
        return self._c.execute(_pyformat(sql), _params(params)).rowcount

    def executemany(self, sql: str, rows: Sequence[Params]) -> None:
        with self._c.cursor() as cursor:
            cursor.executemany(_pyformat(sql), [dict(row) for row in rows])

    def write_all(self, writes: Sequence[tuple[str, Sequence[Params]]]) -> None:
        """Sent in one pipeline: one round trip for all of them."""
        with self._c.pipeline(), self._c.cursor() as cursor:
            for sql, rows in writes:
                cursor.executemany(_pyformat(sql), [dict(row) for row in rows])

    def insert_rows(
        self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
    ) -> None:
        """``COPY``: one statement streaming every row (an ``INSERT`` per row is a round trip
        each, or a pipelined statement each, at half ``COPY``'s rate), in this transaction."""
        sql = f"COPY {table} ({', '.join(columns)}) FROM STDIN"
        with self._c.cursor() as cursor, cursor.copy(sql) as copy:
            for row in rows:
                copy.write_row(row)

    def stream(self, sql: str, params: Params | None = None) -> Iterator[Sequence[Any]]:
        """A server-side cursor, fetched 2,000 rows at a time."""
        with self._c.cursor(name=f"orbital_stream_{next(_cursor_names)}") as cursor:
            cursor.itersize = 2000
            cursor.execute(_pyformat(sql), _params(params))
            yield from cursor


class PgDatabase:
    """A pool of psycopg connections to one PostgreSQL store."""

    dialect = "postgresql"

    def __init__(self, url: str, *, immediate: bool, timeout_ms: int) -> None:
        self._url = url
        #: A writer's transaction takes the store's write lock as it begins (SQLite's
        #: ``BEGIN IMMEDIATE``), in the same round trip.
        self._begin = "BEGIN; LOCK TABLE events IN EXCLUSIVE MODE" if immediate else "BEGIN"
        self._timeout_ms = timeout_ms
        self._conninfo = conninfo(url, timeout_ms)
        self._lock = threading.Lock()
        self._idle: list[psycopg.Connection[Any]] = []
        self._generation = 0
        self._server_version = 0
        self.errors: tuple[type[BaseException], ...] = (psycopg.Error,)
        self.integrity: tuple[type[BaseException], ...] = (psycopg.IntegrityError,)

    @property
    def version(self) -> str:
        if not self._server_version:
            self.touch()
        major, minor = divmod(self._server_version, 10000)
        return f"PostgreSQL {major}.{minor}"

    def _connect(self) -> psycopg.Connection[Any]:
        conn = psycopg.connect(self._conninfo, autocommit=True)
        self._server_version = conn.info.server_version
        return conn

    def _checkout(self) -> tuple[psycopg.Connection[Any], int, bool]:
        """A connection, its pool generation, and whether it was kept (not new)."""
        with self._lock:
            generation = self._generation
            if self._idle:
                return self._idle.pop(), generation, True
        return self._connect(), generation, False

    def _checkin(self, conn: psycopg.Connection[Any], generation: int) -> None:
        with self._lock:
            usable = conn.info.transaction_status == pq.TransactionStatus.IDLE
            if usable and generation == self._generation and len(self._idle) < _KEEP:
                self._idle.append(conn)
                return
        conn.close()

    def _begun(self) -> tuple[psycopg.Connection[Any], int]:
        """A connection with a transaction open on it: a kept one that no longer reaches the
        server (restarted, idle too long) is dropped and the next one tried."""
        while True:
            conn, generation, kept = self._checkout()
            try:
                conn.execute(self._begin)
                return conn, generation
            except BaseException as exc:
                broken = conn.broken
                _rolled_back(conn)
                self._checkin(conn, generation)
                if not (kept and broken and isinstance(exc, psycopg.OperationalError)):
                    raise

    @contextmanager
    def begin(self) -> Iterator[PgConn]:
        conn, generation = self._begun()
        try:
            yield PgConn(conn)
            conn.execute("COMMIT")
        except BaseException:
            _rolled_back(conn)
            raise
        finally:
            self._checkin(conn, generation)

    def touch(self) -> None:
        conn, generation, _ = self._checkout()
        self._checkin(conn, generation)

    @contextmanager
    def migrating(self) -> Iterator[Connection]:
        """An SQLAlchemy engine for Alembic, made for the migration and disposed after it;
        the driver's error is raised as itself, as every other statement's is."""
        from orbital.store._engine import create_engine, migration_connection

        engine = create_engine(self._url, immediate=False, timeout_ms=self._timeout_ms)
        with migration_connection(engine, psycopg.Error) as conn:
            yield conn

    def compact(self, tables: Sequence[str]) -> bool:
        """``VACUUM FULL`` of ``tables`` (their TOAST too): each is written anew and its old
        files removed. It runs outside a transaction, as PostgreSQL requires."""
        conn, generation, _ = self._checkout()
        try:
            for table in tables:
                conn.execute(f"VACUUM FULL {table}")
        finally:
            self._checkin(conn, generation)
        return True

    def analyze(self, tables: Sequence[str]) -> None:
        """``ANALYZE`` of ``tables``: a table filled in one transaction has no statistics
        until autovacuum comes by, and until then the planner scans all of a project's
        streams for the few that changed (40 ms for 4 at 100,000 events)."""
        conn, generation, _ = self._checkout()
        try:
            conn.execute(f"ANALYZE {', '.join(tables)}")
        finally:
            self._checkin(conn, generation)

    def dispose(self) -> None:
        with self._lock:
            self._generation += 1
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


def _rolled_back(conn: psycopg.Connection[Any]) -> None:
    """Roll back what is open; a connection that cannot is closed (never kept)."""
    try:
        if conn.info.transaction_status != pq.TransactionStatus.IDLE:
            conn.execute("ROLLBACK")
    except psycopg.Error:
        conn.close()
