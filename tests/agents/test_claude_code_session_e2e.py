"""The real Claude Code CLI through a whole session in a project set up by ``orbital install
claude-code``: a Workbench close reaching the model on the next prompt of the *same* running
session, a sub-agent's view, a write Claude Code refused after Orbital recorded it, and
session end (backstop, view, transcript, an editor pass that never holds Claude Code).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx

from orbital.agents.claude_code_hooks import view_position
from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.http import HttpSettings, create_app, loopback_hosts
from orbital.service import Orbital
from orbital.service._sessions import SessionMarks
from tests.agents.claude_cli import Conversation, run_claude
from tests.agents.fake_anthropic import FakeAnthropic, call, say, serving
from tests.conftest import NOW
from tests.http.http_helpers import free_port, live_server
from tests.seeded import write_in_parts

ORBITAL = str(Path(sys.executable).parent / "orbital")
HEADER = "Orbital memory changed since you last looked"


class Setup:
    def __init__(self, tmp_path: Path, orbital: str = ORBITAL) -> None:
        self.root, self.home = tmp_path / "project", tmp_path / "home"
        self.root.mkdir()
        self.home.mkdir()
        self.db = f"sqlite:///{tmp_path / 'store.db'}"
        self.state = tmp_path / "state"
        self.executable = orbital
        self.env = {
            "ORBITAL_DB": self.db,
            "ORBITAL_NOW": NOW.isoformat(),
            "ORBITAL_STATE_DIR": str(self.state),
        }

    def install(self) -> None:
        done = subprocess.run(
            [self.executable, "install", "claude-code", "--project", str(self.root)],
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr

    def no_hook_failed(self) -> None:
        log = self.state / "hooks.log"
        assert not log.exists(), log.read_text(encoding="utf-8")


def _last_user_texts(fake: FakeAnthropic, index: int) -> list[str]:
    """The texts of the last user message of main request ``index`` (what this turn added)."""
    message = fake.main_requests[index].messages[-1]
    assert message["role"] == "user"
    return [t for t in _texts(message)]


def _texts(message: dict[str, object]) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    assert isinstance(content, list)
    return [str(block.get("text", "")) for block in content if isinstance(block, dict)]


def test_a_workbench_close_between_two_prompts_of_one_session_reaches_the_next_request(
    claude: Path, tmp_path: Path, clock: FixedClock
) -> None:
    setup = Setup(tmp_path)
    with Orbital.open(setup.db, clock=clock) as service:
        pid = service.init_project(setup.root, timezone="UTC").project_id
        opened = service.ask_open(pid, "Pick the production database", actor=Actor.AGENT)
        ask_id = opened.events[0].stream.removeprefix("ask:")
        person = service.credentials.create("workbench", label="me").token
    setup.install()

    port = free_port()
    with (
        Orbital.open(setup.db, clock=clock) as service,
        live_server(
            create_app(service, HttpSettings(allowed_hosts=loopback_hosts(port))), port
        ) as workbench,
        serving([say("One."), say("Two."), say("Three.")]) as fake,
    ):
        session = Conversation(claude, setup.root, setup.home, fake.url, setup.env)
        try:
            first = session.say("what is open?")
            closed = httpx.post(
                f"{workbench}/api/v1/workbench/{pid}/asks/{ask_id}/done",
                json={"note": "Postgres, agreed with ops"},
                headers={"Authorization": f"Bearer {person}"},
                timeout=30,
            )
            assert closed.status_code == 200, closed.text
            second = session.say("what next?")
            third = session.say("and now?")
        finally:
            code = session.close()
    assert code == 0
    assert first["session_id"] == second["session_id"] == third["session_id"]
    setup.no_hook_failed()
    assert len(fake.main_requests) == 3

    assert not [t for t in _last_user_texts(fake, 0) if HEADER in t]
    added = [t for t in _last_user_texts(fake, 1) if HEADER in t]
    assert len(added) == 1, _last_user_texts(fake, 1)
    assert (
        f'ask {ask_id} done (Pick the production database) — their words: "Postgres, agreed '
        'with ops"' in added[0]
    )
    assert "by the person (Workbench)" in added[0]
    assert _last_user_texts(fake, 1)[-1] == "what next?"
    # Nothing moved since: nothing added, and the earlier change is not repeated.
    assert _last_user_texts(fake, 2)[-1] == "and now?"
    assert not [t for t in _last_user_texts(fake, 2) if HEADER in t]
    whole = "\n".join(fake.main_requests[2].texts())
    assert whole.count(f"ask {ask_id} done") == 1


def test_a_sub_agent_started_by_the_agent_gets_the_sub_agent_view(
    claude: Path, tmp_path: Path, clock: FixedClock
) -> None:
    setup = Setup(tmp_path)
    with Orbital.open(setup.db, clock=clock) as service:
        pid = service.init_project(setup.root, timezone="UTC").project_id
        opened = service.ask_open(pid, "Book the rooftop venue", actor=Actor.USER)
        ask_id = opened.events[0].stream.removeprefix("ask:")
        service.ask_close(pid, ask_id, "dropped", "too expensive", actor=Actor.USER)
        expected = service.context_view(pid, audience="subagent")
    setup.install()
    task = {
        "description": "Find venues",
        "prompt": "List three venues for the launch.",
        "subagent_type": "general-purpose",
        "run_in_background": False,
    }
    with serving(
        [call("Task", task), say("Done.")],
        agents={task["prompt"]: [say("Hall A, Hall B, Hall C.")]},  # type: ignore[dict-item]
    ) as fake:
        done = run_claude(
            claude, setup.root, setup.home, fake.url, "plan the launch", env=setup.env
        )
    assert done.returncode == 0, done.stdout + done.stderr
    setup.no_hook_failed()
    sub = [r for r in fake.main_requests if task["prompt"] in r.texts()]
    assert sub, "the sub-agent asked the model"
    context = f"SubagentStart hook additional context: {expected}"
    assert any(context in text for text in sub[0].texts())
    assert "The user dropped these — NEVER re-propose" in expected
    mains = [r for r in fake.main_requests if r not in sub]
    assert not [t for r in mains for t in r.texts() if "SubagentStart hook" in t]


def test_a_write_claude_code_refused_after_orbital_recorded_it_is_lost_nowhere(
    claude: Path, tmp_path: Path, clock: FixedClock
) -> None:
    setup = Setup(tmp_path)
    with Orbital.open(setup.db, clock=clock) as service:
        pid = service.init_project(setup.root, timezone="UTC").project_id
        text = b"## Use SQLite\nChose: SQLite locally.\n"
        service.write_file(pid, "DECISIONS.md", text, actor=Actor.AGENT)
        head = service.head(pid)
    setup.install()
    # The person's own guard hook refuses the first Edit it sees (Orbital's hook allowed it:
    # a deny wins), after Orbital's hook recorded the write.
    flag = tmp_path / "refuse-once"
    flag.touch()
    guard = tmp_path / "guard.sh"
    guard.write_text(
        f"#!/bin/sh\ncat >/dev/null\nif [ -e {flag} ]; then rm {flag}; "
        "echo 'the guard says no' >&2; exit 2; fi\n",
        encoding="utf-8",
    )
    guard.chmod(guard.stat().st_mode | stat.S_IEXEC)
    hooks = {
        "PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": str(guard)}]}]
    }
    (setup.root / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    decisions = setup.root / "orbital" / "DECISIONS.md"

    def add(old: str, new: str) -> dict[str, object]:
        return {"file_path": str(decisions), "old_string": old, "new_string": old + new}

    docker = "\n## Deploy with Docker\nChose: Compose.\n"
    backups = "\n## Back up nightly\nChose: restic.\n"
    script = [
        call("Read", {"file_path": str(decisions)}),
        call("Edit", add("Chose: SQLite locally.\n", docker)),  # recorded, then refused
        call("Edit", add("Chose: SQLite locally.\n", backups)),  # from the stale file: re-read
        call("Read", {"file_path": str(decisions)}),
        call("Edit", add("Chose: Compose.\n", backups)),
        say("Recorded."),
    ]
    with serving(script) as fake:
        done = run_claude(claude, setup.root, setup.home, fake.url, "record", env=setup.env)
    assert done.returncode == 0, done.stdout + done.stderr
    setup.no_hook_failed()

    results = [t for t in fake.main_requests[-1].texts() if "hook error" in t or "updated" in t]
    assert (
        results[0].startswith("PreToolUse:Edit hook error: ") and "the guard says no" in results[0]
    )
    assert results[1].startswith(
        "PreToolUse:Edit hook error: Orbital recorded your earlier write of orbital/DECISIONS.md, "
        "but Claude Code did not apply it (the tool was refused); Orbital has now written "
        "orbital/DECISIONS.md with it. Read the file again before you change it."
    ), results[1]
    assert results[2].startswith(f"The file {decisions} has been updated")
    with Orbital.open(setup.db, clock=clock) as service:
        on_disk = decisions.read_text(encoding="utf-8")
        assert on_disk == service.read_file(pid, "DECISIONS.md")
        for title in ("## Use SQLite", "## Deploy with Docker", "## Back up nightly"):
            assert on_disk.count(title) == 1, on_disk
        events = [e for e in service.history(pid) if e.position > head]
        assert not [e for e in events if e.actor == Actor.FILE or e.type == "entry.retired"]
        created = [e for e in events if e.type == "entry.created"]
        assert len(created) == 2
        assert {(e.actor, e.session) for e in created} == {
            (Actor.AGENT, done.result()["session_id"])
        }
        assert service.unmerged(pid) == []


FAKE_EDITOR = '''#!{python}
"""`orbital` for the test: `editor run` is a stand-in that waits to be released."""
import json, os, sys, time
from pathlib import Path

if sys.argv[1:3] == ["editor", "run"]:
    log = Path(os.environ["FAKE_EDITOR_LOG"])
    row = {{"argv": sys.argv[1:], "pid": os.getpid(), "sid": os.getsid(0)}}
    with log.open("a") as out:
        out.write(json.dumps(row) + "\\n")
    release = log.with_suffix(".release")
    for _ in range(2400):
        if release.exists():
            break
        time.sleep(0.05)
    with log.open("a") as out:
        out.write(json.dumps({{"ended": release.exists()}}) + "\\n")
    sys.exit(0)
from orbital.cli import main
sys.exit(main())
'''


def _rows(log: Path, wanted: int) -> list[dict[str, object]]:
    """The stand-in editor's log once it has ``wanted`` rows (it is started, not awaited)."""
    for _ in range(1200):
        if log.exists() and len(rows := log.read_text(encoding="utf-8").splitlines()) >= wanted:
            return [json.loads(row) for row in rows]
        time.sleep(0.05)
    raise AssertionError(f"the editor stand-in wrote no {wanted} rows to {log}")


def test_session_end_runs_the_backstop_keeps_the_transcript_and_never_waits_for_the_editor(
    claude: Path, tmp_path: Path, clock: FixedClock
) -> None:
    wrapper = tmp_path / "bin" / "orbital"
    wrapper.parent.mkdir()
    wrapper.write_text(FAKE_EDITOR.format(python=sys.executable), encoding="utf-8")
    wrapper.chmod(0o755)
    setup = Setup(tmp_path, str(wrapper))
    log = tmp_path / "editor.jsonl"
    setup.env |= {
        "FAKE_EDITOR_LOG": str(log),
        "ORBITAL_EDITOR_URL": "http://127.0.0.1:9/v1",  # configured; the stand-in never calls it
        "ORBITAL_EDITOR_MODEL": "fake",
    }
    with Orbital.open(setup.db, clock=clock) as service:
        pid = service.init_project(setup.root, timezone="UTC").project_id
        over = "".join(
            f"## Decision number {i}\nChose: option {i}.\n"
            f"Reason: {'we measured it twice. ' * 200}\n\n"
            for i in range(12)
        )
        write_in_parts(service, pid, "DECISIONS.md", over.encode(), 2, actor=Actor.AGENT)
        written = service.head(pid)
    setup.install()
    decisions = setup.root / "orbital" / "DECISIONS.md"
    size = decisions.stat().st_size

    with serving([say("Bye.")]) as fake:
        done = run_claude(claude, setup.root, setup.home, fake.url, "bye", env=setup.env)
    assert done.returncode == 0, done.stdout + done.stderr
    session = str(done.result()["session_id"])

    started = _rows(log, 1)[0]
    # Claude Code has exited, and the editor it started is still running (it waits for us).
    assert [list(row) for row in _rows(log, 1)] == [["argv", "pid", "sid"]]
    assert started["sid"] == started["pid"], "in a session of its own"
    transcripts = setup.home / ".claude" / "projects"
    transcript = next(transcripts.glob(f"*/{session}.jsonl"))
    assert started["argv"] == [
        "editor",
        "run",
        "--project",
        str(setup.root),
        "--sessions",
        str(transcript.parent),
        "--session",
        session,
    ]
    log.with_suffix(".release").touch()
    assert _rows(log, 2)[1] == {"ended": True}
    setup.no_hook_failed()

    with Orbital.open(setup.db, clock=clock) as service:
        demoted = [e for e in service.history(pid) if e.position > written]
        assert "entry.archived" in {e.type for e in demoted}
        assert decisions.stat().st_size < size
        assert decisions.read_text(encoding="utf-8") == service.read_file(pid, "DECISIONS.md")
        view = (setup.root / ".claude" / "orbital-view.md").read_text(encoding="utf-8")
        assert view_position(view) == service.head(pid)
    assert SessionMarks(setup.state / "sessions").get(pid, session).transcript == str(transcript)
    assert fake.main_requests
