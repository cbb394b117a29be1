"""Asks snapshots: a few full ones and deltas between them, as-of reads equal to a replay."""

from __future__ import annotations

import datetime as dt
import random

from orbital.catalogue import ASK_PREFIX, ask_stream
from orbital.domain.asks import fold
from orbital.events import Actor, AskClosed, AskOpened, Event
from orbital.service import Orbital
from orbital.service._asks_state import ASKS_DELTA, ASKS_SNAPSHOT
from tests.service.conftest import Env

DAY = dt.date(2026, 9, 19)


def append_asks(env: Env, batches: int, size: int) -> None:
    """``batches`` transactions of ``size`` ask events each (opens, and closes of older
    asks), with the snapshot hook every ask write runs."""
    rng = random.Random(3)
    opened: list[str] = []
    for b in range(batches):
        with env.orbital.store.writing() as w:
            for i in range(size):
                event: Event
                if opened and rng.random() < 0.4:
                    ask_id = opened.pop(rng.randrange(len(opened)))
                    event = AskClosed(ask_id=ask_id, kind="done", date=DAY, by="user")
                else:
                    ask_id = f"{b:03x}{i:03x}"
                    event = AskOpened(ask_id=ask_id, text=f"ask {b} {i}", date=DAY)
                    opened.append(ask_id)
                stream = ask_stream(ask_id)
                w.append(env.project, stream, [event], expected_version=None, actor=Actor.USER)
            env.orbital.units.asks.maybe_snapshot(w, env.project, size)


def replayed(env: Env, position: int) -> dict[str, object]:
    with env.orbital.store.reader() as r:
        events = r.read_project(env.project, stream_prefix=ASK_PREFIX, until_position=position)
        return dict(fold((e.position, e.event) for e in events))


def test_deltas_between_full_snapshots_read_as_a_replay(env: Env) -> None:
    append_asks(env, batches=30, size=500)
    with env.orbital.store.reader() as r:
        head = r.head(env.project)
        fulls = [p for p, _ in r.snapshots_after(env.project, ASKS_SNAPSHOT, 0, head)]
        deltas = [p for p, _ in r.snapshots_after(env.project, ASKS_DELTA, 0, head)]
    # 15,000 ask events: a snapshot every 1,000 (the first full), deltas while the ask
    # events since the last full one are fewer than all asks.
    assert len(fulls) + len(deltas) == 15
    assert fulls[0] < deltas[0]
    assert 1 < len(fulls) < len(deltas)
    probes = {fulls[-1], deltas[0], deltas[-1], deltas[-1] + 1, head, *(p - 1 for p in deltas)}
    for position in sorted(probes):
        with env.orbital.store.reader() as r:
            assert env.orbital.units.asks.at(r, env.project, position) == replayed(env, position)
    cold = Orbital.open(env.orbital.store.url)
    try:
        with cold.store.reader() as r:
            assert cold.units.asks.at(r, env.project, deltas[-1]) == replayed(env, deltas[-1])
    finally:
        cold.close()
