"""The Claude Code plugin of this repository, through the real CLI: ``claude plugin marketplace
add <repository>``, ``claude plugin install orbital@orbital``, then a scripted session in a
registered project with nothing of Orbital's in it (no ``.claude/``, no ``.mcp.json``): the
plugin's SessionStart hook brings the memory, its MCP server lists and opens asks, its
PreToolUse hook routes a file tool's write of a memory file through the write path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital
from tests.agents.claude_cli import environment, run_claude
from tests.agents.fake_anthropic import call, say, serving
from tests.conftest import NOW

ROOT = Path(__file__).resolve().parents[2]
#: The plugin calls the ``orbital`` on PATH: this checkout's, for the test.
BIN = str(Path(sys.executable).parent)
#: The plugin's MCP tools are named after the plugin and its server.
TOOL = "mcp__plugin_orbital_orbital__"


def _claude(claude: Path, home: Path, *args: str) -> str:
    done = subprocess.run(
        [str(claude), "plugin", *args],
        env=environment(home, "http://127.0.0.1:9", None),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_plugin_installed_from_this_repository_serves_the_memory(
    claude: Path, tmp_path: Path, store_url: str, clock: FixedClock
) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    with Orbital.open(store_url, clock=clock) as service:
        pid = service.init_project(root, timezone="UTC").project_id
        opened = service.ask_open(pid, "Pick the release date", actor=Actor.USER)
        ask_id = opened.events[0].stream.removeprefix("ask:")

    assert "Successfully added marketplace: orbital" in _claude(
        claude, home, "marketplace", "add", str(ROOT)
    )
    assert "Successfully installed plugin: orbital@orbital" in _claude(
        claude, home, "install", "orbital@orbital"
    )

    env = {
        "ORBITAL_DB": store_url,
        "ORBITAL_NOW": NOW.isoformat(),
        "ORBITAL_STATE_DIR": str(tmp_path / "state"),
        "PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin",
    }
    lessons = root / "orbital" / "LESSONS.md"
    proposal = lessons.read_text(encoding="utf-8") + "1. Release notes go out with the tag.\n"
    script = [
        call(f"{TOOL}asks_list", {}),
        call(f"{TOOL}ask_open", {"text": "Approve the release notes"}),
        call("Read", {"file_path": str(lessons)}),
        call("Write", {"file_path": str(lessons), "content": proposal}),
        say("Done."),
    ]
    allowed = f"{TOOL}asks_list,{TOOL}ask_open,Read,Write"
    with serving(script) as fake:
        done = run_claude(
            claude,
            root,
            home,
            fake.url,
            "what is waiting on me?",
            "--allowedTools",
            allowed,
            env=env,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.result()["result"] == "Done."
    first = "\n".join(fake.main_requests[0].texts())
    assert f"[{ask_id}] Pick the release date" in first  # the SessionStart hook: the view
    assert "orbital:orbital-memory" in first  # the plugin's skill is offered
    results = _tool_results(fake.main_requests[-1].messages)
    assert [result.get("is_error", False) for result in results] == [False] * 4, results
    assert f'"id":"{ask_id}","text":"Pick the release date"' in str(results[0]["content"])
    with Orbital.open(store_url, clock=clock) as service:
        asks = {ask.text: ask for ask in service.asks(pid)}
        written = service.read_file(pid, "LESSONS.md")
    assert set(asks) == {"Pick the release date", "Approve the release notes"}
    assert f"ask.opened {asks['Approve the release notes'].id}" in str(results[1]["content"])
    # The Write went through the write path: the file holds Orbital's projection (an id
    # stamped on the new lesson), which is what the store holds.
    assert lessons.read_text(encoding="utf-8") == written != proposal
    assert "1. Release notes go out with the tag. <!--mem id:release-notes-go" in written
    log = tmp_path / "state" / "hooks.log"
    assert not log.exists(), log.read_text(encoding="utf-8")


def _tool_results(messages: list[dict[str, object]]) -> list[dict[str, object]]:
    return [
        block
        for message in messages
        for block in message.get("content") or []  # type: ignore[attr-defined]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
