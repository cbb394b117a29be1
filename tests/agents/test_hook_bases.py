"""Issue 33 finding 1: the hooks pass the version the agent read. A whole-file write without
a base removes only what it names, so an agent's removal through its file tool or its shell
counts only because the hook says which version the agent changed: the one this checkout
last wrote, when the bytes the agent changed are those."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.cli import cli
from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital

TWO = "## Ship on Fridays\nChose: yes.\n\n## Keep a changelog\nChose: one file.\n"


@pytest.fixture
def project(orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    root = tmp_path / "project"
    root.mkdir()
    assert CliRunner().invoke(cli, ["init", "--project", str(root)]).exit_code == 0
    written = CliRunner().invoke(cli, ["write", "--project", str(root), "DECISIONS.md"], TWO)
    assert written.exit_code == 0, written.output
    return root


def _hook(agent: str, event: str, payload: Mapping[str, object]) -> tuple[int, str]:
    done = CliRunner().invoke(cli, ["hook", agent, event], input=json.dumps(payload))
    return done.exit_code, done.stdout


def _statuses(orbital_db: str, clock: FixedClock, root: Path) -> dict[str, tuple[str, str]]:
    """Each entry's status and the actor of its last event."""
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(root).project_id
        last = {e.stream.removeprefix("entry:"): e.actor.value for e in service.history(pid)}
        return {r.id: (r.status, last[r.id]) for r in service.memory_entries(pid)}


def _without_fridays(decisions: Path) -> tuple[str, str]:
    """The file's text and the block of its first entry (the heading line to the blank)."""
    text = decisions.read_text(encoding="utf-8")
    start = text.index("## Ship on Fridays")
    return text, text[start : text.index("## Keep a changelog")]


def test_an_edit_tool_removing_an_entry_removes_it(
    project: Path, orbital_db: str, clock: FixedClock
) -> None:
    decisions = project / "orbital" / "DECISIONS.md"
    _, block = _without_fridays(decisions)
    payload = {
        "hook_event_name": "PreToolUse",
        "session_id": "s1",
        "cwd": str(project),
        "tool_name": "Edit",
        "tool_input": {"file_path": str(decisions), "old_string": block, "new_string": ""},
    }
    code, out = _hook("claude-code", "pre-tool", payload)
    assert (code, json.loads(out)["hookSpecificOutput"]["permissionDecision"]) == (0, "allow")
    assert _statuses(orbital_db, clock, project) == {
        "ship-on-fridays": ("retired", "agent"),
        "keep-a-changelog": ("live", "agent"),
    }


def test_a_shell_edit_removing_an_entry_removes_it(
    project: Path, orbital_db: str, clock: FixedClock
) -> None:
    decisions = project / "orbital" / "DECISIONS.md"
    text, block = _without_fridays(decisions)
    decisions.write_text(text.replace(block, ""), encoding="utf-8")
    payload = {
        "hook_event_name": "PostToolUse",
        "session_id": "s1",
        "cwd": str(project),
        "tool_name": "Bash",
        "tool_input": {"command": "sed -i … orbital/DECISIONS.md"},
    }
    code, out = _hook("claude-code", "post-tool", payload)
    assert code == 0
    assert "was removed from the file (ship-on-fridays)" in out
    assert _statuses(orbital_db, clock, project) == {
        "ship-on-fridays": ("retired", "agent"),
        "keep-a-changelog": ("live", "agent"),
    }


def test_a_cursor_write_of_a_file_it_read_removes_what_it_left_out(
    project: Path, orbital_db: str, clock: FixedClock
) -> None:
    decisions = project / "orbital" / "DECISIONS.md"
    text, block = _without_fridays(decisions)
    payload = {
        "hook_event_name": "preToolUse",
        "conversation_id": "c1",
        "generation_id": "g1",
        "workspace_roots": [str(project)],
        "cwd": str(project),
        "tool_name": "Write",
        "tool_input": {"file_path": str(decisions), "content": text.replace(block, "")},
    }
    assert _hook("cursor", "pre-tool", payload)[0] == 0
    assert _statuses(orbital_db, clock, project)["ship-on-fridays"] == ("retired", "agent")


def test_a_file_changed_since_the_agents_read_keeps_what_it_did_not_name(
    project: Path, orbital_db: str, clock: FixedClock
) -> None:
    """Bytes that are not what this checkout wrote give no base: the write keeps what it
    leaves out."""
    decisions = project / "orbital" / "DECISIONS.md"
    text, block = _without_fridays(decisions)
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(project).project_id
        service.write_file(pid, "DECISIONS.md", TWO.encode(), actor=Actor.AGENT)  # no change
        agents = service.agents
        found = agents.project_at(str(project))
        assert found is not None
        stale = text.replace("Chose: one file.", "Chose: one file at the root.").encode()
        outcome = agents.write(
            found, "DECISIONS.md", text.replace(block, "").encode(), "s1", read=stale
        )
    assert outcome.warnings[0].startswith("DECISIONS.md: kept ship-on-fridays: left out")
    assert _statuses(orbital_db, clock, project)["ship-on-fridays"] == ("live", "agent")
