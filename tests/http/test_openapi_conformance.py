"""What generated requests found (issue 12 item 11): the OpenAPI document said less than the
handlers check, a body the handlers do not need was declared required, OPTIONS left out PUT,
and as-of values at the ends of the calendar or the positions were 500s."""

from __future__ import annotations

from typing import Any

import pytest

from orbital.events import Actor
from tests.http.http_helpers import Client, World, bearer

FILES = "/api/v1/projects/{project}/files/{name}"


def _parameter(spec: dict[str, Any], path: str, method: str, name: str) -> dict[str, Any]:
    params = spec["paths"][path][method]["parameters"]
    found: dict[str, Any] = next(p for p in params if p["name"] == name)
    return found


def test_the_document_states_the_limits_the_handlers_check(client: Client) -> None:
    spec = client.get("/schema/openapi.json").json()
    window = _parameter(spec, "/api/v1/projects/{project}/context", "get", "window")
    assert window["schema"]["minimum"] == 1
    entries = "/api/v1/workbench/{project}/entries"
    assert _parameter(spec, entries, "get", "limit")["schema"]["minimum"] == 1
    assert _parameter(spec, entries, "get", "limit")["schema"]["maximum"] == 200
    assert _parameter(spec, entries, "get", "offset")["schema"]["minimum"] == 0
    assert _parameter(spec, entries, "get", "status")["schema"]["enum"] == [
        "all",
        "live",
        "not-live",
        "archived",
        "merged",
        "retired",
    ]
    assert _parameter(spec, FILES, "put", "name")["schema"]["enum"] == [
        "PROJECT_STATE.md",
        "DECISIONS.md",
        "LESSONS.md",
        "INDEX.md",
        "ASKS.md",
    ]
    ask = spec["components"]["schemas"]["AskOpen"]["properties"]
    assert ask["text"]["pattern"] == r"\S"


@pytest.mark.parametrize("action", ["done", "drop"])
def test_a_close_without_a_body_is_declared_and_accepted(
    client: Client, world: World, action: str
) -> None:
    path = f"/api/v1/workbench/{{project}}/asks/{{ask_id}}/{action}"
    spec = client.get("/schema/openapi.json").json()
    assert spec["paths"][path]["post"]["requestBody"]["required"] is False
    outcome = world.service.ask_open(world.alpha, "Pick a venue", actor=Actor.USER)
    ask_id = outcome.events[0].stream.split(":")[1]
    response = client.post(
        f"/api/v1/workbench/{world.alpha}/asks/{ask_id}/{action}", headers=bearer(world.person)
    )
    assert response.status_code == 200
    assert [a.state for a in world.service.asks(world.alpha, "all")] == [
        "done" if action == "done" else "dropped"
    ]


def test_options_on_a_memory_file_names_every_method(client: Client, world: World) -> None:
    response = client.options(
        f"/api/v1/projects/{world.alpha}/files/DECISIONS.md", headers=bearer(world.agent)
    )
    assert response.status_code == 204
    assert response.headers["allow"] == "GET, OPTIONS, PUT"


@pytest.mark.parametrize(
    ("as_of", "status", "detail"),
    [
        ("", 200, None),
        ("9999-12-31", 200, None),
        ("0001-01-01", 200, None),
        (
            "0001-01-01T00:00:00+14:00",
            400,
            "'0001-01-01T00:00:00+14:00' is out of range once taken to UTC",
        ),
        (
            "@9223372036854775808",
            400,
            "'@9223372036854775808' is not a position: positions end at @9223372036854775807",
        ),
    ],
)
def test_as_of_at_the_ends_of_the_range_is_an_answer_not_a_500(
    client: Client, world: World, as_of: str, status: int, detail: str | None
) -> None:
    response = client.get(
        f"/api/v1/projects/{world.alpha}/files/ASKS.md",
        params={"as_of": as_of},
        headers=bearer(world.agent),
    )
    assert response.status_code == status
    if detail is not None:
        assert response.json()["detail"] == detail
