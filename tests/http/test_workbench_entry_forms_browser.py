"""The person adds a decision and a lesson, changes one, and reads a refusal, in a real
browser (Debian's chromium driven by Playwright, as the other browser tests): what the agent
sees next holds the entries, written as the person. Skipped where chromium or playwright is
missing."""

from __future__ import annotations

import pytest

from orbital.errors import SecretRefused
from orbital.events import Actor
from orbital.service import HistoryQuery
from tests.http.browser import signed_in, sync_api
from tests.http.http_helpers import World


@pytest.mark.timeout(120)
def test_add_change_and_a_refusal_in_a_browser(server: str, world: World) -> None:
    service = world.service
    decisions = world.alpha_root / "orbital" / "DECISIONS.md"
    with signed_in(server, world.person, "/workbench") as page:
        panel = page.locator(f"#memory-{world.alpha}")
        panel.locator("details.add-entry > summary").click()
        form = panel.locator("details.add-entry form")
        form.get_by_label("Title").fill("Ship on Fridays")
        form.get_by_label("Text").fill("Chose: Friday.\nReason: quiet weekends.")
        form.get_by_role("button", name="Add as a decision").click()
        status = page.get_by_role("status").first
        sync_api.expect(status).to_have_text(
            "Added to DECISIONS.md: agents see it from their next turn."
        )
        entry = page.locator(f"#entry-{world.alpha}-ship-on-fridays")
        sync_api.expect(entry).to_contain_text("Ship on Fridays")

        panel.locator("details.add-entry > summary").click()
        form.get_by_label("Title").fill("Read the logs first")
        form.get_by_label("Text").fill("then act")
        form.get_by_role("button", name="Add as a lesson").click()
        sync_api.expect(page.get_by_role("status").first).to_have_text(
            "Added to LESSONS.md: agents see it from their next turn."
        )

        entry.locator("details.change-entry > summary").click()
        change = entry.locator("details.change-entry form")
        sync_api.expect(change.get_by_label("Text")).to_have_value(
            "Chose: Friday.\nReason: quiet weekends."
        )
        change.get_by_label("Title").fill("Ship on Thursdays")
        change.get_by_role("button", name="Save the change").click()
        sync_api.expect(page.get_by_role("status").first).to_have_text(
            "ship-on-fridays changed: agents see it from their next turn."
        )

        before = decisions.read_bytes()
        panel.locator("details.add-entry > summary").click()
        form.get_by_label("Title").fill("Keys")
        form.get_by_label("Text").fill("key AKIAZ7QWERTY12345678")
        form.get_by_role("button", name="Add as a decision").click()
        refusal = page.locator("p.notice.error")
        sync_api.expect(refusal).to_contain_text("looks like a secret (AWS Access Key)")
        said = refusal.inner_text()
        assert decisions.read_bytes() == before
    view = service.context_view(world.alpha)
    assert "Ship on Thursdays" in view and "Read the logs first" in view
    assert "Keys" not in view
    history = list(service.history(world.alpha, HistoryQuery(entry="ship-on-fridays")))
    assert {e.actor for e in history} == {Actor.USER}
    with pytest.raises(SecretRefused) as refused:  # the write path's own words, exactly
        service.write_entry(
            world.alpha, "decisions", "Keys", "key AKIAZ7QWERTY12345678", actor=Actor.USER
        )
    assert said == str(refused.value)
