"""``orbital mcp`` on the wire, line by line: what a client that is not the SDK may send (a
line that is not JSON, params of the wrong shape, an unknown method, a notification) gets a
JSON-RPC error or nothing, and the server goes on answering."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from orbital.clock import FixedClock
from orbital.service import Orbital

ORBITAL = str(Path(sys.executable).parent / "orbital")


def exchange(store: str, root: Path, lines: list[str]) -> tuple[list[dict[str, Any]], int]:
    done = subprocess.run(
        [ORBITAL, "mcp", "--project", str(root)],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        env={"ORBITAL_DB": store, "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    return [json.loads(line) for line in done.stdout.splitlines()], done.returncode


def test_bad_lines_get_json_rpc_errors_and_the_server_goes_on(
    store_url: str, tmp_path: Path, clock: FixedClock
) -> None:
    root = tmp_path / "site"
    root.mkdir()
    with Orbital.open(store_url, clock=clock) as service:
        service.init_project(root, timezone="UTC")
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {}},
    }
    answers, code = exchange(
        store_url,
        root,
        [
            json.dumps(initialize),
            '{"jsonrpc":"2.0","method":"notifications/initialized"}',
            "not json",
            '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":[1, 2]}',
            '{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{}}',
            '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"asks_list"}}',
            '{"jsonrpc":"2.0","id":5,"method":"ping"}',
        ],
    )
    assert code == 0
    assert answers[0]["result"]["protocolVersion"] == "2025-06-18"
    assert answers[0]["result"]["serverInfo"]["name"] == "orbital"
    assert answers[1:] == [
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}},
        {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "Invalid params"}},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "error": {"code": -32601, "message": "Method not found", "data": "server/discover"},
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "result": {
                "content": [{"type": "text", "text": '{"asks":[]}'}],
                "isError": False,
                "structuredContent": {"asks": []},
            },
        },
        {"jsonrpc": "2.0", "id": 5, "result": {}},
    ]


def test_an_unknown_protocol_version_is_answered_with_the_newest_handshake_one(
    store_url: str, tmp_path: Path, clock: FixedClock
) -> None:
    root = tmp_path / "site"
    root.mkdir()
    with Orbital.open(store_url, clock=clock) as service:
        service.init_project(root, timezone="UTC")
    line = (
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}'
    )
    (answer,), _ = exchange(store_url, root, [line])
    assert answer["result"]["protocolVersion"] == "2025-11-25"
