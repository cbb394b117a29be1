"""The event-store contract, run against every backend (SQLite always, PostgreSQL when set)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import msgspec
import pytest
import sqlalchemy as sa

from orbital.clock import FixedClock
from orbital.errors import (
    InvalidInput,
    MalformedEvent,
    StoreLocked,
    UnknownProject,
    VersionConflict,
)
from orbital.events import Actor, AskClosed, AskOpened, Event, RecordedEvent
from orbital.store import Checkpoint, EventStore, Reducer
from orbital.store._engine import create_write_engine
from orbital.store._schema import events
from tests.store.store_helpers import all_events, append, register

DAY = dt.date(2026, 9, 19)


def opened(ask_id: str, text: str = "Choose the venue") -> AskOpened:
    return AskOpened(ask_id=ask_id, text=text, date=DAY)


def closed(ask_id: str) -> AskClosed:
    return AskClosed(ask_id=ask_id, kind="done", date=DAY, by="agent", note='"yes"')


class Tally(msgspec.Struct):
    count: int
    last_type: str
    last_position: int


def tally(state: Tally | None, event: RecordedEvent) -> Tally:
    count = 0 if state is None else state.count
    return Tally(count + 1, event.type, event.position)


@pytest.fixture
def store(store_url: str, clock: FixedClock) -> Iterator[EventStore]:
    with EventStore(store_url, clock=clock, reducers={"ask": Reducer(Tally, tally)}) as s:
        yield s


@pytest.fixture
def project(store: EventStore, tmp_path: Path) -> str:
    return register(store, tmp_path / "proj").project_id


def test_append_then_read_stream_and_project(store: EventStore, project: str) -> None:
    result = append(
        store,
        project,
        "ask:a1b2c3",
        [opened("a1b2c3"), closed("a1b2c3")],
        expected_version=0,
        actor=Actor.AGENT,
        session="s-1",
    )
    assert result.version == 2
    with store.reader() as r:
        stream = r.read_stream(project, "ask:a1b2c3")
    assert [e.event for e in stream] == [opened("a1b2c3"), closed("a1b2c3")]
    assert [e.version for e in stream] == [1, 2]
    assert [e.position for e in stream] == list(result.positions)
    assert {e.actor for e in stream} == {Actor.AGENT}
    assert {e.session for e in stream} == {"s-1"}
    assert stream[0].recorded_at == dt.datetime(2026, 9, 19, 9, 30, tzinfo=dt.UTC)
    assert stream[0].type == "ask.opened"
    everything = all_events(store, project)
    assert [e.stream for e in everything] == ["project", "ask:a1b2c3", "ask:a1b2c3"]


def test_positions_are_global_and_gapless_across_projects(
    store: EventStore, tmp_path: Path
) -> None:
    a = register(store, tmp_path / "a").project_id
    b = register(store, tmp_path / "b").project_id
    for i in range(5):
        append(
            store, a, f"ask:{i:06x}", [opened(f"{i:06x}")], expected_version=0, actor=Actor.AGENT
        )
        append(store, b, f"ask:{i:06x}", [opened(f"{i:06x}")], expected_version=0, actor=Actor.USER)
    positions = sorted(e.position for p in (a, b) for e in all_events(store, p))
    assert positions == list(range(1, 13))
    with store.reader() as r:
        assert r.head() == 12
        assert r.head(a) == 11
    assert [e.position for e in all_events(store, b)] == [2, 4, 6, 8, 10, 12]


def test_stale_expected_version_is_a_conflict_and_writes_nothing(
    store: EventStore, project: str
) -> None:
    append(store, project, "ask:a1b2c3", [opened("a1b2c3")], expected_version=0, actor=Actor.AGENT)
    before = all_events(store, project)
    with pytest.raises(VersionConflict) as info:
        append(
            store, project, "ask:a1b2c3", [closed("a1b2c3")], expected_version=0, actor=Actor.AGENT
        )
    assert (info.value.stream, info.value.expected, info.value.actual) == ("ask:a1b2c3", 0, 1)
    assert str(info.value) == (
        "stream 'ask:a1b2c3' is at version 1, not the expected 0: "
        "someone else wrote it meanwhile; reload and retry"
    )
    assert all_events(store, project) == before
    with store.reader() as r:
        assert r.stream_version(project, "ask:a1b2c3") == 1


def test_expected_version_none_skips_the_check(store: EventStore, project: str) -> None:
    append(
        store, project, "ask:a1b2c3", [opened("a1b2c3")], expected_version=None, actor=Actor.AGENT
    )
    result = append(
        store, project, "ask:a1b2c3", [closed("a1b2c3")], expected_version=None, actor=Actor.AGENT
    )
    assert result.version == 2


def test_a_batch_is_all_or_nothing(store: EventStore, project: str) -> None:
    class Stray(Event, frozen=True, tag="stray.event"):
        pass

    with pytest.raises(MalformedEvent, match="Stray is not in the event catalogue"):
        append(
            store,
            project,
            "ask:a1b2c3",
            [opened("a1b2c3"), Stray()],
            expected_version=0,
            actor=Actor.AGENT,
        )
    append(
        store,
        project,
        "ask:a1b2c3",
        [opened("a1b2c3")],
        expected_version=0,
        actor=Actor.AGENT,
    )
    with pytest.raises(MalformedEvent), store.writing() as writer:
        writer.append(
            project, "ask:d4e5f6", [opened("d4e5f6")], expected_version=0, actor=Actor.AGENT
        )
        writer.append(project, "ask:0e0e0e", [Stray()], expected_version=0, actor=Actor.AGENT)
    assert [e.stream for e in all_events(store, project)] == ["project", "ask:a1b2c3"]
    with store.reader() as r:
        assert r.stream_version(project, "ask:d4e5f6") == 0


def test_unknown_project_is_a_typed_error(store: EventStore) -> None:
    with pytest.raises(UnknownProject) as info:
        append(
            store, "nope", "ask:a1b2c3", [opened("a1b2c3")], expected_version=0, actor=Actor.AGENT
        )
    assert info.value.project == "nope"
    assert "orbital init" in info.value.hint
    with pytest.raises(UnknownProject), store.reader() as r:
        list(r.read_project("nope"))
    with pytest.raises(UnknownProject):
        store.project("nope")


def test_bad_append_arguments_are_refused(store: EventStore, project: str) -> None:
    with pytest.raises(InvalidInput, match="at least one event"):
        append(store, project, "ask:x", [], expected_version=0, actor=Actor.AGENT)
    with pytest.raises(ValueError, match="'robot' is not a valid Actor"):
        wrong = cast(Actor, "robot")  # not an Actor on purpose: the store checks at run time
        append(store, project, "ask:x", [opened("x")], expected_version=0, actor=wrong)
    with store.reader() as r:
        assert r.head(project) == 1


def test_read_project_windows(store: EventStore, project: str, tmp_path: Path) -> None:
    for i in range(6):
        store.clock = FixedClock(dt.datetime(2026, 11, 1 + i, 12, tzinfo=dt.UTC))
        append(
            store,
            project,
            f"ask:{i:06x}",
            [opened(f"{i:06x}")],
            expected_version=0,
            actor=Actor.AGENT,
        )
    with store.reader() as r:
        positions = [e.position for e in r.read_project(project, from_position=3)]
        assert positions == [4, 5, 6, 7]
        until = r.read_project(project, from_position=1, until_position=4)
        assert [e.position for e in until] == [2, 3, 4]
        nov_3 = r.read_project(project, until_time=dt.datetime(2026, 11, 3, 12, tzinfo=dt.UTC))
        assert [e.position for e in nov_3] == [1, 2, 3, 4]
        only = r.read_project(project, stream_prefix="ask:00000")
        assert [e.stream for e in only] == [f"ask:{i:06x}" for i in range(6)]


def test_materialised_state_is_updated_with_the_append(store: EventStore, project: str) -> None:
    append(store, project, "ask:a1b2c3", [opened("a1b2c3")], expected_version=0, actor=Actor.AGENT)
    result = append(
        store, project, "ask:a1b2c3", [closed("a1b2c3")], expected_version=1, actor=Actor.AGENT
    )
    append(store, project, "ask:d4e5f6", [opened("d4e5f6")], expected_version=0, actor=Actor.AGENT)
    with store.reader() as r:
        assert r.state(project, "ask:a1b2c3") == Tally(2, "ask.closed", result.positions[0])
        states = r.states(project, "ask:")
        assert list(states) == ["ask:a1b2c3", "ask:d4e5f6"]
        assert states["ask:d4e5f6"].count == 1
        assert r.state(project, "project") is None  # no reducer for that category
        assert list(r.states(project, "ask:", after=result.positions[0])) == ["ask:d4e5f6"]


def test_a_writer_sees_its_own_heads_and_checkpoints(store: EventStore, project: str) -> None:
    checkout = store.project(project)
    with store.writing() as w:
        assert (w.prefix_head(project, "ask"), w.prefix_head(project, "ask:")) == (0, 0)
        assert w.checkpoint(checkout, "ASKS.md") is None
        first = w.append(
            project, "ask:a1b2c3", [opened("a1b2c3")], expected_version=0, actor=Actor.AGENT
        )
        audit = w.append(
            project, "asks", [opened("d4e5f6")], expected_version=None, actor=Actor.AGENT
        )
        w.append(project, "file:asks", [opened("e5f6a7")], expected_version=None, actor=Actor.FILE)
        assert w.prefix_head(project, "ask:") == first.positions[-1]
        assert w.prefix_head(project, "ask") == audit.positions[-1]
        assert w.prefix_head(project, "file:") == audit.positions[-1] + 1
        w.set_checkpoint(checkout, "ASKS.md", Checkpoint(audit.positions[-1], 10, 20, None))
        assert w.checkpoint(checkout, "ASKS.md") == Checkpoint(audit.positions[-1], 10, 20, None)
    with store.writing() as w:  # and so does the next transaction
        assert w.prefix_head(project, "ask") == audit.positions[-1]
        assert w.checkpoint(checkout, "ASKS.md") == Checkpoint(audit.positions[-1], 10, 20, None)


def test_conflict_inside_a_write_transaction_rolls_back_everything(
    store: EventStore, project: str
) -> None:
    with pytest.raises(VersionConflict), store.writing() as writer:
        writer.append(
            project, "ask:a1b2c3", [opened("a1b2c3")], expected_version=0, actor=Actor.AGENT
        )
        writer.append(
            project, "ask:a1b2c3", [closed("a1b2c3")], expected_version=0, actor=Actor.AGENT
        )
    with store.reader() as r:
        assert r.state(project, "ask:a1b2c3") is None
        assert r.head(project) == 1


def test_events_are_immutable_in_the_database(store: EventStore, project: str) -> None:
    append(store, project, "ask:a1b2c3", [opened("a1b2c3")], expected_version=0, actor=Actor.AGENT)
    engine = sa.create_engine(store.url.replace("postgresql://", "postgresql+psycopg://"))
    statements = [
        "UPDATE events SET data = '{}' WHERE position = 2",
        "DELETE FROM events WHERE position = 2",
        "DELETE FROM events",
    ]
    if store.backend == "postgresql":
        statements.append("TRUNCATE events")
    try:
        for statement in statements:
            with (
                pytest.raises(sa.exc.DatabaseError, match="events are immutable"),
                engine.begin() as conn,
            ):
                conn.execute(sa.text(statement))
    finally:
        engine.dispose()
    with store.reader() as r:
        assert [e.event for e in r.read_stream(project, "ask:a1b2c3")] == [opened("a1b2c3")]


def test_undecodable_stored_data_is_reported_with_its_position(
    store: EventStore, project: str
) -> None:
    engine = sa.create_engine(store.url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO events (position, project_id, stream, version, type, data, actor,"
                    " recorded_at, event_id) VALUES (2, :p, 'ask:x', 1, 'ask.opened',"
                    " '{\"type\": \"ask.opened\", \"text\": 3}', 'agent', :t, 'bad')"
                ),
                {"p": project, "t": dt.datetime(2026, 9, 19)},
            )
    finally:
        engine.dispose()
    with pytest.raises(MalformedEvent) as info:
        all_events(store, project)
    assert info.value.position == 2
    assert str(info.value).startswith("malformed event at position 2: ")


def test_register_project_is_idempotent_and_validates_the_timezone(
    store: EventStore, tmp_path: Path
) -> None:
    first = register(store, tmp_path / "site", timezone="Europe/Berlin")
    again = register(store, tmp_path / "site")
    assert again == first
    assert re.fullmatch(r"[0-9a-f]{32}", first.project_id)  # random: never the folder's name
    other = register(store, tmp_path / "elsewhere" / "site")
    assert other.project_id != first.project_id
    with store.reader() as r:
        assert r.project_for_root(tmp_path / "site") == first
        assert [p.project_id for p in r.projects()] == sorted([first.project_id, other.project_id])
        assert r.names() == {first.project_id: "site", other.project_id: "site"}
    with pytest.raises(InvalidInput, match="unknown timezone 'Mars/Base'"):
        register(store, tmp_path / "x", timezone="Mars/Base")
    with pytest.raises(UnknownProject), store.reader() as r:
        r.project_for_root(tmp_path / "never")
    with store.reader() as r:
        registered = r.read_stream(first.project_id, "project")
    assert [e.type for e in registered] == ["project.registered"]
    assert registered[0].actor is Actor.SYSTEM


def test_a_writer_past_the_busy_timeout_gets_store_locked(
    store_url: str, clock: FixedClock, tmp_path: Path
) -> None:
    holder = EventStore(store_url, clock=clock)
    project = register(holder, tmp_path / "p").project_id
    waiter = EventStore(store_url, clock=clock, timeout_ms=200)
    try:
        with holder.writing() as writer:
            writer.append(
                project, "ask:a1b2c3", [opened("a1b2c3")], expected_version=0, actor=Actor.AGENT
            )
            with pytest.raises(StoreLocked) as info:
                append(
                    waiter,
                    project,
                    "ask:d4e5f6",
                    [opened("d4e5f6")],
                    expected_version=0,
                    actor=Actor.AGENT,
                )
        assert info.value.timeout_ms == 200
        assert "nothing was written" in str(info.value)
        assert "ORBITAL_BUSY_TIMEOUT_MS" in str(info.value)
        with waiter.reader() as r:
            assert r.stream_version(project, "ask:d4e5f6") == 0
            assert r.stream_version(project, "ask:a1b2c3") == 1
    finally:
        waiter.close()
        holder.close()


def test_recorded_time_never_runs_backwards_along_positions(
    store: EventStore, project: str
) -> None:
    later = dt.datetime(2026, 9, 20, 12, tzinfo=dt.UTC)
    store.clock = FixedClock(later)
    append(store, project, "ask:a1b2c3", [opened("a1b2c3")], expected_version=0, actor=Actor.AGENT)
    store.clock = FixedClock(later - dt.timedelta(hours=5))  # the machine's clock stepped back
    append(store, project, "ask:d4e5f6", [opened("d4e5f6")], expected_version=0, actor=Actor.AGENT)
    times = [e.recorded_at for e in all_events(store, project)]
    assert times == sorted(times)
    assert times[-1] == later
    with store.reader() as r:
        assert r.position_at(project, later) == 3
        assert r.position_at(project, later - dt.timedelta(seconds=1)) == 1


def test_instants_resolve_to_positions_as_a_filter_on_time_would(
    store: EventStore, project: str, tmp_path: Path
) -> None:
    other = register(store, tmp_path / "other").project_id
    start = dt.datetime(2026, 11, 1, 9, tzinfo=dt.UTC)
    for i in range(40):  # two projects interleaved; several events share an instant
        store.clock = FixedClock(start + dt.timedelta(minutes=10 * (i // 3)))
        pid = project if i % 4 else other
        append(store, pid, f"ask:{i:06x}", [opened(f"{i:06x}")], expected_version=0,
               actor=Actor.AGENT)  # fmt: skip
    events = all_events(store, project)
    probes = [start + dt.timedelta(minutes=m) for m in range(-10, 150, 5)]
    with store.reader() as r:
        for when in probes:
            upto = [e.position for e in events if e.recorded_at <= when]
            assert r.position_at(project, when) == (upto[-1] if upto else 0)
            since = [e.position for e in r.read_project(project, since_time=when)]
            assert since == [e.position for e in events if e.recorded_at >= when]
            until = [e.position for e in r.read_project(project, until_time=when)]
            assert until == upto
            window = r.read_project(project, since_time=when - dt.timedelta(minutes=15),
                                    until_time=when, until_position=30)  # fmt: skip
            assert [e.position for e in window] == [
                p for p in upto if p <= 30 and p in {e.position for e in events
                if e.recorded_at >= when - dt.timedelta(minutes=15)}
            ]  # fmt: skip


@pytest.mark.sqlite_only("SQLite keeps instants as text, written as SQLAlchemy wrote them")
def test_instants_are_stored_as_sqlalchemy_stored_them(tmp_path: Path, clock: FixedClock) -> None:
    url = f"sqlite:///{tmp_path / 'orbital.db'}"
    with EventStore(url, clock=clock) as store:
        project = register(store, tmp_path / "proj").project_id
        store.clock = FixedClock(dt.datetime(2026, 9, 19, 9, 30, 0, 250, tzinfo=dt.UTC))
        append(
            store, project, "ask:a1b2c3", [opened("a1b2c3")], expected_version=0, actor=Actor.AGENT
        )
        recorded = [e.recorded_at.replace(tzinfo=None) for e in all_events(store, project)]
    engine = create_write_engine(url)
    try:
        with engine.connect() as conn:
            stored = conn.execute(sa.text("SELECT recorded_at FROM events ORDER BY position"))
            read = conn.execute(sa.select(events.c.recorded_at).order_by(events.c.position))
            as_text, as_instants = [r[0] for r in stored], [r[0] for r in read]
    finally:
        engine.dispose()
    assert as_text == ["2026-09-19 09:30:00.000000", "2026-09-19 09:30:00.000250"]
    assert (
        as_instants
        == recorded
        == [dt.datetime(2026, 9, 19, 9, 30), dt.datetime(2026, 9, 19, 9, 30, 0, 250)]
    )
