"""The person's memory-entry routes and the asks overview's lists (JSON API)."""

from __future__ import annotations

from typing import Any

from orbital.events import Actor
from tests.http.http_helpers import Client, World, bearer
from tests.seeded import write_in_parts

DECISIONS = "".join(
    f"## Decision number {i}\nChose: option {i}.\nReason: {'because ' * 1000}\n\n"
    for i in range(12)
)


def entry(client: Client, world: World, entry_id: str, action: str, token: str = "") -> Any:
    return client.post(
        f"/api/v1/workbench/{world.alpha}/entries/{entry_id}/{action}",
        headers=bearer(token or world.person),
    )


def listed(client: Client, world: World) -> dict[str, Any]:
    response = client.get(f"/api/v1/workbench/{world.alpha}/entries", headers=bearer(world.person))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["project"] == world.alpha
    return {e["id"]: e for e in body["entries"]}


def test_entries_are_listed_with_their_history_and_pinned_as_the_user(
    client: Client, world: World
) -> None:
    world.service.write_file(
        world.alpha, "DECISIONS.md", b"## Use Postgres\nChose: PG.\n", actor=Actor.AGENT
    )
    pinned = entry(client, world, "use-postgres", "pin")
    assert pinned.status_code == 200, pinned.text
    assert "tag:pinned" in pinned.json()["content"]
    assert entry(client, world, "use-postgres", "pin").json()["events"] == []
    row = listed(client, world)["use-postgres"]
    assert {k: row[k] for k in ("file", "title", "text", "status", "pinned")} == {
        "file": "decisions",
        "title": "Use Postgres",
        "text": "## Use Postgres\nChose: PG.",
        "status": "live",
        "pinned": True,
    }
    assert [(h["type"], h["actor"]) for h in row["history"]] == [
        ("entry.created", "agent"),
        ("entry.pinned", "user"),
    ]
    assert entry(client, world, "use-postgres", "unpin").status_code == 200
    assert listed(client, world)["use-postgres"]["pinned"] is False


def test_restore_brings_back_an_archived_entry(client: Client, world: World) -> None:
    service, decisions = world.service, DECISIONS.encode()
    write_in_parts(service, world.alpha, "DECISIONS.md", decisions, 2, actor=Actor.AGENT)
    report = world.service.session_end(world.alpha)
    archived = [e.stream.split(":")[1] for e in report.events if e.type == "entry.archived"]
    assert archived
    assert listed(client, world)[archived[0]]["status"] == "archived"
    restored = entry(client, world, archived[0], "restore")
    assert restored.status_code == 200, restored.text
    assert listed(client, world)[archived[0]]["status"] == "live"
    assert listed(client, world)[archived[0]]["history"][-1]["actor"] == "user"


def test_unknown_entry_is_404_and_a_refused_action_is_409(client: Client, world: World) -> None:
    unknown = entry(client, world, "nope", "pin")
    assert (unknown.status_code, unknown.json()["type"]) == (404, "/problems/unknown-entry")
    world.service.write_file(
        world.alpha, "DECISIONS.md", b"## Keep\nx\n\n## Go away\ny\n", actor=Actor.AGENT
    )
    world.service.write_file(
        world.alpha, "DECISIONS.md", b"## Keep\nx\n", actor=Actor.AGENT, remove=("go-away",)
    )
    refused = entry(client, world, "go-away", "pin")
    assert (refused.status_code, refused.json()) == (
        409,
        {
            "type": "/problems/refused",
            "title": "Refused by the rules",
            "status": 409,
            "detail": "entry 'go-away' is retired: restore it before pinning or unpinning",
        },
    )
    assert entry(client, world, "go-away", "pin", world.agent).status_code == 403


def test_the_overview_lists_done_dropped_and_on_request_recently_closed(
    client: Client, world: World
) -> None:
    service = world.service
    for text in ("Agent closes this", "I close this", "I drop this"):
        service.ask_open(world.alpha, text, actor=Actor.AGENT)
    ids = {a.text: a.id for a in service.asks(world.alpha)}
    service.ask_close(world.alpha, ids["Agent closes this"], "done", '"yes"', actor=Actor.AGENT)
    service.ask_close(world.alpha, ids["I close this"], "done", actor=Actor.USER)
    service.ask_close(world.alpha, ids["I drop this"], "dropped", "no", actor=Actor.USER)
    plain = client.get("/api/v1/workbench", headers=bearer(world.person)).json()
    assert "recently_closed" not in plain
    assert plain["asks"] == []
    assert {r["id"] for r in plain["done"]} == {ids["Agent closes this"], ids["I close this"]}
    assert [(r["id"], r["kind"], r["note"]) for r in plain["dropped"]] == [
        (ids["I drop this"], "dropped", "no")
    ]
    full = client.get(
        f"/api/v1/workbench?recently_closed=true&project={world.alpha}",
        headers=bearer(world.person),
    ).json()
    assert [p["project_id"] for p in full["projects"]] == [world.alpha]
    assert full["projects"][0]["today"] == "2026-09-19"
    assert [(r["id"], r["closed_by"]) for r in full["recently_closed"]] == [
        (ids["Agent closes this"], "agent")
    ]
    bound = world.credentials.create("workbench", [world.beta]).token
    lens = client.get(f"/api/v1/workbench?project={world.alpha}", headers=bearer(bound))
    assert (lens.status_code, lens.json()["type"]) == (404, "/problems/unknown-project")
