"""The real Codex CLI in a project set up by ``orbital install codex``, against the scripted
Responses API: the session-start view, the MCP server, ``apply_patch`` edits of memory files
routed through the write path, a dropped ask refused both ways; uninstall gives every file its
bytes back. Runs ``codex exec`` once (Codex 0.169.0, ``.ci/codex-version``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import HistoryQuery, Orbital
from tests.agents.codex_cli import provider_config, run_codex
from tests.agents.fake_openai import FunctionCall, Item, ToolSearch, patch, say, serving
from tests.conftest import NOW

ORBITAL = str(Path(sys.executable).parent / "orbital")


def test_codex_reads_memory_and_its_edits_go_through_the_write_path(
    codex: Path, tmp_path: Path, clock: FixedClock
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
        opened = service.ask_open(pid, "Book the rooftop venue", actor=Actor.USER)
        ask_id = opened.events[0].stream.removeprefix("ask:")
        service.ask_close(pid, ask_id, "dropped", "too expensive", actor=Actor.USER)
        head = service.head(pid)
    asks = root / "orbital" / "ASKS.md"
    before_asks = asks.read_bytes()
    decisions = (root / "orbital" / "DECISIONS.md").read_text(encoding="utf-8")
    last = decisions.splitlines()[-1]

    def orbital(*args: str) -> str:
        done = subprocess.run(
            [ORBITAL, *args, "--project", str(root)],
            env={**env, "HOME": str(home), "CODEX_HOME": str(home / ".codex")},
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    asks_patch = (
        "*** Begin Patch\n*** Update File: orbital/ASKS.md\n@@\n"
        f" {before_asks.decode().splitlines()[-1]}\n+- open Book the roof-top venue\n"
        "*** End Patch\n"
    )
    decisions_patch = (
        "*** Begin Patch\n*** Update File: orbital/DECISIONS.md\n@@\n"
        f" {last}\n+\n+## Use SQLite\n+Chose SQLite for the event store.\n*** End Patch\n"
    )
    script: list[tuple[Item, ...]] = [
        (ToolSearch("orbital asks"),),
        (FunctionCall("memory_context", {}, "mcp__orbital"),),
        (FunctionCall("ask_open", {"text": "Book the roof-top venue"}, "mcp__orbital"),),
        patch(asks_patch),
        patch(decisions_patch),
        say("Recorded."),
    ]
    config = home / ".codex" / "config.toml"
    with serving(script) as fake:
        config.write_text(provider_config(fake.url), encoding="utf-8")
        before_config = config.read_bytes()
        printed = orbital("install", "codex")
        assert printed.splitlines()[:3] == [
            "wrote ~/.codex/config.toml",
            "wrote ~/.codex/hooks.json",
            "wrote AGENTS.md",
        ]
        done = run_codex(codex, root, home, "book the venue and record the store", env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (tmp_path / "state" / "hooks.log").exists()
    session = re.search(r"session id: (\S+)", done.stderr)
    assert session is not None, done.stderr

    # The session-start hook's view and AGENTS.md's section reached the model.
    first = " ".join(fake.turns[0].texts())
    assert "Orbital project memory (as of @" in first
    assert "## Project memory (Orbital)" in first
    outputs = fake.turns[-1].outputs()
    assert len(outputs) == 4, outputs
    assert "Today is 2026-09-19 (Saturday); dates and times are in " in outputs[0]
    refusal = f"ASKS.md: not added — the user dropped this as [{ask_id}]"
    assert refusal in outputs[1]
    assert outputs[2].startswith(
        "Command blocked by PreToolUse hook: Orbital refused this change of orbital/ASKS.md; "
        f"the file is unchanged.\nwarning: {refusal}"
    ), outputs[2]
    assert "Success. Updated the following files:\nM orbital/DECISIONS.md" in outputs[3]
    assert asks.read_bytes() == before_asks
    written = (root / "orbital" / "DECISIONS.md").read_text(encoding="utf-8")
    assert "## Use SQLite <!--mem id:use-sqlite created:2026-09-19" in written
    assert written.endswith("Chose SQLite for the event store.\n")
    with Orbital.open(db, clock=clock) as service:
        events = [e for e in service.history(pid, HistoryQuery()) if e.position > head]
        assert [(e.type, e.actor, e.session) for e in events if e.type != "ask.open_refused"] == [
            ("entry.created", "agent", session.group(1)),
            ("file.layout_set", "agent", session.group(1)),
            ("handoff.kept", "agent", session.group(1)),  # for the next session
        ]
        assert service.unmerged(pid) == []

    printed = orbital("uninstall", "codex")
    assert printed.splitlines() == [
        "restored ~/.codex/config.toml",
        "removed ~/.codex/hooks.json",
        "removed AGENTS.md",
    ]
    assert config.read_bytes() == before_config
    assert not (home / ".codex" / "hooks.json").exists()
    assert not (root / "AGENTS.md").exists()
