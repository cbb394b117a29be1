"""The memory editor's model as the agent the person already has: the pinned Claude Code CLI
run headless (``ORBITAL_EDITOR_PROVIDER=claude``) against the scripted Anthropic API, at the
end of a session where the person corrected the agent; the pinned Codex CLI (``codex``)
against the scripted Responses API."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from orbital.clock import FixedClock
from orbital.domain.editor.choices import Applied
from orbital.domain.editor.conversation import SYSTEM_PROMPT
from orbital.events import Actor
from tests.agents.claude_cli import environment
from tests.agents.codex_cli import MODEL as CODEX_MODEL
from tests.agents.codex_cli import provider_config
from tests.agents.fake_anthropic import say, serving
from tests.agents.fake_openai import say as codex_say
from tests.agents.fake_openai import serving as codex_serving
from tests.editor.helpers import write_jsonl
from tests.seeded import seeded_project

NOW = dt.datetime(2026, 9, 19, 9, 0, tzinfo=dt.UTC)
SESSION = "f77185ab-9769-4e76-b999-a38fc6a02484"
CORRECTION = "No, don't pip install here: this project uses uv, always run uv sync first."
DECISIONS = "# Decisions\n\n## Use Postgres\nChose: PostgreSQL.\n\n## Adopt Vite\nChose: Vite.\n"
LESSON = {
    "title": "Use uv, not pip",
    "text": "The agent ran pip install; the person uses uv. Next time: run uv sync first.",
    "session": SESSION,
    "quote": "this project uses uv, always run uv sync first",
}


def test_the_editor_runs_on_the_agents_own_cli_and_keeps_the_persons_correction(
    claude: Path, store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    transcripts = tmp_path / "transcripts"
    write_jsonl(
        transcripts / f"{SESSION}.jsonl",
        [
            {"type": "user", "message": {"role": "user", "content": "set the project up"}},
            {"type": "assistant", "message": {"role": "assistant", "content": "pip install"}},
            {"type": "user", "message": {"role": "user", "content": CORRECTION}},
        ],
    )
    choices = {"archive": [{"file": "DECISIONS.md", "id": "adopt-vite"}], "lessons": [LESSON]}
    script = [
        say('{"tool": "grep", "arguments": {"pattern": "uv"}}'),  # a tool, asked for in text
        say(f"Here are my choices:\n```json\n{json.dumps(choices)}\n```"),
    ]
    with serving(script) as fake:
        home = tmp_path / "home"
        home.mkdir()
        for name, value in environment(home, fake.url, {}).items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("ORBITAL_EDITOR_PROVIDER", "claude")
        monkeypatch.setenv("ORBITAL_EDITOR_COMMAND", str(claude))
        monkeypatch.setenv("ORBITAL_EDITOR_MODEL", "claude-sonnet-4-5")
        for name in ("ORBITAL_EDITOR_URL", "ORBITAL_EDITOR_KEY"):
            monkeypatch.delenv(name, raising=False)
        with seeded_project(store_url, tmp_path / "project", FixedClock(NOW)) as (service, pid):
            service.write_file(pid, "DECISIONS.md", DECISIONS.encode(), actor=Actor.AGENT)
            assert service.editor.configured()
            report = service.editor_run(pid, sessions=transcripts, session=SESSION, force=True)
            lessons = service.read_file(pid, "LESSONS.md")
            decisions = service.read_file(pid, "DECISIONS.md")
    assert (report.outcome, report.calls, report.error, report.rejected) == ("edited", 2, "", [])
    assert report.applied == [
        Applied(kind="archive", file="DECISIONS.md", id="adopt-vite"),
        Applied(kind="lesson", file="LESSONS.md", id="use-uv-not-pip", session=SESSION),
    ]
    assert "Chose: Vite." not in decisions
    assert (
        "Proposed by the memory editor from the person's correction in session "
        f'{SESSION}: "this project uses uv, always run uv sync first"'
    ) in lessons
    first, second = fake.main_requests
    for request in (first, second):
        assert request.body["tools"] == []  # Claude Code's own tools are off
        system = request.body["system"]
        assert isinstance(system, list)
        assert any(block.get("text") == SYSTEM_PROMPT for block in system)
    asked = "\n".join(first.texts())
    assert f"SESSION THAT JUST ENDED: {SESSION}" in asked and f"[user] {CORRECTION}" in asked
    assert '{"tool": "<name>", "arguments": {...}}' in asked
    answered = "\n".join(second.texts())
    assert "[tool result]\n(no matches)" in answered  # the grep ran, read-only
    assert not list((home / ".claude" / "projects").glob("*/*.jsonl"))  # nothing kept


def test_the_editor_runs_on_codex_exec(
    codex: Path, store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    choices = {"archive": [{"file": "DECISIONS.md", "id": "adopt-vite"}]}
    with codex_serving([codex_say(json.dumps(choices))]) as fake:
        home = tmp_path / "home"
        (home / ".codex").mkdir(parents=True)
        (home / ".codex" / "config.toml").write_text(provider_config(fake.url), encoding="utf-8")
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
        monkeypatch.setenv("FAKE_KEY", "test")
        monkeypatch.setenv("ORBITAL_EDITOR_PROVIDER", "codex")
        monkeypatch.setenv("ORBITAL_EDITOR_COMMAND", str(codex))
        monkeypatch.setenv("ORBITAL_EDITOR_MODEL", CODEX_MODEL)
        with seeded_project(store_url, tmp_path / "project", FixedClock(NOW)) as (service, pid):
            service.write_file(pid, "DECISIONS.md", DECISIONS.encode(), actor=Actor.AGENT)
            report = service.editor_run(pid, force=True)
            decisions = service.read_file(pid, "DECISIONS.md")
    assert (report.outcome, report.error) == ("edited", "")
    assert report.applied == [Applied(kind="archive", file="DECISIONS.md", id="adopt-vite")]
    assert "Chose: Vite." not in decisions
    (turn,) = fake.turns
    asked = "\n".join(turn.texts())
    assert SYSTEM_PROMPT in asked and "=== DECISIONS.md ===" in asked
