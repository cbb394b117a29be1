"""The person's entries API pages: a stable order, a next offset, a search, filters, and clear
400s for values out of range (issue 13, item 17)."""

from __future__ import annotations

from typing import Any

import pytest

from orbital.events import Actor
from tests.http.http_helpers import Client, World, bearer

DECISIONS = "".join(f"## Decision {n}\nChose: tool {n}.\n\n" for n in range(7))


def page(client: Client, world: World, query: str) -> Any:
    response = client.get(
        f"/api/v1/workbench/{world.alpha}/entries?{query}", headers=bearer(world.person)
    )
    assert response.status_code == 200, response.text
    return response.json()


def test_entries_come_a_page_at_a_time_in_a_stable_order(client: Client, world: World) -> None:
    service = world.service
    service.write_file(world.alpha, "DECISIONS.md", DECISIONS.encode(), actor=Actor.AGENT)
    kept = DECISIONS.replace("## Decision 2\nChose: tool 2.\n\n", "")
    service.write_file(
        world.alpha, "DECISIONS.md", kept.encode(), actor=Actor.AGENT, remove=("decision-2",)
    )
    seen, offset, shapes = [], 0, []
    while offset is not None:
        body = page(client, world, f"limit=3&offset={offset}")
        shapes.append((body["project"], body["total"], body["offset"], body["limit"]))
        seen += [(e["id"], e["status"]) for e in body["entries"]]
        offset = body["next_offset"]
    live = [(f"decision-{n}", "live") for n in (0, 1, 3, 4, 5, 6)]
    assert seen == [*live, ("decision-2", "retired")]
    assert shapes == [(world.alpha, 7, 0, 3), (world.alpha, 7, 3, 3), (world.alpha, 7, 6, 3)]
    first = page(client, world, "limit=3")
    assert [e["id"] for e in first["entries"]] == ["decision-0", "decision-1", "decision-3"]
    assert first["entries"][0]["history"][0]["type"] == "entry.created"
    assert page(client, world, "offset=50")["entries"] == []
    assert page(client, world, "offset=50")["next_offset"] is None


def test_entries_are_searched_and_filtered(client: Client, world: World) -> None:
    service = world.service
    service.write_file(world.alpha, "DECISIONS.md", DECISIONS.encode(), actor=Actor.AGENT)
    kept = DECISIONS.replace("## Decision 2\nChose: tool 2.\n\n", "")
    service.write_file(
        world.alpha, "DECISIONS.md", kept.encode(), actor=Actor.AGENT, remove=("decision-2",)
    )
    found = page(client, world, "q=TOOL%205")
    assert ([e["id"] for e in found["entries"]], found["total"]) == (["decision-5"], 1)
    words = page(client, world, "q=chose+decision")
    assert words["total"] == 7
    assert [e["id"] for e in page(client, world, "status=not-live")["entries"]] == ["decision-2"]
    assert page(client, world, "status=live")["total"] == 6
    assert page(client, world, "file=DECISIONS.md&status=live")["total"] == 6
    assert page(client, world, "file=lessons")["total"] == 0


@pytest.mark.parametrize(
    ("query", "detail"),
    [
        ("limit=0", "limit must be from 1 to 200, not 0"),
        ("limit=201", "limit must be from 1 to 200, not 201"),
        ("offset=-1", "offset must be 0 or more, not -1"),
        (
            "status=gone",
            "status must be one of all, live, not-live, archived, merged, retired, not 'gone'",
        ),
        (
            "file=ASKS.md",
            "file must be one of PROJECT_STATE.md, DECISIONS.md, LESSONS.md, INDEX.md "
            "(or its key), not 'ASKS.md'",
        ),
        ("q=" + "x" * 201, "the search text is 201 characters; at most 200"),
    ],
)
def test_a_query_out_of_range_is_a_400_that_says_what_is_allowed(
    client: Client, world: World, query: str, detail: str
) -> None:
    response = client.get(
        f"/api/v1/workbench/{world.alpha}/entries?{query}", headers=bearer(world.person)
    )
    assert (response.status_code, response.json()) == (
        400,
        {
            "type": "/problems/invalid-input",
            "title": "Invalid input",
            "status": 400,
            "detail": detail,
        },
    )
