"""The Workbench's pure rows: order, ages and lateness in project-local time, closed lists,
and entry rows."""

from __future__ import annotations

import datetime as dt

from orbital.events.files import Slot
from orbital.grammar.model import Entry, FileState, Status
from projections.workbench import (
    DONE_DAYS,
    TimelineItem,
    done_asks,
    dropped_asks,
    due_moment,
    entry_rows,
    entry_title,
    open_asks,
    open_row,
    recently_closed_asks,
    sort_closed,
    sort_open,
)
from tests.asks.helpers import TODAY, asks_of

NOON = dt.datetime.combine(TODAY, dt.time(12, 0))


def test_due_moment_reads_a_date_or_a_local_time_and_ignores_junk() -> None:
    assert due_moment("2026-09-19") == dt.datetime(2026, 9, 19, 23, 59, 59, 999999)
    assert due_moment("2026-09-19T10:30") == dt.datetime(2026, 9, 19, 10, 30)
    for junk in (None, "", "tomorrow", "2026-02-30", "2026-09-19T25:00"):
        assert due_moment(junk) is None


def test_open_row_counts_age_and_lateness_in_the_projects_days() -> None:
    asks = asks_of(
        "- open 000001 2026-09-10 due:2026-09-15 late\n"
        "- open 000002 2026-09-19 due:2026-09-19 due today\n"
        "- open 000003 2026-09-18 due:2026-09-19T10:00 due this morning\n"
        "- open 000004 2026-09-01 due:someday junk due\n"
    )
    rows = {a.id: open_row("p", a, NOON) for a in asks.values()}
    assert (rows["000001"].age_days, rows["000001"].overdue, rows["000001"].days_late) == (
        9,
        True,
        4,
    )
    assert (rows["000002"].overdue, rows["000002"].days_late) == (False, 0)
    assert (rows["000003"].overdue, rows["000003"].days_late) == (True, 0)
    assert (rows["000004"].age_days, rows["000004"].overdue) == (18, False)
    assert rows["000001"].created == dt.date(2026, 9, 10)
    aware = NOON.replace(tzinfo=dt.timezone(dt.timedelta(hours=9)))
    assert open_row("p", asks["000003"], aware).overdue


def test_overdue_first_then_oldest_opened_across_projects() -> None:
    alpha = asks_of(
        "- open 000001 2026-09-01 old\n"
        "- open 000002 2026-09-12 due:2026-09-18 late but new\n"
        "- open 000003 2026-09-05 due:2026-09-30 not yet\n"
    )
    beta = asks_of("- open 000004 2026-08-30 oldest\n- open 000005 2026-09-13 due:2026-09-01 x\n")
    rows = sort_open([*open_asks("a", alpha, NOON), *open_asks("b", beta, NOON)])
    assert [(r.project_id, r.id) for r in rows] == [
        ("a", "000002"),
        ("b", "000005"),
        ("b", "000004"),
        ("a", "000001"),
        ("a", "000003"),
    ]


def test_closed_lists_newest_first_with_who_closed() -> None:
    asks = asks_of(
        "- open 000001 2026-09-01 agent closed\n"
        "- open 000002 2026-09-01 user closed\n"
        "- open 000003 2026-09-01 long ago\n"
        "- open 000004 2026-09-01 dropped by agent\n"
        '- done 000001 2026-09-17 by:agent "ok"\n'
        "- done 000002 2026-09-18 by:user\n"
        "- done 000003 2026-08-01 by:agent\n"
        "- dropped 000004 2026-09-16 by:agent\n"
    )
    recent = sort_closed(recently_closed_asks("p", asks, TODAY))
    assert [(r.id, r.kind, r.closed_by) for r in recent] == [
        ("000001", "done", "agent"),
        ("000004", "dropped", "agent"),
    ]
    assert recent[0].note == '"ok"'
    assert [r.id for r in sort_closed(done_asks("p", asks, TODAY))] == ["000002", "000001"]
    assert TODAY - dt.date(2026, 8, 1) > dt.timedelta(days=DONE_DAYS)
    assert [r.id for r in sort_closed(dropped_asks("p", asks))] == ["000004"]


def test_entry_titles_lose_their_markdown_marker() -> None:
    assert entry_title("## Use Postgres\nBecause.") == "Use Postgres"
    assert entry_title("- Building the page\n") == "Building the page"
    assert entry_title("12. Run the tests\n") == "Run the tests"
    assert entry_title("\n\nplain") == "plain"


def test_entry_rows_put_live_entries_in_file_order_then_the_rest() -> None:
    day = dt.date(2026, 9, 1)

    def entry(entry_id: str, status: Status = "live", **meta: str) -> Entry:
        return Entry(entry_id, "decisions", f"## {entry_id}\nbody\n", day, day, meta, status)

    state = FileState(
        key="decisions",
        entries={
            "b": entry("b", tag="pinned"),
            "a": entry("a"),
            "old": entry("old", "archived"),
        },
        layout=(Slot(entry="b"), Slot(entry="a")),
    )
    item = TimelineItem(1, dt.datetime(2026, 9, 1, tzinfo=dt.UTC), "user", "entry.pinned", "x")
    rows = entry_rows({"decisions": state}, ["state", "decisions"], {"b": [item]})
    assert [(r.id, r.status, r.pinned) for r in rows] == [
        ("b", "live", True),
        ("a", "live", False),
        ("old", "archived", False),
    ]
    assert rows[0].history == [item]
    assert rows[1].history == []
    assert (rows[0].title, rows[0].text) == ("b", "## b\nbody")
