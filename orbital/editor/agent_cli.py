"""The editor's model as the agent the person already has: its own CLI, run headless.

``ORBITAL_EDITOR_PROVIDER=claude`` runs ``claude -p --output-format json``; ``codex`` runs
``codex exec``; each with the sign-in the person already has, so no extra API key is needed
(``ORBITAL_EDITOR_COMMAND``: the CLI's path, default ``claude``/``codex`` on ``PATH``;
``ORBITAL_EDITOR_MODEL``: a model of its own, optional). Each model call is one run of the
CLI, started in an empty temporary folder (no project's instructions, settings or hooks apply),
with its own tools off (Claude Code: ``--tools ""``; Codex: the read-only sandbox) and nothing
kept of the run (``--no-session-persistence``, ``--ephemeral``).

A CLI has no way to be handed the editor's function tools, so the conversation goes as text
(:func:`render_conversation`): the tools are described, and a reply that is only
``{"tool": NAME, "arguments": {...}}`` is a tool call (:func:`reply_message`); the bounded
loop (:mod:`orbital.editor.loop`) does the rest as with any provider. A run that times out is
retried once, like a dropped connection; a CLI that fails or answers with an error is not.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from orbital.domain.editor.choices import extract_json_object
from orbital.editor.provider import (
    CALL_TIMEOUT_S,
    RETRY_DELAY_S,
    ChatMessage,
    FunctionCall,
    ToolCall,
)
from orbital.errors import EditorAgentMissing, ProviderError

Agent = Literal["claude", "codex"]
AGENTS: tuple[Agent, ...] = ("claude", "codex")
_DETAIL_MAX = 300

TOOL_PROTOCOL = (
    "You cannot call tools directly here. To use one of the read-only tools below, reply "
    'with ONLY a JSON object {"tool": "<name>", "arguments": {...}} and nothing else; its '
    "result comes back in the next message."
)


@dataclass(frozen=True, slots=True)
class AgentCliConfig:
    agent: Agent
    #: The CLI's executable, resolved on ``PATH``.
    command: str
    model: str = ""
    timeout_s: float = CALL_TIMEOUT_S
    retry_delay_s: float = RETRY_DELAY_S


def agent_config(agent: Agent, environ: Mapping[str, str]) -> AgentCliConfig:
    """The configuration of ``agent``'s CLI from ``ORBITAL_EDITOR_COMMAND``/``_MODEL``;
    :class:`~orbital.errors.EditorAgentMissing` when the CLI is not found."""
    named = environ.get("ORBITAL_EDITOR_COMMAND", "").strip() or agent
    found = shutil.which(named, path=environ.get("PATH"))
    if found is None:
        raise EditorAgentMissing(f"the {agent} CLI {named!r} is not found (ORBITAL_EDITOR_COMMAND)")
    return AgentCliConfig(agent, found, environ.get("ORBITAL_EDITOR_MODEL", "").strip())


def _tools_text(tools: Sequence[Mapping[str, object]]) -> str:
    lines = [TOOL_PROTOCOL, "Tools:"]
    for spec in tools:
        function = spec.get("function")
        if not isinstance(function, Mapping):
            continue
        parameters = function.get("parameters")
        properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
        names = ", ".join(properties) if isinstance(properties, Mapping) else ""
        lines.append(f"- {function.get('name')}({names}): {function.get('description')}")
    return "\n".join(lines)


def _turn(message: ChatMessage) -> str:
    if message.role == "tool":
        return f"[tool result]\n{message.content or ''}"
    calls = [
        json.dumps({"tool": c.function.name, "arguments": json.loads(c.function.arguments or "{}")})
        for c in message.tool_calls or ()
    ]
    text = "\n".join([message.content or "", *calls]).strip()
    return f"[{message.role}]\n{text}"


def render_conversation(
    messages: Sequence[ChatMessage], tools: Sequence[Mapping[str, object]] | None
) -> tuple[str, str]:
    """``(system prompt, prompt)``: the conversation so far as one text, its turns marked,
    the tool protocol first when tools are offered."""
    system = "\n\n".join(m.content or "" for m in messages if m.role == "system")
    turns = [_turn(m) for m in messages if m.role != "system"]
    parts = [_tools_text(tools)] if tools else []
    if len(turns) == 1:
        parts.append(turns[0].removeprefix("[user]\n"))
    else:
        parts.append("The conversation so far:\n\n" + "\n\n".join(turns))
    return system, "\n\n".join(parts)


def reply_message(
    text: str, tools: Sequence[Mapping[str, object]] | None, number: int
) -> ChatMessage:
    """The reply as a chat message: a tool call when tools were offered and the reply is
    only ``{"tool": …, "arguments": …}``, else its text."""
    found = extract_json_object(text) if tools else None
    if found is not None and set(found) <= {"tool", "arguments"} and "tool" in found:
        name, arguments = found["tool"], found.get("arguments", {})
        if isinstance(name, str):
            call = FunctionCall(name=name, arguments=json.dumps(arguments))
            return ChatMessage(
                role="assistant",
                content="",
                tool_calls=(ToolCall(id=f"call_{number}", function=call),),
            )
    return ChatMessage(role="assistant", content=text)


Run = Callable[..., "subprocess.CompletedProcess[str]"]


class AgentCliProvider:
    """:class:`~orbital.editor.provider.ChatProvider` over an agent's CLI (module docstring)."""

    def __init__(
        self,
        config: AgentCliConfig,
        *,
        run: Run = subprocess.run,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.config = config
        self._run, self._sleep = run, sleep
        self._calls = 0

    def complete(
        self, messages: Sequence[ChatMessage], tools: Sequence[Mapping[str, object]] | None
    ) -> ChatMessage:
        system, prompt = render_conversation(messages, tools)
        self._calls += 1
        try:
            text = self._ask(system, prompt)
        except ProviderError as exc:
            if not exc.transient:
                raise
            self._sleep(self.config.retry_delay_s)
            text = self._ask(system, prompt)
        return reply_message(text, tools, self._calls)

    def _ask(self, system: str, prompt: str) -> str:
        with tempfile.TemporaryDirectory(prefix="orbital-editor-") as folder:
            if self.config.agent == "claude":
                return _claude_result(self._exec(self._claude(system), prompt, folder))
            answer = Path(folder) / "answer.txt"
            self._exec(self._codex(answer), f"{system}\n\n{prompt}", folder)
            try:
                return answer.read_text(encoding="utf-8")
            except OSError as exc:
                raise ProviderError(f"codex wrote no answer: {exc}") from None

    def _claude(self, system: str) -> list[str]:
        command = [self.config.command, "-p", "--output-format", "json", "--tools", ""]
        command += ["--no-session-persistence", "--system-prompt", system]
        return command + (["--model", self.config.model] if self.config.model else [])

    def _codex(self, answer: Path) -> list[str]:
        command = [self.config.command, "exec", "--skip-git-repo-check", "--ephemeral"]
        command += ["--sandbox", "read-only", "--output-last-message", str(answer)]
        command += ["--model", self.config.model] if self.config.model else []
        return [*command, "-"]

    def _exec(self, command: list[str], stdin: str, folder: str) -> str:
        agent = self.config.agent
        try:
            done = self._run(
                command,
                input=stdin,
                cwd=folder,
                env=dict(os.environ),
                capture_output=True,
                text=True,
                timeout=self.config.timeout_s,
            )
        except subprocess.TimeoutExpired:
            raise ProviderError(
                f"{agent} gave no answer within {self.config.timeout_s:g} s", transient=True
            ) from None
        except OSError as exc:
            raise ProviderError(f"{agent} could not be started: {exc}") from None
        if done.returncode != 0:
            said = (done.stderr or done.stdout).strip()[:_DETAIL_MAX]
            raise ProviderError(f"{agent} exited with status {done.returncode}: {said}")
        return done.stdout


def _claude_result(stdout: str) -> str:
    """The answer in ``claude -p --output-format json``'s summary, or why there is none."""
    try:
        summary = json.loads(stdout)
    except ValueError:
        raise ProviderError(f"claude's answer is not JSON: {stdout[:_DETAIL_MAX]}") from None
    result = summary.get("result") if isinstance(summary, dict) else None
    if not isinstance(result, str) or summary.get("is_error"):
        raise ProviderError(f"claude answered with an error: {str(result)[:_DETAIL_MAX]}")
    return result
