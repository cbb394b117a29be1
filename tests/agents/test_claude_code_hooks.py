"""Each Claude Code hook's payload handling, the installer's undo, and fail-open, without the
real CLI (``test_claude_code_hooks_e2e.py`` runs it)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from orbital.agents import edits
from orbital.agents.claude_code_hooks import (
    fit,
    memory_target,
    parse_payload,
    proposed_content,
    rewritten_input,
    view_file,
    view_position,
)
from orbital.agents.edits import smallest_edit
from orbital.cli import cli
from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital
from tests.conftest import NOW

NAMES = {"ASKS.md", "DECISIONS.md"}


def test_a_payload_is_read_and_anything_else_refused() -> None:
    raw = {"hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "Edit", "x": 1}
    payload = parse_payload(json.dumps({**raw, "tool_input": {"file_path": "/p/a"}}))
    assert (payload.event, payload.session_id, payload.tool_name) == ("PreToolUse", "s", "Edit")
    assert payload.tool_input == {"file_path": "/p/a"}
    for bad in ("[]", "{}", "not json"):
        with pytest.raises(ValueError):
            parse_payload(bad)


@pytest.mark.parametrize(
    ("path", "found"),
    [
        ("/p/orbital/ASKS.md", "ASKS.md"),
        ("orbital/DECISIONS.md", "DECISIONS.md"),
        ("/p/sub/../orbital/ASKS.md", "ASKS.md"),
        ("/p/orbital/DECISIONS_ARCHIVE.md", None),
        ("/p/orbital/x/ASKS.md", None),
        ("/q/orbital/ASKS.md", None),
        ("", None),
    ],
)
def test_only_memory_files_of_the_project_are_targets(path: str, found: str | None) -> None:
    assert memory_target("/p", "/p", path, NAMES) == found


def test_the_proposed_content_is_what_the_tool_would_leave() -> None:
    text = "a\nb\nb\n"
    assert proposed_content("Write", {"content": "x"}, text) == "x"
    assert proposed_content("Edit", {"old_string": "a", "new_string": "A"}, text) == "A\nb\nb\n"
    assert proposed_content("Edit", {"old_string": "b", "new_string": "B"}, text) is None
    edit = {"old_string": "b", "new_string": "B", "replace_all": True}
    assert proposed_content("Edit", edit, text) == "a\nB\nB\n"
    assert proposed_content("Edit", {"old_string": "z", "new_string": "Z"}, text) is None
    edits = {
        "edits": [{"old_string": "a", "new_string": "A"}, {"old_string": "A\n", "new_string": ""}]
    }
    assert proposed_content("MultiEdit", edits, text) == "b\nb\n"
    assert proposed_content("Read", {}, text) is None


def test_the_rewritten_input_writes_the_projection_by_its_changed_lines() -> None:
    edit = {"file_path": "f", "old_string": "a", "new_string": "b", "replace_all": True}
    current, wanted = "# Asks\n- one\n- two\n", "# Asks\n- one\n- two [id]\n- three\n"
    assert rewritten_input("Edit", edit, current, wanted) == {
        "file_path": "f",
        "old_string": "- two\n",
        "new_string": "- two [id]\n- three\n",
        "replace_all": False,
    }
    assert rewritten_input("Write", {"file_path": "f", "content": "x"}, "old", "new") == {
        "file_path": "f",
        "content": "new",
    }
    multi = rewritten_input("MultiEdit", {"file_path": "f", "edits": []}, current, wanted)
    assert multi["edits"] == [
        {"old_string": "- two\n", "new_string": "- two [id]\n- three\n", "replace_all": False}
    ]


def test_an_edit_is_widened_until_its_lines_occur_once() -> None:
    current = "- same\n- same\nend\n"
    assert smallest_edit(current, current + "- new\n") == ("end\n", "end\n- new\n")
    assert smallest_edit(current, "- same\n- same\n- same\nend\n") == ("end\n", "- same\nend\n")
    assert smallest_edit(current, "- same\n- Same\nend\n") == ("- same\nend\n", "- Same\nend\n")
    assert smallest_edit("", "new\n") == ("", "new\n")  # nothing to find: the whole file
    assert smallest_edit("x\nx\n", "x\n") == ("x\nx\n", "x\n")  # no line occurs once
    # lines repeated all around: widened a bounded number of times, then the whole file
    repeated = "x\n" * 5000
    assert smallest_edit(repeated, repeated + "y\n") == (repeated, repeated + "y\n")


_LINES = st.lists(st.sampled_from(["- a\n", "- b\n", "- c [x]\n", "\n", "- ä"]), max_size=12)


@given(
    before=_LINES,
    after=_LINES,
    block=st.sampled_from([1, 2, 3, 1 << 16]),
    widenings=st.sampled_from([0, 1, 2, 64]),
)
def test_the_smallest_edit_writes_what_is_wanted_from_a_string_found_once(
    before: list[str], after: list[str], block: int, widenings: int
) -> None:
    current, wanted = "".join(before), "".join(after)
    with pytest.MonkeyPatch.context() as patch:  # texts part inside a block, and across
        patch.setattr(edits, "_BLOCK", block)
        patch.setattr(edits, "_WIDENINGS", widenings)  # 0: always the whole file
        old, new = smallest_edit(current, wanted)
    assert current.count(old) == 1 or old == current
    assert current.replace(old, new, 1) == wanted
    assert old == current or old.endswith("\n") or current.endswith(old)


def test_context_is_fitted_under_the_limit_at_a_line_end() -> None:
    text = "".join(f"line {n}\n" for n in range(3000))
    cut = fit(text, "MORE", limit=1000)
    assert len(cut) <= 1000 and cut.endswith("\nMORE") and cut[:-5].endswith(tuple("0123456789"))
    assert fit("short", "MORE") == "short"


def test_the_view_file_carries_its_position_and_fences_the_view() -> None:
    view = "<!--format X-->\n```code```\n"
    text = view_file(view, 42)
    assert view_position(text) == 42
    assert view in text and "\n````text\n" in text
    assert view_position("# a hand-made file\n") is None
    assert view_position(None) is None


# -- through the CLI, on both backends -------------------------------------------------------


@pytest.fixture
def project(orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    root = tmp_path / "project"
    root.mkdir()
    assert CliRunner().invoke(cli, ["init", "--project", str(root)]).exit_code == 0
    return root


def _hook(event: str, payload: Mapping[str, object]) -> tuple[int, str, str]:
    done = CliRunner().invoke(cli, ["hook", "claude-code", event], input=json.dumps(payload))
    return done.exit_code, done.stdout, done.stderr


def test_install_twice_then_uninstall_gives_every_file_its_bytes_back(project: Path) -> None:
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text('{\n    "permissions": {"allow": ["Bash(ls)"]}\n}', encoding="utf-8")
    memory = project / "CLAUDE.local.md"
    memory.write_text("my notes", encoding="utf-8")
    before = {p: p.read_bytes() for p in (settings, memory)}

    first = CliRunner().invoke(cli, ["install", "claude-code", "--project", str(project)])
    assert first.exit_code == 0, first.output
    assert "wrote .claude/settings.local.json" in first.output
    installed = json.loads(settings.read_text(encoding="utf-8"))
    assert installed["permissions"] == {"allow": ["Bash(ls)"]}
    assert set(installed["hooks"]) >= {"SessionStart", "PreToolUse", "SessionEnd"}
    assert memory.read_text(encoding="utf-8") == "my notes\n@.claude/orbital-view.md\n"
    again = CliRunner().invoke(cli, ["install", "claude-code", "--project", str(project)])
    assert "unchanged .claude/settings.local.json" in again.output

    done = CliRunner().invoke(cli, ["uninstall", "claude-code", "--project", str(project)])
    assert done.exit_code == 0, done.output
    assert {p: p.read_bytes() for p in (settings, memory)} == before
    assert sorted(p.name for p in (project / ".claude").iterdir()) == ["settings.local.json"]


def test_uninstall_removes_what_install_created(project: Path) -> None:
    before = sorted(p.name for p in project.iterdir())
    CliRunner().invoke(cli, ["install", "claude-code", "--project", str(project)])
    assert (project / ".claude" / "orbital-view.md").is_file()
    CliRunner().invoke(cli, ["uninstall", "claude-code", "--project", str(project)])
    assert sorted(p.name for p in project.iterdir()) == before


def test_a_prompt_gets_what_changed_once_with_the_persons_words(
    project: Path, orbital_db: str, clock: FixedClock
) -> None:
    CliRunner().invoke(cli, ["install", "claude-code", "--project", str(project)])
    base = {"session_id": "s1", "cwd": str(project), "transcript_path": ""}
    start = {**base, "hook_event_name": "SessionStart", "source": "startup"}
    assert _hook("session-start", start)[:2] == (0, "")  # the view file is current
    prompt = {**base, "hook_event_name": "UserPromptSubmit", "prompt": "hi"}
    assert _hook("prompt", prompt)[:2] == (0, "")
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(project).project_id
        ask = service.ask_open(pid, "Pick a host", actor=Actor.AGENT, session="s1")
        ask_id = ask.events[0].stream.removeprefix("ask:")
        assert _hook("prompt", prompt)[:2] == (0, "")  # its own change: it knows
        service.ask_close(pid, ask_id, "dropped", "we stay on-prem", actor=Actor.USER)
    code, out, _ = _hook("prompt", prompt)
    assert code == 0
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert f'ask {ask_id} dropped (Pick a host) — their words: "we stay on-prem"' in context
    assert "by the person (Workbench)" in context
    assert _hook("prompt", prompt)[:2] == (0, "")


def test_an_edit_made_through_bash_is_taken_in_as_the_agent(
    project: Path, orbital_db: str, clock: FixedClock
) -> None:
    decisions = project / "orbital" / "DECISIONS.md"
    decisions.write_text(
        decisions.read_text(encoding="utf-8")
        + "\n## Ship on Fridays\nReleases go out on Friday mornings.\n"
    )
    payload = {
        "hook_event_name": "PostToolUse",
        "session_id": "s9",
        "cwd": str(project),
        "tool_name": "Bash",
        "tool_input": {"command": "echo >> orbital/DECISIONS.md"},
    }
    assert _hook("post-tool", payload) == (0, "", "")
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(project).project_id
        created = [e for e in service.history(pid) if e.type == "entry.created"]
        assert [(e.actor, e.session) for e in created] == [(Actor.AGENT, "s9")]
        assert service.unmerged(pid) == []
        assert decisions.read_text(encoding="utf-8") == service.read_file(pid, "DECISIONS.md")


def test_files_a_bash_command_changed_together_are_all_the_agents_in_one_write(
    project: Path, orbital_db: str, clock: FixedClock
) -> None:
    added = {
        "DECISIONS.md": "\n## Ship on Fridays\nReleases go out on Friday mornings.\n",
        "LESSONS.md": "\n1. Pin the toolchain: an unpinned compiler broke the release.\n",
    }
    for name, text in added.items():
        path = project / "orbital" / name
        path.write_text(path.read_text(encoding="utf-8") + text)
    payload = {
        "hook_event_name": "PostToolUse",
        "session_id": "s9",
        "cwd": str(project),
        "tool_name": "Bash",
        "tool_input": {"command": "cat notes >> orbital/DECISIONS.md orbital/LESSONS.md"},
    }
    assert _hook("post-tool", payload)[0] == 0
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(project).project_id
        created = [e for e in service.history(pid) if e.type == "entry.created"]
        assert [(e.actor, e.session) for e in created] == [(Actor.AGENT, "s9")] * 2
        assert not [e for e in service.history(pid) if e.type == "file.hand_edit_detected"]
        assert service.unmerged(pid) == []


def test_a_broken_store_never_blocks_the_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ORBITAL_DB", f"sqlite:///{tmp_path / 'missing' / 'none.db'}")
    payload = {"hook_event_name": "UserPromptSubmit", "session_id": "s", "cwd": str(tmp_path)}
    code, out, err = _hook("prompt", payload)
    assert (code, out) == (0, "")
    assert err.startswith("orbital hook: prompt: ")
    assert "prompt: " in (tmp_path / "state" / "hooks.log").read_text(encoding="utf-8")
    assert _hook("prompt", {"no": "event"})[:2] == (0, "")


def test_a_file_tool_close_quoting_the_person_is_verified_against_the_transcript(
    project: Path, orbital_db: str, clock: FixedClock, tmp_path: Path
) -> None:
    transcript = tmp_path / "s1.jsonl"
    typed = {"type": "user", "message": {"role": "user", "content": "go with the rooftop bar"}}
    hook_context = {
        "type": "attachment",
        "attachment": {"type": "hook_additional_context", "content": ["bring back the host"]},
    }
    transcript.write_text(json.dumps(typed) + "\n" + json.dumps(hook_context) + "\n")
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(project).project_id
        venue = service.ask_open(pid, "Pick the venue", actor=Actor.AGENT).events[0].stream[4:]
        host = service.ask_open(pid, "Pick a host", actor=Actor.AGENT).events[0].stream[4:]
        service.ask_close(pid, host, "dropped", "we stay on-prem", actor=Actor.USER)
    asks_md = project / "orbital" / "ASKS.md"
    before = asks_md.read_text(encoding="utf-8")

    def write(line: str) -> tuple[int, str, str]:
        tool_input = {"file_path": str(asks_md), "content": f"{before}{line}\n"}
        payload = {
            "hook_event_name": "PreToolUse",
            "session_id": "s1",
            "transcript_path": str(transcript),
            "cwd": str(project),
            "tool_name": "Write",
            "tool_input": tool_input,
        }
        return _hook("pre-tool", payload)

    code, out, _ = write(f'- reopen {host} "bring back the host"')  # hook context, not typed
    answer = json.loads(out)["hookSpecificOutput"]
    assert (code, answer["permissionDecision"]) == (0, "deny")
    assert "was dropped by the user on" in answer["permissionDecisionReason"]
    assert "is not in the user's messages of this session" in answer["permissionDecisionReason"]
    code, out, _ = write(f'- done {venue} "go with the rooftop bar"')
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "allow"
    with Orbital.open(orbital_db, clock=clock) as service:
        events = [e for e in service.history(pid) if e.stream in (f"ask:{venue}", f"ask:{host}")]
    closes = [(e.stream, e.type, e.session, getattr(e.event, "verified", None)) for e in events]
    assert closes[-2:] == [
        (f"ask:{host}", "ask.closed", None, False),  # the person's drop; no reopen recorded
        (f"ask:{venue}", "ask.closed", "s1", True),
    ]


def test_without_the_import_every_session_starts_with_the_whole_view(
    project: Path, orbital_db: str, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plugin's sessions: nothing imports the view file (it is the installer that adds the
    import), so a view file left by an earlier session was not loaded; the session starts
    with the whole view, not with what changed since that file."""
    monkeypatch.setenv("ORBITAL_NOW", NOW.isoformat())
    base = {"cwd": str(project), "transcript_path": "", "hook_event_name": "SessionStart"}
    with Orbital.open(orbital_db, clock=clock) as service:
        view = service.context_view(service.project(project).project_id)
    for session in ("s1", "s2"):
        code, out, _ = _hook("session-start", {**base, "session_id": session, "source": "startup"})
        assert code == 0
        assert json.loads(out)["hookSpecificOutput"]["additionalContext"] == view
    assert (project / ".claude" / "orbital-view.md").is_file()  # for the model to Read
