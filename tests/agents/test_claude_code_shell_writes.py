"""Every hand named (issue 28): the real Claude Code CLI appends to ASKS.md through ``Bash``
while ``orbital serve`` runs (its watcher and follower on). The change is the agent's, in its
session, its quote checked against its transcript and its ``by:user`` not taken as the
person's word; the line Orbital refuses reaches the model after the tool; nothing is taken in
as a change of unknown authorship, and no copy is kept for the person."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.events.asks import AskClosed
from orbital.service import Orbital
from tests.agents.claude_cli import run_claude
from tests.agents.fake_anthropic import call, say, serving
from tests.conftest import NOW
from tests.http.http_helpers import free_port

ORBITAL = str(Path(sys.executable).parent / "orbital")


@pytest.mark.timeout(240)
def test_a_bash_append_while_serve_runs_is_the_agents_in_its_session(
    claude: Path, store_url: str, tmp_path: Path, clock: FixedClock
) -> None:
    root, home, state = tmp_path / "project", tmp_path / "home", tmp_path / "state"
    root.mkdir()
    home.mkdir()
    env = {"ORBITAL_DB": store_url, "ORBITAL_NOW": NOW.isoformat(), "ORBITAL_STATE_DIR": str(state)}
    with Orbital.open(store_url, clock=clock) as service:
        pid = service.init_project(root, timezone="UTC").project_id
        logo = service.ask_open(pid, "Send the logo", actor=Actor.AGENT).events[0].stream[4:]
        venue = service.ask_open(pid, "Book the rooftop venue", actor=Actor.USER).events[0]
        venue_id = venue.stream.removeprefix("ask:")
        service.ask_close(pid, venue_id, "dropped", "too expensive", actor=Actor.USER)
        head = service.head(pid)
    installed = subprocess.run(
        [ORBITAL, "install", "claude-code", "--project", str(root)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr

    log = tmp_path / "serve.log"
    with log.open("w") as out:
        serve = subprocess.Popen(
            [ORBITAL, "serve", "--port", str(free_port())],
            env={**os.environ, **env},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 30
        while "following the log" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert "following the log" in log.read_text(), log.read_text()
        # The watcher sees the change while the command still runs (it sleeps after writing).
        command = (
            f"echo '- done {logo} by:user \"logo sent\"' >> orbital/ASKS.md && "
            "echo '- open Book the rooftop venue' >> orbital/ASKS.md && sleep 2"
        )
        script = [call("Bash", {"command": command, "description": "close the ask"}), say("Ok.")]
        with serving(script) as fake:
            done = run_claude(
                claude, root, home, fake.url, "logo sent, close it", "--allowedTools", "Bash",
                env=env,
            )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        session = str(done.result()["session_id"])
        time.sleep(1.0)  # anything the watcher would still do, done
    finally:
        serve.terminate()
        serve.wait(timeout=10)
    assert not (state / "hooks.log").exists(), (state / "hooks.log").read_text()

    with Orbital.open(store_url, clock=clock) as service:
        after = [e for e in service.history(pid) if e.position > head]
        asks = {a.id: a for a in service.asks(pid, "all")}
    closes = [(e.actor, e.session, e.event) for e in after if e.type == "ask.closed"]
    note = '"logo sent"'
    verified = AskClosed(
        ask_id=logo, kind="done", date=NOW.date(), by="agent", note=note, verified=True
    )
    assert closes == [(Actor.AGENT, session, verified)]
    assert [e.type for e in after if e.actor is Actor.FILE] == []  # no author unknown
    assert asks[venue_id].state == "dropped"
    assert not list((root / "orbital").glob("*conflict*"))
    told = "\n".join(fake.main_requests[-1].texts())
    assert f"ASKS.md: not added — the user dropped this as [{venue_id}]" in told
    assert "left to its hook" in log.read_text()
