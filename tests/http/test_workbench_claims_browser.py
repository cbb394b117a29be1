"""Issue 28 in a real browser: an ask the agent opened ``distinct from`` a dropped ask it
resembled is shown beside that drop, and one click drops it too."""

from __future__ import annotations

from pathlib import Path

import pytest

from orbital.events import Actor
from tests.http.browser import browser_page, sync_api
from tests.http.http_helpers import World
from tests.wordnet_helpers import needs_wordnet

DROPPED = "Confirm the VAT rate for German customers"
CLAIMED = "Establish what VAT rate German customers should pay"


@needs_wordnet
@pytest.mark.timeout(120)
def test_a_claim_is_shown_beside_the_drop_and_dropped_in_one_click(
    server: str, world: World, tmp_path: Path
) -> None:
    service = world.service
    opened = service.ask_open(world.alpha, DROPPED, actor=Actor.AGENT)
    dropped = opened.events[0].stream.removeprefix("ask:")
    service.ask_close(world.alpha, dropped, "dropped", "not needed", actor=Actor.USER)
    held = service.ask_open(world.alpha, CLAIMED, actor=Actor.AGENT)
    assert [h.id for h in held.held] == [dropped]
    taken = service.ask_open(world.alpha, CLAIMED, actor=Actor.AGENT, distinct_from=[dropped])
    claimed = taken.events[0].stream.removeprefix("ask:")

    with browser_page() as page:
        page.goto(f"{server}/workbench/login")
        page.get_by_label("Workbench token").fill(world.person)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{server}/workbench")
        claim = page.locator(f"#claim-{world.alpha}-{claimed}-{dropped}")
        sync_api.expect(claim).to_contain_text(f"The agent opened [{claimed}] {CLAIMED}")
        sync_api.expect(claim).to_contain_text(f"says it is not [{dropped}]")
        page.screenshot(path=str(tmp_path / "claim.png"), full_page=True)
        claim.get_by_role("button", name="Drop").click()
        sync_api.expect(page.locator(f"#dropped-{world.alpha}-{claimed}")).to_have_count(1)
        sync_api.expect(claim).to_have_count(0)
    states = {a.id: a.state for a in service.asks(world.alpha, "all")}
    assert states[claimed] == "dropped"
