"""Health and the OpenAPI document (no credential needed for either)."""

from __future__ import annotations

from tests.http.http_helpers import Client, World


def test_health_reports_the_store(client: Client, world: World, backend: str) -> None:
    response = client.get("/health")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "version": "0.1.0",
        "backend": backend,
        "head": 2,
        "database": world.service.store_status().database,
        "detail": "",
    }


def test_openapi_is_served_at_schema_with_every_route_and_bearer_auth(
    client: Client,
) -> None:
    spec = client.get("/schema/openapi.json")
    assert spec.status_code == 200
    body = spec.json()
    assert body["info"]["title"] == "Orbital"
    assert set(body["paths"]) == {
        "/health",
        "/api/v1/projects/{project}/context",
        "/api/v1/projects/{project}/history",
        "/api/v1/projects/{project}/session-end",
        "/api/v1/projects/{project}/files/{name}",
        "/api/v1/projects/{project}/asks",
        "/api/v1/projects/{project}/texts",
        "/api/v1/calendar/{project}/feed.ics",
        "/api/v1/projects/{project}/search",
        "/api/v1/projects/{project}/workspace/lessons",
        "/api/v1/workbench",
        "/api/v1/workbench/{project}/asks",
        "/api/v1/workbench/{project}/asks/{ask_id}/done",
        "/api/v1/workbench/{project}/asks/{ask_id}/drop",
        "/api/v1/workbench/{project}/asks/{ask_id}/reopen",
        "/api/v1/workbench/{project}/asks/{ask_id}/confirm-reopen",
        "/api/v1/workbench/{project}/asks/{ask_id}/decline-reopen",
        "/api/v1/workbench/{project}/entries",
        "/api/v1/workbench/{project}/entries/{entry_id}/pin",
        "/api/v1/workbench/{project}/entries/{entry_id}/unpin",
        "/api/v1/workbench/{project}/entries/{entry_id}/restore",
        "/api/v1/workbench/{project}/entries/{entry_id}/dispute",
        "/api/v1/workbench/{project}/entries/{entry_id}/retract",
        "/api/v1/workbench/{project}/entries/{entry_id}/reaffirm",
        "/api/v1/workbench/{project}/beliefs",
        "/api/v1/workbench/{project}/revert",
        "/api/v1/workbench/{project}/conflicts",
        "/api/v1/workbench/{project}/conflicts/{copy}/preview",
        "/api/v1/workbench/{project}/conflicts/{copy}/resolve",
        "/api/v1/workbench/{project}/purge",
        "/api/v1/workbench/{project}/texts",
        "/api/v1/workbench/{project}/description",
        "/api/v1/workbench/{project}/workspace/context",
    }
    assert body["components"]["securitySchemes"]["BearerToken"]["scheme"] == "bearer"
    put = body["paths"]["/api/v1/projects/{project}/files/{name}"]["put"]
    assert put["security"] == [{"BearerToken": []}]
    assert put["responses"]["413"]["content"] == {
        "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}
    }
    assert client.get("/schema").status_code == 200
