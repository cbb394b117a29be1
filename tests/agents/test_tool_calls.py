"""Every hand named (issue 28), without the real CLI: Claude Code's PreToolUse records each
tool call as running until its PostToolUse (or a refusal, or the session's next prompt);
meanwhile the watcher's and the follower's sync leaves the project alone, and the hook takes
the change in as the agent's. A change nobody's tool call explains is ``file``."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.cli import cli
from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital
from orbital.service._sessions import ToolCalls
from orbital.watcher import sync_one


@pytest.fixture
def project(orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    root = tmp_path / "project"
    root.mkdir()
    assert CliRunner().invoke(cli, ["init", "--project", str(root)]).exit_code == 0
    return root


def hook(event: str, slug: str, root: Path, **fields: object) -> str:
    payload: Mapping[str, object] = {
        "hook_event_name": event, "session_id": "s1", "cwd": str(root), **fields,
    }  # fmt: skip
    done = CliRunner().invoke(cli, ["hook", "claude-code", slug], input=json.dumps(payload))
    assert done.exit_code == 0, done.stderr
    return done.stdout


BASH = {"tool_name": "Bash", "tool_input": {"command": "echo >> orbital/DECISIONS.md"}}


def test_a_change_while_a_tool_call_runs_is_left_to_the_hook_and_is_the_agents(
    project: Path, orbital_db: str, clock: FixedClock
) -> None:
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(project).project_id
        checkout = service.project(project)
    calls = ToolCalls()
    assert hook("PreToolUse", "pre-tool", project, **BASH) == ""
    assert calls.running(pid, time.time())
    decisions = project / "orbital" / "DECISIONS.md"
    decisions.write_text(decisions.read_text() + "\n## Ship on Fridays\nOn Friday mornings.\n")
    reports: list[str] = []
    with Orbital.open(orbital_db, clock=clock) as service:
        sync_one(service, checkout, reports.append)  # what the watcher and the follower run
        assert reports == [
            f"{checkout.checkout}: an agent's tool call is running; left to its hook"
        ]
        assert service.unmerged(pid) == ["DECISIONS.md"]
    hook("PostToolUse", "post-tool", project, **BASH)
    assert not calls.running(pid, time.time())
    with Orbital.open(orbital_db, clock=clock) as service:
        created = [e for e in service.history(pid) if e.type == "entry.created"]
        assert [(e.actor, e.session) for e in created] == [(Actor.AGENT, "s1")]
        # Nothing runs now: a change is nobody's tool call's, taken in as unknown authorship.
        decisions.write_text(decisions.read_text() + "\n## Ship on Mondays\nOn Mondays.\n")
        sync_one(service, checkout, reports.append)
        later = [e for e in service.history(pid) if e.type == "entry.created"][-1]
        assert (later.actor, later.session) == (Actor.FILE, None)


def test_a_call_that_never_reports_back_ends_with_the_next_prompt(
    project: Path, orbital_db: str, clock: FixedClock
) -> None:
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(project).project_id
    hook("PreToolUse", "pre-tool", project, **BASH)  # then refused: no PostToolUse comes
    assert ToolCalls().running(pid, time.time())
    hook("UserPromptSubmit", "prompt", project, prompt="go on")
    assert not ToolCalls().running(pid, time.time())
    hook("PreToolUse", "pre-tool", project, **BASH)
    assert not ToolCalls().running(pid, time.time() + 3600)  # long gone: taken as ended
