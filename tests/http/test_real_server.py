"""The app under uvicorn on a real loopback socket, driven by httpx."""

from __future__ import annotations

import httpx

from tests.http.http_helpers import World, asks_md, bearer


def test_a_real_server_round_trip(server: str, world: World) -> None:
    with httpx.Client(base_url=server, timeout=10) as http:
        assert http.get("/health").json()["status"] == "ok"
        opened = http.post(
            f"/api/v1/workbench/{world.alpha}/asks",
            json={"text": "Pick a venue"},
            headers=bearer(world.person),
        )
        assert opened.status_code == 200, opened.text
        ask_id = world.service.asks(world.alpha)[0].id
        done = http.post(
            f"/api/v1/workbench/{world.alpha}/asks/{ask_id}/done", headers=bearer(world.person)
        )
        assert done.status_code == 200
        assert asks_md(world).splitlines()[-1] == f"- done {ask_id} 2026-09-19 by:user"
        history = http.get(
            f"/api/v1/projects/{world.alpha}/history", headers=bearer(world.agent)
        ).json()
        assert [e["actor"] for e in history["events"]][-2:] == ["user", "user"]
        denied = http.get(f"/api/v1/projects/{world.beta}/history", headers=bearer(world.agent))
        assert denied.status_code == 404
        assert denied.headers["content-type"] == "application/problem+json"


def test_a_real_server_refuses_a_rebound_host_name(server: str) -> None:
    with httpx.Client(base_url=server, timeout=10) as http:
        response = http.get("/health", headers={"Host": "attacker.example:8765"})
    assert response.status_code == 403
    assert response.json()["type"] == "/problems/forbidden"
