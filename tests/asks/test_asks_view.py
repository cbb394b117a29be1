"""The runtime asks block (reference §11.1 cases 29-34), sub-agent line, recently closed."""

from __future__ import annotations

import datetime as dt

from projections.asks_view import (
    dropped_texts,
    recently_closed,
    runtime_block,
    subagent_dropped_line,
)
from tests.asks.helpers import TODAY, asks_of

CUE = "Open asks: none (orbital/ASKS.md)"


def test_empty_when_nothing() -> None:
    assert runtime_block({}, TODAY, empty_cue=False) == ""
    done = asks_of("- open a1b2c3 2026-09-01 x\n- done a1b2c3 2026-09-02 by:user\n")
    assert runtime_block(done, TODAY, empty_cue=False) == ""


def test_none_cue_when_asked_for_and_nothing_is_open() -> None:
    assert runtime_block({}, TODAY, empty_cue=True) == CUE
    dropped = asks_of("- open a1b2c3 2026-09-01 x\n- dropped a1b2c3 2026-09-02 by:user\n")
    assert runtime_block(dropped, TODAY, empty_cue=True) == (
        "Open asks: none (orbital/ASKS.md)\n\nDropped by the user — never re-propose:\n- x"
    )
    opened = asks_of("- open a1b2c3 2026-09-01 x\n")
    assert runtime_block(opened, TODAY, empty_cue=True) == "Open asks (1):\n[a1b2c3] x"


def test_order_overdue_and_due_soonest_first_then_newest() -> None:
    asks = asks_of(
        "- open 000001 2026-09-01 old undated\n"
        "- open 000002 2026-09-10 new undated\n"
        "- open 000003 2026-09-02 due:2026-09-25 due later\n"
        "- open 000004 2026-09-03 due:2026-09-15 overdue one\n"
        "- open 000005 2026-09-03 due:2026-09-19 due today\n"
    )
    assert runtime_block(asks, TODAY, empty_cue=True).split("\n") == [
        "Open asks (5):",
        "[000004] overdue one (due 2026-09-15, overdue)",
        "[000005] due today (due 2026-09-19)",
        "[000003] due later (due 2026-09-25)",
        "[000002] new undated",
        "[000001] old undated",
    ]


def test_open_list_is_capped_at_ten() -> None:
    asks = asks_of("".join(f"- open {i:06x} 2026-09-01 ask {i}\n" for i in range(13)))
    lines = runtime_block(asks, TODAY, empty_cue=True).split("\n")
    assert lines[0] == "Open asks (13):"
    assert sum(line.startswith("[") for line in lines) == 10
    assert lines[-1] == "…and 3 more in orbital/ASKS.md"
    assert lines[1] == "[00000c] ask 12"


def test_dropped_last_60_days_newest_first_capped_at_15() -> None:
    text = "- open 0000ff 2026-07-01 ancient\n- dropped 0000ff 2026-07-01 by:user\n"
    for i in range(17):
        day = dt.date(2026, 9, 1 + i).isoformat()
        text += f"- open {i:06x} {day} dropped thing {i}\n- dropped {i:06x} {day} by:agent\n"
    block = runtime_block(asks_of(text), TODAY, empty_cue=False)
    lines = block.split("\n")
    assert lines[0] == "Dropped by the user — never re-propose:"
    assert lines[1] == "- dropped thing 16"
    assert len(lines) == 16
    assert "ancient" not in block


def test_texts_are_clipped_at_240() -> None:
    long = "word " * 100
    block = runtime_block(asks_of(f"- open a1b2c3 2026-09-01 {long}\n"), TODAY, False)
    line = block.split("\n")[1]
    assert line.endswith("…")
    assert len(line) - len("[a1b2c3] ") <= 240


def test_subagent_line_lists_recent_dropped_texts() -> None:
    asks = asks_of(
        "- open 000001 2026-09-01 first\n- dropped 000001 2026-09-02 by:user\n"
        "- open 000002 2026-09-01 second\n- dropped 000002 2026-09-03 by:user\n"
        "- open 000003 2026-05-01 old\n- dropped 000003 2026-05-01 by:user\n"
    )
    assert subagent_dropped_line(asks, TODAY) == (
        "- The user dropped these — NEVER re-propose or add entries about: second; first. "
        "They may only return by explicit user request."
    )
    assert dropped_texts(asks, TODAY, recent=False) == ["first", "second", "old"]
    assert subagent_dropped_line({}, TODAY) == ""


def test_recently_closed_leaves_out_the_users_closes_and_old_ones() -> None:
    asks = asks_of(
        "- open 000001 2026-09-01 a\n- done 000001 2026-09-15 by:agent\n"
        "- open 000002 2026-09-01 b\n- dropped 000002 2026-09-18 by:editor\n"
        "- open 000003 2026-09-01 c\n- done 000003 2026-09-18 by:user\n"
        "- open 000004 2026-09-01 d\n- done 000004 2026-09-01 by:agent\n"
        "- open 000005 2026-09-01 e\n"
    )
    assert [a.id for a in recently_closed(asks, TODAY)] == ["000002", "000001"]


SETTLED = (
    "Settled by the user in the last 7 days, in their words (a dropped one: never re-propose):"
)


def test_what_the_user_settled_this_week_reaches_the_agent_with_their_words() -> None:
    asks = asks_of(
        "- open 000001 2026-09-01 Review the README\n"
        "- done 000001 2026-09-18 by:user README looks good, ship it\n"
        "- open 000002 2026-09-01 Book the rooftop\n"
        "- dropped 000002 2026-09-17 by:user too expensive\n"
        "- open 000003 2026-09-01 Send the deck\n"
        '- done 000003 2026-09-12 by:user "sent it myself"\n'
        "- open 000004 2026-09-01 Old one\n"
        "- done 000004 2026-09-11 by:user eight days ago\n"
        "- open 000005 2026-09-01 The agent's own close\n"
        '- done 000005 2026-09-18 by:agent "ok"\n'
        "- open 000006 2026-09-01 Dropped long ago\n"
        "- dropped 000006 2026-09-02 by:user\n"
        "- open 000007 2026-09-01 Done without a word\n"
        "- done 000007 2026-09-19 by:user\n"
    )
    assert runtime_block(asks, TODAY, empty_cue=True).split("\n") == [
        CUE,
        "",
        SETTLED,
        "- done [000007] Done without a word (2026-09-19)",
        '- done [000001] Review the README (2026-09-18): "README looks good, ship it"',
        '- dropped [000002] Book the rooftop (2026-09-17): "too expensive"',
        '- done [000003] Send the deck (2026-09-12): "sent it myself"',
        "",
        "Dropped by the user — never re-propose:",
        "- Dropped long ago",  # the rooftop is listed once, above, with the user's reason
    ]


def test_the_settled_list_is_capped_at_ten() -> None:
    text = "".join(
        f"- open {i:06x} 2026-09-01 ask {i}\n- done {i:06x} 2026-09-18 by:user\n" for i in range(12)
    )
    lines = runtime_block(asks_of(text), TODAY, empty_cue=False).split("\n")
    assert lines[0] == SETTLED
    assert lines[1:] == [f"- done [{i:06x}] ask {i} (2026-09-18)" for i in range(11, 1, -1)]
