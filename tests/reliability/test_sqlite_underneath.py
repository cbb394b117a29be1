"""The SQLite underneath carries the WAL-reset fix (3.51.3, backports 3.50.7 and 3.44.6): a
store refuses to open on a SQLite without it unless told to, and says which SQLite it runs."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from litestar.testing import TestClient

from orbital.cli import cli
from orbital.errors import UnsafeSqlite
from orbital.http import create_app
from orbital.service import Orbital
from orbital.store import EventStore, has_wal_reset_fix

pytestmark = pytest.mark.sqlite_only("the SQLite library under the store")


@pytest.mark.parametrize(
    ("version", "fixed"),
    [
        ((3, 40, 1), False),
        ((3, 44, 5), False),
        ((3, 44, 6), True),
        ((3, 45, 0), False),
        ((3, 50, 6), False),
        ((3, 50, 7), True),
        ((3, 51, 2), False),
        ((3, 51, 3), True),
        ((3, 53, 0), True),
    ],
)
def test_which_sqlite_versions_have_the_wal_reset_fix(
    version: tuple[int, int, int], fixed: bool
) -> None:
    assert has_wal_reset_fix(version) is fixed


def test_the_store_runs_on_a_sqlite_with_the_fix(tmp_path: Path) -> None:
    with EventStore(f"sqlite:///{tmp_path / 'orbital.db'}") as store:
        version = store.database_version
        assert version.startswith("SQLite ")
        numbers = tuple(int(n) for n in version.removeprefix("SQLite ").split("."))
        assert has_wal_reset_fix(numbers)


def test_a_sqlite_without_the_fix_is_refused_unless_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("orbital.store._sqlite_db.sqlite_dbapi", sqlite3)  # the system's 3.40.1
    url = f"sqlite:///{tmp_path / 'orbital.db'}"
    with pytest.raises(UnsafeSqlite) as refused:
        EventStore(url)
    assert f"SQLite {sqlite3.sqlite_version}" in str(refused.value)
    assert "ORBITAL_ALLOW_UNFIXED_SQLITE=1" in refused.value.hint
    assert not (tmp_path / "orbital.db").exists()
    monkeypatch.setenv("ORBITAL_ALLOW_UNFIXED_SQLITE", "1")
    with EventStore(url) as store:
        assert store.database_version == f"SQLite {sqlite3.sqlite_version}"


def test_health_and_db_status_report_the_sqlite_version(tmp_path: Path, run: CliRunner) -> None:
    with Orbital.open(f"sqlite:///{tmp_path / 'h.db'}") as service:
        version = service.store_status().database
        with TestClient(create_app(service), base_url="http://127.0.0.1:8765") as client:
            health = client.get("/health").json()
    assert health["database"] == version
    assert version.startswith("SQLite 3.")
    run.invoke(cli, ["init", "--project", str(tmp_path)], obj={})
    status = run.invoke(cli, ["db", "status"], obj={})
    assert status.exit_code == 0, status.output
    assert f"database: {version}" in status.output
    assert "store: ok" in status.output
