"""Who may call what: bearer tokens, audiences, project reach, and the localhost guard."""

from __future__ import annotations

from typing import Any

import pytest

from tests.http.http_helpers import Client, World, asks_md, bearer

UNAUTHORIZED = {
    "type": "/problems/unauthorized",
    "title": "Credentials needed",
    "status": 401,
    "detail": "this route needs `Authorization: Bearer <token>`; "
    "create a token with `orbital token create --audience agent|workbench`",
}
UNKNOWN_TOKEN = {
    "type": "/problems/unauthorized",
    "title": "Credentials needed",
    "status": 401,
    "detail": "the bearer token is unknown or revoked; "
    "create a new one with `orbital token create`",
}
AGENT_ON_PERSON_ROUTE = {
    "type": "/problems/forbidden",
    "title": "Forbidden",
    "status": 403,
    "detail": "this route is for workbench tokens; "
    "an agent token opens only the agent API (/api/v1/projects/…) and /mcp",
}
PERSON_ON_AGENT_ROUTE = {
    "type": "/problems/forbidden",
    "title": "Forbidden",
    "status": 403,
    "detail": "this route is for agent tokens; "
    "a workbench token opens only the Workbench (/api/v1/workbench…)",
}


def unknown_project(name: str) -> dict[str, Any]:
    return {
        "type": "/problems/unknown-project",
        "title": "Unknown project",
        "status": 404,
        "detail": f"unknown project {name!r}",
    }


def agent_routes(project: str) -> list[tuple[str, str, dict[str, Any] | None]]:
    base = f"/api/v1/projects/{project}"
    return [
        ("GET", f"{base}/context", None),
        ("GET", f"{base}/history", None),
        ("POST", f"{base}/session-end", None),
        ("GET", f"{base}/files/ASKS.md", None),
        ("PUT", f"{base}/files/ASKS.md", {"content": "- open Something\n"}),
    ]


def person_routes(project: str) -> list[tuple[str, str, dict[str, Any] | None]]:
    base = f"/api/v1/workbench/{project}/asks"
    return [
        ("POST", base, {"text": "Pick a venue"}),
        ("POST", f"{base}/a1b2c3/done", None),
        ("POST", f"{base}/a1b2c3/drop", {"reason": "no"}),
        ("POST", f"{base}/a1b2c3/reopen", None),
        ("GET", f"/api/v1/workbench/{project}/entries", None),
        *(
            ("POST", f"/api/v1/workbench/{project}/entries/use-postgres/{action}", None)
            for action in ("pin", "unpin", "restore")
        ),
    ]


def every_route(project: str) -> list[tuple[str, str, dict[str, Any] | None]]:
    return [*agent_routes(project), ("GET", "/api/v1/workbench", None), *person_routes(project)]


def call(
    client: Client, method: str, path: str, body: dict[str, Any] | None, **headers: str
) -> Any:
    return client.request(method, path, json=body, headers=headers)


def test_every_route_without_a_token_is_401_with_a_bearer_challenge(
    client: Client, world: World
) -> None:
    for method, path, body in every_route(world.alpha):
        response = call(client, method, path, body)
        assert response.status_code == 401, path
        assert response.headers["content-type"] == "application/problem+json"
        assert response.headers["www-authenticate"] == 'Bearer realm="orbital"'
        assert response.json() == UNAUTHORIZED
        wrong_scheme = call(client, method, path, body, Authorization=f"Basic {world.agent}")
        assert wrong_scheme.json() == UNAUTHORIZED


def test_unknown_and_revoked_tokens_are_401(client: Client, world: World) -> None:
    forged = call(
        client,
        "GET",
        f"/api/v1/projects/{world.alpha}/history",
        None,
        **bearer("orbital_000000000000_" + "x" * 43),
    )
    assert (forged.status_code, forged.json()) == (401, UNKNOWN_TOKEN)
    path = f"/api/v1/projects/{world.alpha}/history"
    assert client.get(path, headers=bearer(world.agent)).status_code == 200
    world.credentials.revoke(world.agent.split("_")[1])
    revoked = client.get(path, headers=bearer(world.agent))
    assert (revoked.status_code, revoked.json()) == (401, UNKNOWN_TOKEN)


def test_an_agent_token_on_a_person_route_is_403(client: Client, world: World) -> None:
    for method, path, body in [("GET", "/api/v1/workbench", None), *person_routes(world.alpha)]:
        response = call(client, method, path, body, **bearer(world.agent))
        assert (response.status_code, response.json()) == (403, AGENT_ON_PERSON_ROUTE), path
    assert "Pick a venue" not in asks_md(world)


def test_a_person_token_on_an_agent_route_is_403(client: Client, world: World) -> None:
    for method, path, body in agent_routes(world.alpha):
        response = call(client, method, path, body, **bearer(world.person))
        assert (response.status_code, response.json()) == (403, PERSON_ON_AGENT_ROUTE), path


def test_a_project_out_of_reach_is_404_exactly_like_an_unknown_one(
    client: Client, world: World
) -> None:
    for project in (world.beta, "nope"):
        for method, path, body in agent_routes(project):
            response = call(client, method, path, body, **bearer(world.agent))
            assert (response.status_code, response.json()) == (404, unknown_project(project))
    bound = world.credentials.create("workbench", [world.beta]).token
    for method, path, body in person_routes(world.alpha):
        response = call(client, method, path, body, **bearer(bound))
        assert (response.status_code, response.json()) == (404, unknown_project(world.alpha))
    overview = client.get("/api/v1/workbench", headers=bearer(bound)).json()
    assert [p["project_id"] for p in overview["projects"]] == [world.beta]


def test_the_credential_and_the_project_are_checked_before_the_parameters(
    client: Client, world: World
) -> None:
    """A request that is both unauthorized and malformed is answered as unauthorized."""
    query = "/context?window=0&audience=person"
    alpha, beta = (f"/api/v1/projects/{p}{query}" for p in (world.alpha, world.beta))
    for path, headers, status, problem in [
        (alpha, {}, 401, UNAUTHORIZED),
        (alpha, bearer(world.person), 403, PERSON_ON_AGENT_ROUTE),
        (beta, bearer(world.agent), 404, unknown_project(world.beta)),
    ]:
        response = client.get(path, headers=headers)
        assert (response.status_code, response.json()) == (status, problem), path
    malformed = client.get(alpha, headers=bearer(world.agent))
    assert malformed.status_code == 400
    assert malformed.json()["type"] == "/problems/invalid-request"


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8765", "127.0.0.1:9999", "localhost", "127.0.0.1"]
)
def test_a_foreign_host_is_403_on_every_route(client: Client, world: World, host: str) -> None:
    unrouted = [("GET", "/no/such/path", None), ("POST", "/no/such/path", None)]
    pages = [("GET", "/workbench", None), ("GET", "/problems/forbidden", None)]
    for method, path, body in [
        ("GET", "/health", None),
        *every_route(world.alpha),
        *unrouted,
        *pages,
    ]:
        response = call(client, method, path, body, Host=host, **bearer(world.agent))
        assert response.status_code == 403, (host, path)
        assert response.json() == {
            "type": "/problems/forbidden",
            "title": "Forbidden",
            "status": 403,
            "detail": f"requests addressed to host {host!r} are refused; this server answers "
            "only as 127.0.0.1:8765, [::1]:8765, localhost:8765",
        }


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "LOCALHOST:8765", "[::1]:8765"])
def test_the_loopback_hosts_are_allowed(client: Client, host: str) -> None:
    assert client.get("/health", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize(
    ("headers", "detail"),
    [
        (
            {"Origin": "http://evil.example"},
            "requests from origin 'http://evil.example' may not change anything here; "
            "only this server's own pages may",
        ),
        (
            {"Origin": "null"},
            "requests from origin 'null' may not change anything here; "
            "only this server's own pages may",
        ),
        (
            {"Origin": "http://127.0.0.1:8765", "Sec-Fetch-Site": "cross-site"},
            "a cross-site request may not change anything here; "
            "use the Workbench page itself or a client that is not a browser",
        ),
        (
            {"Sec-Fetch-Site": "same-site"},
            "a same-site request may not change anything here; "
            "use the Workbench page itself or a client that is not a browser",
        ),
    ],
)
def test_cross_site_writes_are_403_and_change_nothing(
    client: Client, world: World, headers: dict[str, str], detail: str
) -> None:
    before = asks_md(world)
    opened = call(
        client,
        "POST",
        f"/api/v1/workbench/{world.alpha}/asks",
        {"text": "Pick a venue"},
        **headers,
        **bearer(world.person),
    )
    assert opened.status_code == 403
    assert opened.json() == {
        "type": "/problems/forbidden",
        "title": "Forbidden",
        "status": 403,
        "detail": detail,
    }
    written = call(
        client,
        "PUT",
        f"/api/v1/projects/{world.alpha}/files/ASKS.md",
        {"content": before + "- open Pick a venue\n"},
        **headers,
        **bearer(world.agent),
    )
    assert written.status_code == 403
    assert asks_md(world) == before


def test_same_origin_writes_and_cross_site_reads_pass(client: Client, world: World) -> None:
    opened = call(
        client,
        "POST",
        f"/api/v1/workbench/{world.alpha}/asks",
        {"text": "Pick a venue"},
        Origin="http://localhost:8765",
        **{"Sec-Fetch-Site": "same-origin"},
        **bearer(world.person),
    )
    assert opened.status_code == 200
    read = call(
        client,
        "GET",
        "/api/v1/workbench",
        None,
        Origin="http://evil.example",
        **{"Sec-Fetch-Site": "cross-site"},
        **bearer(world.person),
    )
    assert read.status_code == 200
    assert "access-control-allow-origin" not in read.headers


def test_no_cors_preflight_is_granted(client: Client, world: World) -> None:
    preflight = client.options(
        f"/api/v1/workbench/{world.alpha}/asks",
        headers={
            "Origin": "http://evil.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type",
        },
    )
    assert not any(h.startswith("access-control-") for h in preflight.headers)


def test_the_body_cannot_choose_the_actor(client: Client, world: World) -> None:
    asks = asks_md(world)
    written = call(
        client,
        "PUT",
        f"/api/v1/projects/{world.alpha}/files/ASKS.md",
        {"content": asks + "- open Pick a venue\n", "actor": "user", "by": "user"},
        **bearer(world.agent),
    )
    assert written.status_code == 200, written.text
    ask_id = world.service.asks(world.alpha)[0].id
    forged = asks + f"- open {ask_id} 2026-09-19 Pick a venue\n- done {ask_id} 2026-09-19 by:user\n"
    closed = call(
        client,
        "PUT",
        f"/api/v1/projects/{world.alpha}/files/ASKS.md",
        {"content": forged, "actor": "user"},
        **bearer(world.agent),
    )
    assert closed.status_code == 200
    history = client.get(
        f"/api/v1/projects/{world.alpha}/history?stream=ask:{ask_id}", headers=bearer(world.agent)
    ).json()["events"]
    assert {e["actor"] for e in history} == {"agent"}
    assert "by:user" not in closed.json()["content"]
