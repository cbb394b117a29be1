"""Trust over time (issue 16): what we believed on a day (as of) against what was in force on
a day (in force at), with a supersession recorded after the day it took effect; the person's
actions through the service, and an agent's refused with nothing changed."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from orbital.errors import Refused
from orbital.events import Actor
from tests.seeded import seeded_project


class Clock:
    def __init__(self, at: dt.datetime) -> None:
        self.at = at

    def now(self) -> dt.datetime:
        return self.at


def day(d: int) -> dt.datetime:
    return dt.datetime(2026, 9, d, 12, 0, tzinfo=dt.UTC)


SQLITE = b"## Use SQLite for the store\nChose: SQLite. Reason: embedded.\n"
POSTGRES = (
    b"\n## Use PostgreSQL for the store\nChose: PostgreSQL. Reason: several writers.\n"
    b"Supersedes: use-sqlite-for-the-store since 2026-09-05\n"
)


def test_as_of_and_in_force_at_with_a_late_recorded_supersession(
    store_url: str, tmp_path: Path
) -> None:
    clock = Clock(day(1))
    with seeded_project(store_url, tmp_path / "p", clock) as (service, project):
        service.write_file(project, "DECISIONS.md", SQLITE, actor=Actor.AGENT)
        clock.at = day(10)  # recorded on the 10th, in force since the 5th
        text = (tmp_path / "p" / "orbital" / "DECISIONS.md").read_bytes() + POSTGRES
        service.write_file(project, "DECISIONS.md", text, actor=Actor.AGENT)

        def ids(**kw: object) -> list[tuple[str, str]]:
            return [(b.id, b.state) for b in service.trust.beliefs(project, **kw)]  # type: ignore[arg-type]

        sqlite, postgres = "use-sqlite-for-the-store", "use-postgresql-for-the-store"
        # what we believed on the 7th: SQLite, nothing else recorded yet
        assert ids(as_of=day(7)) == [(sqlite, "held")]
        assert "## Use SQLite for the store" in service.read_file(
            project, "DECISIONS.md", as_of=day(7)
        )
        # what was in force on the 7th, as known now: PostgreSQL (since the 5th)
        assert ids(in_force_at=dt.date(2026, 9, 7)) == [(postgres, "held")]
        assert ids(in_force_at=dt.date(2026, 9, 4)) == [(sqlite, "superseded")]
        assert ids(in_force_at=dt.date(2026, 8, 30)) == []
        # now: both, with their states; the view leaves SQLite out
        assert ids() == [(sqlite, "superseded"), (postgres, "held")]
        assert ids(states=("superseded",)) == [(sqlite, "superseded")]
        view = service.context_view(project)
        assert "Chose: SQLite" not in view
        assert "[1 superseded or retracted DECISIONS entry left out of this view" in view
        assert "Chose: SQLite" in service.read_file(project, "DECISIONS_ARCHIVE.md")
        # the as-of view shows SQLite as it stood
        assert "Chose: SQLite" in service.context_view(project, as_of=day(7))


def test_an_agent_dispute_or_retract_is_refused_and_changes_nothing(
    store_url: str, tmp_path: Path
) -> None:
    with seeded_project(store_url, tmp_path / "p", Clock(day(1))) as (service, project):
        service.write_file(project, "DECISIONS.md", SQLITE, actor=Actor.AGENT)
        path = tmp_path / "p" / "orbital" / "DECISIONS.md"
        before, head = path.read_bytes(), service.head(project)
        for action in ("dispute", "retract", "reaffirm"):
            with pytest.raises(Refused, match=f"^only the person can {action} an entry"):
                service.trust.act(
                    project, "use-sqlite-for-the-store", action, "r", actor=Actor.AGENT
                )
        assert path.read_bytes() == before
        assert service.head(project) == head
        done = service.trust.act(
            project, "use-sqlite-for-the-store", "dispute", "too small", actor=Actor.USER
        )
        assert [e.type for e in done.events] == ["entry.disputed"]
        assert path.read_bytes() == before  # a dispute shows in the view, not the file
        assert "[disputed by the person: too small]" in service.context_view(project)
        (row,) = service.memory_entries(project)
        assert (row.trust, row.trust_reason) == ("disputed", "too small")


def test_a_stale_write_does_not_bring_a_retracted_entry_back(
    store_url: str, tmp_path: Path
) -> None:
    with seeded_project(store_url, tmp_path / "p", Clock(day(1))) as (service, project):
        service.write_file(project, "DECISIONS.md", SQLITE, actor=Actor.AGENT)
        path = tmp_path / "p" / "orbital" / "DECISIONS.md"
        read = path.read_bytes()  # the agent read the file…
        service.trust.act(project, "use-sqlite-for-the-store", "retract", "", actor=Actor.USER)
        after = path.read_bytes()
        written = service.write_file(project, "DECISIONS.md", read, actor=Actor.AGENT)  # …wrote it
        assert written.warnings == [
            "DECISIONS: use-sqlite-for-the-store was retracted by the person; the write does "
            "not bring it back (it stays in the archive). The person can reaffirm it; to say it "
            "again, write a new entry without its id comment and say why"
        ]
        assert written.events == []
        assert path.read_bytes() == after
        (row,) = service.trust.beliefs(project)
        assert (row.state, row.status) == ("retracted", "archived")
