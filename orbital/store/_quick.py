"""Quick reads of a store, for short-lived processes that need no more.

A Claude Code hook is a new process per event; the question most hooks ask ("did the project
move since this session last looked?") is one indexed read. :class:`QuickReader` answers such
questions on one read connection of the store's own database (:mod:`orbital.store._sqlite_db`:
the same library, pragmas and WAL-reset check; :mod:`orbital.store._pg_db`: the same driver
and options), without opening the whole :class:`~orbital.store.EventStore` (its writer,
writers' queue and change counter) or importing its reads, the events and their folds.

It answers only when it can answer exactly as the full store would: a SQLite file store or a
PostgreSQL store whose schema is at the newest migration. Anything else (an in-memory or URI
SQLite database, a missing or older schema, an unsafe SQLite, any driver error) gives
:func:`quick_reader` ``None``, and the caller takes the full path, which opens the store (and
upgrades it).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

from orbital.errors import OrbitalError
from orbital.project import Project, locate
from orbital.store._db import Database, default_url, plain_sqlite_file, postgresql_url
from orbital.store._first_reads import FirstReads
from orbital.store._migrate import at_newest_revision


class QuickReader:
    """Plain-SQL reads of one store; use as a context manager."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def __enter__(self) -> QuickReader:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._db.dispose()

    @contextlib.contextmanager
    def reads(self) -> Iterator[FirstReads]:
        """The store's first reads in one read transaction of this reader's database."""
        with self._db.begin() as conn:
            yield FirstReads(conn)

    def project_at(self, path: Path) -> Project | None:
        """The registered checkout ``path`` is in (:func:`orbital.project.locate`); None when
        there is none, or when the folder must first be joined (a write: the full path's)."""
        with self.reads() as reads:
            found = locate(reads, path)
        return found if isinstance(found, Project) else None


def quick_reader(url: str | None = None, timeout_ms: int = 5000) -> QuickReader | None:
    """A :class:`QuickReader` of the store at ``url`` (default: ``ORBITAL_DB`` or the user data
    directory), or None when only the full store can answer (see the module's docstring)."""
    url = url or default_url()
    try:
        db = _database(url, timeout_ms)
    except OrbitalError:  # an unsafe SQLite: the full path says so
        return None
    if db is None:
        return None
    if at_newest_revision(db):
        return QuickReader(db)
    db.dispose()
    return None


def _database(url: str, timeout_ms: int) -> Database | None:
    """The store's database, when it is one a quick reader reads (no connection opened yet)."""
    if postgresql_url(url):
        from orbital.store._pg_db import PgDatabase

        return PgDatabase(url, immediate=False, timeout_ms=timeout_ms)
    path = plain_sqlite_file(url)
    if path is None or not path.is_file():
        return None
    from orbital.store._sqlite_db import SqliteDatabase

    return SqliteDatabase(
        url, str(path), uri=False, immediate=False, timeout_ms=timeout_ms, immutable=False
    )
