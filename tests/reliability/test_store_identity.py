"""Issue 12 item 4: a store deleted or replaced under a running service is refused, never
written into; a CLI run never silently starts a new, empty store where one was."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from litestar.testing import TestClient

from orbital.cli import cli
from orbital.errors import StoreGone
from orbital.events import Actor
from orbital.http import create_app
from orbital.service import Orbital
from tests.http.http_helpers import Client

BASE = "http://127.0.0.1:8765"

pytestmark = pytest.mark.sqlite_only("the store's file deleted, replaced or missing")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Orbital, Client, str, str]]:
    service = Orbital.open(f"sqlite:///{tmp_path / 'orbital.db'}")
    (tmp_path / "proj").mkdir()
    project = service.init_project(tmp_path / "proj").project_id
    token = service.credentials.create("agent", [project]).token
    with TestClient(create_app(service), base_url=BASE) as client:
        yield service, client, project, token
    service.close()


def _put(client: Client, project: str, token: str, text: str) -> int:
    response = client.put(
        f"/api/v1/projects/{project}/files/DECISIONS.md",
        json={"content": f"# Decisions\n\n## {text}\n{text} because.\n"},
        headers={"Authorization": f"Bearer {token}"},
    )
    return response.status_code


def test_a_store_deleted_under_a_running_server_refuses_writes_and_health_says_so(
    tmp_path: Path,
    served: tuple[Orbital, Client, str, str],
) -> None:
    service, client, project, token = served
    assert _put(client, project, token, "Before") == 200
    decisions = (tmp_path / "proj" / "orbital" / "DECISIONS.md").read_bytes()
    (tmp_path / "orbital.db").unlink()
    response = client.put(
        f"/api/v1/projects/{project}/files/DECISIONS.md",
        json={"content": "# Decisions\n\n## After\nAfter because.\n"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 503
    problem = response.json()
    assert problem["type"] == "/problems/store-gone"
    assert "was deleted" in problem["detail"]
    assert (tmp_path / "proj" / "orbital" / "DECISIONS.md").read_bytes() == decisions
    health = client.get("/health")
    assert health.status_code == 503
    assert health.json()["status"] == "store-gone"
    with pytest.raises(StoreGone):
        service.ask_open(project, "anything", actor=Actor.AGENT)


def test_a_store_replaced_under_a_running_server_is_refused(
    tmp_path: Path,
    served: tuple[Orbital, Client, str, str],
) -> None:
    _service, client, project, token = served
    shutil.copy(tmp_path / "orbital.db", tmp_path / "other.db")
    (tmp_path / "other.db").replace(tmp_path / "orbital.db")
    assert _put(client, project, token, "Into the other file") == 503
    health = client.get("/health").json()
    assert health["status"] == "store-gone"
    assert "replaced" in health["detail"]


def test_a_cli_run_never_creates_a_store_where_one_was_deleted(
    tmp_path: Path, run: CliRunner
) -> None:
    store = tmp_path / "store" / "orbital.db"
    assert run.invoke(cli, ["init", "--project", str(tmp_path)], obj={}).exit_code == 0
    with Orbital.open(f"sqlite:///{store}") as running:  # a server holding the store open
        running.head()
        store.unlink()
        assert Path(f"{store}-wal").exists()
        for args in (["asks", "--project", str(tmp_path)], ["init", "--project", str(tmp_path)]):
            result = run.invoke(cli, args, obj={})
            assert result.exit_code == 6  # Unavailable
            assert result.stderr.startswith(f"error: the store {store} was deleted")
            assert result.stderr.count("\n") == 1
            assert not store.exists()


def test_only_init_creates_a_missing_store(tmp_path: Path, run: CliRunner) -> None:
    store = tmp_path / "store" / "orbital.db"
    result = run.invoke(cli, ["asks", "--project", str(tmp_path)], obj={})
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: there is no store at {store}: `orbital init` creates one there, "
        "or point ORBITAL_DB / --db at the existing one\n"
    )
    assert not store.exists()
    assert run.invoke(cli, ["init", "--project", str(tmp_path)], obj={}).exit_code == 0
    assert store.exists()
