"""ASKS.md round trips: parse(render(events)) == events, and a 10,000-event file."""

from __future__ import annotations

import datetime as dt
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from orbital.events import Event
from orbital.events.asks import AskClosed, AskOpened, AskReopened
from orbital.grammar.asks_md import FORMAT_HEADER, parse_file, render_event, render_file
from tests.asks.helpers import TODAY

ids = st.text(alphabet="0123456789abcdef", min_size=6, max_size=6)
dates = st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2099, 12, 31))
words = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")),
    min_size=1,
    max_size=12,
).filter(lambda w: not w.startswith(("due:", "[due:")) and w.split() == [w])
texts = st.lists(words, min_size=1, max_size=8).map(" ".join)
notes = st.one_of(st.just(""), texts)
writers = st.sampled_from(["user", "agent", "editor"])
dues = st.one_of(
    st.none(),
    dates.map(dt.date.isoformat),
    st.builds(
        lambda d, h, m: f"{d.isoformat()}T{h:02d}:{m:02d}",
        dates,
        st.integers(0, 23),
        st.integers(0, 59),
    ),
)


@st.composite
def canonical_logs(draw: st.DrawFn) -> list[Event]:
    """Opens before the closes and reopens that name them (as the decider writes them)."""
    opened: list[str] = []
    log: list[Event] = []
    for _ in range(draw(st.integers(0, 12))):
        if not opened or draw(st.booleans()):
            ask_id = draw(ids)
            log.append(AskOpened(ask_id=ask_id, text=draw(texts), date=draw(dates), due=draw(dues)))
            opened.append(ask_id)
        else:
            ask_id = draw(st.sampled_from(opened))
            date, by, note = draw(dates), draw(writers), draw(notes)
            kind = draw(st.sampled_from(["done", "dropped", "reopen"]))
            if kind == "done":
                log.append(AskClosed(ask_id=ask_id, kind="done", date=date, by=by, note=note))
            elif kind == "dropped":
                log.append(AskClosed(ask_id=ask_id, kind="dropped", date=date, by=by, note=note))
            else:
                log.append(AskReopened(ask_id=ask_id, date=date, by=by, note=note))
    return log


@given(canonical_logs())
@settings(max_examples=300, deadline=None)
def test_parse_of_render_is_the_identity(log: list[Event]) -> None:
    text = render_file(log)
    assert parse_file(text, TODAY) == log
    assert render_file(parse_file(text, TODAY)) == text


def _big_log(count: int) -> list[Event]:
    rng = random.Random(2026)
    log: list[Event] = []
    opened: list[str] = []
    while len(log) < count:
        day = dt.date(2026, 1, 1) + dt.timedelta(days=rng.randrange(365))
        if not opened or rng.random() < 0.4:
            ask_id = f"{rng.getrandbits(24):06x}"
            due = day.isoformat() if rng.random() < 0.3 else None
            text = f"Ask number {len(log)}: decide — 选 {rng.random():.5f} “quoted”"
            log.append(AskOpened(ask_id=ask_id, text=text, date=day, due=due))
            opened.append(ask_id)
        elif rng.random() < 0.2:
            log.append(AskReopened(ask_id=rng.choice(opened), date=day, by="user"))
        else:
            note = rng.choice(["", '"yes, go"', "「好」"])
            by = rng.choice(["user", "agent", "editor"])
            ask_id = rng.choice(opened)
            if rng.random() < 0.5:
                log.append(AskClosed(ask_id=ask_id, kind="done", date=day, by=by, note=note))
            else:
                log.append(AskClosed(ask_id=ask_id, kind="dropped", date=day, by=by, note=note))
    return log


def test_ten_thousand_events_round_trip_byte_identically() -> None:
    log = _big_log(10_000)
    text = render_file(log)
    assert text.count("\n") == 10_001 and text.startswith(FORMAT_HEADER + "\n")
    events = parse_file(text, TODAY)
    assert events == log
    assert render_file(events) == text
    incremental = FORMAT_HEADER + "\n" + "".join(f"{render_event(e)}\n" for e in log)
    assert incremental == text
