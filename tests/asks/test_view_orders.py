"""The view's selections from the asks in its orders equal the rules spelled out over every
ask (a sort of the whole list), and an ordered collection reads as its items sorted."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st

from orbital.domain.asks import Ask, AskState
from orbital.domain.layered import Ordered
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
def test_the_view_orders_read_as_the_rules_spelled_out(
    steps: list[tuple[int, AskState, str | None, dt.date, dt.date, str | None]], batch: int
) -> None:
    plain: dict[str, Ask] = {}
    for start in range(0, len(steps), batch):
        changed = [
            _ask(n, state, due, opened, updated, by, start + i + 1)
            for i, (n, state, due, opened, updated, by) in enumerate(steps[start : start + batch])
        ]
        plain.update({a.id: a for a in changed})  # a batch's later step of an ask wins
        view = ViewAsks.of(dict(plain))
        first, settled, dropped = _spelled_out(plain, TODAY)
        assert [a.id for a in view.open_first(OPEN_CAP)] == first
        assert view.open_count == sum(a.state == "open" for a in plain.values())
        since = TODAY - dt.timedelta(days=SETTLED_DAYS)
        chosen = view.newest_closed(10, since, lambda a: a.closed_by == "user")
        assert [a.id for a in chosen] == settled
        assert [a.id for a in recent_dropped(view, TODAY)] == dropped
        assert runtime_block(view, TODAY, empty_cue=True) == runtime_block(
            plain, TODAY, empty_cue=True
        )


@settings(max_examples=300, deadline=None)
@given(st.sets(st.integers(0, 200), max_size=80), st.sets(st.integers(201, 400), max_size=20))
def test_an_ordered_collection_reads_as_its_base_and_added_items_sorted(
    base: set[int], added: set[int]
) -> None:
    ordered = Ordered(sorted(base, key=lambda n: -n % 97), lambda n: -n % 97, list(added))
    truth = sorted(base | added, key=lambda n: (-n % 97, n))
    keys = [-n % 97 for n in truth]
    assert [-n % 97 for n in ordered.ascending()] == keys
    assert [-n % 97 for n in ordered.descending()] == keys[::-1]
    assert sorted(ordered.ascending()) == sorted(truth) and len(ordered) == len(truth)
