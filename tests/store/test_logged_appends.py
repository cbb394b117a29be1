"""An imported log's batched appends (``Writer.appending_logged``) leave the store exactly as
appending its events one by one does: the same event rows (positions, versions, ids, actors,
sessions, times), stream rows (version, last position, folded state) and heads; over
generated logs of many streams with several events each, in two owners, imported in two
transactions (the second continues streams the first wrote) and flushed every few events."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbital.events import Actor, AskClosed, AskOpened, AskReopened, Event
from orbital.service._service import REDUCERS
from orbital.store import EventStore, Writer, _logged

DAY = dt.date(2026, 9, 19)
START = dt.datetime(2026, 9, 19, 9, 0, tzinfo=dt.UTC)
ACTORS = (Actor.AGENT, Actor.USER, Actor.SYSTEM)


class StepClock:
    """A second later at every reading: each one-by-one append has a time of its own."""

    def __init__(self) -> None:
        self.at = START

    def now(self) -> dt.datetime:
        self.at += dt.timedelta(seconds=1)
        return self.at


def _event(stream: str, nth: int) -> Event:
    """The ``nth`` event of an ask stream (or of a ``note:`` stream, which has no reducer)."""
    ask_id = stream.split(":", 1)[1]
    if nth == 0:
        return AskOpened(ask_id=ask_id, text=f"ask {ask_id}", date=DAY)
    if nth % 2:
        return AskClosed(ask_id=ask_id, kind="done", date=DAY, by="user", note=f"n{nth}")
    return AskReopened(ask_id=ask_id, date=DAY, by="user")


#: (owner, stream number, ``note:`` instead of ``ask:``, actor, with a session)
steps = st.lists(
    st.tuples(
        st.integers(0, 1),
        st.integers(0, 11),
        st.booleans(),
        st.integers(0, len(ACTORS) - 1),
        st.booleans(),
    ),
    min_size=1,
    max_size=60,
)


def _register(w: Writer, owners: Sequence[str], root: Path) -> None:
    for owner in owners:
        w.register_imported(
            root / owner,
            project_id=owner,
            identity=owner,
            timezone="UTC",
            registered_at=START,
        )


def _rows(store: EventStore, owners: Sequence[str]) -> dict[str, list[tuple[Any, ...]]]:
    with store.reader() as r:
        conn = r._conn
        found: dict[str, list[tuple[Any, ...]]] = {}
        for table, order in (
            ("events", "position"),
            ("streams", "project_id, stream"),
            ("heads", "project_id, category"),
        ):
            found[table] = [
                tuple(row)
                for owner in owners
                for row in conn.execute(
                    f"SELECT * FROM {table} WHERE project_id = :p ORDER BY {order}", {"p": owner}
                )
            ]
        return found


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(log=steps, split=st.integers(0, 60), batch=st.integers(1, 7))
def test_an_imported_log_leaves_what_appending_it_one_by_one_leaves(
    store_url: str,
    second_url: str,
    tmp_path_factory: pytest.TempPathFactory,
    log: list[tuple[int, int, bool, int, bool]],
    split: int,
    batch: int,
) -> None:
    one_by_one = EventStore(store_url, clock=StepClock(), reducers=REDUCERS)
    imported = EventStore(second_url, reducers=REDUCERS)
    root = tmp_path_factory.mktemp("p")
    owners = [uuid.uuid4().hex, uuid.uuid4().hex]
    try:
        with one_by_one.writing() as a, imported.writing() as b:
            _register(a, owners, root)
            _register(b, owners, root)
        counts: dict[tuple[str, str], int] = {}
        for owner_no, stream_no, note, actor, session in log:
            owner = owners[owner_no]
            stream = f"{'note' if note else 'ask'}:{stream_no:04x}"
            nth = counts.get((owner, stream), 0)
            counts[owner, stream] = nth + 1
            with one_by_one.writing() as a:
                a.append(
                    owner,
                    stream,
                    [_event(stream, nth)],
                    expected_version=None,
                    actor=ACTORS[actor],
                    session=f"s-{stream_no}" if session else None,
                )
        with one_by_one.reader() as r:
            logged = list(r.read_log(owners))
        positions: list[int] = []
        with mock.patch.object(_logged, "BATCH", batch):
            for part in (logged[:split], logged[split:]):
                with imported.writing() as b, b.appending_logged() as appends:
                    positions += [
                        appends.append(
                            e.project,
                            e.stream,
                            e.event,
                            actor=e.actor,
                            session=e.session,
                            event_id=e.event_id,
                            recorded_at=e.recorded_at,
                        )
                        for e in part
                    ]
        assert positions == [e.position for e in logged]
        assert _rows(imported, owners) == _rows(one_by_one, owners)
    finally:
        one_by_one.close()
        imported.close()
