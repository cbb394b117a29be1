"""The bounded read-only tool loop and a whole pass, against the fake loopback server."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from orbital.domain.asks import Asks, fold
from orbital.domain.editor.apply import EntriesOutcome
from orbital.domain.editor.choices import Applied, EntryChoices
from orbital.domain.editor.conversation import (
    BUDGET_USED_UP,
    NOT_JSON,
    SYSTEM_PROMPT,
    TOOL_RESULT_MAX,
    render_prompt,
)
from orbital.editor.loop import run_tool_loop
from orbital.editor.provider import OpenAIChatClient, ProviderConfig
from orbital.editor.run import EditorRun, finish_run
from orbital.editor.sessions import SessionDir
from orbital.editor.tools import ReadOnlyTools
from tests.editor.fake_llm import FakeChatServer, Scripted, failure, reply, serving, tool_call
from tests.editor.helpers import (
    ASK_ID,
    SESSION_A,
    TODAY,
    VERBATIM,
    RecordingApplier,
    reference_sessions,
    webinar_asks,
)

FILES = {"DECISIONS.md": "## Use Postgres\nWe use Postgres.\n", "LESSONS.md": "1. Test first\n"}


class Reader:
    """An in-memory stand-in for the file gateway's reader."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files
        self.reads: list[str] = []

    def __call__(self, name: str) -> str | None:
        self.reads.append(name)
        return self.files.get(name)


@pytest.fixture
def sessions(tmp_path: Path) -> SessionDir:
    return SessionDir(reference_sessions(tmp_path / "sessions"))


@pytest.fixture
def tools(sessions: SessionDir) -> ReadOnlyTools:
    return ReadOnlyTools(Reader(dict(FILES)), list(FILES), sessions)


def llm(url: str, sleeps: list[float]) -> OpenAIChatClient:
    return OpenAIChatClient(ProviderConfig(url, "m"), sleep=sleeps.append)


def editor_pass(
    script: list[Scripted],
    tools: ReadOnlyTools,
    sessions: SessionDir,
    applier: RecordingApplier,
    *,
    asks: Asks | None = None,
    prompt: str = "p",
) -> tuple[EditorRun, FakeChatServer]:
    """A whole pass against the fake server answering ``script`` (the webinar asks unless
    ``asks`` is given); the server keeps the requests it answered."""
    with serving(script) as fake, llm(fake.url, []) as model:
        run = finish_run(
            run_tool_loop(model, SYSTEM_PROMPT, prompt, tools),
            asks=webinar_asks() if asks is None else asks,
            today=TODAY,
            messages_of=sessions.user_messages,
            apply_entries=applier,
        )
    return run, fake


def test_the_twelfth_call_is_made_without_tools(tools: ReadOnlyTools) -> None:
    script = [reply(None, [tool_call("list_sessions", {}, f"c{i}")]) for i in range(11)]
    script.append(reply('{"archive": []}'))
    with serving(script) as fake, llm(fake.url, []) as model:
        result = run_tool_loop(model, "sys", "prompt", tools)
    assert (result.choices, result.calls, result.error) == ({"archive": []}, 12, "")
    assert len(fake.requests) == 12
    assert all("tools" in r.body for r in fake.requests[:11])
    last = fake.requests[11]
    assert "tools" not in last.body
    assert last.messages[-1] == {"role": "user", "content": BUDGET_USED_UP}


def test_a_model_that_never_answers_in_json_fails_after_twelve_calls(
    tools: ReadOnlyTools,
) -> None:
    script = [reply(None, [tool_call("grep", {"pattern": "x"})]) for _ in range(11)]
    script += [reply("I would archive the Postgres entry."), reply("{}")]
    with serving(script) as fake, llm(fake.url, []) as model:
        result = run_tool_loop(model, "sys", "prompt", tools)
    assert result.choices is None
    assert result.calls == 12
    assert result.error == "no JSON choices after 12 calls"
    assert len(fake.requests) == 12


def test_a_non_json_reply_is_reprompted(tools: ReadOnlyTools) -> None:
    script = [reply("I think nothing needs to change."), reply("```json\n{}\n```")]
    with serving(script) as fake, llm(fake.url, []) as model:
        result = run_tool_loop(model, "sys", "prompt", tools)
    assert (result.choices, result.calls) == ({}, 2)
    second = fake.requests[1].messages
    assert second[-2] == {"role": "assistant", "content": "I think nothing needs to change."}
    assert second[-1] == {"role": "user", "content": NOT_JSON}
    assert "tools" in fake.requests[1].body


def test_the_conversation_starts_with_system_and_prompt(tools: ReadOnlyTools) -> None:
    with serving([reply("{}")]) as fake, llm(fake.url, []) as model:
        run_tool_loop(model, "the system", "the prompt", tools)
    tools_offered = fake.requests[0].body["tools"]
    assert isinstance(tools_offered, list)
    assert [t["function"]["name"] for t in tools_offered] == [
        "read",
        "grep",
        "list_sessions",
        "read_session",
    ]
    assert fake.requests[0].messages == [
        {"role": "system", "content": "the system"},
        {"role": "user", "content": "the prompt"},
    ]


def tool_answers(fake_requests_messages: list[dict[str, object]]) -> dict[str, str]:
    return {
        str(m["tool_call_id"]): str(m["content"])
        for m in fake_requests_messages
        if m["role"] == "tool"
    }


def test_tools_are_answered_and_write_tools_are_not_available(sessions: SessionDir) -> None:
    reader = Reader({"DECISIONS.md": "x" * 20_000, "LESSONS.md": "1. Test first\n"})
    tools = ReadOnlyTools(reader, ["DECISIONS.md", "LESSONS.md"], sessions)
    calls = [
        tool_call("write", {"path": "DECISIONS.md", "content": ""}, "w"),
        tool_call("read", {"path": "orbital/LESSONS.md"}, "r"),
        tool_call("read", {"path": "DECISIONS.md"}, "big"),
        tool_call("read_session", {"session": SESSION_A}, "s"),
        tool_call("grep", "{not json", "bad"),
        tool_call("read_session", {"session": "../etc"}, "esc"),
    ]
    with serving([reply(None, calls), reply("{}")]) as fake, llm(fake.url, []) as model:
        result = run_tool_loop(model, "sys", "prompt", tools)
    assert result.choices == {}
    second = fake.requests[1].messages
    assert second[2]["role"] == "assistant"
    assert second[2]["tool_calls"] == calls
    answers = tool_answers(second)
    assert "not available to the memory editor" in answers["w"]
    assert answers["r"] == "1. Test first\n"
    assert len(answers["big"]) < TOOL_RESULT_MAX + 100
    assert answers["big"].startswith("x" * TOOL_RESULT_MAX)
    assert "[… cut: 8000 more characters]" in answers["big"]
    assert "[user] I talked to my cofounder" in answers["s"]
    assert "[assistant] Noted — English it is" in answers["s"]
    assert answers["bad"] == "Error: the tool arguments must be a JSON object"
    assert answers["esc"].startswith("Error: bad session name")
    assert reader.reads == ["LESSONS.md", "DECISIONS.md"]


def test_the_whole_run_is_bounded_in_time(tools: ReadOnlyTools) -> None:
    ticks = iter([0.0, 1.0, 1000.0])
    script = [reply(None, [tool_call("list_sessions", {})]), reply("{}")]
    with serving(script) as fake, llm(fake.url, []) as model:
        result = run_tool_loop(model, "s", "p", tools, monotonic=lambda: next(ticks))
    assert result.choices is None
    assert result.calls == 1
    assert "longer than 900 s" in result.error


# --- a whole pass -------------------------------------------------------------------------


def test_prompt_lists_open_asks_only_when_there_are_some() -> None:
    asks = webinar_asks()
    prompt = render_prompt(TODAY.isoformat(), "=== DECISIONS.md ===\n(empty)", list(asks.values()))
    assert f"[{ASK_ID}] Decide the webinar language" in prompt
    assert '"close_asks"' in prompt
    assert "=== DECISIONS.md ===" in prompt
    assert "OPEN ASKS" not in render_prompt(TODAY.isoformat(), "files", [])


def test_run_editor_applies_a_quote_backed_close(
    tools: ReadOnlyTools, sessions: SessionDir
) -> None:
    asks = webinar_asks()
    prompt = render_prompt(TODAY.isoformat(), "files", list(asks.values()))
    choices = {"close_asks": [{"id": ASK_ID, "session": SESSION_A, "quote": VERBATIM}]}
    applier = RecordingApplier()
    run, fake = editor_pass(
        [reply(json.dumps(choices))], tools, sessions, applier, asks=asks, prompt=prompt
    )
    assert f"[{ASK_ID}]" in str(fake.requests[0].messages[1]["content"])
    assert run.record.outcome == "edited"
    assert run.record.applied == (Applied(kind="close_ask", id=ASK_ID, session=SESSION_A),)
    assert run.record.rejected == ()
    after = fold([(2, e) for e in run.events], asks)[ASK_ID]
    assert (after.state, after.closed_by) == ("done", "editor")
    assert applier.calls == [(EntryChoices(), TODAY)]


def test_a_close_quoting_the_assistant_changes_nothing(
    tools: ReadOnlyTools, sessions: SessionDir
) -> None:
    choices = {"close_asks": [{"id": ASK_ID, "session": SESSION_A, "quote": "English it is"}]}
    run, _fake = editor_pass([reply(json.dumps(choices))], tools, sessions, RecordingApplier())
    assert run.record.outcome == "no_change"
    assert run.events == ()
    assert run.record.rejected == (
        f"close_asks {ASK_ID}: quote not in the user's messages of {SESSION_A}",
    )


@pytest.mark.parametrize(
    ("script", "requests"),
    [
        pytest.param([failure(500), failure(500), reply("{}")], 2, id="500-twice"),
        pytest.param([failure(401), reply("{}")], 1, id="401"),
        pytest.param([Scripted(body={"choices": []})], 1, id="malformed"),
    ],
)
def test_a_failed_model_call_edits_nothing(
    tools: ReadOnlyTools, sessions: SessionDir, script: list[Scripted], requests: int
) -> None:
    applier = RecordingApplier(EntriesOutcome(applied=(Applied(kind="index"),)))
    run, fake = editor_pass(script, tools, sessions, applier)
    assert run.record.outcome == "failed"
    assert run.record.error.startswith("the editor's model call failed")
    assert run.events == ()
    assert applier.calls == []
    assert len(fake.requests) == requests


def test_a_reply_carrying_whole_files_changes_nothing(
    tools: ReadOnlyTools, sessions: SessionDir
) -> None:
    whole = {"decisions": "# DECISIONS\n", "lessons": "# LESSONS\n"}
    applier = RecordingApplier()
    run, _fake = editor_pass([reply(json.dumps(whole))], tools, sessions, applier)
    assert run.record.outcome == "no_change"
    assert applier.calls == [(EntryChoices(), TODAY)]


def test_entry_choices_reach_the_applier_and_its_outcome_is_reported(
    tools: ReadOnlyTools, sessions: SessionDir
) -> None:
    outcome = EntriesOutcome(
        applied=(Applied(kind="archive", file="DECISIONS.md", id="use-postgres"),),
        rejected=("archive old: unknown id",),
        skipped_files=("LESSONS.md",),
    )
    choices = {
        "archive": [
            {"file": "DECISIONS.md", "id": "use-postgres", "pointer": "Postgres"},
            {"file": "DECISIONS.md", "id": "old"},
            {"file": "INDEX.md", "id": "x"},
        ]
    }
    applier = RecordingApplier(outcome)
    run, _fake = editor_pass([reply(json.dumps(choices))], tools, sessions, applier)
    (given, _today), *_ = applier.calls
    assert [a.id for a in given.archive] == ["use-postgres", "old"]
    assert run.record.outcome == "edited"
    assert run.record.rejected == (
        "archive x: INDEX.md cannot be edited by id",
        "archive old: unknown id",
    )
    assert run.record.skipped_files == ("LESSONS.md",)
    record = msgspec.json.decode(msgspec.json.encode(run.record))
    assert set(record) == {
        "outcome",
        "calls",
        "choices",
        "applied",
        "rejected",
        "skipped_files",
        "error",
    }
