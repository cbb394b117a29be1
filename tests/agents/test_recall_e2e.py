"""Recall with the real Claude Code CLI against the scripted model (issue 29): a prompt that
matches an archived entry brings the model its one-line pointer; an unrelated prompt brings
none."""

from __future__ import annotations

from pathlib import Path

from orbital.clock import FixedClock
from orbital.service import Orbital
from tests.agents.fake_anthropic import say
from tests.agents.test_claude_code_hooks_e2e import Setup, setup  # noqa: F401
from tests.archived import LESSON, LESSON_ID, archive_the_lesson


def test_a_matching_prompt_brings_the_model_a_pointer_and_an_unrelated_one_none(
    claude: Path,
    setup: Setup,  # noqa: F811  (the fixture imported above)
    clock: FixedClock,
) -> None:
    with Orbital.open(setup.db, clock=clock) as service:
        pid = service.init_project(setup.root, timezone="UTC").project_id
        archive_the_lesson(service, pid)
    setup.orbital("install", "claude-code", "--project", str(setup.root))

    fake = setup.run(claude, [say("Looking.")], "where do sessions live? the redis expiry")
    pointer = f"- {LESSON} (archived; memory_get {LESSON_ID})"
    assert any(pointer in text for text in fake.main_requests[0].texts())

    unrelated = "make the login button blue"
    fake = setup.run(claude, [say("Blue.")], unrelated, "--resume", setup.session)
    assert not any("Orbital recall" in text for text in fake.main_requests[0].texts()[-3:])
