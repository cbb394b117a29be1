"""Shared fixtures: a fresh event store per test on every backend.

Every test that opens a store (service, CLI, HTTP, editor, migration, browser) asks for
``store_url`` (or ``orbital_db``, which also hands it to the CLI as ``ORBITAL_DB``), so it runs
once per backend. SQLite always runs. PostgreSQL runs when ``ORBITAL_TEST_PG_URL`` is set
(``.ci/run`` sets it); each test gets a schema of its own, dropped afterwards. A test about
SQLite itself (the store file deleted, replaced, read-only or on a full disk; the SQLite
library) makes its own SQLite store and says so: ``@pytest.mark.sqlite_only("why")``. The
summary ends with what ran on each backend, so a CI log shows whether PostgreSQL was exercised.
"""

from __future__ import annotations

import datetime as dt
import os
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa

from orbital.clock import FixedClock

PG_URL = os.environ.get("ORBITAL_TEST_PG_URL", "").strip()
NOW = dt.datetime(2026, 9, 19, 9, 30, tzinfo=dt.UTC)
BACKENDS = ("sqlite", "postgresql")
_BACKEND_OF = pytest.StashKey[dict[str, str]]()
_SQLITE_ONLY = pytest.StashKey[Counter[str]]()


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(NOW)


@pytest.fixture(scope="session")
def _state_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("state")


@pytest.fixture(autouse=True)
def _own_state_dir(_state_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hooks, logs and the caches kept between processes go to the run's own folder, never
    the user's (a test that needs its own sets ``ORBITAL_STATE_DIR`` itself)."""
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(_state_dir))


@pytest.fixture(autouse=True)
def config_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own per-user settings folder (the record of which store each project
    lives in), never the user's."""
    folder = tmp_path_factory.mktemp("config")
    monkeypatch.setenv("ORBITAL_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture(autouse=True)
def detached(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[str]]]:
    """What a hook leaves to a detached process (``orbital.cli._hook.start_detached``: the
    view file's refresh, an editor pass) runs here, to its end, before the hook returns: a
    test sees what it did, and ``sys.argv[0]``, which names pytest here, is never started.
    Each command is listed; one that fails fails the test."""
    from click.testing import CliRunner

    from orbital.cli import cli

    started: list[list[str]] = []
    failed: list[str] = []

    def inline(db: str | None, args: list[str]) -> None:
        started.append(args)
        done = CliRunner().invoke(cli, args, env={"ORBITAL_DB": db} if db else None)
        if done.exit_code != 0:
            failed.append(f"{args}: {done.exit_code} {done.output} {done.exception!r}")

    monkeypatch.setattr("orbital.cli._hook.start_detached", inline)
    yield started
    assert not failed, failed


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


@contextmanager
def _empty_store(backend: str, file: Path) -> Iterator[str]:
    """The URL of an empty store: a SQLite ``file``, or a PostgreSQL schema of its own."""
    if backend == "sqlite":
        yield f"sqlite:///{file}"
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
def store_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """A database URL for an empty store, once per backend."""
    with _empty_store(backend, tmp_path / "orbital.db") as url:
        yield url


@pytest.fixture
def second_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """A second empty store on the same backend as ``store_url``."""
    with _empty_store(backend, tmp_path / "target.db") as url:
        yield url


@pytest.fixture
def orbital_db(store_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """``store_url`` handed to the CLI the way a user does: as ``ORBITAL_DB``."""
    monkeypatch.setenv("ORBITAL_DB", store_url)
    return store_url


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Remembers which backend each collected test runs on, for the summary."""
    backend_of: dict[str, str] = {}
    sqlite_only: Counter[str] = Counter()
    for item in items:
        callspec = getattr(item, "callspec", None)
        marker = item.get_closest_marker("sqlite_only")
        if callspec is not None and "backend" in callspec.params:
            if marker is not None:
                raise pytest.UsageError(f"{item.nodeid}: sqlite_only, yet run on each backend")
            backend_of[item.nodeid] = callspec.params["backend"]
        elif marker is not None:
            backend_of[item.nodeid] = "sqlite"
            sqlite_only[marker.args[0]] += 1
    config.stash[_BACKEND_OF] = backend_of
    config.stash[_SQLITE_ONLY] = sqlite_only


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line per backend: how its store tests ended, and why any were skipped."""
    backend_of = terminalreporter.config.stash.get(_BACKEND_OF, {})
    outcomes: dict[str, Counter[str]] = {name: Counter() for name in BACKENDS}
    reasons: dict[str, set[str]] = {name: set() for name in BACKENDS}
    for outcome in ("passed", "failed", "error", "skipped", "xfailed", "xpassed"):
        for report in terminalreporter.stats.get(outcome, []):
            name = backend_of.get(getattr(report, "nodeid", ""))
            if name is None:
                continue
            outcomes[name][outcome] += 1
            if outcome == "skipped" and isinstance(report.longrepr, tuple):
                reasons[name].add(report.longrepr[2].removeprefix("Skipped: "))
    terminalreporter.section("store backends")
    for name in BACKENDS:
        ended = ", ".join(f"{n} {outcome}" for outcome, n in outcomes[name].items())
        why = "".join(f" ({reason})" for reason in sorted(reasons[name]))
        terminalreporter.write_line(f"{name}: {ended or 'no tests'}{why}")
        if name == "sqlite":
            for reason, n in terminalreporter.config.stash.get(_SQLITE_ONLY, Counter()).items():
                terminalreporter.write_line(f"  incl. {n} marked SQLite only: {reason}")
