"""The injection levels with the real Claude Code CLI against the scripted model (issue 29):
what reaches the model at the project's level and at a session's own, and what memory cost
those sessions by ``orbital context --cost``."""

from __future__ import annotations

from pathlib import Path

from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital
from tests.agents.fake_anthropic import say
from tests.agents.test_claude_code_hooks_e2e import Setup, setup  # noqa: F401 (a fixture)


def test_the_levels_reach_the_model_and_the_cost_is_counted(
    claude: Path,
    setup: Setup,  # noqa: F811
    clock: FixedClock,
) -> None:
    with Orbital.open(setup.db, clock=clock) as service:
        pid = service.init_project(setup.root, timezone="UTC").project_id
        text = "## Use Postgres\nChose: Postgres.\n"
        service.write_file(pid, "DECISIONS.md", text.encode(), actor=Actor.AGENT)
        opened = service.ask_open(pid, "Pick the production database", actor=Actor.AGENT)
        ask_id = opened.events[0].stream.removeprefix("ask:")
    setup.orbital("install", "claude-code", "--project", str(setup.root))
    setup.orbital("context", "--inject", "asks", "--project", str(setup.root))

    fake = setup.run(claude, [say("Hello.")], "hello")
    texts = "\n".join(fake.main_requests[0].texts())
    assert "Pick the production database" in texts and "Use Postgres" not in texts

    with Orbital.open(setup.db, clock=clock) as service:
        service.ask_close(pid, ask_id, "done", "Postgres, agreed", actor=Actor.USER)
    setup.env["ORBITAL_INJECT"] = "off"  # this session's own level
    fake = setup.run(claude, [say("Noted.")], "what next?", "--resume", setup.session)
    assert "Orbital memory changed" not in "\n".join(fake.main_requests[0].texts()[-3:])
    del setup.env["ORBITAL_INJECT"]

    cost = setup.orbital("context", "--cost", "--project", str(setup.root)).splitlines()
    assert cost[0] == f"injection: asks in project {setup.root.name}"  # its display name
    assert cost[2].startswith("session start: median ") and cost[2].endswith(
        "over the last 1 session"
    )
    assert cost[3] == "per turn: median 0 tokens added over 2 prompts"
