"""``/mcp``: the MCP server over streamable HTTP, behind an agent token, with the app's
``Host`` allowlist and an ``Origin`` check on every request."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import TextContent

from orbital.events import Actor
from orbital.service import HistoryQuery
from tests.http.http_helpers import Client as HttpClient
from tests.http.http_helpers import World, asks_md, bearer
from tests.mcp.mcp_helpers import session_meta

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


def run_client(
    url: str, token: str, mode: str, script: Callable[[Client], Awaitable[None]]
) -> None:
    async def main() -> None:
        async with httpx2.AsyncClient(headers=bearer(token), timeout=30) as http:
            transport = streamable_http_client(url, http_client=http)
            async with Client(transport, mode=mode) as client:
                await script(client)

    anyio.run(main)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_an_agent_token_uses_the_tools_over_http(server: str, world: World, mode: str) -> None:
    async def script(client: Client) -> None:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert {"memory_context", "ask_open", "ask_reopen"} <= names
        opened = await client.call_tool(
            "ask_open", {"text": "Sign the lease"}, meta=session_meta(f"http-{mode}")
        )
        assert not opened.is_error
        view = await client.call_tool("memory_context", {})
        (block,) = view.content
        assert isinstance(block, TextContent)
        assert "Sign the lease" in block.text

    run_client(f"{server}/mcp", world.agent, mode, script)
    assert "Sign the lease" in asks_md(world)
    (event,) = world.service.history(world.alpha, HistoryQuery(stream="ask:"))
    assert (event.actor, event.session) == (Actor.AGENT, f"http-{mode}")


def post(client: HttpClient, token: str | None, path: str = "/mcp", **headers: str) -> Any:
    sent = {**MCP_HEADERS, **headers, **(bearer(token) if token else {})}
    return client.post(path, json=INITIALIZE, headers=sent)


def test_the_answer_is_json_rpc(client: HttpClient, world: World) -> None:
    answer = post(client, world.agent)
    assert answer.status_code == 200, answer.text
    assert json.loads(answer.text)["result"]["serverInfo"]["name"] == "orbital"


def test_a_workbench_token_is_refused(client: HttpClient, world: World) -> None:
    answer = post(client, world.person, f"/mcp?project={world.alpha}")
    assert answer.status_code == 403
    assert answer.json()["detail"] == (
        "this route is for agent tokens; "
        "a workbench token opens only the Workbench (/api/v1/workbench…)"
    )
    assert post(client, None).status_code == 401
    assert post(client, "orbital_nope_nope").status_code == 401


@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
def test_a_foreign_origin_is_refused(client: HttpClient, world: World, method: str) -> None:
    headers = {**MCP_HEADERS, **bearer(world.agent), "Origin": "https://evil.example"}
    answer = client.request(method, "/mcp", headers=headers, json=INITIALIZE)
    assert answer.status_code == 403
    assert answer.headers["content-type"] == "application/problem+json"
    assert "origin 'https://evil.example'" in answer.json()["detail"]
    assert world.service.head(world.alpha) == 1


def test_the_servers_own_origin_passes(client: HttpClient, world: World) -> None:
    assert post(client, world.agent, Origin="http://127.0.0.1:8765").status_code == 200


def test_a_foreign_host_is_refused(client: HttpClient, world: World) -> None:
    answer = post(client, world.agent, Host="rebound.example:8765")
    assert answer.status_code == 403
    assert "host 'rebound.example:8765'" in answer.json()["detail"]


def test_which_project(client: HttpClient, world: World) -> None:
    everywhere = world.credentials.create("agent", label="every project").token
    unnamed = post(client, everywhere)
    assert unnamed.status_code == 400
    assert "/mcp?project=<id>" in unnamed.json()["detail"]
    assert post(client, everywhere, f"/mcp?project={world.beta}").status_code == 200
    out_of_reach = post(client, world.agent, f"/mcp?project={world.beta}")
    assert out_of_reach.status_code == 404
    assert out_of_reach.json()["detail"] == f"unknown project {world.beta!r}"
