"""What the service and editor tests start from: a real service on a fresh store, with the
clock a test pins and ids minted from a seed (so ids in expected texts are stable), and one
new project directory registered in it."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from orbital.clock import Clock
from orbital.domain.asks import random_minter
from orbital.domain.budgets import TokenCounter
from orbital.service import Orbital, WriteOutcome


@contextmanager
def seeded_project(
    store_url: str,
    root: Path,
    clock: Clock,
    *,
    seed: int = 7,
    counter: TokenCounter | None = None,
) -> Iterator[tuple[Orbital, str]]:
    """The service and the id of the project at ``root`` (created here, time zone UTC); the
    service is closed when the block ends."""
    root.mkdir()
    mint = random_minter(random.Random(seed))
    with Orbital.open(store_url, clock=clock, mint=mint, counter=counter) as service:
        yield service, service.init_project(root, timezone="UTC").project_id


def write_in_parts(
    service: Orbital, project: str, name: str, content: bytes, parts: int, **write: Any
) -> WriteOutcome:
    """Write ``content`` to ``orbital/<name>`` as ``parts`` growing writes, each cut where an
    entry starts (a ``## `` heading or a numbered line): a file over its budget, as the
    backstop's tests need, takes more than one write may add (``orbital/domain/growth.py``)."""
    lines = content.decode("utf-8").splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if re.match(r"## |\d+\. ", line)]
    for k in range(1, parts):
        cut = starts[len(starts) * k // parts]
        service.write_file(project, name, "".join(lines[:cut]).encode(), **write)
    return service.write_file(project, name, content, **write)
