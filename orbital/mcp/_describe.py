"""``manifest.json`` written from the SDK server (:func:`orbital.mcp.build_server`): what it
answers to ``initialize`` and ``tools/list``, asked by an in-memory client. Above the SDK
server, which imports the plain data of :mod:`._manifest`; run as a module to write it."""

from __future__ import annotations

import json
from typing import Any

from orbital.mcp._manifest import MANIFEST


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
    import anyio

    manifest = anyio.run(describe)
    MANIFEST.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", "utf-8")


if __name__ == "__main__":
    write()
