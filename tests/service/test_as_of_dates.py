"""A date-only as-of is the end of that day in the project's timezone (issue 13 item 11):
"what did we believe on 1 November?" includes what was written on 1 November."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from pathlib import Path

from orbital.clock import end_of_day, parse_as_of
from orbital.domain.asks import random_minter
from orbital.events import Actor
from orbital.service import Orbital


@dataclass
class MovingClock:
    at: dt.datetime

    def now(self) -> dt.datetime:
        return self.at


def test_a_date_is_parsed_as_a_day_not_midnight_utc() -> None:
    assert parse_as_of("2026-11-01") == dt.date(2026, 11, 1)
    assert parse_as_of("2026-11-01T00:00Z") == dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    berlin = dt.timezone(dt.timedelta(hours=1))
    assert end_of_day(dt.date(2026, 11, 1), berlin) == dt.datetime(
        2026, 11, 1, 22, 59, 59, 999999, tzinfo=dt.UTC
    )


def test_as_of_a_date_includes_that_day_in_the_projects_timezone(
    store_url: str, tmp_path: Path
) -> None:
    root = tmp_path / "p"
    root.mkdir()
    clock = MovingClock(dt.datetime(2026, 10, 31, 12, 0, tzinfo=dt.UTC))
    with Orbital.open(store_url, clock=clock, mint=random_minter(random.Random(5))) as service:
        project = service.init_project(root, timezone="Europe/Berlin").project_id

        def write(at: dt.datetime, text: str) -> None:
            clock.at = at
            service.write_file(project, "DECISIONS.md", text.encode(), actor=Actor.AGENT)

        first = "## Use Postgres\nChose: PostgreSQL.\n"
        second = first + "\n## Adopt Vite\nChose: Vite.\n"
        third = second + "\n## Ship on Fridays\nChose: yes.\n"
        write(dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC), first)
        write(dt.datetime(2026, 11, 1, 22, 30, tzinfo=dt.UTC), second)  # 23:30 in Berlin
        write(dt.datetime(2026, 11, 1, 23, 30, tzinfo=dt.UTC), third)  # 2 November in Berlin
        clock.at = dt.datetime(2026, 11, 5, tzinfo=dt.UTC)
        on_the_1st = service.read_file(project, "DECISIONS.md", as_of=parse_as_of("2026-11-01"))
        assert "## Use Postgres" in on_the_1st and "## Adopt Vite" in on_the_1st
        assert "## Ship on Fridays" not in on_the_1st
        view = service.context_view(project, as_of=parse_as_of("2026-11-01"))
        assert "## Adopt Vite" in view and "## Ship on Fridays" not in view
        before = service.read_file(project, "DECISIONS.md", as_of=parse_as_of("2026-10-31"))
        assert "## Use Postgres" not in before
