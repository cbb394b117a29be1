"""The stdio server answers ``initialize`` and ``tools/list`` from ``manifest.json`` without
the SDK: it must be what the SDK server answers (regenerate it with
``python -m orbital.mcp._describe`` after changing a tool), and the quick argument check must
never pass what the SDK's validation refuses."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from orbital.mcp._describe import describe
from orbital.mcp._manifest import load
from orbital.mcp._schema import plainly_valid


def test_the_manifest_is_what_the_sdk_server_answers() -> None:
    assert load() == anyio.run(describe)


def schema(name: str) -> dict[str, Any]:
    (tool,) = [t for t in load()["tools"] if t["name"] == name]
    found: dict[str, Any] = tool["inputSchema"]
    return found


@pytest.mark.parametrize(
    ("tool", "arguments", "plain"),
    [
        ("memory_context", {}, True),
        ("memory_context", {"audience": "subagent"}, True),
        ("memory_context", {"audience": "boss"}, False),
        ("memory_write", {"file": "DECISIONS.md", "content": "x", "base": 3}, True),
        ("memory_write", {"file": "DECISIONS.md", "content": "x", "base": True}, False),
        ("memory_write", {"file": "DECISIONS.md", "content": "x", "base": "3"}, False),
        ("memory_write", {"file": "DECISIONS.md", "content": "x", "remove": ["a", "b"]}, True),
        ("memory_write", {"file": "DECISIONS.md", "content": "x", "remove": ["a", 1]}, False),
        ("memory_write", {"file": "DECISIONS.md"}, False),
        ("memory_history", {"file": None, "since": "2026-01-01"}, True),
        ("memory_read", {"file": "ASKS.md", "extra": 1}, False),
        ("ask_close", {"id": "a1b2c3", "state": "done"}, True),
        ("ask_close", {"id": "a1b2c3", "state": "maybe"}, False),
        ("ask_close", {"id": 7, "state": "done"}, False),
    ],
)
def test_plainly_valid_arguments(tool: str, arguments: dict[str, Any], plain: bool) -> None:
    assert plainly_valid(schema(tool), arguments) is plain


def test_a_schema_keyword_it_does_not_know_is_left_to_the_sdk() -> None:
    constrained = {"type": "object", "properties": {"x": {"type": "string", "minLength": 2}}}
    assert not plainly_valid(constrained, {"x": "ab"})
