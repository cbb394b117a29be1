"""A scripted stand-in for the OpenAI Responses API on loopback, for running the real Codex CLI.

``codex exec`` talks to it through a model provider whose ``base_url`` is ``<url>/v1`` and whose
``wire_api`` is ``responses``: it posts ``/v1/responses`` with ``"stream": true`` and reads
server-sent events: ``response.created``, per output item ``response.output_item.added`` and
``response.output_item.done``, then ``response.completed`` (with ``usage``) ends the turn.
Each request takes the next scripted turn; every request is logged with its body, so a test
asserts exactly what reached the model (tool outputs come back as ``function_call_output`` /
``custom_tool_call_output`` input items).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from tests.loopback import Received, loopback

#: What a request gets once the script is used up: the agent ends its turn.
EXHAUSTED = "(fake model: script exhausted)"


@dataclass(frozen=True)
class Text:
    """An assistant message."""

    text: str


@dataclass(frozen=True)
class FunctionCall:
    """A function tool call (JSON arguments), e.g. ``exec_command`` or an MCP tool."""

    name: str
    arguments: Mapping[str, object]
    namespace: str = ""


@dataclass(frozen=True)
class CustomCall:
    """A freeform (custom) tool call, e.g. ``apply_patch`` with the patch as its input."""

    name: str
    input: str


@dataclass(frozen=True)
class ToolSearch:
    """A client-side ``tool_search`` call: Codex defers MCP tools until the model finds them."""

    query: str


Item = Text | FunctionCall | CustomCall | ToolSearch


def say(text: str) -> tuple[Item, ...]:
    return (Text(text),)


def call(name: str, arguments: Mapping[str, object]) -> tuple[Item, ...]:
    return (FunctionCall(name, arguments),)


def patch(text: str) -> tuple[Item, ...]:
    return (CustomCall("apply_patch", text),)


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    body: dict[str, object]

    @property
    def input(self) -> list[dict[str, object]]:
        items = self.body.get("input", [])
        return items if isinstance(items, list) else []

    def outputs(self) -> list[str]:
        """The tool outputs the request carries back to the model, in order."""
        found: list[str] = []
        for item in self.input:
            if str(item.get("type", "")).endswith("call_output"):
                output = item.get("output")
                if isinstance(output, list):  # content parts: their texts, one per line
                    parts = [p.get("text", "") for p in output if isinstance(p, dict)]
                    output = "\n".join(str(p) for p in parts)
                found.append(output if isinstance(output, str) else json.dumps(output))
        return found

    def texts(self) -> list[str]:
        """Every text of the request's input items (instructions and messages)."""
        found: list[str] = []
        for item in self.input:
            content = item.get("content")
            if isinstance(content, list):
                found += [str(c.get("text", "")) for c in content if isinstance(c, dict)]
        return found

    def tool_names(self) -> list[str]:
        tools = self.body.get("tools", [])
        names: list[str] = []
        for tool in tools if isinstance(tools, list) else []:
            if isinstance(tool, dict):
                names.append(str(tool.get("name") or tool.get("type")))
        return names


@dataclass
class FakeOpenAI:
    script: list[tuple[Item, ...]]
    requests: list[Request] = field(default_factory=list)
    url: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def turns(self) -> list[Request]:
        return [r for r in self.requests if r.path.split("?", 1)[0].endswith("/responses")]

    def answer(self, request: Request) -> tuple[int, str, bytes]:
        with self._lock:
            self.requests.append(request)
            if not request.path.split("?", 1)[0].endswith("/responses"):
                return 404, "application/json", b'{"error":{"message":"not found"}}'
            items = self.script.pop(0) if self.script else say(EXHAUSTED)
            number = len(self.requests)
        return 200, "text/event-stream", _events(items, number).encode()


def _item(item: Item, number: int, index: int) -> dict[str, object]:
    ident = f"{number}_{index}"
    if isinstance(item, Text):
        content = [{"type": "output_text", "text": item.text, "annotations": []}]
        return {
            "type": "message",
            "id": f"msg_{ident}",
            "role": "assistant",
            "status": "completed",
            "content": content,
        }
    if isinstance(item, FunctionCall):
        found: dict[str, object] = {
            "type": "function_call",
            "id": f"fc_{ident}",
            "call_id": f"call_{ident}",
            "name": item.name,
            "arguments": json.dumps(dict(item.arguments)),
            "status": "completed",
        }
        if item.namespace:
            found["namespace"] = item.namespace
        return found
    if isinstance(item, ToolSearch):
        return {
            "type": "tool_search_call",
            "id": f"ts_{ident}",
            "call_id": f"call_{ident}",
            "execution": "client",
            "arguments": {"query": item.query},
            "status": "completed",
        }
    return {
        "type": "custom_tool_call",
        "id": f"ctc_{ident}",
        "call_id": f"call_{ident}",
        "name": item.name,
        "input": item.input,
        "status": "completed",
    }


def _events(items: Sequence[Item], number: int) -> str:
    response_id = f"resp_{number}"
    events: list[dict[str, object]] = [
        {"type": "response.created", "response": {"id": response_id}}
    ]
    for index, item in enumerate(items):
        whole = _item(item, number, index)
        events.append({"type": "response.output_item.added", "output_index": index, "item": whole})
        events.append({"type": "response.output_item.done", "output_index": index, "item": whole})
    usage = {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 10,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 20,
    }
    events.append({"type": "response.completed", "response": {"id": response_id, "usage": usage}})
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


@contextmanager
def serving(script: Sequence[tuple[Item, ...]]) -> Iterator[FakeOpenAI]:
    """Run the stand-in for the ``with`` block; ``url`` + ``/v1`` is the provider's base URL."""
    fake = FakeOpenAI(list(script))

    def answer(received: Received) -> tuple[int, str, bytes]:
        body = json.loads(received.body) if received.body.strip() else {}
        return fake.answer(Request(received.method, received.path, body))

    with loopback(answer, methods=("POST", "GET")) as url:
        fake.url = url
        yield fake
