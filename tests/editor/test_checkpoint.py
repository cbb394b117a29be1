"""An agent's checkpoint (``memory_checkpoint``, ``orbital checkpoint``): its status at once,
the pass in a process of its own (not bound by the budget and interval gates, but by single
flight and the debounce), and its result in the agent's next reminder."""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from orbital.cli import cli
from orbital.errors import InvalidInput
from orbital.events import Actor
from orbital.events.editor import EditorRunRecorded, EditorRunStarted
from orbital.service import Orbital
from tests.editor.fake_llm import FakeChatServer, Scripted, reply, serving
from tests.mcp.test_stdio import ORBITAL, text_of
from tests.seeded import seeded_project

NOW = dt.datetime(2026, 9, 19, 9, 0, tzinfo=dt.UTC)
DECISIONS = "# Decisions\n\n## Use Postgres\nChose: PostgreSQL.\n\n## Adopt Vite\nChose: Vite.\n"
REASON = "finished the storage migration"
STARTED = (
    "started: the memory editor is consolidating the memory in the background; its result "
    f"comes with your next reminder. Reason noted: {REASON}"
)
SESSION = "session-one"


@dataclass
class Clock:
    at: dt.datetime

    def now(self) -> dt.datetime:
        return self.at


@dataclass
class Env:
    orbital: Orbital
    project: str
    root: Path

    def records(self) -> list[EditorRunRecorded]:
        history = self.orbital.history(self.project)
        return [e.event for e in history if isinstance(e.event, EditorRunRecorded)]

    def wait_for_record(self, timeout_s: float = 90) -> EditorRunRecorded:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            found = self.records()
            if found:
                return found[-1]
            time.sleep(0.2)
        raise AssertionError("the checkpoint's pass recorded nothing")


@pytest.fixture
def env(store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    monkeypatch.setenv("ORBITAL_NOW", NOW.isoformat())  # the pass's process: the same clock
    for name in ("ORBITAL_EDITOR_URL", "ORBITAL_EDITOR_MODEL", "ORBITAL_EDITOR_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "project"
    with seeded_project(store_url, root, Clock(NOW)) as (service, project):
        service.write_file(project, "DECISIONS.md", DECISIONS.encode(), actor=Actor.AGENT)
        yield Env(service, project, root)


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeChatServer]:
    choices = {"archive": [{"file": "DECISIONS.md", "id": "adopt-vite"}]}
    with serving([Scripted(body=reply(json.dumps(choices)).body, delay_s=2.0)]) as fake:
        monkeypatch.setenv("ORBITAL_EDITOR_URL", fake.url)
        monkeypatch.setenv("ORBITAL_EDITOR_MODEL", "fake")
        yield fake


def test_a_checkpoint_answers_at_once_and_its_result_reaches_the_next_reminder(
    env: Env, model: FakeChatServer
) -> None:
    agents, project = env.orbital.agents, env.orbital.project(env.root)
    assert agents.prompt(project, SESSION) == ""  # the session has seen everything so far
    # nothing is over budget and nothing changed since: an automatic pass would not run
    assert env.orbital.editor_run(env.project).outcome == "not_needed"
    report = env.orbital.editor.checkpoint(env.project, f"  {REASON}\n")
    assert report.line() == STARTED
    assert env.records() == []  # answered before the model (2 s away) could reply
    record = env.wait_for_record()
    assert (record.trigger, record.reason, record.outcome) == ("requested", REASON, "edited")
    started = [e.event for e in env.orbital.history(env.project) if e.stream == "editor"]
    assert isinstance(started[0], EditorRunStarted) and started[0].reason == REASON
    assert "Chose: Vite." not in (env.root / "orbital" / "DECISIONS.md").read_text()
    reminder = agents.prompt(project, SESSION)
    assert (
        f'by the memory editor: the checkpoint asked for ("{REASON}") is done: archived '
        "adopt-vite of DECISIONS.md"
    ) in reminder
    # a second request within 5 minutes of the pass (another process's) is debounced
    again = env.orbital.editor.checkpoint(env.project, "again")
    assert again.line() == (
        "debounced: a pass started less than 5 minutes ago; its result comes with your next "
        "reminder. Reason noted: again"
    )
    assert len(model.requests) == 1


def test_a_failed_checkpoint_says_so_in_the_next_reminder(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    with serving([Scripted(status=401, body={"error": {"message": "bad key"}})]) as fake:
        monkeypatch.setenv("ORBITAL_EDITOR_URL", fake.url)
        monkeypatch.setenv("ORBITAL_EDITOR_MODEL", "fake")
        agents, project = env.orbital.agents, env.orbital.project(env.root)
        agents.prompt(project, SESSION)
        assert env.orbital.editor.checkpoint(env.project, REASON).status == "started"
        record = env.wait_for_record()
    assert record.outcome == "failed"
    reminder = agents.prompt(project, SESSION)
    assert f'the checkpoint asked for ("{REASON}") failed, nothing changed: ' in reminder
    assert "HTTP 401" in reminder


def test_a_checkpoint_while_a_pass_runs_is_in_flight_and_starts_nothing(
    env: Env, model: FakeChatServer
) -> None:
    started: list[str] = []
    env.orbital.editor.start = lambda url, project, reason: started.append(reason)
    lock = env.root / "orbital" / ".editor.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # another process's pass holds the project
        report = env.orbital.editor.checkpoint(env.project, REASON)
    finally:
        os.close(fd)
    assert report.line() == (
        "in_flight: a pass is running for this project now; its result comes with your next "
        f"reminder. Reason noted: {REASON}"
    )
    assert started == []
    assert env.orbital.editor.checkpoint(env.project, REASON).status == "started"
    assert started == [REASON]
    # asked again before that pass recorded its start: debounced all the same
    assert env.orbital.editor.checkpoint(env.project, REASON).status == "debounced"
    assert started == [REASON]


def test_a_checkpoint_without_a_model_or_a_reason(env: Env) -> None:
    started: list[str] = []
    env.orbital.editor.start = lambda url, project, reason: started.append(reason)
    report = env.orbital.editor.checkpoint(env.project, REASON)
    assert report.status == "not_configured"
    assert report.line().startswith("not_configured: no pass ran (the memory editor has no model: ")
    with pytest.raises(InvalidInput, match="a checkpoint needs a reason"):
        env.orbital.editor.checkpoint(env.project, " \n ")
    assert started == [] and env.records() == []


def test_orbital_checkpoint_prints_the_status(
    env: Env, model: FakeChatServer, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORBITAL_DB", store_url)
    runner = CliRunner()
    done = runner.invoke(cli, ["checkpoint", REASON, "--project", str(env.root)])
    assert done.exit_code == 0, done.output
    assert done.output == STARTED + "\n"
    assert env.wait_for_record().reason == REASON
    again = runner.invoke(cli, ["checkpoint", "again", "--project", str(env.root), "--json"])
    assert json.loads(again.output) == {"status": "debounced", "reason": "again", "detail": ""}


def test_memory_checkpoint_over_mcp_answers_the_status_and_the_pass_runs(
    env: Env, model: FakeChatServer, store_url: str
) -> None:
    params = StdioServerParameters(
        command=ORBITAL,
        args=["mcp", "--project", str(env.root)],
        env={
            "ORBITAL_DB": store_url,
            "ORBITAL_NOW": NOW.isoformat(),
            "ORBITAL_EDITOR_URL": model.url,
            "ORBITAL_EDITOR_MODEL": "fake",
        },
    )
    answers: list[str] = []

    async def main() -> None:
        async with Client(params, read_timeout_seconds=60) as client:
            answer = await client.call_tool("memory_checkpoint", {"reason": REASON})
            assert not answer.is_error
            answers.append(text_of(answer))
            missing = await client.call_tool("memory_checkpoint", {})
            assert missing.is_error

    anyio.run(main)
    assert answers == [STARTED]
    record = env.wait_for_record()  # the pass outlives the MCP server that asked for it
    assert (record.trigger, record.outcome) == ("requested", "edited")
