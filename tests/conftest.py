"""Shared fixtures: a fresh event store per test on every backend.

Every test that opens a store (service, CLI, HTTP, editor, migration, browser) asks for
``store_url`` (or ``orbital_db``, which also hands it to the CLI as ``ORBITAL_DB``), so it runs
once per backend. SQLite always runs. PostgreSQL runs when ``ORBITAL_TEST_PG_URL`` is set
(``.ci/run`` sets it); each test gets a schema of its own, dropped afterwards.
"""

from __future__ import annotations

import datetime as dt
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from orbital.clock import FixedClock

PG_URL = os.environ.get("ORBITAL_TEST_PG_URL", "").strip()
NOW = dt.datetime(2026, 9, 19, 9, 30, tzinfo=dt.UTC)
BACKENDS = ("sqlite", "postgresql")


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(NOW)


def _pg_schema_url(schema: str) -> str:
    url = sa.make_url(PG_URL)
    return url.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
        hide_password=False
    )


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """The backend this run of the test is on: ``sqlite`` or ``postgresql``."""
    name: str = request.param
    if name == "postgresql" and not PG_URL:
        pytest.skip("PostgreSQL half skipped: set ORBITAL_TEST_PG_URL to run it")
    return name


@pytest.fixture
def store_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """A database URL for an empty store, once per backend."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'orbital.db'}"
        return
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(PG_URL.replace("postgresql://", "postgresql+psycopg://", 1))
    with admin.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield _pg_schema_url(schema)
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def orbital_db(store_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """``store_url`` handed to the CLI the way a user does: as ``ORBITAL_DB``."""
    monkeypatch.setenv("ORBITAL_DB", store_url)
    return store_url
