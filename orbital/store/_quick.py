"""Quick reads of a SQLite store without SQLAlchemy, for short-lived processes.

A Claude Code hook is a new process per event; importing SQLAlchemy and building its engines
costs far more than the question most hooks ask ("did the project move since this session
last looked?"). :class:`QuickReader` answers such questions with the DB-API driver alone
(pysqlite3, the same SQLite library as the engines, with the same WAL-reset check) and plain
SQL over the tables the migrations define. It only reads, in WAL mode beside any writer.

It answers only when it can answer exactly as the full store would: a SQLite file store whose
schema is at the newest migration. Anything else (PostgreSQL, an in-memory or URI database, a
missing or older schema, an unsafe SQLite, any driver error) gives :func:`quick_reader`
``None``, and the caller takes the full path, which opens the store (and upgrades it).
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from types import TracebackType
from typing import Any

from orbital.project import Project, this_machine

_MIGRATIONS = ("_migrations", "../migrations")
#: The lines that got the WAL-reset fix as a backport, and the release that has it.
_BACKPORTS: dict[tuple[int, ...], tuple[int, ...]] = {(3, 50): (3, 50, 7), (3, 44): (3, 44, 6)}


def has_wal_reset_fix(version: tuple[int, ...]) -> bool:
    """Whether a SQLite version has the WAL-reset fix: 3.51.3 on, or the 3.50.7 and 3.44.6
    backports within their own lines."""
    if version >= (3, 51, 3):
        return True
    backport = _BACKPORTS.get(version[:2])
    return backport is not None and version >= backport


def newest_revision() -> str | None:
    """The newest migration's revision, from the scripts' names (``NNNN_<what>.py`` with
    ``revision = "NNNN"``; ``tests/store/test_migrations.py`` holds Alembic to it), without
    importing Alembic."""
    package = Path(__file__).resolve().parent.parent
    for folder in _MIGRATIONS:
        versions = package / folder / "versions"
        try:
            names = [n[:4] for n in os.listdir(versions) if n[:4].isdigit() and n.endswith(".py")]
        except OSError:
            continue
        return max(names, default=None)
    return None


def sqlite_file(url: str) -> Path | None:
    """The file of a plain ``sqlite:///PATH`` URL (no query, escape or ``~``, no URI, not in
    memory); None for any other URL."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or any(c in url for c in "?%~"):
        return None
    database = url[len(prefix) :]
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def _default_url() -> str:
    configured = os.environ.get("ORBITAL_DB", "").strip()
    if configured:
        return configured
    import platformdirs

    return f"sqlite:///{Path(platformdirs.user_data_dir('orbital', appauthor=False))}/orbital.db"


class QuickReader:
    """Plain-SQL reads of one SQLite store; use as a context manager."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    def __enter__(self) -> QuickReader:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._conn.close()

    def project_at(self, path: Path) -> Project | None:
        """The registered project ``path`` is in (the nearest registered root above it)."""
        rows = self._conn.execute(
            "SELECT p.project_id, k.root, p.timezone, p.registered_at, k.checkout_id "
            "FROM checkouts k JOIN projects p ON p.project_id = k.project_id "
            "WHERE k.machine = ?",
            (this_machine(),),
        ).fetchall()
        known = {row[1]: row for row in rows}
        for candidate in (path, *path.parents):
            row = known.get(str(candidate))
            if row is not None:
                registered = dt.datetime.fromisoformat(str(row[3])).replace(tzinfo=dt.UTC)
                return Project(row[0], row[1], row[2], registered, row[4])
        return None

    def head(self, project: str) -> int:
        """The project's last position; 0 when it has no event (as ``Reader.head``)."""
        row = self._conn.execute(
            "SELECT max(position) FROM events WHERE project_id = ?", (project,)
        ).fetchone()
        return int(row[0] or 0)

    def head_event(self, project: str) -> tuple[int, str]:
        """The project's last position and its event's id (as ``Reader.head_event``)."""
        row = self._conn.execute(
            "SELECT position, event_id FROM events WHERE project_id = ? "
            "ORDER BY position DESC LIMIT 1",
            (project,),
        ).fetchone()
        return (0, "") if row is None else (int(row[0]), str(row[1]))

    def checkpoint(self, checkout: str, name: str) -> tuple[int, int] | None:
        """``(size, mtime_ns)`` of projection ``name`` as Orbital last wrote it in a
        checkout, if it did."""
        row = self._conn.execute(
            "SELECT size, mtime_ns FROM checkpoints WHERE checkout_id = ? AND name = ?",
            (checkout, name),
        ).fetchone()
        return None if row is None else (int(row[0]), int(row[1]))


def quick_reader(url: str | None = None, timeout_ms: int = 5000) -> QuickReader | None:
    """A :class:`QuickReader` of the store at ``url`` (default: ``ORBITAL_DB`` or the user data
    directory), or None when only the full store can answer (see the module's docstring)."""
    path = sqlite_file(url or _default_url())
    if path is None or not path.is_file():
        return None
    import pysqlite3.dbapi2 as sqlite

    if not has_wal_reset_fix(sqlite.sqlite_version_info):
        return None
    try:
        conn = sqlite.connect(str(path), timeout=timeout_ms / 1000, isolation_level=None)
    except sqlite.Error:
        return None
    try:
        found = conn.execute("SELECT version_num FROM alembic_version").fetchall()
        if [row[0] for row in found] != [newest_revision()]:
            conn.close()
            return None
    except sqlite.Error:
        conn.close()
        return None
    return QuickReader(conn)
