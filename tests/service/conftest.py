"""A real service on a fresh store (each backend) and project directory, with a pinned clock
(2026-09-19, the reference's TODAY) and seeded ids."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from orbital.clock import FixedClock
from orbital.service import Orbital
from tests.seeded import seeded_project

TODAY = dt.datetime(2026, 9, 19, 9, 0, tzinfo=dt.UTC)


@dataclass
class Env:
    orbital: Orbital
    project: str
    root: Path

    @property
    def memory(self) -> Path:
        return self.root / "orbital"

    def file(self, name: str) -> bytes:
        return (self.memory / name).read_bytes()


@pytest.fixture
def env(store_url: str, tmp_path: Path) -> Iterator[Env]:
    root = tmp_path / "project"
    with seeded_project(store_url, root, FixedClock(TODAY)) as (service, project):
        yield Env(service, project, root)
