"""The real Claude Code CLI in a project set up by ``orbital install claude-code``, against the
scripted model: what reached the model, and the store and files afterwards.

Each test installs with the real ``orbital`` executable (so the hooks are the commands a
person gets) and runs ``claude -p`` once or twice; every hook is a new ``orbital`` process.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import HistoryQuery, Orbital
from tests.agents.claude_cli import Run, run_claude
from tests.agents.fake_anthropic import FakeAnthropic, Turn, call, say, serving
from tests.conftest import NOW

ORBITAL = str(Path(sys.executable).parent / "orbital")


class Setup:
    def __init__(self, tmp_path: Path, db: str) -> None:
        self.root, self.home = tmp_path / "project", tmp_path / "home"
        self.root.mkdir()
        self.home.mkdir()
        self.db = db
        self.env = {
            "ORBITAL_DB": db,
            "ORBITAL_NOW": NOW.isoformat(),
            "ORBITAL_STATE_DIR": str(tmp_path / "state"),
        }

    def orbital(self, *args: str) -> str:
        done = subprocess.run(
            [ORBITAL, *args], env=self.env, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def run(self, claude: Path, script: list[Turn], prompt: str, *extra: str) -> FakeAnthropic:
        with serving(script) as fake:
            done: Run = run_claude(
                claude, self.root, self.home, fake.url, prompt, *extra, env=self.env
            )
        assert done.returncode == 0, done.stdout + done.stderr
        self.session = str(done.result()["session_id"])
        log = Path(self.env["ORBITAL_STATE_DIR"]) / "hooks.log"
        assert not log.exists(), log.read_text(encoding="utf-8")
        return fake


@pytest.fixture
def setup(tmp_path: Path, clock: FixedClock) -> Setup:
    return Setup(tmp_path, f"sqlite:///{tmp_path / 'store.db'}")


def _tool_results(fake: FakeAnthropic) -> list[dict[str, object]]:
    return [
        block
        for message in fake.main_requests[-1].messages
        for block in message.get("content") or []  # type: ignore[attr-defined]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]


def test_the_whole_view_reaches_the_model_and_a_workbench_close_reaches_it_next(
    claude: Path, setup: Setup, clock: FixedClock
) -> None:
    with Orbital.open(setup.db, clock=clock) as service:
        pid = service.init_project(setup.root, timezone="UTC").project_id
        for name in ("DECISIONS.md", "LESSONS.md", "PROJECT_STATE.md"):
            lines = "".join(f"- {name} fact {n}: module {n} stays small.\n" for n in range(120))
            service.write_file(pid, name, lines.encode(), actor=Actor.AGENT)
        opened = service.ask_open(pid, "Pick the production database", actor=Actor.AGENT)
        ask_id = opened.events[0].stream.removeprefix("ask:")
        view = service.context_view(pid)
    assert len(view) > 10_000  # past what a hook's context carries whole
    printed = setup.orbital("install", "claude-code", "--project", str(setup.root))
    assert "wrote .claude/settings.local.json" in printed

    fake = setup.run(claude, [say("Hello.")], "hello")
    assert any(view in text for text in fake.main_requests[0].texts()), "the view arrives whole"

    with Orbital.open(setup.db, clock=clock) as service:
        service.ask_close(pid, ask_id, "done", "Postgres, agreed with ops", actor=Actor.USER)
    fake = setup.run(claude, [say("Noted.")], "what next?", "--resume", setup.session)
    change = (
        f'ask {ask_id} done (Pick the production database) — their words: "Postgres, agreed '
        'with ops"'
    )
    texts = "\n".join(fake.main_requests[0].texts())
    assert change in texts
    assert "by the person (Workbench)" in texts

    fake = setup.run(claude, [say("Fine.")], "and now?", "--resume", setup.session)
    assert "Orbital memory changed" not in "\n".join(fake.main_requests[0].texts()[-3:])


def test_a_dropped_ask_written_back_is_refused_to_the_model_and_nothing_changes(
    claude: Path, setup: Setup, clock: FixedClock
) -> None:
    with Orbital.open(setup.db, clock=clock) as service:
        pid = service.init_project(setup.root, timezone="UTC").project_id
        opened = service.ask_open(pid, "Book the rooftop venue", actor=Actor.USER)
        ask_id = opened.events[0].stream.removeprefix("ask:")
        service.ask_close(pid, ask_id, "dropped", "too expensive", actor=Actor.USER)
        head = service.head(pid)
    setup.orbital("install", "claude-code", "--project", str(setup.root))
    asks = setup.root / "orbital" / "ASKS.md"
    before = asks.read_bytes()

    proposal = before.decode() + "- open Book the rooftop venue\n"
    script = [
        call("Read", {"file_path": str(asks)}),
        call("Write", {"file_path": str(asks), "content": proposal}),
        say("Understood."),
    ]
    fake = setup.run(claude, script, "remind me to book the venue")

    refusal = (
        "PreToolUse:Write hook error: Orbital refused this write of orbital/ASKS.md; the file "
        f"is unchanged.\nwarning: ASKS.md: not added — the user dropped this as [{ask_id}]"
    )
    results = _tool_results(fake)
    assert results[-1]["is_error"] is True
    assert str(results[-1]["content"]).startswith(refusal), results[-1]
    assert asks.read_bytes() == before
    with Orbital.open(setup.db, clock=clock) as service:
        appended = list(service.history(pid, HistoryQuery(stream="ask")))
        assert [e for e in appended if e.position > head and e.type != "ask.open_refused"] == []


def test_file_tool_edits_go_through_the_write_path_as_the_agent_and_the_next_edit_works(
    claude: Path, setup: Setup, clock: FixedClock
) -> None:
    with Orbital.open(setup.db, clock=clock) as service:
        pid = service.init_project(setup.root, timezone="UTC").project_id
        service.write_file(pid, "DECISIONS.md", b"- Use SQLite locally.\n", actor=Actor.AGENT)
        opened = service.ask_open(pid, "Choose a logo", actor=Actor.AGENT)
        ask_id = opened.events[0].stream.removeprefix("ask:")
        head = service.head(pid)
    setup.orbital("install", "claude-code", "--project", str(setup.root))
    decisions = setup.root / "orbital" / "DECISIONS.md"
    asks = setup.root / "orbital" / "ASKS.md"
    asks_before = asks.read_text(encoding="utf-8")
    forged = asks_before + f'- done {ask_id} by:user "the blue one"\n'
    script = [
        call("Read", {"file_path": str(decisions)}),
        call(
            "Edit",
            {
                "file_path": str(decisions),
                "old_string": "- Use SQLite locally.",
                "new_string": "- Use SQLite locally.\n- Deploy with Docker Compose.",
            },
        ),
        call(
            "Edit",
            {
                "file_path": str(decisions),
                "old_string": "Docker Compose.",
                "new_string": "Docker Compose on the staging host.",
            },
        ),
        call("Read", {"file_path": str(asks)}),
        call("Write", {"file_path": str(asks), "content": forged}),
        say("Recorded."),
    ]
    fake = setup.run(claude, script, "record the deploy decision")

    texts = fake.main_requests[-1].texts()
    updated = [t for t in texts if t.startswith(f"The file {decisions} has been updated")]
    assert len(updated) == 2, texts
    with Orbital.open(setup.db, clock=clock) as service:
        assert decisions.read_text(encoding="utf-8") == service.read_file(pid, "DECISIONS.md")
        assert asks.read_text(encoding="utf-8") == service.read_file(pid, "ASKS.md")
        assert service.unmerged(pid) == []
        events = [e for e in service.history(pid) if e.position > head]
    assert "Docker Compose on the staging host." in decisions.read_text(encoding="utf-8")
    assert "by:agent" in asks.read_text(encoding="utf-8").splitlines()[-1]
    assert "by:user" not in asks.read_text(encoding="utf-8").replace(asks_before, "")
    written = [e for e in events if e.type.startswith(("entry.", "ask."))]
    assert written and {(e.actor, e.session) for e in written} == {(Actor.AGENT, setup.session)}
    assert not [e for e in events if e.actor == Actor.FILE]
    assert json.loads((setup.root / ".claude" / "settings.local.json").read_text())["hooks"]
