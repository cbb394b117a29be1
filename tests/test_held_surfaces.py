"""Issue 28, finding 1 on every surface: an agent's ask that resembles one the person dropped
is held (listed under ``held`` with the dropped ask's id, nothing appended), and taken when
sent again naming that ask: the CLI's ``--distinct-from``, MCP's ``distinct_from`` (through the
SDK's own client), the HTTP field."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from litestar.testing import TestClient
from mcp import Client

from orbital.cli import cli
from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.http import HttpSettings, create_app
from orbital.service import Orbital
from tests.http.http_helpers import BASE_URL, bearer
from tests.mcp.test_stdio import data_of, run_session
from tests.wordnet_helpers import needs_wordnet

DROPPED = "Confirm the VAT rate for German customers"
REWORDED = "Establish what VAT rate German customers should pay"

pytestmark = needs_wordnet


@pytest.fixture
def project(store_url: str, tmp_path: Path, clock: FixedClock) -> Iterator[tuple[Path, str]]:
    """A project whose person dropped :data:`DROPPED`; yields its folder and the ask's id."""
    root = tmp_path / "shop"
    root.mkdir()
    with Orbital.open(store_url, clock=clock) as service:
        pid = service.init_project(root, timezone="UTC").project_id
        opened = service.ask_open(pid, DROPPED, actor=Actor.AGENT)
        ask_id = opened.events[0].stream.removeprefix("ask:")
        service.ask_close(pid, ask_id, "dropped", "not needed", actor=Actor.USER)
    yield root, ask_id


def _asks_md(root: Path) -> bytes:
    return (root / "orbital" / "ASKS.md").read_bytes()


def _opened_line(root: Path, ask_id: str) -> str:
    *_, last = _asks_md(root).decode().splitlines()
    assert re.fullmatch(
        rf"- open [0-9a-f]{{6}} \d{{4}}-\d\d-\d\d {REWORDED} \(distinct from {ask_id}\)", last
    ), last
    return last


def test_the_cli_holds_then_takes_distinct_from(project: tuple[Path, str], orbital_db: str) -> None:
    root, ask_id = project
    before = _asks_md(root)
    run = CliRunner()

    def ask_open(*more: str) -> Result:
        args = ["ask", "open", REWORDED, "--json", "--project", str(root), *more]
        return run.invoke(cli, args, obj={})

    held = ask_open()
    assert held.exit_code == 0, held.output
    answer = json.loads(held.stdout)
    assert answer["held"] == [{"text": REWORDED, "id": ask_id}]
    assert answer["refused"] is False
    assert f"[{ask_id}]" in answer["warnings"][0]
    assert _asks_md(root) == before
    taken = ask_open("--distinct-from", ask_id)
    assert taken.exit_code == 0, taken.output
    assert json.loads(taken.stdout)["held"] == []
    _opened_line(root, ask_id)


def test_mcp_holds_then_takes_distinct_from(store_url: str, project: tuple[Path, str]) -> None:
    root, ask_id = project
    before = _asks_md(root)

    async def script(client: Client) -> None:
        held = data_of(await client.call_tool("ask_open", {"text": REWORDED}))
        assert held["held"] == [{"text": REWORDED, "id": ask_id}]
        assert [e["type"] for e in held["events"]] == ["ask.open_refused"]
        assert _asks_md(root) == before
        taken = data_of(
            await client.call_tool("ask_open", {"text": REWORDED, "distinct_from": [ask_id]})
        )
        assert taken["held"] == []
        assert [e["type"] for e in taken["events"]] == ["ask.opened"]

    run_session(store_url, root, script)
    _opened_line(root, ask_id)


def test_http_holds_then_takes_distinct_from(
    store_url: str, project: tuple[Path, str], clock: FixedClock
) -> None:
    root, ask_id = project
    before = _asks_md(root)
    with Orbital.open(store_url, clock=clock) as service:
        pid = service.project(root).project_id
        token = service.credentials.create("agent", [pid], label="agent").token
        app = create_app(service, HttpSettings())
        with TestClient(app, base_url=BASE_URL) as client:
            url = f"/api/v1/projects/{pid}/asks"
            held = client.post(url, json={"text": REWORDED}, headers=bearer(token))
            assert held.status_code == 200, held.text
            assert held.json()["held"] == [{"text": REWORDED, "id": ask_id}]
            assert _asks_md(root) == before
            body = {"text": REWORDED, "distinct_from": [ask_id]}
            taken = client.post(url, json=body, headers=bearer(token))
            assert taken.status_code == 200, taken.text
            assert taken.json()["held"] == []
    _opened_line(root, ask_id)
