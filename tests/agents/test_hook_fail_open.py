"""Issue 33 finding 5: failing open keeps the author. With the store locked, a file tool's
hooks return within about a second and let the tool run; they record the agent's write in the
state folder, so the later take-in names the agent and its session (not ``file``); the hooks'
log gains one line per failure and is rotated."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from orbital.cli import cli
from orbital.cli._hook import LOG_LIMIT, log
from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital
from orbital.store._open import sqlite_path

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


_HOLD = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.read()
conn.execute("ROLLBACK")
"""


@contextmanager
def locked(url: str) -> Iterator[None]:
    """The store's write lock held by another connection."""
    path = sqlite_path(url)
    if path is not None:  # by another process: a process's own POSIX locks never block it
        holder = subprocess.Popen(
            [sys.executable, "-c", _HOLD, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        try:
            yield
        finally:
            holder.communicate("")
        return
    engine = sa.create_engine(url)
    try:
        with engine.begin() as pg:
            pg.execute(sa.text("LOCK TABLE events IN EXCLUSIVE MODE"))
            yield
    finally:
        engine.dispose()


def _hook(event: str, payload: Mapping[str, object]) -> tuple[int, str, float]:
    started = time.monotonic()
    done = CliRunner().invoke(cli, ["hook", "claude-code", event], input=json.dumps(payload))
    return done.exit_code, done.stdout, time.monotonic() - started


def _tool(event: str, root: Path, name: str, tool: str, given: dict[str, str]) -> dict[str, object]:
    return {
        "hook_event_name": event,
        "session_id": "s1",
        "cwd": str(root),
        "tool_name": tool,
        "tool_input": {"file_path": str(root / "orbital" / name), **given},
    }


def test_a_locked_store_costs_a_second_and_the_take_in_names_the_agent(
    project: Path, orbital_db: str, clock: FixedClock, tmp_path: Path
) -> None:
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(project).project_id
        opened = service.ask_open(pid, "Pick a host", actor=Actor.AGENT)
        ask = opened.events[0].stream.removeprefix("ask:")
    decisions, asks = project / "orbital" / "DECISIONS.md", project / "orbital" / "ASKS.md"
    edit = {
        "old_string": "Chose: one file.\n",
        "new_string": "Chose: one file.\n\n## Pin it\nChose: yes.\n",
    }
    asks_after = asks.read_text() + f"- done {ask}\n"
    answers = []
    with locked(orbital_db):
        answers.append(
            _hook("pre-tool", _tool("PreToolUse", project, "DECISIONS.md", "Edit", edit))
        )
        decisions.write_text(decisions.read_text().replace(edit["old_string"], edit["new_string"]))
        answers.append(
            _hook("post-tool", _tool("PostToolUse", project, "DECISIONS.md", "Edit", edit))
        )
        write = {"content": asks_after}
        answers.append(_hook("pre-tool", _tool("PreToolUse", project, "ASKS.md", "Write", write)))
        asks.write_text(asks_after)
    assert [(code, out) for code, out, _ in answers] == [(0, "")] * 3
    assert max(took for _, _, took in answers) < 1.5, answers
    log_lines = (tmp_path / "state" / "hooks.log").read_text().splitlines()
    assert len(log_lines) == 3, log_lines
    assert all(" pre-tool: " in line or " post-tool: " in line for line in log_lines)

    synced = CliRunner().invoke(cli, ["sync", "--project", str(project)])
    assert synced.exit_code == 0, synced.output
    with Orbital.open(orbital_db) as service:  # the CLI's clock: now
        history = list(service.history(pid))
    assert [e for e in history if e.actor == Actor.FILE] == []
    taken = [
        (e.type, e.actor, e.session) for e in history if e.type in ("entry.created", "ask.closed")
    ]
    assert taken[-2:] == [
        ("entry.created", Actor.AGENT, "s1"),
        ("ask.closed", Actor.AGENT, "s1"),
    ]
    assert "by:agent" in asks.read_text()


def test_the_hooks_log_is_one_line_a_failure_and_rotated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path))
    path = tmp_path / "hooks.log"
    path.write_text("x" * (LOG_LIMIT + 1))
    log("pre-tool: StoreLocked: the store is locked\nby another process")
    assert (tmp_path / "hooks.log.1").stat().st_size == LOG_LIMIT + 1
    (line,) = path.read_text().splitlines()
    assert line.endswith(" pre-tool: StoreLocked: the store is locked by another process")
