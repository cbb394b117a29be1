"""Memory snapshots (a row of the four folded files every ``SNAPSHOT_EVERY`` events): a read
that starts from a snapshot renders exactly what a replay of the whole log renders, now and
as of any position, on every backend."""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest

from orbital.catalogue import MEMORY_PREFIXES
from orbital.clock import FixedClock
from orbital.domain.asks import random_minter
from orbital.domain.entries import fold_file
from orbital.events import Actor, RecordedEvent
from orbital.grammar.render import render_file
from orbital.service import Orbital
from orbital.service._memory_state import SNAPSHOT_EVERY, SNAPSHOT_NAME
from orbital.store import Reader
from tests.service.conftest import TODAY

FILES = {"decisions": "DECISIONS.md", "lessons": "LESSONS.md", "state": "PROJECT_STATE.md"}


def _open(url: str) -> Orbital:
    return Orbital.open(url, clock=FixedClock(TODAY), mint=random_minter(random.Random(5)))


@pytest.fixture
def written(store_url: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A project whose memory has well over two snapshots' worth of events: decisions added
    one by one (each setting the spacing after the one above, a layout event), some revised,
    lessons and state rewritten now and then. Yields the store URL and the project id."""
    root = tmp_path / "p"
    root.mkdir()
    with _open(store_url) as service:
        project = service.init_project(root, timezone="UTC").project_id
        decisions, lessons = "", ""
        for n in range(1, 91):
            decisions += f"\n## Decision {n}\nChose: option {n}.\n"
            if n % 7 == 0:
                decisions = decisions.replace(f"option {n - 3}.", f"option {n - 3}, revised.")
            service.write_file(project, "DECISIONS.md", decisions.encode(), actor=Actor.AGENT)
            if n % 4 == 0:
                lessons += f"{n // 4}. Lesson {n}\nDo the thing {n}.\n"
                service.write_file(project, "LESSONS.md", lessons.encode(), actor=Actor.AGENT)
            if n % 9 == 0:
                state = f"## Now\n- Working on step {n}.\n"
                service.write_file(project, "PROJECT_STATE.md", state.encode(), actor=Actor.USER)
    yield store_url, project


def _replayed(events: list[RecordedEvent], position: int) -> dict[str, str]:
    """Each memory file folded from the first event of the log (no snapshot) to ``position``."""
    memory = [
        e.event for e in events if e.position <= position and e.stream.startswith(MEMORY_PREFIXES)
    ]
    return {key: render_file(fold_file(key, memory)) for key in FILES}


def _read(service: Orbital, project: str, position: int | None = None) -> dict[str, str]:
    return {key: service.read_file(project, name, as_of=position) for key, name in FILES.items()}


def _snapshots(service: Orbital, project: str) -> list[int]:
    """Every memory snapshot's position, oldest first."""
    found: list[int] = []
    with service.store.reader() as r:
        at = r.snapshot_position(project, SNAPSHOT_NAME, r.head(project))
        while at is not None:
            found.insert(0, at)
            at = r.snapshot_position(project, SNAPSHOT_NAME, at - 1)
    return found


def test_reads_from_a_snapshot_equal_a_full_replay(
    written: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, project = written
    loaded: list[int] = []
    original = Reader.snapshot

    def spied(
        self: Reader, project: str, name: str, at_or_before: int | None = None
    ) -> tuple[int, bytes] | None:
        found = original(self, project, name, at_or_before)
        if name == SNAPSHOT_NAME and found is not None:
            loaded.append(found[0])
        return found

    monkeypatch.setattr(Reader, "snapshot", spied)
    with _open(url) as service:  # a new process: nothing cached in memory
        events = list(service.history(project))
        head = events[-1].position
        snapshots = _snapshots(service, project)
        assert len(snapshots) == 3
        memory_positions = [e.position for e in events if e.stream.startswith(MEMORY_PREFIXES)]
        assert set(snapshots) <= set(memory_positions)
        # A snapshot once SNAPSHOT_EVERY memory events were folded since the last one (at the
        # end of the write that reached it); fewer than that since the newest.
        gaps = [
            sum(before < p <= at for p in memory_positions)
            for before, at in pairwise([0, *snapshots, head])
        ]
        assert all(gap >= SNAPSHOT_EVERY for gap in gaps[:-1]), gaps
        assert gaps[-1] < SNAPSHOT_EVERY, gaps

        assert _read(service, project) == _replayed(events, head)
        assert loaded == [snapshots[-1]]  # the current read started from the newest snapshot

    loaded.clear()
    with _open(url) as service:  # again nothing cached, not even a decoded snapshot
        # Just before the first snapshot (a replay from the start), then at and after each.
        targets = [snapshots[0] - 1]
        targets += sorted({p for s in snapshots for p in (s, s + 1, s + 2) if p <= head})
        for position in targets:
            assert _read(service, project, position) == _replayed(events, position), position
        assert sorted(set(loaded)) == snapshots  # every as-of read started from a snapshot
