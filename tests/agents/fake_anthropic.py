"""A scripted stand-in for the Anthropic Messages API on loopback, for running real agents.

Claude Code (``claude -p``) talks to it through ``ANTHROPIC_BASE_URL``. Requests of the main
conversation (they carry a ``tools`` array) take the next scripted turn; side requests (titles
and the like, no ``tools``) get a short text; ``/v1/messages/count_tokens`` gets a rough count.
Every request is logged with its body, so a test asserts exactly what reached the model.
Streaming requests get the server-sent events Claude Code expects, in order: ``message_start``,
per block ``content_block_start`` / ``content_block_delta`` / ``content_block_stop``, then
``message_delta`` (``stop_reason``) and ``message_stop``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from tests.loopback import Received, loopback

#: What a main request gets once the script is used up: the agent ends its turn.
EXHAUSTED = "(fake model: script exhausted)"
#: The answer to every side request.
SIDE_ANSWER = "Scripted title"


@dataclass(frozen=True)
class Text:
    """An assistant text block."""

    text: str


@dataclass(frozen=True)
class ToolUse:
    """An assistant ``tool_use`` block: the agent runs tool ``name`` with ``input``."""

    name: str
    input: Mapping[str, object]
    id: str = ""


Block = Text | ToolUse


@dataclass(frozen=True)
class Turn:
    """One assistant message; it stops for tool results when it holds a ``ToolUse``."""

    blocks: tuple[Block, ...]

    @property
    def stop_reason(self) -> str:
        return "tool_use" if any(isinstance(b, ToolUse) for b in self.blocks) else "end_turn"


def say(text: str) -> Turn:
    """A turn that says ``text`` and ends."""
    return Turn((Text(text),))


def call(name: str, tool_input: Mapping[str, object], text: str = "") -> Turn:
    """A turn that (optionally says ``text`` and) calls one tool."""
    blocks: tuple[Block, ...] = (Text(text),) if text else ()
    return Turn((*blocks, ToolUse(name, tool_input)))


@dataclass(frozen=True)
class Request:
    """One request as it reached the stand-in."""

    method: str
    path: str
    body: dict[str, object]

    @property
    def is_messages(self) -> bool:
        """A call of ``/v1/messages`` itself (``?beta=true`` or not), not of a sub-path."""
        return self.path.split("?", 1)[0] == "/v1/messages"

    @property
    def messages(self) -> list[dict[str, object]]:
        messages = self.body.get("messages", [])
        assert isinstance(messages, list)
        return messages

    def texts(self) -> list[str]:
        """Every text the request's messages carry, tool results included, in order."""
        return list(_texts(self.messages))


def _texts(value: object) -> Iterator[str]:
    """Walk message content: strings, ``text`` blocks and ``tool_result`` contents."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, dict):
        if isinstance(value.get("text"), str):
            yield value["text"]
        if "content" in value:
            yield from _texts(value["content"])


@dataclass
class FakeAnthropic:
    """The script and the log; ``url`` is the base URL to give the agent."""

    script: list[Turn]
    #: Scripts of sub-agents, by the prompt the agent gave each (a request holding that text
    #: exactly is the sub-agent's).
    agents: dict[str, list[Turn]] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    url: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def main_requests(self) -> list[Request]:
        """Requests of the main conversation (with ``tools``), in arrival order."""
        return [r for r in self.requests if r.is_messages and "tools" in r.body]

    def answer(self, request: Request) -> tuple[int, str, bytes]:
        """Log ``request`` and build the (status, content type, body) answer."""
        with self._lock:
            self.requests.append(request)
            if request.path.startswith("/v1/messages/count_tokens"):
                tokens = len(json.dumps(request.body)) // 4
                return 200, "application/json", json.dumps({"input_tokens": tokens}).encode()
            if not request.is_messages or request.method != "POST":
                return 404, "application/json", b'{"type":"error","error":{"type":"not_found"}}'
            if "tools" not in request.body:
                turn = say(SIDE_ANSWER)
            else:
                texts = request.texts()
                script = next((s for p, s in self.agents.items() if p in texts), self.script)
                turn = script.pop(0) if script else say(EXHAUSTED)
            number = len(self.requests)
        model = str(request.body.get("model", "claude-fake"))
        if request.body.get("stream"):
            return 200, "text/event-stream", _events(turn, model, number).encode()
        return 200, "application/json", json.dumps(_message(turn, model, number)).encode()


def _block_json(block: Block, index: int, number: int) -> dict[str, object]:
    if isinstance(block, Text):
        return {"type": "text", "text": block.text}
    tool_id = block.id or f"toolu_fake_{number}_{index}"
    return {"type": "tool_use", "id": tool_id, "name": block.name, "input": dict(block.input)}


def _message(turn: Turn, model: str, number: int) -> dict[str, object]:
    """The whole message, as a non-streaming request gets it."""
    return {
        "id": f"msg_fake_{number}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [_block_json(b, i, number) for i, b in enumerate(turn.blocks)],
        "stop_reason": turn.stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 10},
    }


def _events(turn: Turn, model: str, number: int) -> str:
    """The turn as the server-sent events a streaming client reads."""
    start = {**_message(turn, model, number), "content": [], "stop_reason": None}
    events: list[dict[str, object]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(turn.blocks):
        whole = _block_json(block, index, number)
        delta: dict[str, object]
        if isinstance(block, Text):
            opened: dict[str, object] = {**whole, "text": ""}
            delta = {"type": "text_delta", "text": block.text}
        else:
            opened = {**whole, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(dict(block.input))}
        events += [
            {"type": "content_block_start", "index": index, "content_block": opened},
            {"type": "content_block_delta", "index": index, "delta": delta},
            {"type": "content_block_stop", "index": index},
        ]
    events += [
        {
            "type": "message_delta",
            "delta": {"stop_reason": turn.stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": 10},
        },
        {"type": "message_stop"},
    ]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


@contextmanager
def serving(
    script: Sequence[Turn], agents: Mapping[str, Sequence[Turn]] | None = None
) -> Iterator[FakeAnthropic]:
    """Run the stand-in for the ``with`` block; ``url`` is what ``ANTHROPIC_BASE_URL`` takes.
    ``agents``: the scripts of sub-agents, by their prompt."""
    fake = FakeAnthropic(list(script), {p: list(s) for p, s in (agents or {}).items()})

    def answer(received: Received) -> tuple[int, str, bytes]:
        body = json.loads(received.body) if received.body.strip() else {}
        return fake.answer(Request(received.method, received.path, body))

    with loopback(answer, methods=("POST", "GET")) as url:
        fake.url = url
        yield fake
