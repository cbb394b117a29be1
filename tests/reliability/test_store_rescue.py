"""Issue 27, finding 7: a store deleted or moved while in use says what to do, and the data a
running process still holds is saved (by that process when it notices, or by
``orbital db rescue`` from another one) instead of going with it when it stops."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from litestar.testing import TestClient

from orbital.cli import cli
from orbital.errors import StoreGone
from orbital.events import Actor
from orbital.http import create_app
from orbital.service import Orbital

pytestmark = pytest.mark.sqlite_only("the store's file deleted or moved while in use")

STAMP = "20261101T093000Z"  # ORBITAL_NOW of the `run` fixture


def _filled(store: Path, project: Path) -> Orbital:
    """A service on a new store at ``store`` with a project and a few events."""
    project.mkdir()
    service = Orbital.open(f"sqlite:///{store}")
    pid = service.init_project(project, timezone="UTC").project_id
    service.write_file(pid, "DECISIONS.md", b"## Use Postgres\nChose: yes.\n", actor=Actor.AGENT)
    service.ask_open(pid, "Choose the venue", actor=Actor.AGENT)
    return service


def _events(store: Path) -> list[tuple[int, str]]:
    with Orbital.open(f"sqlite:///{store}", create=False) as service:
        (project,) = service.projects()
        return [(e.position, e.type) for e in service.history(project.project_id)]


def test_the_process_holding_a_deleted_store_saves_it_and_says_where(tmp_path: Path) -> None:
    store = tmp_path / "orbital.db"
    service = _filled(store, tmp_path / "proj")
    try:
        (pid,) = [p.project_id for p in service.projects()]
        before = [(e.position, e.type) for e in service.history(pid)]
        store.unlink()
        with pytest.raises(StoreGone) as gone:
            service.ask_open(pid, "Book the caterer", actor=Actor.AGENT)
        (saved,) = tmp_path.glob("orbital.db.rescued-*")
        assert str(gone.value) == f"the store {store} was deleted while in use; nothing was written"
        assert gone.value.hint == (
            f"this process still held it: its data ({len(before)} events) is saved as "
            f"{saved}: stop Orbital, remove {store}-wal and {store}-shm (the saved store holds "
            f"what they had), then `mv {saved} {store}`"
        )
        with TestClient(create_app(service), base_url="http://127.0.0.1:8765") as client:
            health = client.get("/health").json()
        assert health["status"] == "store-gone"
        assert f"saved as {saved}" in health["detail"]
        assert list(tmp_path.glob("orbital.db.rescued-*")) == [saved]  # saved once
    finally:
        service.close()
    for left in ("-wal", "-shm"):  # what the message says to do
        Path(f"{store}{left}").unlink(missing_ok=True)
    saved.rename(store)
    assert _events(store) == before


def test_db_rescue_saves_a_deleted_store_from_the_server_still_holding_it(
    tmp_path: Path, run: CliRunner
) -> None:
    store = tmp_path / "store" / "orbital.db"
    _filled(store, tmp_path / "proj").close()
    before = _events(store)
    holder = (
        "import sys, time; from orbital.service import Orbital; "
        "s = Orbital.open(sys.argv[1], create=False); s.head(); print('open', flush=True); "
        "time.sleep(120)"
    )
    with subprocess.Popen(
        [sys.executable, "-c", holder, f"sqlite:///{store}"], stdout=subprocess.PIPE
    ) as server:
        try:
            assert server.stdout is not None and server.stdout.readline() == b"open\n"
            store.unlink()
            Path(f"{store}-shm").unlink()  # rm orbital.db orbital.db-shm: the -wal stays
            asks = run.invoke(cli, ["asks", "--project", str(tmp_path / "proj")], obj={})
            assert asks.exit_code == 6
            assert asks.stderr == (
                f"error: the store {store} was deleted while in use (its -wal/-shm files are "
                "still there); nothing was written: if an Orbital process still runs on it "
                "(`orbital serve`), do not stop it: `orbital db rescue` saves the data it "
                f"holds; else put the file back from a backup, or remove {store}-wal and "
                f"{store}-shm to start an empty store there (what they held is lost)\n"
            )
            rescued = run.invoke(cli, ["db", "rescue"], obj={})
            assert rescued.exit_code == 0, rescued.output
            saved = store.with_name(f"orbital.db.rescued-{STAMP}")
            lines = rescued.output.splitlines()
            assert lines[0].startswith(f"rescued the store ({len(before)} events) from process ")
            assert lines[0].endswith(f" as {saved}")
            assert lines[1] == (
                f"to use it: stop that process, remove {store}-wal and {store}-shm (the saved "
                f"store holds what they had), then `mv {saved} {store}`"
            )
        finally:
            server.terminate()
    for left in ("-wal", "-shm"):
        Path(f"{store}{left}").unlink(missing_ok=True)
    saved.rename(store)
    assert _events(store) == before


def test_db_rescue_with_nothing_holding_the_store_says_what_else_to_do(
    tmp_path: Path, run: CliRunner
) -> None:
    store = tmp_path / "store" / "orbital.db"
    rescued = run.invoke(cli, ["db", "rescue"], obj={})
    assert rescued.exit_code == 1
    assert rescued.stderr == (
        f"error: nothing to rescue at {store}: no running process holds the deleted file "
        "open: if the file was moved, point ORBITAL_DB at its new place; else put it back from "
        "a backup, or remove the -wal and -shm beside it to start an empty store there (what "
        "they held is lost)\n"
    )


def test_a_store_moved_while_in_use_says_where_it_went(tmp_path: Path) -> None:
    store, moved = tmp_path / "orbital.db", tmp_path / "elsewhere.db"
    service = _filled(store, tmp_path / "proj")
    try:
        (pid,) = [p.project_id for p in service.projects()]
        store.rename(moved)
        with pytest.raises(StoreGone) as gone:
            service.ask_open(pid, "Book the caterer", actor=Actor.AGENT)
        assert str(gone.value) == (
            f"the store {store} was moved to {moved} while in use; nothing was written"
        )
        assert gone.value.hint == (
            f"point ORBITAL_DB at {moved} (or move it back) and start Orbital again"
        )
        assert not list(tmp_path.glob("orbital.db.rescued-*"))
    finally:
        service.close()
