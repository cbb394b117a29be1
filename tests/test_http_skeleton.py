from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar.testing import TestClient

from orbital.http import create_app
from orbital.service import Orbital


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:  # type: ignore[type-arg]
    service = Orbital.open(f"sqlite:///{tmp_path / 'store.db'}")
    service.init_project(tmp_path)
    with TestClient(create_app(service)) as test_client:
        yield test_client


def test_health_reports_the_store(client: TestClient) -> None:  # type: ignore[type-arg]
    response = client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "version": "0.1.0", "backend": "sqlite", "head": 1}


def test_openapi_is_served_at_schema(client: TestClient) -> None:  # type: ignore[type-arg]
    spec = client.get("/schema/openapi.json")
    assert spec.status_code == 200
    assert spec.json()["info"]["title"] == "Orbital"
    assert "/health" in spec.json()["paths"]
    assert client.get("/schema").status_code == 200
