"""The stdio server answers ``initialize`` and ``tools/list`` from ``manifest.json`` without
the SDK: it must be what the SDK server answers (regenerate it with
``python -m tests.mcp.test_manifest`` after changing a tool). A call's arguments are checked
against the listed schema by one check (:mod:`orbital.mcp._schema`) on both transports: the
SDK server's middleware answers a bad call with the same text the stdio server does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import TextContent

from orbital.clock import FixedClock
from orbital.mcp._manifest import MANIFEST, load
from orbital.mcp._schema import argument_error, bound
from orbital.mcp._server import build_server
from orbital.service import Orbital


async def describe() -> dict[str, Any]:
    """The manifest as the SDK server answers now (an in-memory client asks it)."""
    from mcp import Client
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    from orbital.mcp._server import build_server

    server = build_server(None, lambda _ctx: "")  # type: ignore[arg-type]  # nothing is called
    async with Client(server, mode="legacy") as client:
        initialized = client.session.initialize_result
        assert initialized is not None
        tools = (await client.list_tools()).tools
    dump: dict[str, Any] = {"by_alias": True, "exclude_none": True, "mode": "json"}
    answer = initialized.model_dump(**dump)
    del answer["protocolVersion"]
    return {
        "initialize": answer,
        "tools": [tool.model_dump(**dump) for tool in tools],
        "protocolVersions": list(HANDSHAKE_PROTOCOL_VERSIONS),
    }


def write() -> None:
    """Write ``manifest.json`` from the SDK server."""
    manifest = anyio.run(describe)
    MANIFEST.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", "utf-8")


def test_the_manifest_is_what_the_sdk_server_answers() -> None:
    assert load() == anyio.run(describe)


WRITE = {"file": "DECISIONS.md", "content": "x"}


@pytest.mark.parametrize(
    ("tool", "arguments", "error"),
    [
        ("memory_context", {}, None),
        ("memory_context", {"audience": "subagent"}, None),
        (
            "memory_context",
            {"audience": "boss"},
            "audience: 'boss' is not one of ['agent', 'subagent']",
        ),
        ("memory_write", {**WRITE, "base": 3}, None),
        (
            "memory_write",
            {**WRITE, "base": True},
            "base: True is not valid under any of the given schemas "
            "(True is not of type 'integer'; True is not of type 'null')",
        ),
        (
            "memory_write",
            {**WRITE, "base": "3"},
            "base: '3' is not valid under any of the given schemas "
            "('3' is not of type 'integer'; '3' is not of type 'null')",
        ),
        ("memory_write", {**WRITE, "remove": ["a", "b"]}, None),
        (
            "memory_write",
            {**WRITE, "remove": ["a", 1]},
            "remove: ['a', 1] is not valid under any of the given schemas "
            "(1 is not of type 'string'; ['a', 1] is not of type 'null')",
        ),
        ("memory_write", {"file": "DECISIONS.md"}, "arguments: 'content' is a required property"),
        ("memory_history", {"file": None, "since": "2026-01-01"}, None),
        # Another argument is ignored, as the SDK's model ignores it (``bound`` leaves it out).
        ("memory_read", {"file": "ASKS.md", "extra": 1}, None),
        ("ask_close", {"id": "a1b2c3", "state": "done"}, None),
        (
            "ask_close",
            {"id": "a1b2c3", "state": "maybe"},
            "state: 'maybe' is not one of ['done', 'dropped']",
        ),
        ("ask_close", {"id": 7, "state": "done"}, "id: 7 is not of type 'string'"),
        ("ask_close", [1, 2], "arguments: [1, 2] is not of type 'object'"),
        ("no_such_tool", {}, None),
    ],
)
def test_the_argument_check(tool: str, arguments: Any, error: str | None) -> None:
    expected = None if error is None else f"1 validation error for {tool}:\n{error}"
    assert argument_error(tool, arguments) == expected


def test_every_failing_argument_is_named() -> None:
    assert argument_error("ask_close", {"id": 7}) == (
        "2 validation errors for ask_close:\n"
        "arguments: 'state' is a required property\n"
        "id: 7 is not of type 'string'"
    )


def test_a_checked_call_takes_the_schema_s_defaults_and_only_its_properties() -> None:
    assert bound("memory_read", {"file": "ASKS.md", "extra": 1}) == {
        "file": "ASKS.md",
        "as_of": None,
    }
    assert bound("ask_close", {"id": "a1b2c3", "state": "done"}) == {
        "id": "a1b2c3",
        "state": "done",
        "quote": "",
    }
    assert bound("memory_context", {}) == {"audience": "agent"}


def test_the_sdk_server_answers_a_bad_call_with_the_same_check(
    store_url: str, tmp_path: Path, clock: FixedClock
) -> None:
    root = tmp_path / "site"
    root.mkdir()
    bad = {"id": "a1b2c3", "state": "maybe"}

    async def main(service: Orbital, project: str) -> None:
        server = build_server(service, lambda _ctx: project)
        async with Client(server) as client:
            refused = await client.call_tool("ask_close", bad)
            listed = await client.call_tool("asks_list", {})
        assert refused.is_error
        assert [b.text for b in refused.content if isinstance(b, TextContent)] == [
            argument_error("ask_close", bad)
        ]
        assert (listed.is_error, listed.structured_content) == (False, {"asks": []})

    with Orbital.open(store_url, clock=clock) as service:
        project = service.init_project(root, timezone="UTC").project_id
        anyio.run(main, service, project)


if __name__ == "__main__":
    write()
