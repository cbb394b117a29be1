"""The agent swap with the real clients: a Claude Code session (the pinned CLI, scripted
model) writes a file and its work in progress, and stops mid-task; a Codex session (the
pinned CLI, scripted Responses API) starts in the same project, and its first model request
carries the hand-off — the person's request verbatim, the agent's plan marked as the agent's
words, the file it changed — after today's date. Each part skips, saying why, when its CLI is
missing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from orbital.clock import FixedClock
from orbital.service import HistoryQuery, Orbital
from tests.agents.claude_cli import run_claude
from tests.agents.codex_cli import provider_config, run_codex
from tests.agents.fake_anthropic import call, say
from tests.agents.fake_anthropic import serving as serving_anthropic
from tests.agents.fake_openai import say as answer
from tests.agents.fake_openai import serving as serving_openai
from tests.conftest import NOW

ORBITAL = str(Path(sys.executable).parent / "orbital")
ASKED = "Split src/parser.py into lexer.py and parser.py and keep the old import path working"
PLAN = "lexer.py is written. Next: move parse_expr() into parser.py, then fix the imports."
DOING = "- Splitting src/parser.py: lexer.py done, parser.py next"


def test_codex_picks_up_where_claude_code_stopped(
    claude: Path, codex: Path, tmp_path: Path, clock: FixedClock
) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    (home / ".codex").mkdir(parents=True)
    db = f"sqlite:///{tmp_path / 'store.db'}"
    env = {
        "ORBITAL_DB": db,
        "ORBITAL_NOW": NOW.isoformat(),
        "ORBITAL_STATE_DIR": str(tmp_path / "state"),
    }
    with Orbital.open(db, clock=clock) as service:
        pid = service.init_project(root, timezone="UTC").project_id
    for agent in ("claude-code", "codex"):
        installed = subprocess.run(
            [ORBITAL, "install", agent, "--project", str(root)],
            env={**os.environ, **env, "HOME": str(home), "CODEX_HOME": str(home / ".codex")},
            capture_output=True,
            text=True,
            check=False,
        )
        assert installed.returncode == 0, installed.stdout + installed.stderr

    state = root / "orbital" / "PROJECT_STATE.md"
    doing = state.read_text(encoding="utf-8").rstrip("\n") + f"\n{DOING}\n"
    script = [
        call("Write", {"file_path": str(root / "src/lexer.py"), "content": "TOKENS = ()\n"}),
        call("Read", {"file_path": str(state)}),
        call("Write", {"file_path": str(state), "content": doing}),
        say(PLAN),
    ]
    with serving_anthropic(script) as claude_model:
        run = run_claude(claude, root, home, claude_model.url, ASKED, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    stopped = str(run.result()["session_id"])
    assert (root / "src/lexer.py").exists()

    config = home / ".codex" / "config.toml"
    with serving_openai([answer("Carrying on with parser.py.")]) as codex_model:
        config.write_text(
            provider_config(codex_model.url) + config.read_text(encoding="utf-8"),
            encoding="utf-8",
        )
        done = run_codex(codex, root, home, "carry on", env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (tmp_path / "state" / "hooks.log").exists()

    first = "\n".join(codex_model.turns[0].texts())
    handoff = first[first.index("[Hand-off]") :]
    assert first.index("Today is 2026-09-19 (Saturday)") < first.index("[Hand-off]")
    assert handoff.startswith(f"[Hand-off] The last session (claude-code, {stopped}) ")
    assert f'- "{ASKED}"' in handoff  # the person's words, verbatim
    assert (
        "What the agent was doing (the agent's words, not the person's):\n"
        f"- PROJECT_STATE: {DOING[2:]}\n"
        f"- Its last message: {PLAN}\n"
        "Files it changed: src/lexer.py, orbital/PROJECT_STATE.md"
    ) in handoff

    with Orbital.open(db, clock=clock) as service:
        kinds = [
            (e.type, e.session)
            for e in service.history(pid, HistoryQuery(limit=1000))
            if e.stream == "handoff"
        ]
    assert kinds[0] == ("handoff.kept", stopped)
    taken = [k for k in kinds if k[0] == "handoff.taken"]
    assert len(taken) == 1 and taken[0][1] not in (None, stopped)
