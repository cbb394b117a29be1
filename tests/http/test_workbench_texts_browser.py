"""The Workbench's texts in a real browser (Debian's chromium driven by Playwright, as the
other browser test): the live counter says how many characters to cut while the person
types, a text over its limit is refused with that message and nothing saved, and one at its
limit is saved and reaches the agent's view. Skipped where chromium or playwright is missing."""

from __future__ import annotations

import pytest

from orbital.events import Actor
from tests.http.browser import signed_in, sync_api
from tests.http.http_helpers import World


@pytest.mark.timeout(120)
def test_the_counter_and_the_limits_in_a_browser(server: str, world: World) -> None:
    service = world.service
    service.workspaces.create("acme", actor=Actor.USER)
    service.workspaces.join(world.alpha, "acme", actor=Actor.USER)
    with signed_in(server, world.person, "/workbench") as page:
        field = page.locator(f"#description-{world.alpha}")
        counter = page.locator(f"#description-{world.alpha}-count")
        sync_api.expect(counter).to_have_text("0 / 2,000 characters")
        field.fill("**Billing** for @decision.x " + "d" * 1973)
        sync_api.expect(counter).to_have_text("2,001 / 2,000 characters: cut 1 character")
        sync_api.expect(counter).to_have_class("counter over")
        page.locator(f"#memory-{world.alpha}").get_by_role(
            "button", name="Save project description"
        ).click()
        sync_api.expect(page.get_by_role("status").first).to_contain_text(
            "is 2,001 characters, over its limit of 2,000: cut 1 character (nothing was saved)"
        )
        assert service.workspaces.read(world.alpha, "description").text == ""

        text = "**Billing** for ACME " + "d" * 1979
        page.locator(f"#description-{world.alpha}").fill(text)
        sync_api.expect(counter).to_have_text("2,000 / 2,000 characters")
        page.locator(f"#memory-{world.alpha}").get_by_role(
            "button", name="Save project description"
        ).click()
        sync_api.expect(page.get_by_role("status").first).to_contain_text(
            "The description is saved"
        )
        assert service.workspaces.read(world.alpha, "description").text == text

        # With a description saved the section is folded: open it again.
        page.locator(f"#memory-{world.alpha} details.agent-texts > summary").click()
        context = page.locator(f"#context-{world.alpha}")
        context.fill("c" * 4000)
        sync_api.expect(page.locator(f"#context-{world.alpha}-count")).to_have_text(
            "4,000 / 4,000 characters"
        )
        page.locator(f"#memory-{world.alpha}").get_by_role(
            "button", name="Save workspace context"
        ).click()
        sync_api.expect(page.get_by_role("status").first).to_contain_text("The context is saved")
    view = service.context_view(world.alpha)
    assert view.index("[Workspace acme]\n" + "c" * 4000) < view.index(
        "[Project description]\n**Billing** for ACME"
    )
