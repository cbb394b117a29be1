"""Legacy conversion (reference §11.1 cases 26-28), retractions.md (§11.5) and migration."""

from __future__ import annotations

import datetime as dt
import re

from orbital.domain.asks import fold
from orbital.domain.asks_legacy import (
    Retraction,
    UnparsedLine,
    extract_legacy_flags,
    parse_retractions,
    plan_migration,
)
from orbital.events import Event
from orbital.events.asks import AskClosed, AskOpened
from tests.asks.helpers import TODAY, minter

LEGACY_STATE = """\
## Now
- A plain fact that stays.
  <!--mem id:111111 created:2026-09-01 touched:2026-09-01-->
- [user] Pick option A or B for the landing page.
  <!--mem id:a1b2c3 created:2026-09-01 touched:2026-09-01-->
- [user due:2026-10-01] Send the deck to Acme.
3. [user] Numbered decision to make
- [user] Decide the venue:
  - rooftop
  - basement
- [user] Already settled question.
  <!--mem id:0e0e0e created:2026-08-01 touched:2026-08-05 resolved:2026-08-05-->
- [due:2026-09-30] Dated fact stays.
- [ ] Checkbox stays.
- Parent fact.
  - [user] Nested flag stays.
"""


def render_retraction(retraction: Retraction) -> str:
    """One legacy ``retractions.md`` line (no newline); newlines in the reason become one space."""
    title = retraction.title.replace("\\", "\\\\").replace('"', '\\"')
    reason = re.sub(r"[\r\n]+", " ", retraction.reason)
    return f'- [{retraction.id}] "{title}" — retracted by user {retraction.date}: {reason}'


def test_open_flags_become_asks_and_leave_the_state() -> None:
    state, flags = extract_legacy_flags(LEGACY_STATE)
    assert [f.text for f in flags] == [
        "Pick option A or B for the landing page.",
        "Send the deck to Acme.",
        "Numbered decision to make",
        "Decide the venue: rooftop; basement",
    ]
    assert (flags[0].legacy_id, flags[0].created) == ("a1b2c3", dt.date(2026, 9, 1))
    assert flags[1].due == "2026-10-01"
    assert flags[2].legacy_id is None and flags[2].created is None
    for gone in ("Pick option", "id:a1b2c3", "Send the deck", "Numbered", "rooftop", "basement"):
        assert gone not in state
    for kept in ("A plain fact", "Dated fact stays.", "- [ ] Checkbox stays.", "Nested flag"):
        assert kept in state


def test_resolved_flag_is_a_settled_fact_not_an_ask() -> None:
    state, flags = extract_legacy_flags(LEGACY_STATE)
    assert "Already settled question." not in [f.text for f in flags]
    assert (
        "- Already settled question.\n"
        "  <!--mem id:0e0e0e created:2026-08-01 touched:2026-08-05 resolved:2026-08-05-->\n"
    ) in state


def test_state_without_flags_is_returned_unchanged() -> None:
    plain = "## Now\n- a fact\n- [ ] a box\n"
    assert extract_legacy_flags(plain) == (plain, [])
    assert extract_legacy_flags(plain)[0] is plain
    assert extract_legacy_flags("") == ("", [])


RETRACTIONS = (
    '- [5e55c9] "Decide if Multica DM precedes AionUi refresh." — retracted by user 2026-07-26: \n'
    '- [r2] "发布 宝玉 的演讲稿" — retracted by user 2026-09-10: changed my mind\n'
)


def test_retraction_round_trips_preserve_cjk_titles_and_colons() -> None:
    cases = [
        Retraction("x7f3a2", "Send 宝玉 + Simon DM drafts", "2026-07-24", "changed my mind", 1),
        Retraction("ab12cd", 'Say "no" \\ maybe', "2026-07-25", "at 10:30: not now: later", 1),
    ]
    for retraction in cases:
        line = render_retraction(retraction)
        assert parse_retractions(line) == ([retraction], [])
    assert render_retraction(cases[0]) == (
        '- [x7f3a2] "Send 宝玉 + Simon DM drafts" — retracted by user 2026-07-24: changed my mind'
    )


def test_reason_with_embedded_newline_renders_single_spaced() -> None:
    line = render_retraction(Retraction("abc123", "t", "2026-07-24", "changed my mind\r\nafter"))
    assert "\n" not in line
    assert parse_retractions(line)[0][0].reason == "changed my mind after"


def test_unparseable_line_is_reported_with_its_line_number() -> None:
    text = "\nnot a retraction x7f3a2\n" + render_retraction(
        Retraction("abc123", "Good one", "2026-07-24", "")
    )
    found, bad = parse_retractions(text)
    assert [r.id for r in found] == ["abc123"]
    assert found[0].reason == "" and found[0].line == 3
    assert bad == [UnparsedLine(2, "not a retraction x7f3a2")]
    assert parse_retractions("") == ([], [])


def test_migration_plans_flags_then_retraction_pairs() -> None:
    _, flags = extract_legacy_flags(LEGACY_STATE)
    retractions, _ = parse_retractions(RETRACTIONS)
    plan = plan_migration({}, retractions, flags, TODAY, minter())
    assert len(plan) == 6
    streams = [stream for stream, _ in plan]
    assert streams[0] == "ask:a1b2c3" and streams[4] == "ask:5e55c9"
    assert len(set(streams)) == 6
    first_events = plan[0][1]
    assert isinstance(first_events[0], AskOpened)
    assert first_events[0].date == dt.date(2026, 9, 1)
    assert isinstance(plan[2][1][0], AskOpened | AskClosed)
    assert plan[2][1][0].date == TODAY
    opened, dropped = plan[4][1]
    assert isinstance(opened, AskOpened) and isinstance(dropped, AskClosed)
    assert opened.date == dropped.date == dt.date(2026, 7, 26)
    assert (dropped.kind, dropped.by, dropped.note) == ("dropped", "user", "")
    assert opened.legacy is not None and opened.legacy.legacy_id == "5e55c9"
    assert opened.provenance == "retractions.md"
    r2_open, r2_drop = plan[5][1]
    assert isinstance(r2_open, AskOpened) and isinstance(r2_drop, AskClosed)
    assert r2_open.ask_id != "r2" and r2_drop.note == "changed my mind"
    assert r2_open.legacy is not None and r2_open.legacy.legacy_id == "r2"
    log: list[Event] = [e for _, events in plan for e in events]
    asks = fold(enumerate(log, 1))
    assert [a.state for a in asks.values()] == ["open"] * 4 + ["dropped"] * 2
    assert asks["5e55c9"].closed_by == "user" and asks["5e55c9"].updated == dt.date(2026, 7, 26)
    assert plan_migration(asks, retractions, flags, TODAY, minter()) == []


def test_migration_skips_texts_already_asks_and_taken_ids() -> None:
    _, flags = extract_legacy_flags(LEGACY_STATE)
    existing = fold(
        [
            (1, AskOpened(ask_id="a1b2c3", text="Something else", date=TODAY)),
            (2, AskOpened(ask_id="0a0a0a", text="send the deck to ACME.", date=TODAY)),
        ]
    )
    plan = plan_migration(existing, [], flags, TODAY, minter())
    texts = [e.text for _, events in plan for e in events if isinstance(e, AskOpened)]
    assert "Send the deck to Acme." not in texts
    assert "ask:a1b2c3" not in [stream for stream, _ in plan]
    assert len(plan) == 3
