"""The Workbench page in a real browser (Debian's chromium driven by Playwright) against a real
uvicorn server: sign in, Done with a note (which reaches the agent's view), Reopen, Undo, Pin,
an entry's history, and what is on disk.

Skipped, with the reason, where chromium or the playwright package is missing (``.ci/run``
installs both). Playwright's own browser download is never used.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from orbital.events import Actor
from tests.http.browser import browser_page, signed_in, sync_api
from tests.http.http_helpers import World, asks_md


@pytest.mark.timeout(120)
def test_done_reopen_and_undo_in_a_browser(server: str, world: World, tmp_path: Path) -> None:
    service = world.service
    service.ask_open(world.alpha, "Choose the venue", "2026-09-01", actor=Actor.AGENT)
    service.ask_open(world.alpha, "Send the deck", actor=Actor.AGENT)
    ids = {a.text: a.id for a in service.asks(world.alpha)}
    venue, deck = ids["Choose the venue"], ids["Send the deck"]
    service.ask_close(world.alpha, deck, "done", '"sent it"', actor=Actor.AGENT)
    decision = b"## Use Postgres\nChose: PostgreSQL.\nReason: one store for everything.\n"
    service.write_file(world.alpha, "DECISIONS.md", decision, actor=Actor.AGENT)
    shot = tmp_path / "workbench.png"

    with browser_page() as page:
        page.goto(f"{server}/workbench")
        assert page.url == f"{server}/workbench/login"
        page.get_by_label("Workbench token").fill(world.person)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{server}/workbench")

        open_row = page.locator(f"#open-{world.alpha}-{venue}")
        sync_api.expect(open_row).to_contain_text("Choose the venue")
        sync_api.expect(open_row).to_contain_text("overdue 18 days")

        open_row.get_by_label(f"Note on done [{venue}]").fill("the rooftop, it is booked")
        open_row.get_by_role("button", name="Done").click()
        sync_api.expect(page.get_by_role("status").first).to_contain_text(f"[{venue}] marked done.")
        sync_api.expect(open_row).to_have_count(0)
        done_row = page.locator(f"#done-{world.alpha}-{venue}")
        sync_api.expect(done_row).to_contain_text("the rooftop, it is booked")
        view = service.context_view(world.alpha)
        assert (
            f'- done [{venue}] Choose the venue (2026-09-19): "the rooftop, it is booked"' in view
        )
        done_row.get_by_role("button", name="Reopen").click()
        sync_api.expect(open_row).to_have_count(1)

        undo = page.locator(f"#closed-{world.alpha}-{deck}")
        sync_api.expect(undo).to_contain_text("sent it")
        undo.get_by_role("button", name="Undo").click()
        sync_api.expect(page.locator(f"#open-{world.alpha}-{deck}")).to_have_count(1)
        sync_api.expect(undo).to_have_count(0)

        entry = page.locator(f"#entry-{world.alpha}-use-postgres")
        entry.get_by_role("button", name="Pin").click()
        sync_api.expect(entry.locator(".badge.pinned")).to_have_count(1)
        entry.get_by_text("Text and history").click()
        sync_api.expect(entry.locator(".timeline li")).to_have_count(2)
        sync_api.expect(entry.locator(".timeline")).to_contain_text("entry.pinned")
        page.screenshot(path=str(shot), full_page=True)

    print(f"\nWorkbench screenshot: {shot}")
    assert shot.stat().st_size > 0
    decisions = (world.alpha_root / "orbital" / "DECISIONS.md").read_text()
    assert "id:use-postgres created:2026-09-19 touched:2026-09-19 tag:pinned" in decisions
    assert asks_md(world).splitlines()[-3:] == [
        f"- done {venue} 2026-09-19 by:user the rooftop, it is booked",
        f"- reopen {venue} 2026-09-19 by:user",
        f"- reopen {deck} 2026-09-19 by:user",
    ]


@pytest.mark.timeout(120)
def test_search_and_pages_of_entries_in_a_browser(server: str, world: World) -> None:
    many = "".join(f"## Decision {n}\nChose: tool {n}.\n\n" for n in range(60))
    service = world.service
    service.write_file(world.alpha, "DECISIONS.md", many.encode(), actor=Actor.AGENT)
    fewer = many.replace("## Decision 7\nChose: tool 7.\n\n", "")
    service.write_file(
        world.alpha, "DECISIONS.md", fewer.encode(), actor=Actor.AGENT, remove=("decision-7",)
    )
    entries = f"#memory-{world.alpha} .entries > li"

    with signed_in(server, world.person) as page:
        memory = page.locator(f"#memory-{world.alpha}")
        sync_api.expect(memory.locator(".counts")).to_contain_text("59 live entries")
        sync_api.expect(page.locator(entries)).to_have_count(10)

        search = memory.get_by_role("searchbox")
        search.fill("TOOL 42")
        search.press("Enter")
        sync_api.expect(page.locator(entries)).to_have_count(1)
        sync_api.expect(page.locator(entries)).to_contain_text("Decision 42")
        sync_api.expect(memory.locator(".counts")).to_contain_text("1 live entry matching")

        memory.get_by_role("link", name="Clear").click()
        live = page.locator(f"#memory-{world.alpha} > .entries > li")
        sync_api.expect(live).to_have_count(25)
        sync_api.expect(live.first).to_contain_text("Decision 0")
        pages = memory.get_by_role("navigation", name="Pages of live entries")
        sync_api.expect(pages).to_contain_text("1 to 25 of 59")
        pages.get_by_role("link", name="Next").click()
        sync_api.expect(pages).to_contain_text("26 to 50 of 59")
        sync_api.expect(live.first).to_contain_text("Decision 26")  # 7 is retired
        pages.get_by_role("link", name="Next").click()
        sync_api.expect(live).to_have_count(9)
        pages.get_by_role("link", name="Previous").click()
        sync_api.expect(pages).to_contain_text("26 to 50 of 59")

        retired = memory.locator(f"#entry-{world.alpha}-decision-7")
        sync_api.expect(retired).to_be_hidden()  # collapsed with the other non-live ones
        memory.get_by_text("Archived, merged and retired").click()
        sync_api.expect(retired).to_be_visible()
        sync_api.expect(retired.locator(".badge.status")).to_have_text("retired")


@pytest.mark.timeout(120)
def test_dispute_retract_and_reaffirm_an_entry_in_a_browser(server: str, world: World) -> None:
    service = world.service
    decision = b"## Ship on Fridays\nChose: yes.\nReason: weekly cadence.\n"
    service.write_file(world.alpha, "DECISIONS.md", decision, actor=Actor.AGENT)
    decisions = world.alpha_root / "orbital" / "DECISIONS.md"

    def trust() -> tuple[str, str, str]:
        (row,) = service.trust.beliefs(world.alpha)
        return row.state, row.status, row.reason

    with signed_in(server, world.person) as page:
        page.get_by_role("navigation", name="Projects").get_by_role(
            "link", name="alpha"
        ).click()  # the project's page (by its name) lists its archived entries too
        page.wait_for_url(f"{server}/workbench?project={world.alpha}")
        entry = page.locator(f"#entry-{world.alpha}-ship-on-fridays")
        badge = entry.locator(".badge.trust")
        sync_api.expect(badge).to_have_text("held")

        entry.get_by_label("Why dispute ship-on-fridays").fill("two outages in a row")
        entry.get_by_role("button", name="Dispute").click()
        sync_api.expect(page.get_by_role("status").first).to_contain_text(
            "ship-on-fridays disputed: the agent sees your reason beside it."
        )
        sync_api.expect(badge).to_have_text("disputed: two outages in a row")
        assert trust() == ("disputed", "live", "two outages in a row")
        view = service.context_view(world.alpha)
        assert "[disputed by the person: two outages in a row]" in view

        entry.get_by_label("Why retract ship-on-fridays").fill("it broke prod")
        entry.get_by_role("button", name="Retract").click()
        sync_api.expect(page.get_by_role("status").first).to_contain_text(
            "ship-on-fridays retracted"
        )
        # now among the archived entries of the project, collapsed: open them
        page.locator(f"#memory-{world.alpha}").get_by_text("Archived, merged").click()
        sync_api.expect(badge).to_have_text("retracted: it broke prod")
        sync_api.expect(entry.get_by_role("button", name="Restore")).to_have_count(0)
        assert trust() == ("retracted", "archived", "it broke prod")
        assert "Chose: yes." not in decisions.read_text()
        assert "retracted by the person (it broke prod)" in decisions.read_text()

        entry.get_by_role("button", name="Reaffirm").click()
        sync_api.expect(page.get_by_role("status").first).to_contain_text(
            "ship-on-fridays reaffirmed: held true."
        )
        sync_api.expect(badge).to_have_text("held")
        assert trust() == ("held", "live", "")

    assert "Chose: yes." in decisions.read_text()
    assert "[disputed" not in service.context_view(world.alpha)
