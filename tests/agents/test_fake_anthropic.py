"""The scripted Messages API stand-in on its own: what Claude Code relies on, without it."""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.agents.fake_anthropic import EXHAUSTED, SIDE_ANSWER, call, say, serving

TOOLS = [{"name": "Write", "input_schema": {"type": "object"}}]


def _events(body: str) -> list[dict[str, Any]]:
    """The ``data:`` payloads of a server-sent event stream, checking each names its event."""
    events = []
    for chunk in body.strip().split("\n\n"):
        name, data = chunk.split("\n")
        payload = json.loads(data.removeprefix("data: "))
        assert name == f"event: {payload['type']}"
        events.append(payload)
    return events


def test_a_streamed_tool_call_comes_in_the_order_claude_code_reads() -> None:
    with serving([call("Write", {"file_path": "/p/a.md", "content": "x"}, text="ok")]) as fake:
        body = {"model": "m", "stream": True, "tools": TOOLS, "messages": []}
        answer = httpx.post(f"{fake.url}/v1/messages?beta=true", json=body)
    assert answer.headers["content-type"] == "text/event-stream"
    events = _events(answer.text)
    assert [e["type"] for e in events] == [
        "message_start",
        *["content_block_start", "content_block_delta", "content_block_stop"] * 2,
        "message_delta",
        "message_stop",
    ]
    assert events[0]["message"]["content"] == []
    tool = events[4]
    assert tool["content_block"]["input"] == {}
    assert tool["content_block"]["name"] == "Write"
    partial = events[5]["delta"]["partial_json"]
    assert json.loads(partial) == {"file_path": "/p/a.md", "content": "x"}
    assert events[-2]["delta"]["stop_reason"] == "tool_use"


def test_side_requests_and_token_counts_leave_the_script_alone_and_everything_is_logged() -> None:
    with serving([say("main answer")]) as fake:
        side = httpx.post(f"{fake.url}/v1/messages", json={"model": "m", "messages": []})
        count = httpx.post(f"{fake.url}/v1/messages/count_tokens", json={"messages": []})
        main = {"model": "m", "tools": TOOLS, "messages": [{"role": "user", "content": "hi"}]}
        first = httpx.post(f"{fake.url}/v1/messages", json=main)
        again = httpx.post(f"{fake.url}/v1/messages", json=main)
    assert side.json()["content"] == [{"type": "text", "text": SIDE_ANSWER}]
    assert count.json()["input_tokens"] >= 0
    assert first.json()["content"] == [{"type": "text", "text": "main answer"}]
    assert first.json()["stop_reason"] == "end_turn"
    assert again.json()["content"][0]["text"] == EXHAUSTED
    assert [r.path for r in fake.requests] == [
        "/v1/messages",
        "/v1/messages/count_tokens",
        "/v1/messages",
        "/v1/messages",
    ]
    assert fake.main_requests[0].texts() == ["hi"]
