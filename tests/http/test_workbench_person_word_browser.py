"""The person's word on the Workbench page, in a real browser (issue 28): an agent's reopen of
an ask the person dropped waits under "Reopens waiting on you" with the agent's words, and
Confirm or Decline settles it; "Closed for you" marks each agent close by what its quote
rests on, lists the agents' reopens, and undoes an unverified close in one click.

Skipped, with the reason, where chromium or the playwright package is missing."""

from __future__ import annotations

import pytest

from orbital.events import Actor
from tests.http.browser import signed_in, sync_api
from tests.http.http_helpers import World, asks_md


@pytest.mark.timeout(120)
def test_reopens_wait_on_the_person_and_closes_are_marked(server: str, world: World) -> None:
    service = world.service
    for text in ("Book the venue", "Send the deck", "Send the logo", "Print the flyers"):
        service.ask_open(world.alpha, text, actor=Actor.AGENT)
    ids = {a.text: a.id for a in service.asks(world.alpha)}
    venue, deck, logo, flyers = (ids[t] for t in ids)
    for dropped in (venue, flyers):
        service.ask_close(world.alpha, dropped, "dropped", "too far", actor=Actor.USER)
        service.ask_reopen(world.alpha, dropped, '"please reopen it"', actor=Actor.AGENT)
    service.ask_close(world.alpha, deck, "done", '"sent it"', actor=Actor.AGENT)
    service.ask_close(world.alpha, logo, "done", actor=Actor.AGENT)
    service.ask_open(world.alpha, "Order the banner", actor=Actor.AGENT)
    banner = next(a.id for a in service.asks(world.alpha) if a.text == "Order the banner")
    path = world.alpha_root / "orbital" / "ASKS.md"  # typed into the file by someone unknown
    path.write_text(path.read_text() + f'- done {banner} by:user "ordered"\n')
    service.sync(world.alpha)

    with signed_in(server, world.person) as page:
        waiting = page.locator(f"#proposed-{world.alpha}-{venue}")
        sync_api.expect(waiting).to_contain_text("Book the venue")
        sync_api.expect(waiting).to_contain_text('"please reopen it"')
        sync_api.expect(page.locator(f"#open-{world.alpha}-{venue}")).to_have_count(0)

        deck_row = page.locator(f"#closed-{world.alpha}-{deck}")
        sync_api.expect(deck_row.locator(".badge.quote.unverified")).to_have_text(
            "quote unverified"
        )
        sync_api.expect(deck_row.locator(".by")).to_have_text("agent")
        banner_row = page.locator(f"#closed-{world.alpha}-{banner}")
        sync_api.expect(banner_row.locator(".by")).to_have_text("changed on disk, author unknown")
        sync_api.expect(banner_row.locator(".badge.quote.unverified")).to_have_count(1)
        logo_row = page.locator(f"#closed-{world.alpha}-{logo}")
        sync_api.expect(logo_row.locator(".badge.quote.no-quote")).to_have_text("no quote")

        waiting.get_by_role("button", name="Confirm").click()
        sync_api.expect(page.get_by_role("status").first).to_contain_text(
            f"[{venue}] is open again, on the agent's words you confirmed."
        )
        sync_api.expect(waiting).to_have_count(0)
        sync_api.expect(page.locator(f"#open-{world.alpha}-{venue}")).to_have_count(1)

        declined = page.locator(f"#proposed-{world.alpha}-{flyers}")
        declined.get_by_role("button", name="Decline").click()
        sync_api.expect(declined).to_have_count(0)
        sync_api.expect(page.locator(f"#dropped-{world.alpha}-{flyers}")).to_have_count(1)

        deck_row.get_by_role("button", name="Undo").click()  # one click undoes it
        sync_api.expect(page.locator(f"#open-{world.alpha}-{deck}")).to_have_count(1)

    log = asks_md(world)
    assert f'- reopen {venue} 2026-09-19 by:user "please reopen it"\n' in log
    assert log.endswith(f"- reopen {deck} 2026-09-19 by:user\n")
    states = {a.id: a.state for a in service.asks(world.alpha, "all")}
    assert (states[venue], states[flyers], states[deck]) == ("open", "dropped", "open")


@pytest.mark.timeout(120)
def test_an_agents_reopen_is_listed_under_closed_for_you(server: str, world: World) -> None:
    service = world.service
    service.ask_open(world.alpha, "Book the venue", actor=Actor.AGENT)
    (ask,) = service.asks(world.alpha)
    service.ask_close(world.alpha, ask.id, "done", actor=Actor.AGENT)
    service.ask_reopen(world.alpha, ask.id, '"not done yet"', actor=Actor.AGENT)

    with signed_in(server, world.person) as page:
        row = page.locator(f"#closed-{world.alpha}-{ask.id}")
        sync_api.expect(row).to_contain_text("reopened")
        sync_api.expect(row.locator(".badge.quote.unverified")).to_have_count(1)
        row.get_by_role("button", name="Undo").click()
        sync_api.expect(page.locator(f"#dropped-{world.alpha}-{ask.id}")).to_have_count(1)
    assert asks_md(world).splitlines()[-1] == f"- dropped {ask.id} 2026-09-19 by:user"
