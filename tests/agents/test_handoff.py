"""The agent swap through the hooks, on both backends: a Claude Code session stops mid-task,
its hand-off is kept as events (the person's verified requests, the agent's own words marked
as such, the files it changed, the asks it opened), and the next session of any agent gets it
at its start, once, after today's date; a resumed session does not."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.cli import cli
from orbital.domain.handoff import last_requests
from orbital.domain.transcripts import parse_transcript
from orbital.events import Actor
from orbital.events.handoff import HandoffKept
from orbital.service import HistoryQuery, Orbital
from orbital.tokens import CachedCounter
from projections.handoff import HANDOFF_BUDGET, handoff_block
from tests.conftest import NOW

ASKED = "Split the parser into lexer.py and parser.py, keeping the old import path working"
THEN = "And keep the public names unchanged please"
PLAN = "Done with lexer.py. Next: move parse_expr() into parser.py, then fix the imports."


@pytest.fixture
def root(orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ORBITAL_NOW", NOW.isoformat())
    for name in ("ORBITAL_EDITOR_URL", "ORBITAL_EDITOR_MODEL", "ORBITAL_EDITOR_KEY"):
        monkeypatch.delenv(name, raising=False)
    project = tmp_path / "project"
    project.mkdir()
    assert CliRunner().invoke(cli, ["init", "--project", str(project)]).exit_code == 0
    return project


def _row(kind: str, content: object, **extra: object) -> str:
    return json.dumps({"type": kind, "message": {"role": kind, "content": content}, **extra})


def _transcript(root: Path, folder: Path) -> Path:
    path = folder / "claude-1.jsonl"
    write = {"file_path": str(root / "src/lexer.py"), "content": "x = 1\n"}
    rows = [
        _row("user", ASKED),
        _row("assistant", [{"type": "tool_use", "id": "t1", "name": "Write", "input": write}]),
        _row("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]),
        _row("user", "<system-reminder>Orbital memory changed</system-reminder>"),
        _row("user", THEN),
        _row("assistant", [{"type": "text", "text": PLAN}]),
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _hook(agent: str, event: str, payload: Mapping[str, object]) -> str:
    done = CliRunner().invoke(cli, ["hook", agent, event], input=json.dumps(payload))
    assert done.exit_code == 0 and not done.stderr, done.stderr
    return done.stdout


def _context(out: str) -> str:
    if not out.strip():
        return ""
    text: str = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    return text


def _claude_session_stops(root: Path, orbital_db: str, tmp_path: Path) -> None:
    """Session ``claude-1`` writes its work in progress and opens an ask, then its turn ends
    (a usage limit, say): the Stop hook keeps the hand-off."""
    with Orbital.open(orbital_db) as service:
        project = service.project(root)
        state = (root / "orbital/PROJECT_STATE.md").read_text(encoding="utf-8")
        doing = state + "\n- Splitting src/parser.py: lexer.py done, parser.py next\n"
        service.agents.write(project, "PROJECT_STATE.md", doing.encode(), "claude-1", hold=False)
        asks = (root / "orbital/ASKS.md").read_text(encoding="utf-8")
        opened = asks + "- open Decide whether parse_expr stays public\n"
        service.agents.write(project, "ASKS.md", opened.encode(), "claude-1", hold=False)
    transcript = _transcript(root, tmp_path)
    payload = {
        "hook_event_name": "Stop",
        "session_id": "claude-1",
        "transcript_path": str(transcript),
        "cwd": str(root),
        "last_assistant_message": f"- {PLAN}",  # kept whole, a leading "-" too
        "stop_hook_active": False,
    }
    assert _hook("claude-code", "stop", payload) == ""  # a Stop hook answers nothing


def _start(agent: str, root: Path, session: str, source: str = "startup") -> str:
    payload = {
        "hook_event_name": "SessionStart",
        "session_id": session,
        "transcript_path": "",
        "cwd": str(root),
        "source": source,
    }
    return _context(_hook(agent, "session-start", payload))


def test_the_next_codex_session_gets_the_hand_off_once_after_todays_date(
    root: Path, orbital_db: str, tmp_path: Path
) -> None:
    _claude_session_stops(root, orbital_db, tmp_path)
    shown = CliRunner().invoke(cli, ["handoff", "--project", str(root)]).output
    assert shown.startswith("[Hand-off] The last session (claude-code, claude-1) stopped at ")
    assert (
        "The person's last requests in it (their words, checked against its transcript):\n"
        f'- "{ASKED}"\n- "{THEN}"\n'
        "What the agent was doing (the agent's words, not the person's):\n"
        "- PROJECT_STATE: Splitting src/parser.py: lexer.py done, parser.py next\n"
        f"- Its last message: - {PLAN}\n"
        "Files it changed: src/lexer.py\n"
        "Asks it opened: ["
    ) in shown
    assert "Decide whether parse_expr stays public" in shown
    assert "Orbital memory changed" not in shown  # injected, not the person's

    assert shown.endswith("\n(not taken yet)\n")
    first = _start("codex", root, "codex-1")
    assert first.index("Today is ") < first.index("[Hand-off]") < first.index("Open asks (1):")
    block = shown.removesuffix("\n(not taken yet)\n")
    assert block in first

    assert "[Hand-off]" not in _start("codex", root, "codex-2")  # once
    again = CliRunner().invoke(cli, ["handoff", "--project", str(root)]).output
    assert again == f"{block}\n(taken by session codex-1)\n"

    with Orbital.open(orbital_db) as service:
        pid = service.project(root).project_id
        events = [e for e in service.history(pid, HistoryQuery(limit=100)) if e.stream == "handoff"]
    assert [(e.type, e.actor, e.session) for e in events] == [
        ("handoff.kept", Actor.AGENT, "claude-1"),
        ("handoff.taken", Actor.AGENT, "codex-1"),
    ]


def test_a_resumed_session_and_the_same_session_do_not_take_it(
    root: Path, orbital_db: str, tmp_path: Path
) -> None:
    _claude_session_stops(root, orbital_db, tmp_path)
    assert "[Hand-off]" not in _start("codex", root, "codex-9", source="resume")
    assert "[Hand-off]" not in _start("codex", root, "claude-1")
    assert "[Hand-off]" in _start("codex", root, "codex-1")


def test_a_claude_code_start_whose_view_file_is_current_still_takes_it(
    root: Path, orbital_db: str, tmp_path: Path
) -> None:
    done = CliRunner().invoke(cli, ["install", "claude-code", "--project", str(root)])
    assert done.exit_code == 0, done.output
    _claude_session_stops(root, orbital_db, tmp_path)
    end = {"hook_event_name": "SessionEnd", "session_id": "claude-1", "cwd": str(root)}
    _hook("claude-code", "session-end", {**end, "reason": "other"})  # the view file at the head
    context = _start("claude-code", root, "claude-2")
    assert context.startswith("[Hand-off] The last session (claude-code, claude-1) ended at ")
    # The view file every session of the checkout loads never holds a hand-off.
    assert "[Hand-off]" not in (root / ".claude/orbital-view.md").read_text(encoding="utf-8")
    assert _start("claude-code", root, "claude-3") == ""  # taken: the quick lane answers


def test_requests_are_the_persons_words_verified_and_the_block_fits_its_budget() -> None:
    long = "word " * 400
    rows = [_row("user", "<system-reminder>not typed</system-reminder>"), _row("user", long)]
    requests = last_requests(parse_transcript(rows))
    assert len(requests) == 1 and requests[0].endswith(" …") and len(requests[0]) <= 602
    count = CachedCounter()
    kept = HandoffKept(
        session="s",
        agent="codex",
        stopped="stop",
        requests=tuple(f"request {n} " + "lorem ipsum " * 300 for n in range(3)),
        doing=tuple("state line " * 100 for _ in range(8)),
        plan="plan " * 2000,
        files=tuple(f"src/module_{n}.py" for n in range(30)),
        asks=tuple(f"[00000{n}] ask " * 50 for n in range(5)),
    )
    block = handoff_block(kept, NOW, count)
    assert count(block) <= HANDOFF_BUDGET
    assert block.startswith("[Hand-off] The last session (codex, s) stopped at ")


def test_the_hand_off_sits_after_todays_date_and_counts_in_the_views_budget() -> None:
    import datetime as dt

    from projections.view_order import VIEW_ORDER, ViewParts, head, head_cost

    count = CachedCounter()
    parts = ViewParts(
        today=dt.date(2026, 9, 19), timezone="UTC", handoff="[Hand-off] x", asks_block="Open"
    )
    assert VIEW_ORDER.index("today") + 1 == VIEW_ORDER.index("handoff")
    shown = head(parts)
    assert shown[1].startswith("Today is") and shown[2:] == ["[Hand-off] x", "Open"]
    without = ViewParts(today=parts.today, timezone="UTC", asks_block="Open")
    assert head_cost(shown, count) > head_cost(head(without), count)
    assert "[Hand-off] x" not in head(parts, "subagent")  # a sub-agent's brief never has it


def test_a_persons_close_landing_while_a_stop_keeps_the_hand_off_reaches_the_next_prompt(
    root: Path, orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Stop hook marks its session as having seen its own hand-off only when nothing
    else was written since the session last looked, both read under the writers' lock: a
    close the person makes while the hook reads the transcript is still news next turn."""
    import orbital.service._handoffs as handoffs

    transcript = _transcript(root, tmp_path)
    with Orbital.open(orbital_db) as service:
        project = service.project(root)
        pid = project.project_id
        opened = service.ask_open(pid, "Pick the production database", actor=Actor.AGENT)
        ask_id = opened.events[0].stream.removeprefix("ask:")
        service.agents.prompt(project, "claude-1")  # the session looks: nothing new
        assert service.agents.prompt(project, "claude-1") == ""
        read = handoffs._lines

        def read_then_the_person_closes(path: Path | None) -> list[str]:
            service.ask_close(pid, ask_id, "done", '"Postgres"', actor=Actor.USER)
            return read(path)

        monkeypatch.setattr(handoffs, "_lines", read_then_the_person_closes)
        service.agents.stopped(project, "claude-1", "claude-code", "stop", str(transcript))
        monkeypatch.undo()
        news = service.agents.prompt(project, "claude-1")
    assert ask_id in news and "Postgres" in news, news
