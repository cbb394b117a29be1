"""The real Claude Code CLI using ``orbital mcp`` from the project's ``.mcp.json``: a scripted
model proposes a dropped ask again, reworded, through ``ask_open`` and then ``memory_write``;
both refusals reach the model as tool errors and nothing is appended."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from orbital.clock import FixedClock
from orbital.events import Actor, AskOpened
from orbital.service import HistoryQuery, Orbital
from tests.agents.claude_cli import run_claude
from tests.agents.fake_anthropic import call, say, serving
from tests.conftest import NOW

ORBITAL = str(Path(sys.executable).parent / "orbital")


def test_a_dropped_ask_proposed_through_mcp_is_refused_to_the_model(
    claude: Path, tmp_path: Path, clock: FixedClock
) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    db = f"sqlite:///{tmp_path / 'store.db'}"
    with Orbital.open(db, clock=clock) as service:
        pid = service.init_project(root, timezone="UTC").project_id
        opened = service.ask_open(pid, "Book the rooftop venue", actor=Actor.USER)
        ask_id = opened.events[0].stream.removeprefix("ask:")
        service.ask_close(pid, ask_id, "dropped", "too expensive", actor=Actor.USER)
    asks = root / "orbital" / "ASKS.md"
    before = asks.read_bytes()
    env = {"ORBITAL_DB": db, "ORBITAL_NOW": NOW.isoformat()}
    server = {"command": ORBITAL, "args": ["mcp", "--project", str(root)], "env": env}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"orbital": server}}))
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(
        json.dumps({"enableAllProjectMcpServers": True})
    )

    rephrased = "Book the roof-top venue"
    proposal = before.decode() + f"- open {rephrased}\n"
    script = [
        call("mcp__orbital__ask_open", {"text": rephrased}),
        call("mcp__orbital__memory_write", {"file": "ASKS.md", "content": proposal}),
        say("Understood: the user dropped it."),
    ]
    with serving(script) as fake:
        done = run_claude(
            claude,
            root,
            home,
            fake.url,
            "remind me to book the venue",
            "--allowedTools",
            "mcp__orbital__ask_open,mcp__orbital__memory_write",
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.result()["result"] == "Understood: the user dropped it."

    refusal = (
        f"warning: ASKS.md: not added — the user dropped this as [{ask_id}] on 2026-09-19 "
        "(their words: too expensive); never re-propose it. If the user asked for it again, "
        f'add `- reopen {ask_id} "<their words>"`.'
    )
    last = fake.main_requests[-1]
    results = [
        block
        for message in last.messages
        for block in message.get("content") or []  # type: ignore[attr-defined]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    assert len(results) == 2, results
    for result in results:
        assert result["is_error"] is True, result
        assert str(result["content"]).startswith(refusal), result
    assert asks.read_bytes() == before
    with Orbital.open(db, clock=clock) as service:
        events = list(service.history(pid, HistoryQuery(stream="ask")))
    assert sum(isinstance(e.event, AskOpened) for e in events) == 1
    refused = [e for e in events if e.type == "ask.open_refused"]
    assert [e.actor for e in refused] == [Actor.AGENT, Actor.AGENT]
