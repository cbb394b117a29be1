"""The hand-off on the Workbench, in a real browser (Debian's chromium driven by Playwright)
and in its JSON, on both backends: the person sees what the last agent session left for the
next, and who took it. Skipped where chromium or playwright is missing."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tests.http.browser import signed_in, sync_api
from tests.http.http_helpers import World

ASKED = "Move the billing export to the nightly job and keep the CSV columns"


@pytest.mark.timeout(120)
def test_the_workbench_shows_the_hand_off(server: str, world: World, tmp_path: Path) -> None:
    transcript = tmp_path / "s1.jsonl"
    rows = [
        {"type": "user", "message": {"role": "user", "content": ASKED}},
        {"type": "assistant", "message": {"role": "assistant", "content": "Next: the cron."}},
    ]
    transcript.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    service = world.service
    project = service.store.project(world.alpha)
    service.agents.handoffs.keep(project, "s1", "codex", "end", transcript)
    kept = service.agents.handoffs.state(project).latest
    assert kept is not None and kept.session == "s1"
    with signed_in(server, world.person, "/workbench") as page:
        panel = page.locator(f"#memory-{world.alpha} details.handoff")
        panel.locator("summary").click()
        sync_api.expect(panel).to_contain_text("[Hand-off] The last session (codex, s1) ended")
        sync_api.expect(panel).to_contain_text(f'- "{ASKED}"')
        sync_api.expect(panel).to_contain_text("- Its last message: Next: the cron.")
        sync_api.expect(page.locator(f"#memory-{world.beta} details.handoff")).to_have_count(0)
    assert service.agents.handoffs.take(project, "s2", "claude-code", resumed=False)
    listed = httpx.get(
        f"{server}/api/v1/workbench",
        headers={"Authorization": f"Bearer {world.person}"},
        timeout=30,
    ).json()
    shown = {p["project_id"]: p.get("handoff", "") for p in listed["projects"]}
    assert shown[world.beta] == ""
    assert shown[world.alpha].endswith("\n(taken by session s2)")
