"""The person's revert (issue 27, finding 3): the memory files brought back to how they stood
at a position or just after an event, by compensating events appended now; nothing is
rewritten (history keeps what was reverted), a revert is itself reverted the same way, and
the runaway write of the issue is one command. Each test on each backend."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import msgspec
import pytest

from orbital.errors import InvalidInput, Refused, UnknownEvent
from orbital.events import Actor
from orbital.service import Orbital
from tests.seeded import seeded_project, write_in_parts

DECISIONS = (
    b"## Use SQLite for the store\nChose: SQLite. Reason: embedded.\n\n"
    b"## Render PDFs with WeasyPrint\nChose: WeasyPrint.\n\n"
    b"## Deploy on Fridays\nChose: yes.\n"
)
POSTGRES = (
    b"\n## Use PostgreSQL for the store\nChose: PostgreSQL. Reason: several writers.\n"
    b"Supersedes: use-sqlite-for-the-store\n"
)
LESSONS = b"# Lessons\n\n1. Pin the dependencies.\n2. Test both backends.\n"
NAMES = (
    "DECISIONS.md",
    "DECISIONS_ARCHIVE.md",
    "LESSONS.md",
    "LESSONS_ARCHIVE.md",
    "PROJECT_STATE.md",
    "PROJECT_STATE_ARCHIVE.md",
    "INDEX.md",
)


class Clock:
    def __init__(self, at: dt.datetime) -> None:
        self.at = at

    def now(self) -> dt.datetime:
        return self.at


def day(d: int) -> dt.datetime:
    return dt.datetime(2026, 9, d, 12, 0, tzinfo=dt.UTC)


def files(service: Orbital, project: str, at: int | None = None) -> dict[str, str]:
    return {name: service.read_file(project, name, as_of=at) for name in NAMES}


def on_disk(root: Path) -> dict[str, bytes]:
    found = (root / "orbital" / name for name in NAMES)
    return {p.name: p.read_bytes() for p in found if p.exists()}


def beliefs(service: Orbital, project: str, at: int | None = None) -> list[tuple[str, ...]]:
    """Each entry's id, trust state, status, reason and superseders (not the day recorded)."""
    found = service.trust.beliefs(project, as_of=at)
    return [(b.id, b.state, b.status, b.reason, ",".join(b.by)) for b in found]


def test_a_runaway_write_is_reverted_by_one_command_and_that_revert_by_another(
    store_url: str, tmp_path: Path
) -> None:
    clock = Clock(day(1))
    root = tmp_path / "p"
    with seeded_project(store_url, root, clock) as (service, project):
        service.write_file(project, "DECISIONS.md", DECISIONS, actor=Actor.AGENT)
        service.write_file(project, "LESSONS.md", LESSONS, actor=Actor.AGENT)
        before, disk, trust = files(service, project), on_disk(root), beliefs(service, project)
        good = service.head(project)
        clock.at = day(2)
        runaway = LESSONS + b"".join(b"%d. Lesson number %d.\n" % (i, i) for i in range(3, 1003))
        # A runaway writer: one write may add 300 entries at most, so it takes four.
        write_in_parts(service, project, "LESSONS.md", runaway, 4, actor=Actor.AGENT, session="s-9")
        after, runaway_disk = files(service, project), on_disk(root)
        assert after["LESSONS.md"].count("Lesson number") == 1000
        bad = service.head(project)

        report = service.revert(project, f"@{good}", actor=Actor.USER)

        assert (report.position, report.event_id) == (good, _event_id(service, project, good))
        assert report.events[0].type == "project.reverted"
        assert sum(e.type == "entry.retired" for e in report.events) == 1000
        assert files(service, project) == before
        assert on_disk(root) == disk
        assert beliefs(service, project) == trust
        created = [e for e in service.history(project) if e.type == "entry.created"]
        assert len(created) == 1005  # nothing rewritten: the lessons stay in history
        assert files(service, project, at=bad) == after  # and as of then

        again = service.revert(project, f"@{bad}", actor=Actor.USER)  # the revert reverted
        assert files(service, project) == after
        assert on_disk(root) == runaway_disk
        # the same entries back, no new ones
        assert sum(e.type == "entry.restored" for e in again.events) == 1000
        assert sum(e.type == "entry.created" for e in again.events) == 0


def _event_id(service: Orbital, project: str, position: int) -> str:
    (event,) = [e for e in service.history(project) if e.position == position]
    return event.event_id


def _history(service: Orbital, project: str, clock: Clock, root: Path) -> None:
    """Decisions superseded, disputed, retracted, an editor archive, a reword, a hand edit."""
    service.write_file(project, "DECISIONS.md", DECISIONS, actor=Actor.AGENT)
    service.write_file(project, "LESSONS.md", LESSONS, actor=Actor.AGENT)
    clock.at = day(3)
    text = (root / "orbital" / "DECISIONS.md").read_bytes() + POSTGRES
    service.write_file(project, "DECISIONS.md", text, actor=Actor.AGENT)
    service.trust.act(project, "deploy-on-fridays", "dispute", "broke prod", actor=Actor.USER)
    clock.at = day(5)
    service.trust.act(project, "render-pdfs-with-weasyprint", "retract", "", actor=Actor.USER)
    service.editor_apply(
        project,
        json.dumps(
            {"archive": [{"file": "LESSONS.md", "id": "pin-the-dependencies", "pointer": ""}]}
        ),
    )
    clock.at = day(7)
    lessons = (root / "orbital" / "LESSONS.md").read_bytes()
    reworded = lessons.replace(b"Test both backends.", b"Test on both backends.")
    service.write_file(project, "LESSONS.md", reworded + b"3. Keep a log.\n", actor=Actor.AGENT)
    service.entry_action(project, "pin-the-dependencies", "restore", actor=Actor.USER)
    service.trust.act(project, "deploy-on-fridays", "reaffirm", "fixed", actor=Actor.USER)
    path = root / "orbital" / "DECISIONS.md"
    path.write_bytes(path.read_bytes().replace(b"Chose: yes.", b"Chose: yes, before noon."))
    service.sync(project)


def test_every_earlier_place_is_reached_and_left_again(store_url: str, tmp_path: Path) -> None:
    """For each position of a varied history: revert there gives the files (live and
    archive) and the beliefs as they were then, and reverting that revert gives today's."""
    clock = Clock(day(1))
    root = tmp_path / "p"
    with seeded_project(store_url, root, clock) as (service, project):
        _history(service, project, clock, root)
        clock.at = day(9)
        positions = [e.position for e in service.history(project)]
        for position in positions:
            now, trust_now, head = files(service, project), beliefs(service, project), None
            head = service.head(project)
            try:
                service.revert(project, f"@{position}", actor=Actor.USER)
            except Refused as nothing:
                assert str(nothing).startswith("the memory files already stand as they did at")
                assert files(service, project, at=position) == now
                continue
            assert files(service, project) == files(service, project, at=position), position
            then = beliefs(service, project, at=position)
            known = {b[0] for b in then}
            now_known = [b for b in beliefs(service, project) if b[0] in known]
            assert now_known == then, position
            made_since = [b for b in beliefs(service, project) if b[0] not in known]
            assert {b[2] for b in made_since} <= {"retired"}, position  # history keeps them
            service.revert(project, f"@{head}", actor=Actor.USER)
            assert files(service, project) == now, position
            assert beliefs(service, project) == trust_now, position


def test_a_revert_to_an_event_and_the_refusals(store_url: str, tmp_path: Path) -> None:
    clock = Clock(day(1))
    root = tmp_path / "p"
    with seeded_project(store_url, root, clock) as (service, project):
        service.write_file(project, "DECISIONS.md", DECISIONS, actor=Actor.AGENT)
        (layout,) = [e for e in service.history(project) if e.type == "file.layout_set"]
        then = files(service, project)
        service.trust.act(project, "deploy-on-fridays", "retract", "no", actor=Actor.USER)
        disk, head = on_disk(root), service.head()
        with pytest.raises(Refused) as agent:
            service.revert(project, layout.event_id, actor=Actor.AGENT)
        assert str(agent.value) == (
            f"only the person can revert the memory files (agent asked to revert to "
            f"{layout.event_id}): the person runs `orbital revert {layout.event_id} --as-user` "
            "with their Workbench token"
        )
        with pytest.raises(InvalidInput) as past:
            service.revert(project, f"@{head + 1}", actor=Actor.USER)
        assert str(past.value) == (
            f"@{head + 1} is not in this project's log: its positions run to @{head}"
        )
        with pytest.raises(UnknownEvent) as unknown:
            service.revert(project, "feedbeef", actor=Actor.USER)
        assert str(unknown.value) == "no event with id 'feedbeef' in this project's log"
        assert unknown.value.hint == (
            "`orbital history --json` shows each event's id, or name a position as @N"
        )
        assert (on_disk(root), service.head()) == (disk, head)
        report = service.revert(project, layout.event_id, actor=Actor.USER)
        assert report.position == layout.position
        assert files(service, project) == then
        reverted = [e.event for e in service.history(project) if e.type == "project.reverted"]
        assert [msgspec.to_builtins(e) for e in reverted] == [
            {"type": "project.reverted", "position": layout.position, "event_id": layout.event_id}
        ]
        with pytest.raises(Refused) as nothing:
            service.revert(project, layout.event_id, actor=Actor.USER)
        assert str(nothing.value) == (
            f"the memory files already stand as they did at {layout.event_id}: nothing to revert"
        )
