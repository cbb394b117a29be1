"""Shared by the HTTP tests: the test world and small request helpers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

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
