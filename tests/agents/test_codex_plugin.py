"""The Codex plugin of this repository, through the real CLI (0.169.0, whose plugin commands
run headless): ``codex plugin marketplace add <repository>`` (Codex reads the Claude Code
marketplace file), ``codex plugin add orbital@orbital``, then a scripted ``codex exec`` in a
registered project with nothing of Orbital's in it: the plugin's session-start hook brings the
memory and its MCP server (Orbital's variables forwarded) lists the asks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital
from tests.agents.codex_cli import provider_config, run_codex
from tests.agents.fake_openai import FunctionCall, Item, ToolSearch, say, serving
from tests.conftest import NOW

ROOT = Path(__file__).resolve().parents[2]
#: The plugin calls the ``orbital`` on PATH: this checkout's, for the test.
PATH = f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin"


def _plugin(codex: Path, home: Path, *args: str) -> str:
    env = {"HOME": str(home), "CODEX_HOME": str(home / ".codex"), "PATH": PATH}
    done = subprocess.run(
        [str(codex), "plugin", *args], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_codex_plugin_installed_from_this_repository_serves_the_memory(
    codex: Path, tmp_path: Path, store_url: str, clock: FixedClock
) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    (home / ".codex").mkdir(parents=True)
    with Orbital.open(store_url, clock=clock) as service:
        pid = service.init_project(root, timezone="UTC").project_id
        opened = service.ask_open(pid, "Pick the release date", actor=Actor.USER)
        ask_id = opened.events[0].stream.removeprefix("ask:")
    env = {
        "ORBITAL_DB": store_url,
        "ORBITAL_NOW": NOW.isoformat(),
        "ORBITAL_STATE_DIR": str(tmp_path / "state"),
        "PATH": PATH,
    }
    script: list[tuple[Item, ...]] = [
        (ToolSearch("orbital asks"),),
        (FunctionCall("asks_list", {}, "mcp__orbital"),),
        say("Listed."),
    ]
    with serving(script) as fake:
        (home / ".codex" / "config.toml").write_text(provider_config(fake.url), encoding="utf-8")
        added = _plugin(codex, home, "marketplace", "add", str(ROOT))
        assert added.startswith("Added marketplace `orbital` from "), added
        assert _plugin(codex, home, "add", "orbital@orbital").startswith(
            "Added plugin `orbital` from marketplace `orbital`."
        )
        done = run_codex(codex, root, home, "what is waiting on me?", env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "hook: SessionStart Completed" in done.stderr
    first = " ".join(fake.turns[0].texts())
    assert "Orbital project memory (as of @" in first  # the plugin's session-start hook
    assert f"[{ask_id}] Pick the release date" in first
    assert "orbital:orbital-memory" in first  # the plugin's skill is offered
    (listed,) = fake.turns[-1].outputs()
    assert f'{{"asks":[{{"id":"{ask_id}","text":"Pick the release date",' in listed
    log = tmp_path / "state" / "hooks.log"
    assert not log.exists(), log.read_text(encoding="utf-8")
