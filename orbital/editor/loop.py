"""The bounded, read-only conversation that ends in a choices object.

At most :data:`~orbital.domain.editor.conversation.MAX_CALLS` model calls; the last one is made
without tools, after telling the model its budget is used up, so the loop always ends with an
answer or a failure, never a tool call. Tools the editor does not have are answered with an
error, so a model that tries to write learns it cannot. A model failure ends the run (nothing
is applied); the whole run is also bounded in time.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from orbital.domain.editor.choices import extract_json_object
from orbital.domain.editor.conversation import (
    BUDGET_USED_UP,
    MAX_CALLS,
    NOT_JSON,
    READ_ONLY_TOOLS,
    TOOL_SPECS,
    cut_tool_result,
    not_available,
)
from orbital.editor.provider import ChatMessage, ChatProvider, ToolCall
from orbital.errors import ProviderError

RUN_TIMEOUT_S = 900.0


class Toolbox(Protocol):
    def run(self, name: str, arguments: Mapping[str, object]) -> str: ...


@dataclass(frozen=True, slots=True)
class LoopResult:
    """The choices object the model ended with (None: failed, see ``error``)."""

    choices: dict[str, object] | None
    calls: int
    error: str = ""


def _tool_result(call: ToolCall, toolbox: Toolbox) -> str:
    name = call.function.name
    if name not in READ_ONLY_TOOLS:
        return not_available(name)
    try:
        arguments = json.loads(call.function.arguments or "{}")
    except ValueError:
        arguments = None
    if not isinstance(arguments, dict):
        return "Error: the tool arguments must be a JSON object"
    return cut_tool_result(toolbox.run(name, arguments))


def run_tool_loop(
    provider: ChatProvider,
    system: str,
    prompt: str,
    toolbox: Toolbox,
    *,
    max_calls: int = MAX_CALLS,
    run_timeout_s: float = RUN_TIMEOUT_S,
    monotonic: Callable[[], float] = time.monotonic,
) -> LoopResult:
    """Converse until the model replies with a JSON object, the calls run out, or it fails."""
    messages = [
        ChatMessage(role="system", content=system),
        ChatMessage(role="user", content=prompt),
    ]
    started = monotonic()
    for call in range(1, max_calls + 1):
        if monotonic() - started > run_timeout_s:
            return LoopResult(None, call - 1, f"the run took longer than {run_timeout_s:g} s")
        last = call == max_calls
        if last:
            messages.append(ChatMessage(role="user", content=BUDGET_USED_UP))
        try:
            reply = provider.complete(messages, None if last else TOOL_SPECS)
        except ProviderError as exc:
            return LoopResult(None, call, str(exc))
        if reply.tool_calls and not last:
            messages.append(
                ChatMessage(
                    role="assistant", content=reply.content or "", tool_calls=reply.tool_calls
                )
            )
            messages += [
                ChatMessage(role="tool", tool_call_id=tc.id, content=_tool_result(tc, toolbox))
                for tc in reply.tool_calls
            ]
            continue
        choices = extract_json_object(reply.content or "")
        if choices is not None:
            return LoopResult(choices, call)
        messages.append(ChatMessage(role="assistant", content=reply.content or ""))
        messages.append(ChatMessage(role="user", content=NOT_JSON))
    return LoopResult(None, max_calls, f"no JSON choices after {max_calls} calls")
