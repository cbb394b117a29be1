"""The Claude Code hooks around a session, without the real CLI: the sub-agent view, session
end (backstop, view file, transcript kept), a write Claude Code refused after Orbital recorded
it, and the per-person files kept out of git. On both backends.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.agents.claude_code_hooks import view_position
from orbital.cli import cli
from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital
from orbital.service._sessions import SessionMarks
from projections.view_order import NO_DESCRIPTION
from tests.conftest import NOW
from tests.seeded import write_in_parts


@pytest.fixture
def project(orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ORBITAL_NOW", NOW.isoformat())
    for name in ("ORBITAL_EDITOR_URL", "ORBITAL_EDITOR_MODEL", "ORBITAL_EDITOR_KEY"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "project"
    root.mkdir()
    assert CliRunner().invoke(cli, ["init", "--project", str(root)]).exit_code == 0
    return root


def _hook(event: str, payload: Mapping[str, object]) -> tuple[int, str]:
    done = CliRunner().invoke(cli, ["hook", "claude-code", event], input=json.dumps(payload))
    return done.exit_code, done.stdout


def _context(out: str, event: str) -> str:
    answer = json.loads(out)["hookSpecificOutput"]
    assert answer["hookEventName"] == event
    text: str = answer["additionalContext"]
    return text


def _install(root: Path) -> None:
    done = CliRunner().invoke(cli, ["install", "claude-code", "--project", str(root)])
    assert done.exit_code == 0, done.output


# -- SubagentStart ---------------------------------------------------------------------------


def test_a_sub_agent_gets_the_sub_agent_view_not_the_whole_memory(
    project: Path, orbital_db: str, clock: FixedClock
) -> None:
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(project).project_id
        service.write_file(
            pid, "DECISIONS.md", b"## Use SQLite\nChose: SQLite.\n", actor=Actor.AGENT
        )
        opened = service.ask_open(pid, "Book the rooftop venue", actor=Actor.USER)
        ask_id = opened.events[0].stream.removeprefix("ask:")
        service.ask_close(pid, ask_id, "dropped", "too expensive", actor=Actor.USER)
        expected = service.context_view(pid, audience="subagent")
    payload = {
        "hook_event_name": "SubagentStart",
        "session_id": "s1",
        "cwd": str(project),
        "transcript_path": "",
        "agent_id": "a1",
        "agent_type": "general-purpose",
    }
    code, out = _hook("subagent-start", payload)
    assert code == 0
    context = _context(out, "SubagentStart")
    assert context == expected
    assert context.startswith(NO_DESCRIPTION + "\n\nToday is 2026-09-19 (Saturday); ")
    assert context.endswith(
        "\n\n- The user dropped these — NEVER re-propose or add entries "
        "about: Book the rooftop venue. They may only return by explicit user request."
    )
    assert "Use SQLite" not in context


# -- SessionEnd ------------------------------------------------------------------------------


def _over_budget_decisions() -> str:
    return "".join(
        f"## Decision number {i}\nChose: option {i}.\nReason: {'we measured it twice. ' * 200}\n\n"
        for i in range(12)
    )


def test_session_end_runs_the_backstop_brings_the_view_up_to_date_and_keeps_the_transcript(
    project: Path, orbital_db: str, clock: FixedClock, tmp_path: Path
) -> None:
    _install(project)
    view = project / ".claude" / "orbital-view.md"
    installed_at = view_position(view.read_text(encoding="utf-8"))
    transcript = tmp_path / "home" / ".claude" / "projects" / "-p" / "s1.jsonl"
    base = {"session_id": "s1", "cwd": str(project), "transcript_path": str(transcript)}
    assert _hook("session-start", {**base, "hook_event_name": "SessionStart"})[0] == 0
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(project).project_id
        over_budget = _over_budget_decisions().encode()
        write_in_parts(service, pid, "DECISIONS.md", over_budget, 2, actor=Actor.AGENT)
        over = (project / "orbital" / "DECISIONS.md").read_bytes()
        written = service.head(pid)

    end = {**base, "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"}
    assert _hook("session-end", end) == (0, ""), (tmp_path / "state" / "hooks.log").read_text()

    with Orbital.open(orbital_db, clock=clock) as service:
        demoted = [e for e in service.history(pid) if e.position > written]
        assert {e.type for e in demoted} >= {"entry.archived"}
        assert {e.actor for e in demoted} == {Actor.SYSTEM}
        live = (project / "orbital" / "DECISIONS.md").read_bytes()
        assert len(live) < len(over)
        assert live.decode() == service.read_file(pid, "DECISIONS.md")
        head = service.head(pid)
        view_text = view.read_text(encoding="utf-8")
        assert view_position(view_text) == head != installed_at
        assert service.context_view(pid) in view_text
    assert SessionMarks(tmp_path / "state" / "sessions").get(pid, "s1").transcript == str(
        transcript
    )
    # A later end without a transcript path keeps the one known.
    assert _hook("session-end", {**end, "transcript_path": ""}) == (0, "")
    assert SessionMarks(tmp_path / "state" / "sessions").get(pid, "s1").transcript == str(
        transcript
    )


# -- a write Claude Code refused after Orbital recorded it ------------------------------------


def _pre_tool(root: Path, session: str, tool: str, tool_input: Mapping[str, object]) -> str:
    payload = {
        "hook_event_name": "PreToolUse",
        "session_id": session,
        "cwd": str(root),
        "transcript_path": "",
        "tool_name": tool,
        "tool_input": tool_input,
    }
    code, out = _hook("pre-tool", payload)
    assert code == 0
    return out


def test_a_refused_edit_is_written_again_at_the_next_shell_call_and_nothing_is_lost(
    project: Path, orbital_db: str, clock: FixedClock
) -> None:
    _install(project)
    decisions = project / "orbital" / "DECISIONS.md"
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(project).project_id
        service.write_file(
            pid, "DECISIONS.md", b"## Use SQLite\nChose: SQLite.\n", actor=Actor.AGENT
        )
        head = service.head(pid)
    before = decisions.read_text(encoding="utf-8")
    edit = {
        "file_path": str(decisions),
        "old_string": "Chose: SQLite.\n",
        "new_string": "Chose: SQLite.\n\n## Deploy with Docker\nChose: Compose.\n",
    }
    answer = json.loads(_pre_tool(project, "s1", "Edit", edit))["hookSpecificOutput"]
    assert answer["permissionDecision"] == "allow"
    # Claude Code refuses the rewritten input (another hook denied it): the file is untouched.
    assert decisions.read_text(encoding="utf-8") == before

    bash = {
        "hook_event_name": "PostToolUse",
        "session_id": "s1",
        "cwd": str(project),
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    }
    code, out = _hook("post-tool", bash)
    assert code == 0
    assert _context(out, "PostToolUse") == (
        "Orbital recorded your earlier write of orbital/DECISIONS.md, but Claude Code did not "
        "apply it (the tool was refused); Orbital has now written orbital/DECISIONS.md with it. "
        "Read the file again before you change it."
    )
    with Orbital.open(orbital_db, clock=clock) as service:
        text = decisions.read_text(encoding="utf-8")
        assert text == service.read_file(pid, "DECISIONS.md")
        assert "## Deploy with Docker" in text and "## Use SQLite" in text
        events = [e for e in service.history(pid) if e.position > head]
        assert [(e.type, e.actor, e.session) for e in events if e.type == "entry.created"] == [
            ("entry.created", Actor.AGENT, "s1")
        ]
        assert not [e for e in events if e.actor == Actor.FILE or e.type == "entry.retired"]
        assert service.unmerged(pid) == []
    assert _hook("post-tool", bash) == (0, "")  # said once


def test_a_refused_ask_write_reaches_the_next_prompt_and_a_stale_retry_is_sent_to_read(
    project: Path, orbital_db: str, clock: FixedClock
) -> None:
    _install(project)
    asks = project / "orbital" / "ASKS.md"
    base = {"session_id": "s2", "cwd": str(project), "transcript_path": ""}
    assert _hook("session-start", {**base, "hook_event_name": "SessionStart"})[0] == 0
    before = asks.read_text(encoding="utf-8")
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(project).project_id
        head = service.head(pid)
    proposal = {"file_path": str(asks), "content": before + "- open Pick the colours\n"}
    answer = json.loads(_pre_tool(project, "s2", "Write", proposal))["hookSpecificOutput"]
    assert answer["permissionDecision"] == "allow"
    assert asks.read_text(encoding="utf-8") == before  # the tool never ran

    # The agent retries from the file it read: sent to read it again, nothing recorded twice.
    retry = {"file_path": str(asks), "content": before + "- open Pick the colours please\n"}
    answer = json.loads(_pre_tool(project, "s2", "Write", retry))["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert answer["permissionDecisionReason"].startswith(
        "Orbital recorded your earlier write of orbital/ASKS.md, but Claude Code did not apply it"
    )
    with Orbital.open(orbital_db, clock=clock) as service:
        assert asks.read_text(encoding="utf-8") == service.read_file(pid, "ASKS.md")
        events = [e for e in service.history(pid) if e.position > head]
        assert [(e.type, e.actor, e.session) for e in events] == [("ask.opened", Actor.AGENT, "s2")]
    assert "Pick the colours" in asks.read_text(encoding="utf-8")
    prompt = {**base, "hook_event_name": "UserPromptSubmit", "prompt": "go on"}
    assert _hook("prompt", prompt) == (0, "")


def test_a_refused_write_is_told_on_the_next_prompt(
    project: Path, orbital_db: str, clock: FixedClock
) -> None:
    _install(project)
    asks = project / "orbital" / "ASKS.md"
    base = {"session_id": "s3", "cwd": str(project), "transcript_path": ""}
    assert _hook("session-start", {**base, "hook_event_name": "SessionStart"})[0] == 0
    before = asks.read_text(encoding="utf-8")
    proposal = {"file_path": str(asks), "content": before + "- open Pick the colours\n"}
    _pre_tool(project, "s3", "Write", proposal)
    prompt = {**base, "hook_event_name": "UserPromptSubmit", "prompt": "next"}
    code, out = _hook("prompt", prompt)
    assert code == 0
    assert _context(out, "UserPromptSubmit").startswith(
        "Orbital recorded your earlier write of orbital/ASKS.md"
    )
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(project).project_id
        assert asks.read_text(encoding="utf-8") == service.read_file(pid, "ASKS.md")
        assert not [e for e in service.history(pid) if e.actor == Actor.FILE]
    assert _hook("prompt", prompt) == (0, "")


def test_a_write_whose_tool_ran_is_not_reported(
    project: Path, orbital_db: str, clock: FixedClock
) -> None:
    _install(project)
    asks = project / "orbital" / "ASKS.md"
    before = asks.read_text(encoding="utf-8")
    proposal = {"file_path": str(asks), "content": before + "- open Pick the colours\n"}
    answer = json.loads(_pre_tool(project, "s4", "Write", proposal))["hookSpecificOutput"]
    asks.write_text(answer["updatedInput"]["content"], encoding="utf-8")  # the tool runs
    post = {
        "hook_event_name": "PostToolUse",
        "session_id": "s4",
        "cwd": str(project),
        "tool_name": "Write",
        "tool_input": answer["updatedInput"],
    }
    assert _hook("post-tool", post) == (0, "")
    prompt = {"hook_event_name": "UserPromptSubmit", "session_id": "s4", "cwd": str(project)}
    assert _hook("prompt", prompt) == (0, "")


def test_sync_writes_a_refused_write_again_without_calling_it_a_hand_edit(
    project: Path, orbital_db: str, clock: FixedClock
) -> None:
    decisions = project / "orbital" / "DECISIONS.md"
    with Orbital.open(orbital_db, clock=clock) as service:
        found = service.project(project)
        pid = found.project_id
        service.write_file(
            pid, "DECISIONS.md", b"## Use SQLite\nChose: SQLite.\n", actor=Actor.AGENT
        )
        before = decisions.read_bytes()
        head = service.head(pid)
        proposal = before + b"\n## Deploy with Docker\nChose: Compose.\n"
        held = service.agents.write(found, "DECISIONS.md", proposal, "s5")
        assert decisions.read_bytes() == before
        assert service.unmerged(pid) == []  # not an edit to take in
        report = service.sync(pid)
        assert report.warnings == [
            f"orbital/DECISIONS.md did not get the write Orbital recorded at @{head + 2} (the "
            "agent's file tool was refused or failed after Orbital recorded it); the file was "
            "written again from the store, nothing lost."
        ]
        assert decisions.read_text(encoding="utf-8") == held.content
        assert not [e for e in service.history(pid) if e.position > head and e.actor == Actor.FILE]


# -- per-person files kept out of git -----------------------------------------------------------


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_install_excludes_its_per_person_files_from_git_and_uninstall_restores_the_bytes(
    project: Path,
) -> None:
    _git(project, "init", "-q")
    exclude = project / ".git" / "info" / "exclude"
    exclude.write_bytes(b"# mine\r\n*.swp")  # CRLF, no final newline
    before = exclude.read_bytes()

    _install(project)
    assert exclude.read_bytes() == before + (
        b"\n# orbital install claude-code: per-person files (uninstall removes these lines)\n"
        b"/.claude/settings.local.json\n/.claude/orbital-view.md\n"
        b"/.claude/skills/orbital-learning-capture/SKILL.md\n/CLAUDE.local.md\n"
    )
    untracked = _git(project, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert untracked == [f"?? orbital/{name}" for name in sorted(_memory_files(project))]
    _install(project)  # idempotent: nothing added twice
    assert exclude.read_bytes().count(b"/CLAUDE.local.md") == 1

    done = CliRunner().invoke(cli, ["uninstall", "claude-code", "--project", str(project)])
    assert done.exit_code == 0, done.output
    assert exclude.read_bytes() == before


def _memory_files(root: Path) -> list[str]:
    return [p.name for p in (root / "orbital").iterdir() if p.is_file()]


def test_files_git_ignores_already_and_a_persons_own_memory_file_are_not_listed(
    project: Path,
) -> None:
    _git(project, "init", "-q")
    (project / ".gitignore").write_text(".claude/settings.local.json\n", encoding="utf-8")
    (project / "CLAUDE.local.md").write_text("my notes\n", encoding="utf-8")
    exclude = project / ".git" / "info" / "exclude"
    before = exclude.read_bytes()
    _install(project)
    added = exclude.read_bytes().removeprefix(before).decode()
    assert added.splitlines()[1:] == [
        "/.claude/orbital-view.md",
        "/.claude/skills/orbital-learning-capture/SKILL.md",
    ]
    # The person changed the file since: only Orbital's lines go.
    exclude.write_bytes(exclude.read_bytes() + b"build/\n")
    CliRunner().invoke(cli, ["uninstall", "claude-code", "--project", str(project)])
    assert exclude.read_bytes() == before + b"build/\n"


def test_a_project_outside_git_gets_no_exclude_file(project: Path) -> None:
    done = CliRunner().invoke(cli, ["install", "claude-code", "--project", str(project)])
    assert "exclude" not in done.output
    assert not (project / ".git").exists()
