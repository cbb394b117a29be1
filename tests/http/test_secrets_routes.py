"""A secret sent through HTTP or an MCP tool is refused by the same rule as every other write
path (issue 27; the rule is tested in tests/service/test_secrets.py): the line and the kind
of secret named, nothing stored, the file byte-identical."""

from __future__ import annotations

from mcp import Client
from mcp.types import TextContent

from tests.http.http_helpers import Client as HttpClient
from tests.http.http_helpers import World, bearer
from tests.http.test_mcp_http import run_client

KEY = "AKIAZ7QWERTY12345678"
REFUSAL = (
    "line 2 of orbital/DECISIONS.md looks like a secret (AWS Access Key); nothing was changed. "
    "Keep secrets out of memory; if it is not one, end the line with "
    "`# pragma: allowlist secret`"
)


def test_an_http_file_write_with_a_secret_is_refused(client: HttpClient, world: World) -> None:
    decisions = world.alpha_root / "orbital" / "DECISIONS.md"
    before = decisions.read_bytes()
    written = client.put(
        f"/api/v1/projects/{world.alpha}/files/DECISIONS.md",
        json={"content": f"## use-vault\nChose: the key {KEY}\n"},
        headers=bearer(world.agent),
    )
    assert (written.status_code, written.json()["detail"]) == (409, REFUSAL)
    assert decisions.read_bytes() == before
    assert all(KEY not in repr(e.event) for e in world.service.history(world.alpha))


def test_an_mcp_write_with_a_secret_is_a_tool_error(server: str, world: World) -> None:
    decisions = world.alpha_root / "orbital" / "DECISIONS.md"
    before = decisions.read_bytes()

    async def script(client: Client) -> None:
        written = await client.call_tool(
            "memory_write",
            {"file": "DECISIONS.md", "content": f"## use-vault\nChose: the key {KEY}\n"},
        )
        assert written.is_error
        (block,) = written.content
        assert isinstance(block, TextContent)
        assert block.text == f"error: {REFUSAL}"

    run_client(f"{server}/mcp", world.agent, "auto", script)
    assert decisions.read_bytes() == before
    assert all(KEY not in repr(e.event) for e in world.service.history(world.alpha))


def test_the_person_purges_over_http_and_an_agent_cannot(client: HttpClient, world: World) -> None:
    decisions = world.alpha_root / "orbital" / "DECISIONS.md"
    text = f"## use-vault\nChose: the key {KEY} # pragma: allowlist secret\n"
    written = client.put(
        f"/api/v1/projects/{world.alpha}/files/DECISIONS.md",
        json={"content": text},
        headers=bearer(world.agent),
    )
    assert written.status_code == 200
    read = f"/api/v1/projects/{world.alpha}/files/DECISIONS.md"
    view = f"/api/v1/projects/{world.alpha}/context"
    for url in (read, view):  # kept by the server process before the purge
        assert KEY in client.get(url, headers=bearer(world.agent)).text
    route = f"/api/v1/workbench/{world.alpha}/purge"
    body = {"text": KEY, "reason": "leaked key"}
    assert client.post(route, json=body, headers=bearer(world.agent)).status_code == 403
    assert KEY in decisions.read_text()
    purged = client.post(route, json=body, headers=bearer(world.person))
    assert purged.status_code == 200, purged.text
    assert purged.json()["compacted"] is True
    assert KEY not in decisions.read_text()
    assert "Chose: the key [purged] # pragma: allowlist secret" in decisions.read_text()
    for url in (read, view):  # and no longer served from what it kept
        answer = client.get(url, headers=bearer(world.agent)).text
        assert KEY not in answer and "[purged]" in answer
    history = list(world.service.history(world.alpha))
    assert all(KEY not in repr(e.event) for e in history)
    assert (history[-1].type, history[-1].actor.value) == ("project.purged", "user")
    again = client.post(route, json=body, headers=bearer(world.person))
    assert again.status_code == 404
    assert (
        client.post(route, json={**body, "text": "short"}, headers=bearer(world.person)).status_code
        == 400
    )
