"""``orbital init`` over memory files that exist already (upstream Orbital, or written by hand):
they are imported as events by ``system``, their entries and ids kept."""

from __future__ import annotations

import random
from pathlib import Path

from orbital.clock import FixedClock
from orbital.domain.asks import random_minter
from orbital.events import Actor
from orbital.service import Orbital
from tests.service.conftest import TODAY

DECISIONS_HEADER = (
    "<!--format DECISIONS entries: '## <slug>' then Chose / Reason / Rejected. When a "
    "decision changes, add the new entry with a line 'Supersedes: <id>[, <id>…] "
    "[since YYYY-MM-DD]' naming the old entries' ids (from their id comments; since: when "
    "the change took effect) and Orbital moves them to the archive; never leave "
    "contradictions.-->\n"
)
LESSONS_HEADER = (
    "<!--format LESSONS entries: numbered durable heuristics and playbooks. Add on error "
    "recovery or non-obvious workaround; keep real playbooks intact.-->\n"
)
PG = (
    "## Use Postgres for storage <!--mem id:pg-choice created:2026-08-01 touched:2026-08-02 "
    "tag:pinned-->\nChose: PostgreSQL.\nReason: teams.\n"
)
VITE = "## Adopt Vite\nChose: Vite.\n"
CURL = "1. Curl beats the browser <!--mem id:curl created:2026-07-01 touched:2026-07-03-->\n"
CURL += "Use curl for GitHub pages.\n"
PIN = "2. Pin the toolchain <!--mem id:pin-tools created:2026-07-02 touched:2026-07-02-->\n"
PIN += "Versions drift.\n"


def test_init_imports_existing_memory_files_keeping_entries_and_ids(
    store_url: str, tmp_path: Path
) -> None:
    root = tmp_path / "p"
    (root / "orbital").mkdir(parents=True)
    (root / "orbital" / "DECISIONS.md").write_text(PG + "\n" + VITE)
    (root / "orbital" / "LESSONS.md").write_text(CURL + PIN)
    clock, mint = FixedClock(TODAY), random_minter(random.Random(1))
    with Orbital.open(store_url, clock=clock, mint=mint) as service:
        project = service.init_project(root, timezone="UTC").project_id
        assert [(e.type, e.stream, e.actor) for e in service.history(project)] == [
            ("project.registered", "project", Actor.SYSTEM),
            ("entry.created", "entry:pg-choice", Actor.SYSTEM),
            ("entry.created", "entry:adopt-vite", Actor.SYSTEM),
            ("file.layout_set", "file:decisions", Actor.SYSTEM),
            ("entry.created", "entry:curl", Actor.SYSTEM),
            ("entry.created", "entry:pin-tools", Actor.SYSTEM),
            ("file.layout_set", "file:lessons", Actor.SYSTEM),
        ]
        vite = "## Adopt Vite <!--mem id:adopt-vite created:2026-09-19 touched:2026-09-19-->\n"
        decisions = DECISIONS_HEADER + PG + "\n" + vite + "Chose: Vite.\n"
        lessons = LESSONS_HEADER + CURL + PIN
        assert (root / "orbital" / "DECISIONS.md").read_text() == decisions
        assert (root / "orbital" / "LESSONS.md").read_text() == lessons
        assert service.read_file(project, "DECISIONS.md") == decisions
        assert service.read_file(project, "LESSONS.md") == lessons
        assert service.sync(project).events == []  # taken in: nothing left to merge
