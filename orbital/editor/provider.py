"""The model behind the editor: a provider interface, the choice of provider, and an
OpenAI-compatible client.

``ORBITAL_EDITOR_PROVIDER`` chooses (:mod:`orbital.editor.choose`): ``openai`` (the default)
is the client below; ``claude`` and ``codex`` run the agent's own CLI headless
(:mod:`orbital.editor.agent_cli`), so the person's existing sign-in serves and no API key is
needed.

Any server that speaks ``POST <base>/chat/completions`` with function tools works (OpenAI,
vLLM, llama.cpp, Ollama, LM Studio…). Configuration comes from ``ORBITAL_EDITOR_URL`` (the
base URL, e.g. ``http://127.0.0.1:11434/v1``), ``ORBITAL_EDITOR_MODEL`` and, when the server
wants one, ``ORBITAL_EDITOR_KEY``. A transient failure (timeout, dropped connection, 5xx) is
retried once after a short delay; 401 and other 4xx are not, since asking again will not help.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

import httpx
import msgspec

from orbital.errors import EditorNotConfigured, ProviderError

Role = Literal["system", "user", "assistant", "tool"]
CALL_TIMEOUT_S = 240.0
RETRY_DELAY_S = 2.0
_DETAIL_MAX = 300


class FunctionCall(msgspec.Struct, frozen=True):
    name: str
    #: The arguments as the model wrote them: a JSON text, possibly malformed.
    arguments: str = "{}"


class ToolCall(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    function: FunctionCall
    type: str = "function"


class ChatMessage(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One chat message in the chat-completions wire shape."""

    role: Role
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] | None = None
    tool_call_id: str | None = None


class _Choice(msgspec.Struct, frozen=True):
    message: ChatMessage


class _Completion(msgspec.Struct, frozen=True):
    choices: tuple[_Choice, ...]


class ChatProvider(Protocol):
    """One model call: the conversation so far (and the tools, if offered) -> the reply."""

    def complete(
        self, messages: Sequence[ChatMessage], tools: Sequence[Mapping[str, object]] | None
    ) -> ChatMessage: ...


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    base_url: str
    model: str
    api_key: str = field(default="", repr=False)
    timeout_s: float = CALL_TIMEOUT_S
    retry_delay_s: float = RETRY_DELAY_S

    @property
    def endpoint(self) -> str:
        base = self.base_url.rstrip("/")
        return base if base.endswith("/chat/completions") else base + "/chat/completions"


def config_from_env(environ: Mapping[str, str] | None = None) -> ProviderConfig:
    """The provider configuration from ``ORBITAL_EDITOR_*``; URL and model are required."""
    env = os.environ if environ is None else environ
    url = env.get("ORBITAL_EDITOR_URL", "").strip()
    model = env.get("ORBITAL_EDITOR_MODEL", "").strip()
    required = {"ORBITAL_EDITOR_URL": url, "ORBITAL_EDITOR_MODEL": model}
    missing = tuple(name for name, value in required.items() if not value)
    if missing:
        raise EditorNotConfigured(missing)
    return ProviderConfig(url, model, env.get("ORBITAL_EDITOR_KEY", "").strip())


class OpenAIChatClient:
    """:class:`ChatProvider` over httpx for OpenAI-compatible chat-completions servers."""

    def __init__(
        self,
        config: ProviderConfig,
        *,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.config = config
        self._sleep = sleep
        headers = {"Content-Type": "application/json"}
        if config.api_key:
            headers["Authorization"] = f"Bearer {config.api_key}"
        self._http = httpx.Client(
            headers=headers, timeout=httpx.Timeout(config.timeout_s), transport=transport
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> OpenAIChatClient:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def complete(
        self, messages: Sequence[ChatMessage], tools: Sequence[Mapping[str, object]] | None
    ) -> ChatMessage:
        body: dict[str, object] = {"model": self.config.model, "messages": list(messages)}
        if tools:
            body["tools"] = list(tools)
        payload = msgspec.json.encode(body)
        try:
            return self._post(payload)
        except ProviderError as exc:
            if not exc.transient:
                raise
        self._sleep(self.config.retry_delay_s)
        return self._post(payload)

    def _post(self, payload: bytes) -> ChatMessage:
        try:
            response = self._http.post(self.config.endpoint, content=payload)
        except httpx.TimeoutException:
            raise ProviderError(
                f"no reply within {self.config.timeout_s:g} s", transient=True
            ) from None
        except httpx.TransportError as exc:
            raise ProviderError(f"{type(exc).__name__}: {exc}", transient=True) from None
        if response.status_code >= 400:
            raise ProviderError(
                f"HTTP {response.status_code}: {response.text[:_DETAIL_MAX]}",
                status=response.status_code,
                transient=response.status_code >= 500,
            )
        try:
            completion = msgspec.json.decode(response.content, type=_Completion)
        except msgspec.DecodeError as exc:
            raise ProviderError(f"malformed chat-completions reply: {exc}") from None
        if not completion.choices:
            raise ProviderError("the reply has no choices")
        return completion.choices[0].message
