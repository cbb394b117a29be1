"""The OpenAI-compatible client against a fake loopback server: wire shape, retry policy;
the choice of provider, and how an agent's CLI is conversed with in text."""

from __future__ import annotations

from pathlib import Path

import pytest

from orbital.domain.editor.conversation import TOOL_SPECS
from orbital.editor.agent_cli import (
    TOOL_PROTOCOL,
    AgentCliConfig,
    AgentCliProvider,
    render_conversation,
    reply_message,
)
from orbital.editor.choose import provider_from_env
from orbital.editor.provider import (
    ChatMessage,
    FunctionCall,
    OpenAIChatClient,
    ProviderConfig,
    ToolCall,
    config_from_env,
)
from orbital.errors import EditorAgentMissing, EditorNotConfigured, ProviderError
from tests.editor.fake_llm import Scripted, failure, reply, serving, tool_call

HELLO = [ChatMessage(role="user", content="hello")]


def client(url: str, sleeps: list[float] | None = None, **config: float) -> OpenAIChatClient:
    log = sleeps if sleeps is not None else []
    return OpenAIChatClient(
        ProviderConfig(url, "test-model", "sk-test", **config), sleep=log.append
    )


def test_a_call_posts_the_chat_completions_shape() -> None:
    tools = [{"type": "function", "function": {"name": "read", "parameters": {}}}]
    with serving([reply("hi there")]) as fake, client(fake.url) as llm:
        answer = llm.complete(HELLO, tools)
    assert answer == ChatMessage(role="assistant", content="hi there")
    (request,) = fake.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["Authorization"] == "Bearer sk-test"
    assert request.body == {
        "model": "test-model",
        "messages": [{"role": "user", "content": "hello"}],
        "tools": tools,
    }


def test_no_tools_means_no_tools_key_and_no_key_means_no_auth_header() -> None:
    with (
        serving([reply("ok")]) as fake,
        OpenAIChatClient(ProviderConfig(fake.url, "m"), sleep=lambda _s: None) as llm,
    ):
        llm.complete(HELLO, None)
    assert "tools" not in fake.requests[0].body
    assert "Authorization" not in fake.requests[0].headers


def test_tool_calls_are_decoded() -> None:
    script = [reply(None, [tool_call("grep", {"pattern": "x"}, "c9")])]
    with serving(script) as fake, client(fake.url) as llm:
        answer = llm.complete(HELLO, None)
    assert answer.content is None
    assert answer.tool_calls is not None
    assert answer.tool_calls[0].id == "c9"
    assert answer.tool_calls[0].function.name == "grep"
    assert answer.tool_calls[0].function.arguments == '{"pattern": "x"}'


def test_one_transient_500_is_retried_after_the_delay() -> None:
    sleeps: list[float] = []
    with serving([failure(500), reply("fine")]) as fake, client(fake.url, sleeps) as llm:
        assert llm.complete(HELLO, None).content == "fine"
    assert len(fake.requests) == 2
    assert sleeps == [2.0]


def test_500_twice_fails_after_one_retry() -> None:
    with (
        serving([failure(500), failure(503), reply("late")]) as fake,
        client(fake.url) as llm,
        pytest.raises(ProviderError) as caught,
    ):
        llm.complete(HELLO, None)
    assert len(fake.requests) == 2
    assert (caught.value.status, caught.value.transient) == (503, True)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 429])
def test_4xx_is_not_retried(status: int) -> None:
    with (
        serving([failure(status, "no"), reply("x")]) as fake,
        client(fake.url) as llm,
        pytest.raises(ProviderError) as caught,
    ):
        llm.complete(HELLO, None)
    assert len(fake.requests) == 1
    assert (caught.value.status, caught.value.transient) == (status, False)
    assert "sk-test" not in str(caught.value)


def test_a_timeout_is_transient_and_retried() -> None:
    script = [Scripted(body=reply("slow").body, delay_s=0.5), reply("quick")]
    with serving(script) as fake, client(fake.url, timeout_s=0.1) as llm:
        assert llm.complete(HELLO, None).content == "quick"
    assert len(fake.requests) == 2


@pytest.mark.parametrize("body", [{"choices": []}, {"nope": 1}, "not json at all"])
def test_a_malformed_reply_fails_without_retry(body: object) -> None:
    with (
        serving([Scripted(body=body), reply("x")]) as fake,
        client(fake.url) as llm,
        pytest.raises(ProviderError),
    ):
        llm.complete(HELLO, None)
    assert len(fake.requests) == 1


def test_a_refused_connection_fails_after_one_retry() -> None:
    with serving([]) as fake:
        url = fake.url
    sleeps: list[float] = []
    with client(url, sleeps) as llm, pytest.raises(ProviderError) as caught:
        llm.complete(HELLO, None)
    assert caught.value.transient
    assert sleeps == [2.0]


def test_config_from_env() -> None:
    config = config_from_env(
        {
            "ORBITAL_EDITOR_URL": " http://127.0.0.1:8080/v1/ ",
            "ORBITAL_EDITOR_MODEL": "qwen",
            "ORBITAL_EDITOR_KEY": "sk-secret",
        }
    )
    assert config == ProviderConfig("http://127.0.0.1:8080/v1/", "qwen", "sk-secret")
    assert config.endpoint == "http://127.0.0.1:8080/v1/chat/completions"
    assert "sk-secret" not in repr(config)
    full = ProviderConfig("http://h/v1/chat/completions", "m")
    assert full.endpoint == "http://h/v1/chat/completions"


def test_missing_config_names_what_is_missing() -> None:
    with pytest.raises(EditorNotConfigured) as caught:
        config_from_env({"ORBITAL_EDITOR_URL": "http://x"})
    assert caught.value.missing == ("ORBITAL_EDITOR_MODEL",)


# -- the provider chosen: an OpenAI-compatible server, or the agent's own CLI -----------------


def test_the_provider_is_chosen_by_orbital_editor_provider(tmp_path: Path) -> None:
    fake = tmp_path / "claude"
    fake.write_text("#!/bin/sh\n", encoding="utf-8")
    fake.chmod(0o755)
    openai = provider_from_env({"ORBITAL_EDITOR_URL": "http://x/v1", "ORBITAL_EDITOR_MODEL": "m"})
    assert isinstance(openai, OpenAIChatClient)
    openai.close()
    cli = provider_from_env({"ORBITAL_EDITOR_PROVIDER": " Claude ", "PATH": str(tmp_path)})
    assert isinstance(cli, AgentCliProvider)
    assert cli.config == AgentCliConfig("claude", str(fake))
    with pytest.raises(EditorAgentMissing) as missing:
        provider_from_env({"ORBITAL_EDITOR_PROVIDER": "codex", "PATH": str(tmp_path)})
    assert str(missing.value) == (
        "the memory editor's provider cannot be used: the codex CLI 'codex' is not found "
        "(ORBITAL_EDITOR_COMMAND)"
    )
    with pytest.raises(EditorAgentMissing, match="'gemini', not one of openai, claude, codex"):
        provider_from_env({"ORBITAL_EDITOR_PROVIDER": "gemini"})


def test_a_cli_converses_in_text_and_a_json_tool_reply_is_a_tool_call() -> None:
    messages = [
        ChatMessage(role="system", content="SYSTEM"),
        ChatMessage(role="user", content="PROMPT"),
    ]
    system, prompt = render_conversation(messages, TOOL_SPECS)
    assert system == "SYSTEM"
    assert prompt.startswith(TOOL_PROTOCOL + "\nTools:\n- read(path): Read a memory file")
    assert prompt.endswith("\n\nPROMPT")
    call = reply_message('{"tool": "read", "arguments": {"path": "LESSONS.md"}}', TOOL_SPECS, 3)
    assert call.tool_calls == (
        ToolCall(id="call_3", function=FunctionCall("read", '{"path": "LESSONS.md"}')),
    )
    choices = '{"archive": []}'
    assert reply_message(choices, TOOL_SPECS, 4) == ChatMessage(role="assistant", content=choices)
    tool_json = '{"tool": "read", "arguments": {}}'
    assert reply_message(tool_json, None, 5).tool_calls is None  # no tools offered: text
    later = [*messages, call, ChatMessage(role="tool", tool_call_id="call_3", content="1. Test")]
    _, again = render_conversation(later, TOOL_SPECS)
    assert again.endswith(
        "The conversation so far:\n\n[user]\nPROMPT\n\n[assistant]\n"
        '{"tool": "read", "arguments": {"path": "LESSONS.md"}}\n\n[tool result]\n1. Test'
    )
