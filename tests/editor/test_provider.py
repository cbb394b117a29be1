"""The OpenAI-compatible client against a fake loopback server: wire shape, retry policy."""

from __future__ import annotations

import pytest

from orbital.editor.provider import (
    ChatMessage,
    OpenAIChatClient,
    ProviderConfig,
    config_from_env,
)
from orbital.errors import EditorNotConfigured, ProviderError
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
