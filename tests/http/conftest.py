"""A service on a fresh SQLite store with two projects, tokens of each kind, and a client
addressed as a loopback browser would address the default server."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from litestar.testing import TestClient

from orbital.clock import FixedClock
from orbital.http import HttpSettings, create_app
from orbital.service import Credentials, Orbital

BASE_URL = "http://127.0.0.1:8765"


@dataclass(frozen=True)
class World:
    service: Orbital
    credentials: Credentials
    alpha: str
    beta: str
    alpha_root: Path
    agent: str
    """An agent token bound to project alpha."""
    person: str
    """A Workbench token reaching every project."""


def asks_md(world: World) -> str:
    """ASKS.md as it is on disk ("" before the first ask)."""
    path = world.alpha_root / "orbital" / "ASKS.md"
    return path.read_text() if path.exists() else ""


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def world(tmp_path: Path, clock: FixedClock) -> Iterator[World]:
    service = Orbital.open(f"sqlite:///{tmp_path / 'store.db'}", clock=clock)
    alpha_root, beta_root = tmp_path / "alpha", tmp_path / "beta"
    alpha_root.mkdir()
    beta_root.mkdir()
    alpha = service.init_project(alpha_root, timezone="UTC").project_id
    beta = service.init_project(beta_root, timezone="UTC").project_id
    credentials = Credentials(service.store, service.clock)
    agent = credentials.create("agent", [alpha], label="alpha agent").token
    person = credentials.create("workbench", label="me").token
    yield World(service, credentials, alpha, beta, alpha_root, agent, person)
    service.close()


@pytest.fixture
def client(world: World) -> Iterator[TestClient]:  # type: ignore[type-arg]
    app = create_app(world.service, HttpSettings(max_body_bytes=64 * 1024))
    with TestClient(app, base_url=BASE_URL) as test_client:
        yield test_client
