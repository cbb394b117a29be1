"""The person's trust routes (dispute, retract, reaffirm) and the beliefs listing (JSON API)."""

from __future__ import annotations

from typing import Any

from orbital.events import Actor
from tests.http.http_helpers import Client, World, bearer


def act(client: Client, world: World, entry_id: str, action: str, body: Any, token: str) -> Any:
    return client.post(
        f"/api/v1/workbench/{world.alpha}/entries/{entry_id}/{action}",
        headers=bearer(token),
        json=body,
    )


def test_the_person_disputes_retracts_and_reaffirms_over_http(client: Client, world: World) -> None:
    world.service.write_file(
        world.alpha, "DECISIONS.md", b"## Ship on Fridays\nChose: yes.\n", actor=Actor.AGENT
    )
    disputed = act(client, world, "ship-on-fridays", "dispute", {"reason": "outages"}, world.person)
    assert disputed.status_code == 200, disputed.text
    assert [e["type"] for e in disputed.json()["events"]] == ["entry.disputed"]
    listed = client.get(
        f"/api/v1/workbench/{world.alpha}/beliefs", headers=bearer(world.person)
    ).json()
    assert [(e["id"], e["state"], e["reason"]) for e in listed["entries"]] == [
        ("ship-on-fridays", "disputed", "outages")
    ]
    retracted = act(client, world, "ship-on-fridays", "retract", {}, world.person)
    assert [e["type"] for e in retracted.json()["events"]] == ["entry.retracted", "entry.archived"]
    assert "retracted by the person" in retracted.json()["content"]
    reaffirmed = act(client, world, "ship-on-fridays", "reaffirm", {}, world.person)
    assert [e["type"] for e in reaffirmed.json()["events"]] == [
        "entry.reaffirmed",
        "entry.restored",
    ]
    held = client.get(
        f"/api/v1/workbench/{world.alpha}/beliefs?state=held", headers=bearer(world.person)
    ).json()
    assert [e["id"] for e in held["entries"]] == ["ship-on-fridays"]


def test_a_dispute_needs_a_reason_and_an_agent_token_is_refused(
    client: Client, world: World
) -> None:
    world.service.write_file(
        world.alpha, "DECISIONS.md", b"## Ship on Fridays\nChose: yes.\n", actor=Actor.AGENT
    )
    before = (world.alpha_root / "orbital" / "DECISIONS.md").read_bytes()
    head = world.service.head(world.alpha)
    empty = act(client, world, "ship-on-fridays", "dispute", {"reason": " "}, world.person)
    assert empty.status_code == 400
    # The document requires a reason with a non-blank character, so the request is refused
    # as the document says, before the service.
    assert empty.json()["detail"] == "body field `reason`: Expected `str` matching regex '\\\\S'"
    agent = act(client, world, "ship-on-fridays", "retract", {}, world.agent)
    assert agent.status_code == 403
    assert (world.alpha_root / "orbital" / "DECISIONS.md").read_bytes() == before
    assert world.service.head(world.alpha) == head


def test_an_empty_state_filter_lists_every_state(client: Client, world: World) -> None:
    world.service.write_file(
        world.alpha, "DECISIONS.md", b"## Ship on Fridays\nChose: yes.\n", actor=Actor.AGENT
    )
    url = f"/api/v1/workbench/{world.alpha}/beliefs"
    every = client.get(url, headers=bearer(world.person))
    empty = client.get(f"{url}?state=", headers=bearer(world.person))
    assert empty.status_code == 200, empty.text
    assert empty.json() == every.json()
    assert [e["id"] for e in empty.json()["entries"]] == ["ship-on-fridays"]


def test_retract_and_reaffirm_without_a_body_are_refused_as_the_schema_says(
    client: Client, world: World
) -> None:
    world.service.write_file(
        world.alpha, "DECISIONS.md", b"## Ship on Fridays\nChose: yes.\n", actor=Actor.AGENT
    )
    schema = client.get("/schema/openapi.json").json()["paths"]
    before = (world.alpha_root / "orbital" / "DECISIONS.md").read_bytes()
    head = world.service.head(world.alpha)
    for action in ("retract", "reaffirm"):
        path = f"/api/v1/workbench/{{project}}/entries/{{entry_id}}/{action}"
        assert schema[path]["post"]["requestBody"]["required"] is True
        refused = client.post(
            f"/api/v1/workbench/{world.alpha}/entries/ship-on-fridays/{action}",
            headers=bearer(world.person),
        )
        assert refused.status_code == 400, refused.text
        assert refused.json()["detail"] == "a JSON body is required (an object: `{}` at least)"
    assert (world.alpha_root / "orbital" / "DECISIONS.md").read_bytes() == before
    assert world.service.head(world.alpha) == head
