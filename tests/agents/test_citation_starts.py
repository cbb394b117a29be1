"""A Claude Code session start checks the entries' citations (issue 29): the first look stays
quiet while no cited file's stat moved, and hands a moved one to the full path, which records
it and tells the agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orbital.agents.claude_code import IMPORT_LINE, MEMORY_FILE
from orbital.agents.claude_code_hooks import Payload, parse_payload
from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital
from orbital.service._first_look import NOTHING, quick_answer
from orbital.service._sessions import SessionMarks

ID = "parsing-lives-in-one-module"


@pytest.mark.sqlite_only("the first look's quick lane reads SQLite alone")
def test_a_session_start_sees_a_cited_file_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: FixedClock
) -> None:
    db = f"sqlite:///{tmp_path / 'orbital.db'}"
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ORBITAL_NOW", clock.at.isoformat())
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    parse = root / "src" / "parse.py"
    parse.write_text("def parse(): ...\n")
    (root / MEMORY_FILE).write_text(f"{IMPORT_LINE}\n", encoding="utf-8")  # as installed
    marks = SessionMarks(tmp_path / "quick")

    def payload(session: str) -> Payload:
        fields = {
            "hook_event_name": "SessionStart",
            "session_id": session,
            "cwd": str(root),
            "transcript_path": str(root / f"{session}.jsonl"),
            "source": "startup",
        }
        return parse_payload(json.dumps(fields))

    with Orbital.open(db, clock=clock) as service:
        pid = service.init(root, timezone="UTC").project.project_id
        text = b"## Parsing lives in one module\nChose: @file.src/parse.py parses.\n"
        service.write_file(pid, "DECISIONS.md", text, actor=Actor.AGENT)
        assert service.claude_code.handle("session-start", payload("s1")) is not None
        assert quick_answer("session-start", payload("s2"), db, marks) == NOTHING
        parse.write_text("def parse(text): ...\n")
        assert quick_answer("session-start", payload("s3"), db, marks) is None
        started = service.claude_code.handle("session-start", payload("s3"))
        assert started.answer is not None
        context = json.dumps(started.answer)
        said = (
            f"entry {ID}: its cited @file.src/parse.py changed on disk — if it still holds, "
            f"`orbital entry confirm {ID}`, else rewrite it"
        )
        assert json.dumps(said)[1:-1] in context
        assert [(b.id, b.state) for b in service.trust.beliefs(pid)] == [(ID, "needs-check")]
