"""NUL characters sent through HTTP bodies and MCP tool arguments are removed with the one
warning before anything is stored (issue 12 item 10); the rule itself is tested in
tests/service/test_nul_text.py."""

from __future__ import annotations

import json

from mcp import Client
from mcp.types import TextContent

from orbital.events import Actor
from tests.http.http_helpers import Client as HttpClient
from tests.http.http_helpers import World, asks_md, bearer
from tests.http.test_mcp_http import run_client


def test_an_http_file_write_and_ask_lose_their_nul(client: HttpClient, world: World) -> None:
    written = client.put(
        f"/api/v1/projects/{world.alpha}/files/DECISIONS.md",
        json={"content": "## use-tabs\nChose: tabs\u0000\n"},
        headers=bearer(world.agent),
    )
    assert written.status_code == 200
    assert written.json()["warnings"][0] == (
        "DECISIONS.md: removed 1 NUL character (U+0000): stored text cannot hold it."
    )
    assert "\u0000" not in (world.alpha_root / "orbital" / "DECISIONS.md").read_text()
    opened = client.post(
        f"/api/v1/workbench/{world.alpha}/asks",
        json={"text": "Pick\u0000 a date"},
        headers=bearer(world.person),
    )
    assert opened.status_code == 200
    assert opened.json()["warnings"] == [
        "the ask's text: removed 1 NUL character (U+0000): stored text cannot hold it."
    ]
    assert [a.text for a in world.service.asks(world.alpha)] == ["Pick a date"]
    assert all("\\x00" not in str(e.event) for e in world.service.history(world.alpha))


def test_an_mcp_tool_argument_loses_its_nul(server: str, world: World) -> None:
    async def script(client: Client) -> None:
        opened = await client.call_tool("ask_open", {"text": "Sign\u0000 the lease"})
        assert not opened.is_error
        (block,) = opened.content
        assert isinstance(block, TextContent)
        assert json.loads(block.text)["warnings"] == [
            "the ask's text: removed 1 NUL character (U+0000): stored text cannot hold it."
        ]

    run_client(f"{server}/mcp", world.agent, "auto", script)
    (ask,) = world.service.asks(world.alpha)
    assert ask.text == "Sign the lease"
    assert f"- open {ask.id} 2026-09-19 Sign the lease\n" in asks_md(world)
    assert (ask.text, list(world.service.history(world.alpha))[-1].actor) == (
        "Sign the lease",
        Actor.AGENT,
    )
