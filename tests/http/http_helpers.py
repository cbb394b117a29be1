"""Shared by the HTTP tests: the test world and small request helpers."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

import uvicorn
from litestar import Litestar
from litestar.testing import TestClient
from litestar.types import ASGIApp

from orbital.service import Credentials, Orbital

BASE_URL = "http://127.0.0.1:8765"

Client: TypeAlias = TestClient[Litestar]
"""The in-process client over the app ``orbital.http.create_app`` builds."""


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


@contextmanager
def live_server(app: ASGIApp, port: int, *, timeout: float = 10.0) -> Iterator[str]:
    """Serve ``app`` with uvicorn on 127.0.0.1:``port`` in a thread; yields the base URL."""
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"uvicorn did not start on port {port}")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def put_asks(client: Client, world: World, content: str, **extra: Any) -> Any:
    """The agent's whole-file write of ASKS.md in project alpha."""
    return client.put(
        f"/api/v1/projects/{world.alpha}/files/ASKS.md",
        json={"content": content, **extra},
        headers=bearer(world.agent),
    )
