"""Two projects of one folder name in the Workbench, in a real browser (issue 31, finding 4):
each listed once under its display name and short id, each ask shown once, under its own
project; a rename is what the page shows next.

Skipped, with the reason, where chromium or the playwright package is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from orbital.events import Actor
from tests.http.browser import browser_page, sync_api
from tests.http.http_helpers import World


@pytest.mark.timeout(120)
def test_two_projects_of_one_folder_name_are_two_rows_each_ask_once(
    server: str, world: World, tmp_path: Path
) -> None:
    service = world.service
    (tmp_path / "elsewhere" / "alpha").mkdir(parents=True)
    other = service.init(tmp_path / "elsewhere" / "alpha").project.project_id
    service.ask_open(world.alpha, "Choose the venue", actor=Actor.AGENT)
    (venue,) = [a.id for a in service.asks(world.alpha)]
    first, second = f"alpha · {world.alpha[:8]}", f"alpha · {other[:8]}"

    with browser_page() as page:
        page.goto(f"{server}/workbench/login")
        page.get_by_label("Workbench token").fill(world.person)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{server}/workbench")

        nav = page.get_by_role("navigation", name="Projects").get_by_role("link")
        assert sorted(nav.all_inner_texts()) == sorted(["All projects", first, second, "beta"])
        sync_api.expect(page.get_by_text("Choose the venue")).to_have_count(1)
        row = page.locator(f"#open-{world.alpha}-{venue}")
        sync_api.expect(row.locator("td.project")).to_have_text(first)
        headings = page.locator(".project-memory h3").all_inner_texts()
        shown = [(first, world.alpha_root), (second, tmp_path / "elsewhere" / "alpha")]
        for label, root in [*shown, ("beta", tmp_path / "beta")]:  # name, and the folder
            assert sum(h.startswith(f"{label} {root} · today") for h in headings) == 1, headings
        options = page.get_by_label("Project", exact=True).locator("option")
        assert sorted(options.all_inner_texts()) == sorted([first, second, "beta"])

        assert service.names.rename(other, "alpha (old)", actor=Actor.USER)
        page.reload()
        sync_api.expect(row.locator("td.project")).to_have_text("alpha")
        nav = page.get_by_role("navigation", name="Projects").get_by_role("link")
        assert sorted(nav.all_inner_texts()) == sorted(
            ["All projects", "alpha", "alpha (old)", "beta"]
        )
