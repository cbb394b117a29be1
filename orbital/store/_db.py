"""The store's database connection, one small interface over two backends.

Every statement of the store is portable SQL text with named parameters (``:name``), run
through a :class:`Conn`: a tuple per row (index or unpack), ``scalar``, ``executemany``, a
streamed read, a rowcount. A :class:`Database` hands out one transaction at a time per call
of :meth:`Database.begin` (commit on success, rollback on any error).

* SQLite runs on the pysqlite3 driver directly (:mod:`orbital.store._sqlite_db`): a hook or
  CLI command is a new process, and importing SQLAlchemy (~280 ms) cost more than three times
  the work it did; SQLAlchemy's per-statement machinery also cost more than SQLite's own work
  for the store's small statements (``bench/store.py``).
* PostgreSQL runs on the psycopg driver directly (:mod:`orbital.store._pg_db`), for the same
  reasons: a PostgreSQL store's hooks and CLI commands are new processes too.

Alembic's migrations use SQLAlchemy on both (:mod:`orbital.store._engine`), imported only
when the schema is behind. Which backend a URL names, and opening it: :mod:`orbital.store._open`
(above both backends; this module is below them).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from orbital.errors import InvalidInput

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

DEFAULT_BUSY_TIMEOUT_MS = 5000

Params = Mapping[str, Any]


class Conn(Protocol):
    """One open transaction's statements."""

    dialect: str

    def execute(self, sql: str, params: Params | None = None) -> list[Sequence[Any]]: ...

    def first(self, sql: str, params: Params | None = None) -> Sequence[Any] | None: ...

    def scalar(self, sql: str, params: Params | None = None) -> Any: ...

    def scalars(self, sql: str, params: Params | None = None) -> list[Any]: ...

    def run(self, sql: str, params: Params | None = None) -> int:
        """A write; how many rows it changed."""
        ...

    def executemany(self, sql: str, rows: Sequence[Params]) -> None: ...

    def insert_rows(
        self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
    ) -> None:
        """Many rows into ``table`` in one statement's time (PostgreSQL: ``COPY``), each a
        tuple in ``columns`` order."""
        ...

    def write_all(self, writes: Sequence[tuple[str, Sequence[Params]]]) -> None:
        """Each statement run for each of its rows, in order; nothing is read back, so
        PostgreSQL sends them all in one round trip (a pipeline)."""
        ...

    def stream(self, sql: str, params: Params | None = None) -> Iterator[Sequence[Any]]:
        """Rows fetched in batches while the iterator is consumed (inside the transaction)."""
        ...


class Database(Protocol):
    """Transactions on one store (a pool of driver connections)."""

    dialect: str
    #: The exceptions a driver error arrives as (mapped by :mod:`orbital.store._faults`).
    errors: tuple[type[BaseException], ...]
    #: A constraint violated (the append's optimistic-concurrency check).
    integrity: tuple[type[BaseException], ...]

    @property
    def version(self) -> str:
        """The database underneath, e.g. ``SQLite 3.53.4`` or ``PostgreSQL 16.4``."""
        ...

    def begin(self) -> AbstractContextManager[Conn]: ...

    def touch(self) -> None:
        """Open a connection (creating a SQLite file when allowed)."""
        ...

    def migrating(self) -> AbstractContextManager[Connection]:
        """An SQLAlchemy connection for Alembic (SQLite: on an engine made for it)."""
        ...

    def compact(self, tables: Sequence[str]) -> bool:
        """Rewrite the database so that bytes a transaction replaced or freed leave its files
        (SQLite: ``VACUUM`` and the WAL truncated; PostgreSQL: ``VACUUM FULL`` of ``tables``);
        False when another connection kept part of it from finishing (SQLite's WAL)."""
        ...

    def analyze(self, tables: Sequence[str]) -> None:
        """Refresh the planner's statistics of ``tables`` after a bulk load (PostgreSQL:
        ``ANALYZE``; SQLite plans without them, as it always has here: nothing)."""
        ...

    def dispose(self) -> None: ...


def instant(value: Any) -> dt.datetime:
    """A stored instant, as an aware UTC datetime: PostgreSQL returns a naive timestamp,
    SQLite the text it was written as (:mod:`orbital.store._sqlite_db`)."""
    found = value if isinstance(value, dt.datetime) else dt.datetime.fromisoformat(value)
    return found.replace(tzinfo=dt.UTC)


def _default_directory() -> Path:
    import platformdirs

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


def postgresql_url(url: str) -> bool:
    """Whether ``url`` names a PostgreSQL store (``postgresql://`` or
    ``postgresql+psycopg://``), read without SQLAlchemy."""
    return url.partition("://")[0].split("+", 1)[0] == "postgresql"


def plain_sqlite_file(url: str) -> Path | None:
    """The file of a plain ``sqlite:///PATH`` URL (no query, escape or ``~``, no URI, not in
    memory), read without SQLAlchemy; None for any other URL."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or any(c in url for c in "?%~"):
        return None
    database = url[len(prefix) :]
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def prepare_sqlite_file(database: str) -> None:
    """The default store's directory is created; a directory named in ``ORBITAL_DB`` or
    ``--db`` must exist, so a typo is reported instead of starting a second, empty store."""
    if database == ":memory:" or database.startswith("file:"):
        return
    directory = Path(database).expanduser().parent
    if directory.is_dir():
        return  # the common case, answered without importing platformdirs
    if directory == _default_directory():
        directory.mkdir(parents=True, exist_ok=True)
    else:
        raise InvalidInput(
            f"the store's directory {directory} does not exist: check ORBITAL_DB / --db, "
            "or create the directory first"
        )
