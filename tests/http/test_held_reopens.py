"""The person's word over HTTP (issue 28): an agent's whole-file ASKS.md write reopening an
ask the person dropped, with words nothing ties to its session, is held for the person; the
Workbench API lists it and the person confirms or declines it; agent closes carry their quote
mark in the overview."""

from __future__ import annotations

from typing import Any

from tests.http.http_helpers import Client, World, asks_md, bearer, put_asks


def person(client: Client, world: World, path: str, body: Any = None) -> Any:
    return client.post(
        f"/api/v1/workbench/{world.alpha}/asks{path}", json=body, headers=bearer(world.person)
    )


def held(ask_id: str) -> str:
    return (
        f"ASKS.md: [{ask_id}] was dropped by the user on 2026-09-19 — not reopened: nothing "
        "ties your quote to your own session's transcript, so the reopen is held as a proposal "
        "and now waits on the user, who confirms or declines it in the Workbench. Treat the ask "
        "as dropped until then."
    )


def test_an_agents_reopen_of_the_persons_drop_waits_for_confirm_or_decline(
    client: Client, world: World
) -> None:
    put_asks(client, world, "- open Pick a venue\n- open Print the flyers\n")
    ids = {a.text: a.id for a in world.service.asks(world.alpha)}
    venue, flyers = ids["Pick a venue"], ids["Print the flyers"]
    for ask_id in (venue, flyers):
        assert person(client, world, f"/{ask_id}/drop", {"reason": "not needed"}).status_code == 200
    before = asks_md(world)
    lines = f'- reopen {venue} "please reopen it"\n- reopen {flyers} "we need flyers"\n'
    written = put_asks(client, world, before + lines, session="s-1")
    assert written.status_code == 200, written.text
    body = written.json()
    assert body["content"] == before == asks_md(world)
    assert [w for w in body["warnings"] if "held as a proposal" in w] == [held(venue), held(flyers)]
    assert [e["type"] for e in body["events"]] == ["ask.reopen_proposed"] * 2

    overview = client.get("/api/v1/workbench", headers=bearer(world.person)).json()
    assert overview["proposed_reopens"] == [
        {
            "project_id": world.alpha,
            "id": venue,
            "text": "Pick a venue",
            "dropped": "2026-09-19",
            "reason": "not needed",
            "words": '"please reopen it"',
        },
        {
            "project_id": world.alpha,
            "id": flyers,
            "text": "Print the flyers",
            "dropped": "2026-09-19",
            "reason": "not needed",
            "words": '"we need flyers"',
        },
    ]
    agent = client.post(
        f"/api/v1/workbench/{world.alpha}/asks/{venue}/confirm-reopen",
        headers=bearer(world.agent),
    )
    assert agent.status_code in (401, 403)
    confirmed = person(client, world, f"/{venue}/confirm-reopen")
    assert confirmed.status_code == 200, confirmed.text
    declined = person(client, world, f"/{flyers}/decline-reopen", {"reason": "I never said so"})
    assert declined.status_code == 200, declined.text
    assert [e["type"] for e in declined.json()["events"]] == ["ask.reopen_declined"]
    nothing = person(client, world, f"/{flyers}/confirm-reopen")
    assert nothing.status_code == 409
    assert "has no reopen waiting on you" in nothing.text
    assert asks_md(world).endswith(f'- reopen {venue} 2026-09-19 by:user "please reopen it"\n')
    states = {a.id: (a.state, a.proposal) for a in world.service.asks(world.alpha, "all")}
    assert states == {venue: ("open", None), flyers: ("dropped", None)}


def test_the_overview_marks_each_agent_close(client: Client, world: World) -> None:
    put_asks(client, world, "- open Send the deck\n- open Send the logo\n")
    ids = {a.text: a.id for a in world.service.asks(world.alpha)}
    deck, logo = ids["Send the deck"], ids["Send the logo"]
    text = asks_md(world) + f'- done {deck} "sent it"\n- done {logo}\n'
    assert put_asks(client, world, text).status_code == 200
    overview = client.get(
        "/api/v1/workbench?recently_closed=true", headers=bearer(world.person)
    ).json()
    marks = {row["id"]: (row["closed_by"], row["quote"]) for row in overview["recently_closed"]}
    assert marks == {deck: ("agent", "unverified"), logo: ("agent", "no quote")}
