"""The append's four statements on SQLite, run on the driver connection under the open
transaction.

SQLAlchemy's work per statement (cache lookup, parameter and result processing, events) costs
more than SQLite's own for these small statements, and it is CPU time: on a loaded machine it
stretches while the commit's fsync does not, so a single durable append went from 2x to 7x
of raw sqlite3 (``bench/store.py``). The statements say what the Core ones in
``_appends.py`` say (PostgreSQL runs those); instants are written as SQLAlchemy writes them
(``YYYY-MM-DD HH:MM:SS.ffffff``), so both compare alike. A driver error is raised as
SQLAlchemy's, so the store maps it as it maps every other.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import pysqlite3.dbapi2 as sqlite_dbapi
import sqlalchemy as sa

_READ = (
    "SELECT (SELECT max(position) FROM events),"
    " (SELECT recorded_at FROM events ORDER BY position DESC LIMIT 1),"
    " version, state FROM (SELECT 1) LEFT JOIN streams ON project_id = ? AND stream = ?"
)
_INSERT_EVENTS = (
    "INSERT INTO events (position, project_id, stream, version, type, data, actor, session,"
    " recorded_at, event_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_STREAM = (
    "INSERT INTO streams (project_id, stream, version, last_position, state) VALUES (?, ?, ?, ?, ?)"
)
_UPDATE_STREAM = (
    "UPDATE streams SET version = ?, last_position = ?, state = ?"
    " WHERE project_id = ? AND stream = ?"
)
_UPSERT_HEAD = (
    "INSERT INTO heads (project_id, category, last_position) VALUES (?, ?, ?)"
    " ON CONFLICT (project_id, category) DO UPDATE SET last_position = excluded.last_position"
)


def instant(value: dt.datetime) -> str:
    """A naive UTC instant as SQLAlchemy stores a ``DateTime`` on SQLite."""
    return value.isoformat(" ", "microseconds")


def _run(conn: Any, sql: str, params: Sequence[Any]) -> Any:
    try:
        return conn.execute(sql, params)
    except sqlite_dbapi.Error as exc:
        raise sa.exc.DBAPIError.instance(sql, params, exc, sqlite_dbapi.Error) from exc


def read(
    conn: Any, project: str, stream: str
) -> tuple[int | None, dt.datetime | None, int | None, str | None]:
    """The store's head position and its instant, the stream's version and state."""
    head, last, version, state = _run(conn, _READ, (project, stream)).fetchone()
    return head, None if last is None else dt.datetime.fromisoformat(last), version, state


def insert(conn: Any, rows: list[dict[str, Any]]) -> None:
    """The events' rows (an existing version raises SQLAlchemy's ``IntegrityError``)."""
    params = [
        (
            r["position"],
            r["project_id"],
            r["stream"],
            r["version"],
            r["type"],
            r["data"],
            r["actor"],
            r["session"],
            instant(r["recorded_at"]),
            r["event_id"],
        )
        for r in rows
    ]
    try:
        conn.executemany(_INSERT_EVENTS, params)
    except sqlite_dbapi.Error as exc:
        raise sa.exc.DBAPIError.instance(_INSERT_EVENTS, params, exc, sqlite_dbapi.Error) from exc


def set_stream(conn: Any, values: dict[str, Any], *, new: bool) -> None:
    p, s, v, last, state = (values[k] for k in ("p", "s", "v", "last", "state"))
    if new:
        _run(conn, _INSERT_STREAM, (p, s, v, last, state))
    else:
        _run(conn, _UPDATE_STREAM, (v, last, state, p, s))


def set_head(conn: Any, project: str, category: str, last: int) -> None:
    _run(conn, _UPSERT_HEAD, (project, category, last))
