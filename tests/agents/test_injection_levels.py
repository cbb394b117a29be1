"""How much the hooks inject (issue 29): the project's level (an event, set with ``orbital
context --inject``), a session's own (``ORBITAL_INJECT`` in the agent's environment), and
what the hooks injected kept per session for ``orbital context --cost``. Each hook runs as
installed: ``orbital hook claude-code <event>``, a new process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.agents.claude_code import VIEW_FILE
from orbital.cli import cli
from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital
from orbital.service._sessions import InjectionLog
from orbital.tokens import CachedCounter


@pytest.fixture
def project(orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("ORBITAL_NOW", raising=False)
    monkeypatch.delenv("ORBITAL_INJECT", raising=False)
    root = tmp_path / "project"
    root.mkdir()
    for command in ("init", "install claude-code"):
        done = CliRunner().invoke(cli, [*command.split(), "--project", str(root)])
        assert done.exit_code == 0, done.output
    return root


def _orbital(*args: str) -> str:
    done = CliRunner().invoke(cli, list(args))
    assert done.exit_code == 0, done.output
    return done.output


#: ``orbital hook claude-code``, as installed.
HOOK = [sys.executable, "-c", "from orbital.cli import main; main()", "hook", "claude-code"]


def _hook(slug: str, payload: Mapping[str, object], **env: str) -> str:
    """The hook as Claude Code runs it: its own process, the session's environment."""
    done = subprocess.run(
        [*HOOK, slug],
        input=json.dumps(payload).encode(),
        capture_output=True,
        check=True,
        timeout=120,
        env={**os.environ, **env},
    )
    assert not done.stderr, done.stderr  # nothing logged: the hook did not fail
    out = done.stdout.decode()
    return str(json.loads(out)["hookSpecificOutput"]["additionalContext"]) if out else ""


def _payload(root: Path, event: str, session: str = "s1") -> dict[str, object]:
    return {"hook_event_name": event, "session_id": session, "cwd": str(root), "prompt": "go"}


def _another_session_writes(db: str, root: Path, clock: FixedClock) -> None:
    with Orbital.open(db, clock=clock) as service:
        pid = service.project(root).project_id
        text = service.read_file(pid, "DECISIONS.md") + "\n## Ship on Fridays\nChose: Friday.\n"
        service.write_file(pid, "DECISIONS.md", text.encode(), actor=Actor.AGENT, session="o")
        service.ask_open(pid, "Check the release notes", actor=Actor.AGENT, session="o")


@pytest.mark.parametrize(
    ("level", "session", "decision", "ask"),
    [
        ("full", None, True, True),
        ("asks", None, False, True),
        ("off", None, False, False),
        ("full", "asks", False, True),
        ("full", "off", False, False),
        ("off", "full", True, True),
    ],
)
def test_a_prompt_injects_what_the_level_lets_through(
    project: Path,
    orbital_db: str,
    clock: FixedClock,
    level: str,
    session: str | None,
    decision: bool,
    ask: bool,
) -> None:
    _orbital("context", "--inject", level, "--project", str(project))
    env = {} if session is None else {"ORBITAL_INJECT": session}
    prompt = _payload(project, "UserPromptSubmit")
    assert _hook("prompt", prompt, **env) == ""  # first seen: from now
    _another_session_writes(orbital_db, project, clock)
    said = _hook("prompt", prompt, **env)
    assert ("Ship on Fridays" in said, "Check the release notes" in said) == (decision, ask)
    assert _hook("prompt", prompt, **env) == ""  # what moved is seen, said or not


def test_the_project_s_level_is_the_person_s_event_and_shapes_the_view_file(
    project: Path, orbital_db: str, clock: FixedClock
) -> None:
    _another_session_writes(orbital_db, project, clock)
    assert _orbital("context", "--inject", "asks", "--project", str(project)) == "injection: asks\n"
    again = _orbital("context", "--inject", "asks", "--project", str(project))
    assert again == "injection: asks (already)\n"
    history = _orbital("history", "--project", str(project))
    assert history.count("project.injection_set asks") == 1
    (project / VIEW_FILE).unlink()  # the session start writes it again, at the project's level
    said = _hook("session-start", _payload(project, "SessionStart"))
    view = (project / VIEW_FILE).read_text(encoding="utf-8")
    assert "Check the release notes" in view and "Ship on Fridays" not in view
    assert said in view and "Ship on Fridays" not in said  # no file was loaded: its view
    _orbital("context", "--inject", "off", "--project", str(project))
    (project / VIEW_FILE).unlink()
    _hook("session-start", _payload(project, "SessionStart", "s2"))
    view = (project / VIEW_FILE).read_text(encoding="utf-8")
    assert "Check the release notes" not in view and "Ship on Fridays" not in view
    # The agent's own view is whole whatever the hooks inject.
    assert "Ship on Fridays" in _orbital("context", "--project", str(project))


def test_a_session_level_that_is_no_level_fails_open_and_is_logged(project: Path) -> None:
    done = subprocess.run(
        [*HOOK, "subagent-start"],
        input=json.dumps(_payload(project, "SubagentStart")).encode(),
        capture_output=True,
        timeout=120,
        env={**os.environ, "ORBITAL_INJECT": "some"},
    )
    assert (done.returncode, done.stdout) == (0, b"")
    assert "ORBITAL_INJECT is one of full, asks, off, not 'some'" in done.stderr.decode()


def test_the_cost_is_the_median_of_what_the_hooks_injected(
    project: Path, orbital_db: str, clock: FixedClock
) -> None:
    start = _payload(project, "SessionStart")
    _hook("session-start", start)
    prompt = _payload(project, "UserPromptSubmit")
    turns = [_hook("prompt", prompt)]
    _another_session_writes(orbital_db, project, clock)
    turns += [_hook("prompt", prompt), _hook("prompt", prompt)]
    with Orbital.open(orbital_db) as service:
        pid = service.project(project).project_id
    logged = InjectionLog().sessions(pid)
    assert [kind for kind, _ in logged[0]] == ["start", "turn", "turn", "turn"]
    count = CachedCounter()
    loaded = (project / VIEW_FILE).read_text(encoding="utf-8")
    assert logged[0][0] == ("start", loaded)  # the view file the agent loaded
    assert [text for _, text in logged[0][1:]] == turns
    assert "Ship on Fridays" in turns[1] and not turns[0] and not turns[2]
    with Orbital.open(orbital_db) as service:
        now = round(count(service.agents.view(service.project(project))))
    assert _orbital("context", "--cost", "--project", str(project)).splitlines() == [
        f"injection: full in project {project.name}",  # its display name
        f"a session starting now: {now} tokens",
        f"session start: median {round(count(loaded))} tokens over the last 1 session",
        "per turn: median 0 tokens added over 3 prompts",
    ]


def test_a_log_that_cannot_be_written_costs_the_hook_nothing(
    project: Path, orbital_db: str, clock: FixedClock
) -> None:
    (Path(os.environ["ORBITAL_STATE_DIR"]) / "injected").write_text("not a folder")
    prompt = _payload(project, "UserPromptSubmit")
    assert _hook("prompt", prompt) == ""
    _another_session_writes(orbital_db, project, clock)
    assert "Ship on Fridays" in _hook("prompt", prompt)
