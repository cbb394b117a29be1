"""Decode-time upcasting: rows written by earlier code read in today's shape, never rewritten.

The legacy rows below are verbatim ``data`` columns written by the code before the upcast
(an ASKS.md hand edit taken in with ``orbital sync``, ``regenerate --force`` over an edited
ASKS.md, and ``orbital editor apply``).
"""

from __future__ import annotations

import datetime as dt
import json

import pytest
import sqlalchemy as sa

from orbital.catalogue import ASKS_KEY
from orbital.errors import MalformedEvent
from orbital.events import Actor, decode_event, encode_event
from orbital.events.editor import EditorRunStarted
from orbital.events.files import HandEditConflict, HandEditDetected
from tests.service.conftest import Env

SHA_EXPECTED = "7e628821b94e2afb46a4915f95ed665a11811b695a13e4e9ef9e9784bec3f559"
SHA_FOUND = "debde38c57021a31f3a7c57b9a90f64dd4ab2dfd7dc94aab5e445fc5d906345d"
COPY = "ASKS.md.conflict-20260919T090000000000Z.md"
#: ``sync`` took in an ASKS.md hand edit: the file was stored by name.
LEGACY_DETECTED = (
    '{"type":"file.hand_edit_detected","file":"ASKS.md",'
    f'"expected_sha256":"{SHA_EXPECTED}","found_sha256":"{SHA_FOUND}"}}'
)
LEGACY_CONFLICT = (
    '{"type":"file.hand_edit_conflict","file":"ASKS.md",'
    f'"conflict_copy":"{COPY}","found_sha256":"{SHA_FOUND}"}}'
)
#: ``regenerate --force`` already stored the key.
KEYED_CONFLICT = (
    '{"type":"file.hand_edit_conflict","file":"asks",'
    f'"conflict_copy":"{COPY}","found_sha256":"{SHA_FOUND}"}}'
)
#: ``editor apply``: per-file positions under the name ``versions``.
LEGACY_RUN_STARTED = (
    '{"type":"editor.run_started","run_id":"20260919T090000000000Z-3920","trigger":"apply",'
    '"memory_position":7,"versions":{"state":0,"decisions":4,"lessons":0,"index":0}}'
)
POSITIONS = {"state": 0, "decisions": 4, "lessons": 0, "index": 0}


@pytest.mark.parametrize("data", [LEGACY_DETECTED, LEGACY_CONFLICT, KEYED_CONFLICT])
def test_asks_file_events_decode_with_the_key_memory_events_use(data: str) -> None:
    event = decode_event(data)
    assert isinstance(event, HandEditDetected | HandEditConflict)
    assert event.file == ASKS_KEY
    assert json.loads(encode_event(event))["file"] == "asks"


def test_a_memory_file_key_is_left_alone() -> None:
    data = LEGACY_CONFLICT.replace('"ASKS.md"', '"decisions"')
    event = decode_event(data)
    assert isinstance(event, HandEditConflict) and event.file == "decisions"


def test_run_started_versions_decode_as_positions() -> None:
    event = decode_event(LEGACY_RUN_STARTED.encode())
    assert event == EditorRunStarted(
        run_id="20260919T090000000000Z-3920",
        trigger="apply",
        memory_position=7,
        positions=POSITIONS,
    )
    written = json.loads(encode_event(event))
    assert "versions" not in written and written["positions"] == POSITIONS


def test_run_started_without_positions_decodes_empty() -> None:
    data = '{"type":"editor.run_started","run_id":"r","trigger":"apply","memory_position":0}'
    assert decode_event(data) == EditorRunStarted(run_id="r", trigger="apply", memory_position=0)


def _rows(store_url: str) -> list[tuple[str, str]]:
    """The stored rows as they are in the table, on either backend."""
    engine = sa.create_engine(store_url)
    try:
        with engine.connect() as conn:
            query = sa.text("SELECT stream, data FROM events ORDER BY position")
            return [(stream, data) for stream, data in conn.execute(query)]
    finally:
        engine.dispose()


def _typed_rows(store_url: str) -> list[tuple[str, str]]:
    """Each stored row's type column and data, on either backend."""
    engine = sa.create_engine(store_url)
    try:
        with engine.connect() as conn:
            query = sa.text("SELECT type, data FROM events ORDER BY position")
            return [(kind, data) for kind, data in conn.execute(query)]
    finally:
        engine.dispose()


def test_stored_legacy_rows_read_upcast_and_stay_as_written(env: Env, store_url: str) -> None:
    head = env.orbital.head()
    legacy = [
        ("file:asks", LEGACY_DETECTED),
        ("file:asks", LEGACY_CONFLICT),
        ("editor", LEGACY_RUN_STARTED),
    ]
    engine = sa.create_engine(store_url)
    insert = sa.text(
        "INSERT INTO events (position, project_id, stream, version, type, data, actor,"
        " recorded_at, event_id) VALUES (:position, :project, :stream, :version, :type,"
        " :data, 'file', :recorded_at, :event_id)"
    )
    with engine.begin() as conn:
        for offset, (stream, data) in enumerate(legacy, start=1):
            conn.execute(
                insert,
                {
                    "position": head + offset,
                    "project": env.project,
                    "stream": stream,
                    "version": offset if stream == "file:asks" else 1,
                    "type": json.loads(data)["type"],
                    "data": data,
                    "recorded_at": dt.datetime(2026, 9, 19, 9, 0),
                    "event_id": f"legacy-{offset}",
                },
            )
    engine.dispose()
    read = [e.event for e in env.orbital.history(env.project) if e.position > head]
    assert [getattr(e, "file", None) for e in read] == ["asks", "asks", None]
    assert isinstance(read[2], EditorRunStarted) and read[2].positions == POSITIONS
    assert _rows(store_url)[-3:] == legacy  # read many times, never rewritten


def test_new_writes_store_the_new_shape(env: Env, store_url: str) -> None:
    env.orbital.write_file(env.project, "ASKS.md", b"- open Choose the venue\n", actor=Actor.AGENT)
    asks = env.memory / "ASKS.md"
    asks.write_text(asks.read_text() + "a line that is no ask event\n- frobnicate xyz\n")
    assert env.orbital.sync(env.project).conflicts
    env.orbital.editor_apply(env.project, "{}")
    stored = [
        {"type": kind, **json.loads(data)}
        for kind, data in _typed_rows(store_url)
        if not data.startswith("[")  # an ask event's fields, an array (test_ask_rows.py)
    ]
    hand_edits = [d for d in stored if d["type"].startswith("file.hand_edit")]
    assert [d["file"] for d in hand_edits] == ["asks", "asks"]
    (started,) = [d for d in stored if d["type"] == "editor.run_started"]
    assert "versions" not in started and set(started["positions"]) == set(POSITIONS)


def test_new_rows_leave_the_type_tag_to_the_type_column(env: Env, store_url: str) -> None:
    env.orbital.write_file(env.project, "ASKS.md", b"- open Choose the venue\n", actor=Actor.AGENT)
    kind, data = _typed_rows(store_url)[-1]
    assert kind == "ask.opened"
    ask_id = env.orbital.asks(env.project)[0].id
    assert data == f'["{ask_id}","Choose the venue","2026-09-19"]'  # an ask event: an array
    # The same event as stored before, an object with its tag or without, decodes alike; a
    # tagless one needs the row's type.
    before = f'{{"ask_id":"{ask_id}","text":"Choose the venue","date":"2026-09-19"}}'
    tagged = '{"type":"ask.opened",' + before[1:]
    assert (
        decode_event(tagged)
        == decode_event(before, type=kind)
        == decode_event(tagged, type=kind)
        == decode_event(data, type=kind)
    )
    with pytest.raises(
        MalformedEvent, match=r"^malformed event: Object missing required field `type`$"
    ):
        decode_event(before)
    with pytest.raises(MalformedEvent, match=r"^malformed event: Expected `object`, got `array`$"):
        decode_event(data)
    with pytest.raises(MalformedEvent, match=r"ask\.closed"):
        decode_event(tagged.replace("ask.opened", "ask.closed"), type=kind)
