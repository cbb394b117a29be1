"""A tool's answer and its form on the wire: one :class:`Answer` becomes the same MCP tool
result on both transports (the stdio server sends :func:`wire` as it is, the SDK server
validates it into its model). No service and no SDK here: the stdio server words its own
tool errors (an unknown tool, bad arguments) before the service is open."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec


@dataclass(frozen=True, slots=True)
class Answer:
    """A tool's answer: its text blocks, the structured value the first one encodes (if it
    is JSON), and whether it is a tool error."""

    texts: tuple[str, ...]
    data: dict[str, Any] | None = None
    is_error: bool = False


def text(*blocks: str) -> Answer:
    return Answer(blocks)


def error(line: str) -> Answer:
    return Answer((line,), is_error=True)


def data(value: dict[str, Any]) -> Answer:
    """JSON for the model to read, and the same as structured content."""
    builtins: dict[str, Any] = msgspec.to_builtins(value)
    return Answer((msgspec.json.encode(builtins).decode(),), builtins)


def wire(answer: Answer) -> dict[str, Any]:
    """The MCP ``tools/call`` result of ``answer``, as JSON."""
    result: dict[str, Any] = {
        "content": [{"type": "text", "text": block} for block in answer.texts],
        "isError": answer.is_error,
    }
    if answer.data is not None:
        result["structuredContent"] = answer.data
    return result
