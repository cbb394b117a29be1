"""A due that is not a date is dropped with a warning (never stored as text to be read back);
a malformed ``[due:…]`` in PROJECT_STATE is warned about; an imported close without a date is
not dated with the import day (issue 12 item 10, issue 13 item 7)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from orbital.clock import FixedClock
from orbital.domain.asks_write import decide_agent_write
from orbital.domain.file_write import decide_file_write
from orbital.events import Actor
from orbital.events.asks import AskClosed, AskOpened
from orbital.grammar.asks_md import FORMAT_HEADER, parse_line, read_file, render_file
from orbital.grammar.model import FileState
from orbital.service import Orbital
from projections.asks_view import recently_closed
from tests.asks.helpers import PREV, TODAY, asks_of, minter


def _opened(new: str) -> tuple[AskOpened, list[str]]:
    result = decide_agent_write(asks_of(PREV), PREV, new, TODAY, minter(), actor=Actor.FILE)
    (event,) = result.events
    assert isinstance(event, AskOpened)
    return event, list(result.warnings)


def test_a_legacy_user_line_with_due_tomorrow_opens_without_a_due_and_says_so() -> None:
    event, warnings = _opened(PREV + "- [user due:tomorrow] Approve the budget\n")
    assert (event.text, event.due) == ("Approve the budget", None)
    assert warnings[0] == (
        'ASKS.md: dropped "due:tomorrow" from the ask "Approve the budget" — not a date; '
        "write due:YYYY-MM-DD or due:YYYY-MM-DDTHH:MM (a real day)."
    )


@pytest.mark.parametrize(
    ("line", "text", "bad"),
    [
        ("- open due:tomorrow Call the vendor", "Call the vendor", "tomorrow"),
        ("- open Call the vendor [due:someday]", "Call the vendor", "someday"),
        ("- open Call the vendor due:2026-02-30", "Call the vendor", "2026-02-30"),
        ("- open Call the vendor due:2026-02-03T25:00", "Call the vendor", "2026-02-03T25:00"),
    ],
)
def test_an_open_line_with_a_due_that_is_not_a_date_drops_it(
    line: str, text: str, bad: str
) -> None:
    parsed = parse_line(line)
    assert parsed is not None
    assert (parsed.text, parsed.due, parsed.bad_due) == (text, None, bad)
    event, warnings = _opened(PREV + line + "\n")
    assert (event.text, event.due) == (text, None)
    assert warnings[0].startswith(f'ASKS.md: dropped "due:{bad}" from the ask "{text}"')


def test_a_real_due_and_a_due_word_inside_the_text_are_kept() -> None:
    assert parse_line("- open Call due:2026-02-03T10:00 x") == parse_line(
        "- open Call x due:2026-02-03T10:00"
    )
    parsed = parse_line("- open Review the due:diligence notes")
    assert parsed is not None
    assert (parsed.text, parsed.due, parsed.bad_due) == (
        "Review the due:diligence notes",
        None,
        None,
    )


def test_an_imported_file_with_a_bad_due_is_warned_about() -> None:
    parsed = read_file(f"{FORMAT_HEADER}\n- open a1b2c3 2026-09-01 [due:soon] Choose\n", TODAY)
    (event,) = parsed.events
    assert isinstance(event, AskOpened)
    assert event.due is None
    assert parsed.warnings == [
        'ASKS.md: dropped "due:soon" from the ask "Choose" — not a date; write due:YYYY-MM-DD '
        "or due:YYYY-MM-DDTHH:MM (a real day)."
    ]


def test_an_undated_imported_close_keeps_the_asks_day_and_is_not_recent() -> None:
    text = (
        f"{FORMAT_HEADER}\n- open a1b2c3 2026-06-01 Choose the venue\n"
        '- dropped a1b2c3 by:agent "no longer needed"\n'
    )
    opened, closed = read_file(text, TODAY).events
    assert closed == AskClosed(
        ask_id="a1b2c3",
        kind="dropped",
        date=dt.date(2026, 6, 1),
        by="agent",
        note='"no longer needed"',
        undated=True,
    )
    assert render_file([opened, closed]) == text  # rendered as written: no date invented
    asks = asks_of(text)
    assert asks["a1b2c3"].updated == dt.date(2026, 6, 1)
    assert recently_closed(asks, TODAY) == []


def test_a_malformed_due_in_project_state_is_warned_about() -> None:
    decision = decide_file_write(
        FileState(key="state"),
        "- [due:someday] Ship the beta\n- [due:2026-10-01] Send the deck\n",
        TODAY,
        mint=minter(),
        ever_used=set(),
    )
    assert list(decision.warnings) == [
        'PROJECT_STATE.md: malformed due "[due:someday]" in "- [due:someday] Ship the beta" — '
        "write [due:YYYY-MM-DD] (a real day); the line is kept as written."
    ]


def test_a_hand_edited_asks_file_with_due_tomorrow_end_to_end(
    store_url: str, tmp_path: Path
) -> None:
    root = tmp_path / "p"
    root.mkdir()
    with Orbital.open(store_url, clock=FixedClock(dt.datetime(2026, 9, 19, 9, tzinfo=dt.UTC))) as o:
        project = o.init_project(root).project_id
        path = root / "orbital" / "ASKS.md"
        path.write_text(path.read_text() + "- [user due:tomorrow] Approve the budget\n")
        report = o.sync(project)
        (ask,) = o.asks(project)
        assert (ask.text, ask.due) == ("Approve the budget", None)
        assert (
            'ASKS.md: dropped "due:tomorrow" from the ask "Approve the budget" — not a date; '
            "write due:YYYY-MM-DD or due:YYYY-MM-DDTHH:MM (a real day)."
        ) in report.warnings
        assert path.read_text().endswith(f"- open {ask.id} 2026-09-19 Approve the budget\n")


def test_an_imported_undated_close_is_not_recently_dropped(store_url: str, tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "orbital").mkdir(parents=True)
    legacy = (
        f"{FORMAT_HEADER}\n- open a1b2c3 2026-06-01 Choose the venue\n- dropped a1b2c3 by:user\n"
    )
    (root / "orbital" / "ASKS.md").write_text(legacy)
    with Orbital.open(store_url, clock=FixedClock(dt.datetime(2026, 9, 19, 9, tzinfo=dt.UTC))) as o:
        project = o.init_project(root).project_id
        (ask,) = o.asks(project, "dropped")
        assert ask.updated == dt.date(2026, 6, 1)
        assert "Choose the venue" not in o.context_view(project)
        assert (root / "orbital" / "ASKS.md").read_text() == legacy
