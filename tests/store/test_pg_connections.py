"""PostgreSQL's store on psycopg directly: a URL as SQLAlchemy reads it reaches libpq with its
options, and a kept connection whose server backend went away is replaced, not reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from orbital.store import EventStore


def test_a_store_url_reaches_libpq_with_its_options_and_the_lock_timeout() -> None:
    pytest.importorskip("psycopg")
    from psycopg.conninfo import conninfo_to_dict

    from orbital.store._pg_db import conninfo

    url = "postgresql+psycopg://alice:p%40ss@db.example:5433/orbital?options=-csearch_path%3Dteam"
    parts = conninfo_to_dict(conninfo(url, 2500))
    assert parts == {
        "user": "alice",
        "password": "p@ss",
        "host": "db.example",
        "port": "5433",
        "dbname": "orbital",
        "options": "-csearch_path=team -c lock_timeout=2500",
    }


def test_a_kept_connection_whose_backend_ended_is_replaced(
    store_url: str, backend: str, tmp_path: Path
) -> None:
    if backend == "sqlite":
        pytest.skip("SQLite has no server whose backend could end")
    import psycopg

    from orbital.store._pg_db import conninfo

    with EventStore(store_url) as store:
        with store.writing() as w:
            project = w.register_project(tmp_path).project_id
        with store.reader() as r:
            head = r.head(project)
            pids = r._conn.scalars("SELECT pg_backend_pid()")
        with psycopg.connect(conninfo(store_url), autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pids[0],))
        with store.reader() as r:  # the kept connection is gone: a new one answers
            assert r.head(project) == head
            assert r._conn.scalars("SELECT pg_backend_pid()") != pids
