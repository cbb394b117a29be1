"""A fake OpenAI-compatible chat-completions server on loopback that replays a script.

It runs ``http.server`` in a thread on a free 127.0.0.1 port; each POST takes the next
scripted reply (status, JSON body, optional delay) and records the request it answered.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from tests.loopback import Received, loopback


@dataclass(frozen=True)
class Scripted:
    status: int = 200
    body: object = None
    delay_s: float = 0.0


@dataclass(frozen=True)
class Request:
    path: str
    headers: Mapping[str, str]
    body: dict[str, object]

    @property
    def messages(self) -> list[dict[str, object]]:
        messages = self.body["messages"]
        assert isinstance(messages, list)
        return messages


def tool_call(name: str, arguments: object, call_id: str = "call_1") -> dict[str, object]:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def reply(content: str | None = None, tool_calls: Sequence[dict[str, object]] = ()) -> Scripted:
    """A 200 completion whose message says ``content`` and/or calls tools."""
    message: dict[str, object] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = list(tool_calls)
    body = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "model": "fake",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }
    return Scripted(body=body)


def failure(status: int, detail: str = "boom") -> Scripted:
    return Scripted(status=status, body={"error": {"message": detail}})


@dataclass
class FakeChatServer:
    script: list[Scripted]
    requests: list[Request] = field(default_factory=list)
    url: str = ""

    def take(self, request: Request) -> Scripted:
        self.requests.append(request)
        if not self.script:
            return failure(500, "fake server: script exhausted")
        return self.script.pop(0)


@contextmanager
def serving(script: Sequence[Scripted]) -> Iterator[FakeChatServer]:
    """Run a fake server for the ``with`` block; its ``url`` is the OpenAI-style base URL."""
    fake = FakeChatServer(list(script))
    lock = threading.Lock()

    def answer(received: Received) -> tuple[int, str, bytes]:
        body = json.loads(received.body or b"{}")
        with lock:
            scripted = fake.take(Request(received.path, received.headers, body))
        time.sleep(scripted.delay_s)
        return scripted.status, "application/json", json.dumps(scripted.body).encode()

    with loopback(answer, methods=("POST",)) as url:
        fake.url = f"{url}/v1"
        yield fake
