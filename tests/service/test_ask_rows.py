"""Asks stored as rows (arrays): the stream states, snapshots and ask events written today,
and the objects stored before them, decode the same; a store holding old states reads and
folds on from them."""

from __future__ import annotations

import datetime as dt

import msgspec
import pytest
import sqlalchemy as sa

from orbital.catalogue import ask_stream
from orbital.domain.asks import Ask
from orbital.events import (
    Actor,
    AskClosed,
    AskOpened,
    AskReopened,
    Event,
    decode_event,
    encode_payload,
)
from orbital.events.asks import LegacyRecord
from orbital.service._ask_rows import decode_ask, decode_asks, encode_ask, encode_asks
from orbital.store._engine import create_write_engine
from tests.service.conftest import Env

CLOSED = Ask(
    id="a1b2c3",
    text='Pick the "venue"',
    due="2026-10-01",
    opened=dt.date(2026, 9, 19),
    state="done",
    updated=dt.date(2026, 9, 22),
    closed_by="user",
    note='"booked it"',
    seq=42,
)
OPEN = Ask(
    id="d4e5f6",
    text="Book the train",
    due=None,
    opened=dt.date(1969, 12, 30),
    state="open",
    updated=dt.date(1969, 12, 30),
    closed_by=None,
    note="",
    seq=7,
)


def test_a_row_and_the_object_stored_before_decode_to_the_same_ask() -> None:
    assert encode_ask(CLOSED) == (
        '["a1b2c3","Pick the \\"venue\\"",20715,1,3,42,"\\"booked it\\"","user","2026-10-01"]'
    )
    assert encode_ask(OPEN) == '["d4e5f6","Book the train",-2,0,0,7]'  # trailing defaults left out
    for ask in (CLOSED, OPEN):
        old = msgspec.json.encode(ask).decode()
        assert old.startswith('{"id":')
        assert decode_ask(encode_ask(ask)) == decode_ask(old) == ask


def test_a_snapshot_of_rows_and_one_of_objects_decode_to_the_same_asks() -> None:
    asks = {CLOSED.id: CLOSED, OPEN.id: OPEN}
    rows = encode_asks(asks.values())
    assert rows.startswith(b'[["a1b2c3",')
    assert decode_asks(rows) == decode_asks(msgspec.json.encode(asks)) == asks
    assert decode_asks(encode_asks([])) == {}


DAY = dt.date(2026, 9, 19)


@pytest.mark.parametrize(
    ("event", "stored", "before"),
    [
        (
            AskOpened(ask_id="a1b2c3", text="Pick the venue", date=DAY),
            '["a1b2c3","Pick the venue","2026-09-19"]',
            '{"ask_id":"a1b2c3","text":"Pick the venue","date":"2026-09-19"}',
        ),
        (
            AskOpened(
                ask_id="a1b2c3", text="t", date=DAY, due="2026-10-01", legacy=LegacyRecord(line=3)
            ),
            '["a1b2c3","t","2026-09-19","2026-10-01",null,{"line":3}]',
            '{"type":"ask.opened","ask_id":"a1b2c3","text":"t","date":"2026-09-19",'
            '"due":"2026-10-01","legacy":{"line":3}}',
        ),
        (
            AskClosed(ask_id="a1b2c3", kind="done", date=DAY, by="user", note='"yes"'),
            '["a1b2c3","done","2026-09-19","user","\\"yes\\""]',
            '{"ask_id":"a1b2c3","kind":"done","date":"2026-09-19","by":"user","note":"\\"yes\\""}',
        ),
        (
            AskClosed(ask_id="a1b2c3", kind="dropped", date=DAY, by="agent", verified=True),
            '["a1b2c3","dropped","2026-09-19","agent","",null,true]',
            '{"ask_id":"a1b2c3","kind":"dropped","date":"2026-09-19","by":"agent","verified":true}',
        ),
        (
            AskReopened(ask_id="a1b2c3", date=DAY, by="user"),
            '["a1b2c3","2026-09-19","user"]',
            '{"ask_id":"a1b2c3","date":"2026-09-19","by":"user"}',
        ),
    ],
)
def test_an_ask_event_is_stored_as_an_array_and_its_object_still_decodes(
    event: Event, stored: str, before: str
) -> None:
    assert encode_payload(event).decode() == stored
    kind = type(event).__struct_config__.tag
    assert isinstance(kind, str)
    assert decode_event(stored, type=kind) == decode_event(before, type=kind) == event
    assert decode_event(stored.encode(), type=kind) == event


def _stored_state(env: Env, stream: str) -> str:
    engine = create_write_engine(env.orbital.store.url)
    try:
        with engine.connect() as conn:
            query = sa.text("SELECT state FROM streams WHERE project_id = :p AND stream = :s")
            state: str = conn.scalar(query, {"p": env.project, "s": stream})
            query = sa.text("SELECT data FROM events WHERE project_id = :p AND stream = :s")
            assert all(
                data.startswith("[")
                for data in conn.scalars(query, {"p": env.project, "s": stream})
            )
            return state
    finally:
        engine.dispose()


def _store_state(env: Env, stream: str, state: str) -> None:
    engine = create_write_engine(env.orbital.store.url)
    try:
        with engine.begin() as conn:
            conn.execute(
                sa.text("UPDATE streams SET state = :v WHERE project_id = :p AND stream = :s"),
                {"v": state, "p": env.project, "s": stream},
            )
    finally:
        engine.dispose()


def test_a_state_stored_as_an_object_reads_and_folds_on_as_a_row(env: Env) -> None:
    orb, pid = env.orbital, env.project
    orb.ask_open(pid, "Pick the venue", actor=Actor.AGENT)
    (ask,) = orb.asks(pid)
    stream = ask_stream(ask.id)
    with orb.store.reader() as r:
        current = r.state(pid, stream)
    assert _stored_state(env, stream) == encode_ask(current)
    # As every state was stored before rows: an object.
    _store_state(env, stream, msgspec.json.encode(current).decode())
    with orb.store.reader() as r:
        assert r.state(pid, stream) == current
    orb.ask_close(pid, ask.id, "done", '"booked"', actor=Actor.USER)
    with orb.store.reader() as r:
        closed = r.state(pid, stream)
    assert (closed.state, closed.note, closed.opened) == ("done", '"booked"', current.opened)
    assert _stored_state(env, stream) == encode_ask(closed)
