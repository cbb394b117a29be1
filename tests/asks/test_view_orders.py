"""The asks in the view's orders kept up to date by the asks that change read the same as
ones built afresh, and the view's selections from them equal the rules spelled out over
every ask (a sort of the whole list)."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st

from orbital.domain.asks import Ask, AskState
from orbital.domain.layered import Layered, Ordered
from projections.asks_view import (
    DROPPED_CAP,
    DROPPED_DAYS,
    OPEN_CAP,
    SETTLED_DAYS,
    ViewAsks,
    recent_dropped,
    runtime_block,
)
from tests.asks.helpers import TODAY

STATE: st.SearchStrategy[AskState] = st.sampled_from(["open", "done", "dropped"])
DAYS = st.integers(-90, 5).map(lambda n: TODAY + dt.timedelta(days=n))
DUE = st.one_of(st.none(), DAYS.map(dt.date.isoformat))
BY = st.sampled_from([None, "user", "agent", "editor"])
# Each step sets one ask (of forty ids) to a state at the next position.
STEP = st.tuples(st.integers(0, 39), STATE, DUE, DAYS, DAYS, BY)


def _ask(n: int, state: AskState, due: str | None, opened: dt.date, updated: dt.date,
         by: str | None, seq: int) -> Ask:  # fmt: skip
    return Ask(f"{n:06x}", f"ask {n}", due, opened, state, updated, by, "", seq)


def _spelled_out(asks: dict[str, Ask], today: dt.date) -> tuple[list[str], list[str], list[str]]:
    """The first open asks, the settled and the recently dropped ones, by sorting all."""
    everything = list(asks.values())
    dated = sorted((a for a in everything if a.state == "open" and a.due),
                   key=lambda a: (a.due or "", a.seq))  # fmt: skip
    undated = sorted((a for a in everything if a.state == "open" and not a.due),
                     key=lambda a: (a.opened, a.seq), reverse=True)  # fmt: skip
    closed = sorted((a for a in everything if a.state != "open"),
                    key=lambda a: (a.updated, a.seq), reverse=True)  # fmt: skip
    settled_since = today - dt.timedelta(days=SETTLED_DAYS)
    dropped_since = today - dt.timedelta(days=DROPPED_DAYS)
    settled = [a for a in closed if a.closed_by == "user" and a.updated >= settled_since]
    dropped = [a for a in closed if a.state == "dropped" and a.updated >= dropped_since]
    return (
        [a.id for a in (dated + undated)[:OPEN_CAP]],
        [a.id for a in settled[:10]],
        [a.id for a in dropped[:DROPPED_CAP]],
    )


@settings(max_examples=300, deadline=None)
@given(st.lists(STEP, min_size=1, max_size=120), st.integers(1, 12))
def test_orders_kept_up_to_date_equal_orders_built_afresh(
    steps: list[tuple[int, AskState, str | None, dt.date, dt.date, str | None]], batch: int
) -> None:
    asks: Layered[str, Ask] = Layered(max_delta=4)
    kept = ViewAsks.of(asks)
    plain: dict[str, Ask] = {}
    for start in range(0, len(steps), batch):
        changed = [
            _ask(n, state, due, opened, updated, by, start + i + 1)
            for i, (n, state, due, opened, updated, by) in enumerate(steps[start : start + batch])
        ]
        latest = {a.id: a for a in changed}  # a batch's later step of an ask wins
        asks = asks.updated(latest.items())
        kept = kept.changed(asks, latest.values())
        plain.update(latest)
        fresh = ViewAsks.of(dict(plain))
        first, settled, dropped = _spelled_out(plain, TODAY)
        for view in (kept, fresh):
            assert [a.id for a in view.open_first(OPEN_CAP)] == first
            assert view.open_count == sum(a.state == "open" for a in plain.values())
            since = TODAY - dt.timedelta(days=SETTLED_DAYS)
            chosen = view.newest_closed(10, since, lambda a: a.closed_by == "user")
            assert [a.id for a in chosen] == settled
            assert [a.id for a in recent_dropped(view, TODAY)] == dropped
        assert runtime_block(kept, TODAY, empty_cue=True) == runtime_block(
            plain, TODAY, empty_cue=True
        )


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 60)), max_size=200))
def test_an_ordered_collection_updated_reads_as_the_sorted_set(
    steps: list[tuple[bool, int]],
) -> None:
    ordered: Ordered[int] = Ordered([], key=lambda n: n, max_delta=5)
    truth: set[int] = set()
    for add, item in steps:
        if add and item not in truth:
            ordered = ordered.updated([], [item])
            truth.add(item)
        elif not add and item in truth:
            ordered = ordered.updated([item], [])
            truth.discard(item)
        assert list(ordered.ascending()) == sorted(truth)
        assert list(ordered.descending()) == sorted(truth, reverse=True)
        assert len(ordered) == len(truth)
