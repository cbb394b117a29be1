"""Issue 12 item 8: a read-only store, a full disk and a corrupt database each get the one
``error:`` line on the CLI and a problem type of their own on HTTP; nothing is half-written;
a read-only store still serves reads, says so, and takes writes again once writable."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from litestar.testing import TestClient

import orbital
from orbital.cli import cli
from orbital.errors import StoreReadOnly
from orbital.events import Actor
from orbital.http import create_app
from orbital.service import Orbital

from .conftest import Tmpfs

BASE = "http://127.0.0.1:8765"

pytestmark = pytest.mark.sqlite_only("the store's file read-only, on a full disk or damaged")


def _one_error_line(result: Result, status: int, *fragments: str) -> None:
    assert result.exit_code == status, result.output
    stderr = result.stderr
    assert stderr.startswith("error: ") and stderr.count("\n") == 1, stderr
    for fragment in fragments:
        assert fragment in stderr


#: A write of 36 KB (to find the disk full) under the 10,000 tokens one write may add.
BIG_DECISION = "# Decisions\n\n## Big\n" + "y" * 36_000 + "\n"


def _fill(directory: Path) -> Path:
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:  # the disk is full
        pass
    finally:
        os.close(fd)
    return filler


def test_a_full_disk_is_one_error_line_and_nothing_half_written(
    tmpfs: Tmpfs, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmpfs.path / "proj"
    project.mkdir()
    monkeypatch.setenv("ORBITAL_DB", f"sqlite:///{tmpfs.path / 'orbital.db'}")
    run = CliRunner()
    assert run.invoke(cli, ["init", "--project", str(project)], obj={}).exit_code == 0
    first = run.invoke(cli, ["ask", "open", "first", "--project", str(project)], obj={})
    assert first.exit_code == 0
    asks = (project / "orbital" / "ASKS.md").read_bytes()
    filler = _fill(tmpfs.path)
    for i in range(3):
        result = run.invoke(
            cli, ["ask", "open", f"lost {i} " + "x" * 3000, "--project", str(project)], obj={}
        )
        _one_error_line(result, 6, "full")
    assert (project / "orbital" / "ASKS.md").read_bytes() == asks
    filler.unlink()
    listed = run.invoke(cli, ["asks", "--project", str(project), "--json"], obj={})
    assert [a["text"] for a in json.loads(listed.output)] == ["first"]
    again = run.invoke(cli, ["ask", "open", "second", "--project", str(project)], obj={})
    assert again.exit_code == 0, again.output


def test_a_full_disk_is_a_problem_of_its_own_on_http(tmpfs: Tmpfs) -> None:
    (tmpfs.path / "proj").mkdir()
    with Orbital.open(f"sqlite:///{tmpfs.path / 'orbital.db'}") as service:
        project = service.init_project(tmpfs.path / "proj").project_id
        token = service.credentials.create("agent", [project]).token
        with TestClient(create_app(service), base_url=BASE) as client:
            _fill(tmpfs.path)
            response = client.put(
                f"/api/v1/projects/{project}/files/DECISIONS.md",
                json={"content": BIG_DECISION},
                headers={"Authorization": f"Bearer {token}"},
            )
    assert response.status_code == 503
    assert response.json()["type"] == "/problems/disk-full"


def test_health_says_the_disk_is_full_until_space_is_freed(tmpfs: Tmpfs) -> None:
    """Issue 33, finding 7: ``/health`` said ``ok`` while every write got 503 disk-full."""
    (tmpfs.path / "proj").mkdir()
    with Orbital.open(f"sqlite:///{tmpfs.path / 'orbital.db'}") as service:
        project = service.init_project(tmpfs.path / "proj").project_id
        token = service.credentials.create("agent", [project]).token
        with TestClient(create_app(service), base_url=BASE) as client:
            assert client.get("/health").json()["status"] == "ok"
            filler = _fill(tmpfs.path)
            for _ in range(2):
                response = client.put(
                    f"/api/v1/projects/{project}/files/DECISIONS.md",
                    json={"content": BIG_DECISION},
                    headers={"Authorization": f"Bearer {token}"},
                )
                assert response.json()["type"] == "/problems/disk-full"
                health = client.get("/health")
                assert (health.status_code, health.json()["status"]) == (200, "disk-full")
                store = f"sqlite:///{tmpfs.path / 'orbital.db'}"
                assert health.json()["detail"] == (
                    f"the disk holding the store {store} is full: reads work, writes are "
                    "refused until space is freed"
                )
            filler.unlink()
            assert client.get("/health").json()["status"] == "ok"
            service.ask_open(project, "after", actor=Actor.AGENT)
            assert client.get("/health").json() | {"head": 0} == {
                "status": "ok",
                "version": orbital.__version__,
                "backend": "sqlite",
                "head": 0,
                "database": service.store.database_version,
                "detail": "",
            }


def test_a_read_only_store_serves_reads_says_so_and_writes_again_once_writable(
    tmpfs: Tmpfs, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmpfs.path / 'orbital.db'}"
    (tmp_path / "proj").mkdir()
    with Orbital.open(url) as service:
        project = service.init_project(tmp_path / "proj").project_id
        service.ask_open(project, "before", actor=Actor.AGENT)
        token = service.credentials.create("agent", [project]).token
    tmpfs.remount("ro")
    with Orbital.open(url) as service:
        assert service.store_status().state == "read-only"
        assert [a.text for a in service.asks(project)] == ["before"]
        asks = (tmp_path / "proj" / "orbital" / "ASKS.md").read_bytes()
        with pytest.raises(StoreReadOnly):
            service.ask_open(project, "refused", actor=Actor.AGENT)
        with TestClient(create_app(service), base_url=BASE) as client:
            health = client.get("/health")
            assert (health.status_code, health.json()["status"]) == (200, "read-only")
            response = client.put(
                f"/api/v1/projects/{project}/files/ASKS.md",
                json={"content": asks.decode() + "- [ ] refused too\n"},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert response.status_code == 503
            assert response.json()["type"] == "/problems/store-read-only"
        assert (tmp_path / "proj" / "orbital" / "ASKS.md").read_bytes() == asks
        tmpfs.remount("rw")
        service.ask_open(project, "after", actor=Actor.AGENT)
        assert [a.text for a in service.asks(project)] == ["before", "after"]
        assert service.store_status().state == "ok"


def test_serve_starts_read_only_on_a_read_only_store_and_says_so(
    tmpfs: Tmpfs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmpfs.path / 'orbital.db'}"
    (tmp_path / "proj").mkdir()
    with Orbital.open(url) as service:
        service.init_project(tmp_path / "proj")
    tmpfs.remount("ro")
    monkeypatch.setenv("ORBITAL_DB", url)
    monkeypatch.setattr("uvicorn.run", lambda *_a, **_k: None)
    result = CliRunner().invoke(cli, ["serve", "--port", "8799"], obj={})
    assert result.exit_code == 0, result.output
    assert "read-only" in result.output
    read = CliRunner().invoke(cli, ["asks", "--project", str(tmp_path / "proj")], obj={})
    assert read.exit_code == 0, read.output
    write = ["ask", "open", "x", "--project", str(tmp_path / "proj")]
    _one_error_line(CliRunner().invoke(cli, write, obj={}), 6, "read-only")


def test_a_corrupt_store_is_one_error_line_and_a_problem_of_its_own(
    tmp_path: Path, run: CliRunner
) -> None:
    store = tmp_path / "store" / "orbital.db"
    assert run.invoke(cli, ["init", "--project", str(tmp_path)], obj={}).exit_code == 0
    with Orbital.open(f"sqlite:///{store}") as service:
        token = service.credentials.create("agent", [service.projects()[0].project_id]).token
        project = service.projects()[0].project_id
        with TestClient(create_app(service), base_url=BASE) as client:
            # The store's files damaged: the database and its WAL index. (With the index
            # intact, SQLite keeps trusting the pages a connection already cached, and a
            # read that needs only those still answers.)
            for damaged in (store, store.with_name(f"{store.name}-shm")):
                size = damaged.stat().st_size
                with damaged.open("r+b") as handle:
                    handle.write(os.urandom(size))
            response = client.get(
                f"/api/v1/projects/{project}/history", headers={"Authorization": f"Bearer {token}"}
            )
            assert response.status_code == 500
            assert response.json()["type"] == "/problems/store-corrupt"
    _one_error_line(run.invoke(cli, ["asks", "--project", str(tmp_path)], obj={}), 1, "damaged")
