"""Every route end to end through the test client, and every error as exact problem details."""

from __future__ import annotations

from typing import Any

import pytest

from orbital.errors import StoreLocked, VersionConflict
from orbital.events.files import HandEditResolved
from orbital.service import Orbital
from tests.http.http_helpers import Client, World, asks_md, bearer, put_asks


def problem(slug: str, title: str, status: int, detail: str) -> dict[str, Any]:
    return {"type": f"/problems/{slug}", "title": title, "status": status, "detail": detail}


def person(client: Client, world: World, path: str, body: Any = None) -> Any:
    return client.post(
        f"/api/v1/workbench/{world.alpha}/asks{path}", json=body, headers=bearer(world.person)
    )


def test_history_lists_events_with_actor_session_and_summary(client: Client, world: World) -> None:
    put_asks(client, world, "- open Pick a venue\n", session="s-1")
    response = client.get(f"/api/v1/projects/{world.alpha}/history", headers=bearer(world.agent))
    assert response.status_code == 200
    body = response.json()
    assert body["project"] == world.alpha
    first, *rest = body["events"]
    assert first == {
        "position": 1,
        "recorded_at": "2026-09-19T09:30:00Z",
        "stream": "project",
        "type": "project.registered",
        "actor": "system",
        "session": None,
        "summary": f"project.registered: {world.alpha_root}",
        "data": {
            "type": "project.registered",
            "root": str(world.alpha_root),
            "timezone": "UTC",
            "name": "alpha",
        },
    }
    opened = next(e for e in rest if e["type"] == "ask.opened")
    assert (opened["actor"], opened["session"]) == ("agent", "s-1")
    assert opened["summary"].endswith(": Pick a venue")
    assert opened["stream"].startswith("ask:")


def test_history_filters_by_time_and_stream(client: Client, world: World) -> None:
    put_asks(client, world, "- open Pick a venue\n")
    base = f"/api/v1/projects/{world.alpha}/history"
    ask_id = world.service.asks(world.alpha)[0].id

    def streams(query: str) -> list[str]:
        response = client.get(base + query, headers=bearer(world.agent))
        assert response.status_code == 200, response.text
        return [e["stream"] for e in response.json()["events"]]

    assert streams(f"?stream=ask:{ask_id}") == [f"ask:{ask_id}"]
    assert streams("?since=2026-09-20") == []
    assert streams("?until=2026-09-18T23:59:59Z") == []
    assert "project" in streams("?since=2026-09-19&until=2026-09-19T09:30:00Z")
    bad = client.get(base + "?since=yesterday", headers=bearer(world.agent))
    assert (bad.status_code, bad.json()) == (
        400,
        problem(
            "invalid-input",
            "Invalid input",
            400,
            "'yesterday' is not an ISO 8601 date or time (e.g. 2026-11-01 or 2026-11-01T09:30:00Z)",
        ),
    )


def test_write_then_read_a_file_as_the_agent(client: Client, world: World) -> None:
    written = put_asks(client, world, "- open Pick a venue\n")
    assert written.status_code == 200
    body = written.json()
    ask_id = world.service.asks(world.alpha)[0].id
    assert body["content"].endswith(f"- open {ask_id} 2026-09-19 Pick a venue\n")
    assert [e["type"] for e in body["events"]] == ["ask.opened"]
    assert body["content"] == asks_md(world)
    read = client.get(f"/api/v1/projects/{world.alpha}/files/asks.md", headers=bearer(world.agent))
    assert read.status_code == 200
    assert read.json() == {"name": "ASKS.md", "content": body["content"]}


def test_a_refused_write_is_200_with_the_refusal_and_the_file_unchanged(
    client: Client, world: World
) -> None:
    put_asks(client, world, "- open Pick a venue\n")
    ask_id = world.service.asks(world.alpha)[0].id
    assert person(client, world, f"/{ask_id}/drop", {"reason": "not needed"}).status_code == 200
    before = asks_md(world)
    refused = put_asks(client, world, before + "- open pick a venue!\n")
    assert refused.status_code == 200
    body = refused.json()
    assert body["content"] == before == asks_md(world)
    assert any("dropped" in w for w in body["warnings"]), body["warnings"]
    assert not [e for e in body["events"] if e["type"] == "ask.opened"]


def test_the_person_opens_closes_drops_and_reopens_asks_as_the_user(
    client: Client, world: World
) -> None:
    opened = person(client, world, "", {"text": "Pick a venue", "due": "2026-10-01"})
    assert opened.status_code == 200, opened.text
    ask_id = world.service.asks(world.alpha)[0].id
    overview = client.get("/api/v1/workbench", headers=bearer(world.person)).json()
    assert overview["asks"] == [
        {
            "project_id": world.alpha,
            "id": ask_id,
            "text": "Pick a venue",
            "due": "2026-10-01",
            "created": "2026-09-19",
            "touched": "2026-09-19",
            "age_days": 0,
            "overdue": False,
            "days_late": 0,
        }
    ]
    assert (
        person(client, world, f"/{ask_id}/done", {"note": "booked", "by": "agent"}).json()[
            "events"
        ][0]["type"]
        == "ask.closed"
    )
    assert person(client, world, f"/{ask_id}/reopen").status_code == 200
    assert person(client, world, f"/{ask_id}/drop").status_code == 200
    again = person(client, world, f"/{ask_id}/drop", {"reason": "twice"})
    assert again.status_code == 200
    assert again.json()["events"] == []
    assert again.json()["warnings"] == [
        f"ASKS.md: [{ask_id}] is already dropped — nothing changed."
    ]
    lines = asks_md(world).splitlines()[-4:]
    assert lines == [
        f"- open {ask_id} 2026-09-19 due:2026-10-01 Pick a venue",
        f"- done {ask_id} 2026-09-19 by:user booked",
        f"- reopen {ask_id} 2026-09-19 by:user",
        f"- dropped {ask_id} 2026-09-19 by:user",
    ]


def test_unknown_ask_and_file_names(client: Client, world: World) -> None:
    unknown = person(client, world, "/zzzzzz/done")
    assert (unknown.status_code, unknown.json()) == (
        404,
        problem(
            "unknown-ask",
            "Unknown ask",
            404,
            "no ask with id 'zzzzzz'",
        ),
    )
    not_memory = client.get(
        f"/api/v1/projects/{world.alpha}/files/notes.md", headers=bearer(world.agent)
    )
    assert (not_memory.status_code, not_memory.json()) == (
        404,
        problem(
            "unknown-file",
            "Not a memory file",
            404,
            "'notes.md' is not a memory file; use one of PROJECT_STATE.md, DECISIONS.md, "
            "LESSONS.md, INDEX.md, ASKS.md, PROJECT_STATE_ARCHIVE.md, DECISIONS_ARCHIVE.md, "
            "LESSONS_ARCHIVE.md",
        ),
    )


NO_ROUTE = problem("not-found", "Not found", 404, "no such route; the API is described at /schema")


@pytest.mark.parametrize(
    ("name", "status", "detail"),
    [
        ("..%2F..%2Fetc%2Fpasswd", 404, None),
        ("%2Fetc%2Fpasswd", 404, None),
        (
            "..%5C..%5CASKS.md",
            400,
            "refused '..\\\\..\\\\ASKS.md': a memory file is named "
            "without a directory; nothing was written",
        ),
        (
            "%2E%2E",
            400,
            "refused '..': a memory file is named without a directory; nothing was written",
        ),
        (
            "ASKS.md%00",
            400,
            "refused 'ASKS.md\\x00': empty names and NUL bytes are not file "
            "names; nothing was written",
        ),
        ("%252E%252E%252Fx", 404, None),
    ],
)
def test_path_traversal_in_a_file_name_is_refused_and_touches_nothing(
    client: Client, world: World, name: str, status: int, detail: str | None
) -> None:
    outside = world.alpha_root / "secret.txt"
    outside.write_text("keep")
    before = sorted(p.name for p in (world.alpha_root / "orbital").iterdir())
    path = f"/api/v1/projects/{world.alpha}/files/{name}"
    for response in (
        client.get(path, headers=bearer(world.agent)),
        client.put(path, json={"content": "- open X\n"}, headers=bearer(world.agent)),
    ):
        assert response.status_code == status
        assert response.headers["content-type"] == "application/problem+json"
        if detail is None:
            assert response.json() == NO_ROUTE
        else:
            slug, title = (
                ("unsafe-path", "Unsafe file name")
                if status == 400
                else ("unknown-file", "Not a memory file")
            )
            assert response.json() == problem(slug, title, status, detail)
    assert outside.read_text() == "keep"
    assert sorted(p.name for p in (world.alpha_root / "orbital").iterdir()) == before


@pytest.mark.parametrize("project", ["..%2F..", "%2E%2E", "alpha%00", "..%252F"])
def test_path_traversal_in_a_project_name_is_404(
    client: Client, world: World, project: str
) -> None:
    response = client.get(f"/api/v1/projects/{project}/history", headers=bearer(world.agent))
    assert response.status_code == 404
    assert response.json()["type"] in {"/problems/unknown-project", "/problems/not-found"}


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (
            b'{"content": ',
            "the request body is not valid JSON (Input data was truncated); send a JSON object",
        ),
        (b"[1, 2]", "body: Expected `object`, got `array`"),
        (b'{"content": 3}', "body field `content`: Expected `str`, got `int`"),
        (b'{"session": "s"}', "body: Object missing required field `content`"),
        (
            b'{"content": "x", "session": 5}',
            "body field `session`: Expected `str | null`, got `int`",
        ),
    ],
)
def test_malformed_bodies_are_400_naming_the_field(
    client: Client, world: World, body: bytes, detail: str
) -> None:
    response = client.put(
        f"/api/v1/projects/{world.alpha}/files/ASKS.md",
        content=body,
        headers={**bearer(world.agent), "Content-Type": "application/json"},
    )
    assert (response.status_code, response.json()) == (
        400,
        problem("invalid-request", "Invalid request", 400, detail),
    )


def test_a_person_body_with_a_wrong_type_names_the_field(client: Client, world: World) -> None:
    response = person(client, world, "", {"text": "Pick", "due": 20261001})
    assert (response.status_code, response.json()) == (
        400,
        problem(
            "invalid-request",
            "Invalid request",
            400,
            "body field `due`: Expected `str | null`, got `int`",
        ),
    )


def test_an_oversized_body_is_413_and_changes_nothing(client: Client, world: World) -> None:
    before = asks_md(world)
    response = put_asks(client, world, "- open " + "x" * 70_000 + "\n")
    assert (response.status_code, response.json()) == (
        413,
        problem(
            "too-large",
            "Content too large",
            413,
            "the request body is over the server's limit; nothing was changed",
        ),
    )
    assert asks_md(world) == before


@pytest.mark.parametrize(
    ("error", "status", "slug", "title", "headers"),
    [
        (VersionConflict("ask:a1b2c3", 2, 3), 409, "conflict", "Changed meanwhile", {}),
        (
            StoreLocked("sqlite:///x.db", 5000),
            503,
            "store-locked",
            "Store busy",
            {"retry-after": "1"},
        ),
        (RuntimeError("/secret/path exploded"), 500, "internal-error", "Internal error", {}),
    ],
)
def test_service_failures_map_to_their_status(
    client: Client,
    world: World,
    monkeypatch: pytest.MonkeyPatch,
    error: Exception,
    status: int,
    slug: str,
    title: str,
    headers: dict[str, str],
) -> None:
    def failing(*_args: object, **_kwargs: object) -> None:
        raise error

    monkeypatch.setattr(Orbital, "write_file", failing)
    response = put_asks(client, world, "- open X\n")
    detail = (
        str(error)
        if status != 500
        else "an unexpected error; nothing more is known to the client, the server log has details"
    )
    assert (response.status_code, response.json()) == (status, problem(slug, title, status, detail))
    for name, value in headers.items():
        assert response.headers[name] == value


def test_an_unknown_route_and_method(client: Client) -> None:
    assert client.get("/api/v2/nothing").json() == NO_ROUTE
    wrong = client.delete("/health")
    assert (wrong.status_code, wrong.json()) == (
        405,
        problem(
            "method-not-allowed",
            "Method not allowed",
            405,
            "see /schema for the methods of each route",
        ),
    )


def test_session_end_runs_the_backstop(client: Client, world: World) -> None:
    response = client.post(
        f"/api/v1/projects/{world.alpha}/session-end", headers=bearer(world.agent)
    )
    assert response.status_code == 200, response.text
    report = response.json()
    assert set(report) == {"events", "over_by", "notes", "editor"}
    assert report["editor"] == ""  # no model configured in the tests
    assert report["events"] == []


def test_files_and_context_as_of_a_position(client: Client, world: World) -> None:
    put_asks(client, world, "- open Pick a venue\n")
    then = world.service.head(world.alpha)
    before = client.get(
        f"/api/v1/projects/{world.alpha}/files/asks.md", headers=bearer(world.agent)
    ).json()["content"]
    view_then = client.get(
        f"/api/v1/projects/{world.alpha}/context", headers=bearer(world.agent)
    ).json()
    put_asks(client, world, before + "- open Book the flights\n")
    old = client.get(
        f"/api/v1/projects/{world.alpha}/files/ASKS.md?as_of=@{then}",
        headers=bearer(world.agent),
    )
    assert old.status_code == 200
    assert old.json() == {"name": "ASKS.md", "content": before}
    old_view = client.get(
        f"/api/v1/projects/{world.alpha}/context?as_of=@{then}", headers=bearer(world.agent)
    )
    assert old_view.json() == view_then
    archive = client.get(
        f"/api/v1/projects/{world.alpha}/files/DECISIONS_ARCHIVE.md", headers=bearer(world.agent)
    )
    assert archive.json() == {"name": "DECISIONS_ARCHIVE.md", "content": ""}
    bad = client.get(
        f"/api/v1/projects/{world.alpha}/files/ASKS.md?as_of=@x", headers=bearer(world.agent)
    )
    assert (bad.status_code, bad.json()["detail"]) == (
        400,
        "'@x' is not a position: write @ and a number, e.g. @120",
    )


def test_history_of_one_ask(client: Client, world: World) -> None:
    put_asks(client, world, "- open Pick a venue\n- open Book the flights\n")
    first = world.service.asks(world.alpha)[0].id
    response = client.get(
        f"/api/v1/projects/{world.alpha}/history?ask={first}", headers=bearer(world.agent)
    )
    assert [e["stream"] for e in response.json()["events"]] == [f"ask:{first}"]


def test_a_conflict_copy_is_listed_and_settled_either_way(client: Client, world: World) -> None:
    service, project = world.service, world.alpha
    path = world.alpha_root / "orbital" / "DECISIONS.md"
    write = {"Authorization": f"Bearer {world.agent}"}
    base = "## Use Postgres\nChose: yes.\n"
    client.put(
        f"/api/v1/projects/{project}/files/DECISIONS.md", json={"content": base}, headers=write
    )
    opened = path.read_text()
    client.put(
        f"/api/v1/projects/{project}/files/DECISIONS.md",
        json={"content": base.replace("yes.", "yes, v16.")},
        headers=write,
    )
    mine = opened.replace("yes.", "yes, managed.")
    path.write_text(mine)
    service.sync(project)
    listed = client.get(f"/api/v1/workbench/{project}/conflicts", headers=bearer(world.person))
    (conflict,) = listed.json()["conflicts"]
    assert conflict["file"] == "DECISIONS.md"
    copy = conflict["copy"]
    settled = client.post(
        f"/api/v1/workbench/{project}/conflicts/{copy}/resolve",
        json={"keep": "mine"},
        headers=bearer(world.person),
    )
    assert settled.status_code == 200, settled.text
    assert "Chose: yes, managed." in path.read_text()
    assert not (world.alpha_root / "orbital" / copy).exists()
    revised = [e for e in service.history(project) if e.type == "entry.revised"]
    assert revised[-1].actor.value == "user"
    again = client.post(
        f"/api/v1/workbench/{project}/conflicts/{copy}/resolve",
        json={"keep": "orbital"},
        headers=bearer(world.person),
    )
    assert again.status_code == 409
    assert client.get(
        f"/api/v1/workbench/{project}/conflicts", headers=bearer(world.person)
    ).json() == {"project": project, "conflicts": []}


def test_keeping_orbitals_text_records_the_persons_in_the_event(
    client: Client, world: World
) -> None:
    service, project = world.service, world.alpha
    path = world.alpha_root / "orbital" / "DECISIONS.md"
    write = {"Authorization": f"Bearer {world.agent}"}
    client.put(
        f"/api/v1/projects/{project}/files/DECISIONS.md",
        json={"content": "## A\nx\n"},
        headers=write,
    )
    opened = path.read_text()
    client.put(
        f"/api/v1/projects/{project}/files/DECISIONS.md",
        json={"content": "## A\ny\n"},
        headers=write,
    )
    mine = opened.replace("\nx\n", "\nz\n")
    path.write_text(mine)
    (copy,) = service.sync(project).conflicts
    projected = path.read_bytes()
    response = client.post(
        f"/api/v1/workbench/{project}/conflicts/{copy}/resolve",
        json={"keep": "orbital"},
        headers=bearer(world.person),
    )
    assert response.status_code == 200
    assert path.read_bytes() == projected
    resolved = [e for e in service.history(project) if e.type == "file.hand_edit_resolved"]
    assert isinstance(resolved[-1].event, HandEditResolved)
    assert resolved[-1].event.text == mine
    assert resolved[-1].actor.value == "user"
