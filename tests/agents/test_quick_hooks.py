"""The hooks' quick paths answer exactly as the full path, on both backends, and stay cheap:
what a hook process imports is checked through ``sys.modules`` in a real process started as
Claude Code starts it (a behaviour test, not a timed one; ``bench/hooks.py`` times them)."""

from __future__ import annotations

import ast
import datetime as dt
import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.agents.claude_code import IMPORT_LINE, MEMORY_FILE, VIEW_FILE
from orbital.agents.claude_code_hooks import parse_payload, view_day, view_position
from orbital.cli import cli
from orbital.cli._hook import start_after
from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital
from orbital.service._asks_state import AsksState
from orbital.service._first_look import NOTHING, quick_answer
from orbital.service._sessions import SessionMark, SessionMarks

#: What no quick answer may import (the store's and the servers' libraries, the tokenizer, the
#: stemmers, msgspec: the vocabulary a quick answer reads is plain classes).
HEAVY = (
    "sqlalchemy",
    "alembic",
    "tiktoken",
    "litestar",
    "httpx",
    "mcp",
    "snowballstemmer",
    "msgspec",
)
ENTRY = (
    "import sys; from orbital.cli import main; main(); print(sorted(sys.modules), file=sys.stderr)"
)


@pytest.fixture
def project(orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("ORBITAL_NOW", raising=False)
    return _installed(tmp_path / "project")


def _installed(root: Path) -> Path:
    root.mkdir()
    for command in ("init", "install claude-code"):
        done = CliRunner().invoke(cli, [*command.split(), "--project", str(root)])
        assert done.exit_code == 0, done.output
    return root


def _payload(root: Path, event: str, session: str = "s1", **fields: object) -> dict[str, object]:
    return {
        "hook_event_name": event,
        "session_id": session,
        "cwd": str(root),
        "transcript_path": str(root / f"{session}.jsonl"),
        **fields,
    }


def _process(slug: str, payload: Mapping[str, object]) -> tuple[str, set[str]]:
    """The hook run as installed (``orbital hook claude-code <slug>``, a new process): its
    answer, and the top-level packages it imported."""
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, "hook", "claude-code", slug],
        input=json.dumps(payload).encode(),
        capture_output=True,
        check=True,
        timeout=120,
    )
    err = done.stderr.decode().strip().splitlines()
    modules = json.loads(err[-1].replace("'", '"'))
    assert not err[:-1], err  # nothing logged: the hook did not fail
    return done.stdout.decode(), {m.split(".")[0] for m in modules}


def _context(answer: str) -> str:
    return str(json.loads(answer)["hookSpecificOutput"]["additionalContext"])


def _write(db: str, root: Path, session: str, clock: FixedClock) -> None:
    with Orbital.open(db, clock=clock) as service:
        pid = service.project(root).project_id
        text = service.read_file(pid, "DECISIONS.md") + "\n## Ship on Fridays\nChose: Friday.\n"
        service.write_file(pid, "DECISIONS.md", text.encode(), actor=Actor.AGENT, session=session)


def test_a_prompt_after_another_sessions_write_reports_it(
    project: Path, orbital_db: str, clock: FixedClock
) -> None:
    prompt = _payload(project, "UserPromptSubmit", prompt="go on")
    assert _process("prompt", prompt)[0] == ""  # first seen: from now
    assert _process("prompt", prompt)[0] == ""  # nothing moved
    _write(orbital_db, project, "other", clock)
    answer, _ = _process("prompt", prompt)
    assert "Ship on Fridays" in _context(answer)
    assert _process("prompt", prompt)[0] == ""  # reported once


def test_what_the_quick_hooks_import(
    orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("ORBITAL_NOW", raising=False)
    root = _installed(tmp_path / "project")
    prompt = _payload(root, "UserPromptSubmit", prompt="hi")
    for _ in range(2):  # a new session, then one that saw the head
        answer, imported = _process("prompt", prompt)
        assert (answer, imported & set(HEAVY)) == ("", set())
        assert "click" not in imported  # the installed command line skips click
    start = _payload(root, "SessionStart", session="s2", source="startup")
    answer, imported = _process("session-start", start)
    assert (answer, imported & set(HEAVY)) == ("", set())
    bash = _payload(root, "PostToolUse", tool_name="Bash", tool_input={"command": "ls"})
    assert _process("post-tool", bash)[1] & set(HEAVY) == set()
    other = {"file_path": str(root / "src" / "app.py"), "content": "x = 1\n"}
    write = _payload(root, "PreToolUse", tool_name="Write", tool_input=other)
    assert _process("pre-tool", write)[1] & set(HEAVY) == set()


def test_the_write_paths_of_a_hook_and_a_command_never_import_sqlalchemy(
    orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both stores run on their drivers: SQLAlchemy and Alembic load only for a migration."""
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("ORBITAL_NOW", raising=False)
    root = _installed(tmp_path / "project")
    path = root / "orbital" / "DECISIONS.md"
    text = path.read_text(encoding="utf-8")
    entry = "\n## Ship on Fridays\nChose: Friday.\nReason: quiet weekends.\n"
    edit = {"file_path": str(path), "old_string": text[-200:], "new_string": text[-200:] + entry}
    pre = _payload(root, "PreToolUse", tool_name="Edit", tool_input=edit)
    answer, imported = _process("pre-tool", pre)
    output = json.loads(answer)["hookSpecificOutput"]
    assert output["permissionDecision"] == "allow"
    assert "sqlalchemy" not in imported and "alembic" not in imported
    updated = output["updatedInput"]
    path.write_text(text.replace(updated["old_string"], updated["new_string"], 1), "utf-8")
    post = _payload(root, "PostToolUse", tool_name="Edit", tool_input=updated, tool_response={})
    imported = _process("post-tool", post)[1]
    assert "sqlalchemy" not in imported and "alembic" not in imported
    at_exit = (
        "import atexit, sys; atexit.register(lambda: print(sorted(sys.modules), file=sys.stderr)); "
    )
    opened = subprocess.run(
        [sys.executable, "-c", at_exit + ENTRY, "ask", "open", "Which day do we ship?"],
        cwd=root,
        capture_output=True,
        check=True,
        timeout=120,
    )
    modules = {m.split(".")[0] for m in ast.literal_eval(opened.stderr.decode().splitlines()[-1])}
    assert "sqlalchemy" not in modules and "alembic" not in modules
    with Orbital.open(orbital_db) as service:
        pid = service.project(root).project_id
        decisions = service.read_file(pid, "DECISIONS.md")
        asks = service.read_file(pid, "ASKS.md")
    assert "## Ship on Fridays" in decisions and "Which day do we ship?" in asks


def test_quick_answers_equal_the_full_paths(
    store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: FixedClock
) -> None:
    db = store_url
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ORBITAL_NOW", clock.at.isoformat())
    root = tmp_path / "project"
    root.mkdir()
    quick_marks, full_marks = SessionMarks(tmp_path / "quick"), SessionMarks(tmp_path / "full")
    with Orbital.open(db, clock=clock) as service:
        pid = service.init_project(root).project_id
        service.agents._marks = full_marks
        view = root / VIEW_FILE
        (root / MEMORY_FILE).write_text(f"{IMPORT_LINE}\n", encoding="utf-8")  # as installed

        def both(event: str, slug: str, session: str = "s1", **fields: object) -> object:
            payload = parse_payload(json.dumps({**_payload(root, event, session), **fields}))
            quick = quick_answer(slug, payload, db, quick_marks)
            full = service.claude_code.handle(slug, payload)
            start_after(db, full)  # what the hook leaves to a detached process, as run_hook
            if quick is not None:
                assert quick == full == NOTHING
            return quick

        # A session never seen starts from now; then nothing moved.
        for _ in range(2):
            assert both("UserPromptSubmit", "prompt", prompt="hi") == NOTHING
            assert quick_marks.get(pid, "s1") == full_marks.get(pid, "s1")
        # No view file yet: the full path writes it.
        assert both("SessionStart", "session-start", source="startup") is None
        header = view.read_text(encoding="utf-8")
        assert view_position(header) == service.head(pid)
        assert view_day(header) == clock.at.date().isoformat()
        assert both("SessionStart", "session-start", source="startup") == NOTHING
        assert quick_marks.get(pid, "s1") == SessionMark(service.head(pid), str(root / "s1.jsonl"))
        # A write by another session: the prompt and the session start need the full path.
        text = service.read_file(pid, "DECISIONS.md") + "\n## Ship on Fridays\nChose: Friday.\n"
        service.write_file(pid, "DECISIONS.md", text.encode(), actor=Actor.AGENT, session="s2")
        payload = parse_payload(json.dumps(_payload(root, "UserPromptSubmit", prompt="hi")))
        assert quick_answer("prompt", payload, db, quick_marks) is None
        assert both("SessionStart", "session-start", session="s3", source="startup") is None
        assert both("SessionStart", "session-start", session="s4", source="startup") == NOTHING
        # Another write, then a session end brings the view file up to date for the next start.
        text = service.read_file(pid, "DECISIONS.md") + "\n## Use tabs\nChose: tabs.\n"
        service.write_file(pid, "DECISIONS.md", text.encode(), actor=Actor.AGENT, session="s2")
        assert both("SessionEnd", "session-end", session="s2", reason="exit") is None
        header = view.read_text(encoding="utf-8")
        assert view_position(header) == service.head(pid)
        assert view_day(header) == clock.at.date().isoformat()
        assert both("SessionStart", "session-start", session="s5", source="startup") == NOTHING
        # The next day the same view is stale (it names today): rendered again.
        monkeypatch.setenv("ORBITAL_NOW", (clock.at + dt.timedelta(days=1)).isoformat())
        payload = parse_payload(json.dumps(_payload(root, "SessionStart", source="startup")))
        assert quick_answer("session-start", payload, db, quick_marks) is None
        # File tools: another file is none of Orbital's business; a memory file is.
        app = {"file_path": str(root / "src" / "app.py"), "content": "x"}
        assert both("PreToolUse", "pre-tool", tool_name="Write", tool_input=app) == NOTHING
        assert both("PostToolUse", "post-tool", tool_name="Write", tool_input=app) == NOTHING
        assert both("PostToolUse", "post-tool", tool_name="Read", tool_input=app) == NOTHING
        mine = {"file_path": str(root / "orbital" / "DECISIONS.md"), "content": "x"}
        payload = parse_payload(
            json.dumps(_payload(root, "PreToolUse", tool_name="Write", tool_input=mine))
        )
        assert quick_answer("pre-tool", payload, db, quick_marks) is None
        # Bash: nothing changed on disk, then a memory file edited through the shell.
        assert both("PostToolUse", "post-tool", tool_name="Bash", tool_input={}) == NOTHING
        decisions = root / "orbital" / "DECISIONS.md"
        decisions.write_text(decisions.read_text(encoding="utf-8") + "\n## Tabs\nChose: tabs.\n")
        assert both("PostToolUse", "post-tool", tool_name="Bash", tool_input={}) is None
        assert service.unmerged(pid) == []  # the full path took it in
        assert both("PostToolUse", "post-tool", tool_name="Bash", tool_input={}) == NOTHING
        # Outside every project, or a store the quick reader cannot read: the full path.
        outside: dict[str, object] = {**_payload(root, "UserPromptSubmit"), "cwd": "/"}
        payload = parse_payload(json.dumps(outside))
        assert quick_answer("prompt", payload, db, quick_marks) is None
        assert quick_answer("prompt", payload, "sqlite:///:memory:", quick_marks) is None
        assert quick_answer("subagent-start", payload, db, quick_marks) is None


def test_the_tools_write_of_a_held_asks_edit_is_known_by_its_hash(
    store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: FixedClock
) -> None:
    """After an agent's ``Edit`` of ASKS.md (the bytes held for its tool), the PostToolUse
    take-in recognises Orbital's bytes by the checkpoint's hash: no render of the whole log."""
    root = tmp_path / "project"
    root.mkdir()
    with Orbital.open(store_url, clock=clock) as service:
        project = service.init_project(root)
        asks = root / "orbital" / "ASKS.md"
        proposal = asks.read_bytes() + b"- open Book the venue for the offsite\n"
        outcome = service.agents.write(project, "ASKS.md", proposal, "s1")
        assert asks.read_bytes() != outcome.content.encode()  # held for the tool
        asks.write_bytes(outcome.content.encode())  # the tool writes it

        def no_render(*_args: object) -> str:
            raise AssertionError("ASKS.md rendered from the log")

        monkeypatch.setattr(AsksState, "render", staticmethod(no_render))
        head = service.head(project.project_id)
        assert service.agents.take_in(project, "s1", ["ASKS.md"]) == []
        assert service.unmerged(project.project_id) == []
        assert service.head(project.project_id) == head  # nothing taken in as an edit
        monkeypatch.undo()
        assert service.read_file(project.project_id, "ASKS.md") == outcome.content


def test_the_view_file_s_day_is_in_the_workspace_s_zone(
    store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: FixedClock
) -> None:
    """09:30 UTC is 23:30 at UTC+14: an hour later the view names the next day there, so the
    session start renders it again though the project's own zone is still on the first."""
    db = store_url
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ORBITAL_NOW", clock.at.isoformat())
    root = tmp_path / "project"
    root.mkdir()
    (root / MEMORY_FILE).write_text(f"{IMPORT_LINE}\n", encoding="utf-8")  # as installed
    marks = SessionMarks(tmp_path / "quick")
    with Orbital.open(db, clock=clock) as service:
        pid = service.init(root, timezone="UTC").project.project_id
        service.workspaces.create("islands", timezone="Pacific/Kiritimati", actor=Actor.USER)
        service.workspaces.join(pid, "islands", actor=Actor.USER)
        start = parse_payload(json.dumps(_payload(root, "SessionStart", source="startup")))
        assert service.claude_code.handle("session-start", start) is not None
        head = service.head(pid)
    header = (root / VIEW_FILE).read_text(encoding="utf-8").splitlines()[0]
    assert f"at position {head} on 2026-09-19 (Pacific/Kiritimati);" in header
    assert quick_answer("session-start", start, db, marks) == NOTHING
    monkeypatch.setenv("ORBITAL_NOW", (clock.at + dt.timedelta(hours=1)).isoformat())
    assert quick_answer("session-start", start, db, marks) is None
