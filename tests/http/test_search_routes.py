"""Search over HTTP and in the Workbench (issue 29): the agent's ``GET …/search`` finds an
archived entry by a word of its body; the Workbench's search box, in Chromium, finds it
through the same index (another form of a word, by the engine's stemming); bad input is a
400 with the CLI's words."""

from __future__ import annotations

import pytest

from tests.archived import LESSON, LESSON_ID, archive_the_lesson
from tests.http.browser import signed_in, sync_api
from tests.http.http_helpers import Client, World, bearer


def test_the_search_route_finds_an_archived_entry(client: Client, world: World) -> None:
    archive_the_lesson(world.service, world.alpha)
    url = f"/api/v1/projects/{world.alpha}/search"
    response = client.get(url, params={"q": "expiry"}, headers=bearer(world.agent))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["project"] == world.alpha
    (hit,) = body["hits"]
    assert (hit["id"], hit["state"], hit["where"], hit["title"]) == (
        LESSON_ID,
        "archived, held",
        "LESSONS_ARCHIVE.md",
        LESSON,
    )
    narrowed = client.get(
        url, params={"q": "expiry", "file": "DECISIONS.md"}, headers=bearer(world.agent)
    )
    assert narrowed.json()["hits"] == []
    empty = client.get(url, params={"q": "?!"}, headers=bearer(world.agent))
    assert empty.status_code == 400
    assert empty.json()["detail"] == "the search '?!' has no word to look for (letters or digits)"
    person = client.get(url, params={"q": "expiry"}, headers=bearer(world.person))
    assert person.status_code == 403


@pytest.mark.timeout(120)
def test_the_workbench_search_finds_an_archived_entry_in_a_browser(
    server: str, world: World
) -> None:
    archive_the_lesson(world.service, world.alpha)
    with signed_in(server, world.person) as page:
        page.goto(f"{server}/workbench?project={world.alpha}")
        memory = page.locator(f"#memory-{world.alpha}")
        search = memory.get_by_role("searchbox")
        search.fill("Redis expiries")  # the engine's stemming finds "expiry"
        search.press("Enter")
        entry = memory.locator(f"#entry-{world.alpha}-{LESSON_ID}")
        sync_api.expect(memory.locator(".entries > li")).to_have_count(1)
        memory.get_by_text("Archived, merged and retired").click()
        sync_api.expect(entry).to_be_visible()
        sync_api.expect(entry).to_contain_text(LESSON)
        sync_api.expect(entry.locator(".badge.status")).to_have_text("archived 2026-09-19")
