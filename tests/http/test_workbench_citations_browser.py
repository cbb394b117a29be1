"""The Workbench in a real browser (chromium, Playwright) against a real server (issue 29): an
entry whose cited file changed shows *needs check* with the citation that moved, and the
person's Confirm clears it for the agent's view too.

Skipped, with the reason, where chromium or the playwright package is missing."""

from __future__ import annotations

import pytest

from orbital.events import Actor
from tests.http.browser import browser_page, sync_api
from tests.http.http_helpers import World

ID = "parsing-lives-in-one-module"


@pytest.mark.timeout(120)
def test_the_person_sees_needs_check_and_confirms_it(server: str, world: World) -> None:
    service = world.service
    (world.alpha_root / "src").mkdir()
    parse = world.alpha_root / "src" / "parse.py"
    parse.write_text("def parse(): ...\n")
    text = b"## Parsing lives in one module\nChose: @file.src/parse.py parses.\n"
    service.write_file(world.alpha, "DECISIONS.md", text, actor=Actor.AGENT)
    parse.write_text("def parse(text): ...\n")
    service.agents.start(service.project(world.alpha_root), "s1", None)  # the check

    with browser_page() as page:
        page.goto(f"{server}/workbench/login")
        page.get_by_label("Workbench token").fill(world.person)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{server}/workbench")

        entry = page.locator(f"#entry-{world.alpha}-{ID}")
        badge = entry.locator(".badge.trust.needs-check")
        sync_api.expect(badge).to_have_text(
            "needs check: @file.src/parse.py changed since 2026-09-19"
        )
        sync_api.expect(entry.get_by_role("button", name="Reaffirm")).to_have_count(0)
        entry.get_by_role("button", name="Confirm").click()
        sync_api.expect(page.get_by_role("status").first).to_contain_text(
            f"{ID} confirmed: it holds with the files it cites as they are now."
        )
        sync_api.expect(badge).to_have_count(0)
        sync_api.expect(entry.locator(".badge.trust.held")).to_have_count(1)
        sync_api.expect(entry.get_by_role("button", name="Confirm")).to_have_count(0)

    assert [(b.id, b.state) for b in service.trust.beliefs(world.alpha)] == [(ID, "held")]
    assert "needs check" not in service.context_view(world.alpha)
    confirmed = [e for e in service.history(world.alpha) if e.type == "entry.cited"]
    assert [e.actor for e in confirmed] == [Actor.AGENT, Actor.USER]
