"""Asks stored as rows (arrays): the stream states and snapshots written today, and the
objects stored before them, decode to the same asks; a store holding old states reads and
folds on from them."""

from __future__ import annotations

import datetime as dt

import msgspec
import sqlalchemy as sa

from orbital.catalogue import ask_stream
from orbital.domain.asks import Ask
from orbital.events import Actor
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


def _stored_state(env: Env, stream: str) -> str:
    engine = create_write_engine(env.orbital.store.url)
    try:
        with engine.connect() as conn:
            query = sa.text("SELECT state FROM streams WHERE project_id = :p AND stream = :s")
            state: str = conn.scalar(query, {"p": env.project, "s": stream})
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
