"""A service on a fresh store (each backend) with two projects, tokens of each kind, and a client
addressed as a loopback browser would address the default server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar.testing import TestClient

from orbital.clock import FixedClock
from orbital.http import HttpSettings, create_app, loopback_hosts
from orbital.service import Orbital
from tests.http.http_helpers import BASE_URL, Client, World, free_port, live_server


@pytest.fixture
def world(store_url: str, tmp_path: Path, clock: FixedClock) -> Iterator[World]:
    service = Orbital.open(store_url, clock=clock)
    alpha_root, beta_root = tmp_path / "alpha", tmp_path / "beta"
    alpha_root.mkdir()
    beta_root.mkdir()
    alpha = service.init_project(alpha_root, timezone="UTC").project_id
    beta = service.init_project(beta_root, timezone="UTC").project_id
    credentials = service.credentials
    agent = credentials.create("agent", [alpha], label="alpha agent").token
    person = credentials.create("workbench", label="me").token
    yield World(service, credentials, alpha, beta, alpha_root, agent, person)
    service.close()


@pytest.fixture
def client(world: World) -> Iterator[Client]:
    app = create_app(world.service, HttpSettings(max_body_bytes=64 * 1024))
    with TestClient(app, base_url=BASE_URL) as test_client:
        yield test_client


@pytest.fixture
def server(world: World) -> Iterator[str]:
    """A real uvicorn server on a free loopback port; yields its base URL."""
    port = free_port()
    app = create_app(world.service, HttpSettings(allowed_hosts=loopback_hosts(port)))
    with live_server(app, port) as url:
        yield url
