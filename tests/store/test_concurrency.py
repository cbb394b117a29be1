"""Concurrent writers: nothing lost, positions gapless, acknowledged appends durable."""

from __future__ import annotations

import datetime as dt
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbital.errors import VersionConflict
from orbital.events import Actor, AskOpened, RecordedEvent
from orbital.store import EventStore
from tests.store.store_helpers import all_events, append, register

ROOT = Path(__file__).resolve().parents[2]
DAY = dt.date(2026, 9, 19)

pytestmark = pytest.mark.slow


def _event(text: str) -> AskOpened:
    return AskOpened(ask_id="x", text=text, date=DAY)


def _text(recorded: RecordedEvent) -> str:
    """The text of an event these tests appended (each one an ``AskOpened``)."""
    assert isinstance(recorded.event, AskOpened)
    return recorded.event.text


def _append_retrying(store: EventStore, project: str, stream: str, texts: list[str]) -> None:
    """Decide against the version the writer read; on a VersionConflict reload and retry."""
    while True:
        with store.reader() as r:
            version = r.stream_version(project, stream)
        try:
            append(
                store,
                project,
                stream,
                [_event(t) for t in texts],
                expected_version=version,
                actor=Actor.AGENT,
            )
            return
        except VersionConflict:
            continue


operations = st.lists(
    st.tuples(st.integers(0, 1), st.integers(0, 2), st.integers(1, 4), st.booleans()),
    min_size=1,
    max_size=25,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=operations)
def test_any_interleaving_of_two_writers_loses_nothing(
    store_url: str, tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[int, int, int, bool]]
) -> None:
    writers = [EventStore(store_url), EventStore(store_url, upgrade=False)]
    try:
        project = register(writers[0], tmp_path_factory.mktemp("p")).project_id
        stale: dict[tuple[int, str], int] = defaultdict(int)
        expected: dict[str, list[str]] = defaultdict(list)
        for n, (who, stream_no, size, use_stale_version) in enumerate(ops):
            store, stream = writers[who], f"ask:{stream_no}"
            texts = [f"{n}.{k}" for k in range(size)]
            if use_stale_version:
                # Decide against what this writer saw last: the other may have moved on.
                try:
                    result = append(
                        store,
                        project,
                        stream,
                        [_event(t) for t in texts],
                        expected_version=stale[who, stream],
                        actor=Actor.AGENT,
                    )
                except VersionConflict:
                    _append_retrying(store, project, stream, texts)
                else:
                    stale[who, stream] = result.version
            else:
                _append_retrying(store, project, stream, texts)
            expected[stream].extend(texts)
        recorded = all_events(writers[1], project)
        with writers[0].reader() as r:
            head = r.head()
        everything = [e.position for e in all_events(writers[0], project)]
        assert everything == list(range(everything[0], head + 1))  # gapless, in order
        for stream, texts in expected.items():
            events = [e for e in recorded if e.stream == stream]
            assert [_text(e) for e in events] == texts
            assert [e.version for e in events] == list(range(1, len(texts) + 1))
    finally:
        for store in writers:
            store.close()


def test_threads_appending_to_the_same_stream_lose_nothing(store_url: str, tmp_path: Path) -> None:
    stores = [EventStore(store_url), EventStore(store_url, upgrade=False)]
    project = register(stores[0], tmp_path).project_id
    errors: list[BaseException] = []

    def work(who: int) -> None:
        try:
            for i in range(100):
                _append_retrying(stores[who], project, "ask:shared", [f"{who}:{i}"])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == []
        with stores[0].reader() as r:
            events = r.read_stream(project, "ask:shared")
        texts = [_text(e) for e in events]
        assert sorted(texts) == sorted(f"{w}:{i}" for w in (0, 1) for i in range(100))
        assert [e.version for e in events] == list(range(1, 201))
        positions = [e.position for e in all_events(stores[0], project)]
        assert positions == list(range(1, 202))
    finally:
        for store in stores:
            store.close()


def _spawn(url: str, project: str, writer: int, count: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.store.writer_process", url, project, str(writer), str(count)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "error"},
    )


def test_four_processes_append_concurrently_to_one_store(store_url: str, tmp_path: Path) -> None:
    with EventStore(store_url) as store:
        project = register(store, tmp_path / "p").project_id
    procs = [_spawn(store_url, project, w, 500) for w in range(4)]
    outputs = [p.communicate(timeout=240)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0]
    acknowledged = {int(line.split()[1]) for out in outputs for line in out.splitlines()}
    assert len(acknowledged) == 2000
    with EventStore(store_url) as store, store.reader() as r:
        events = list(r.read_project(project))
        assert [e.position for e in events] == list(range(1, 2002))
        assert acknowledged == {e.position for e in events[1:]}
        for w in range(4):
            texts = [_text(e) for e in r.read_stream(project, f"ask:w{w}")]
            assert texts == [f"{w}:{i}" for i in range(500)]


def test_a_killed_writer_loses_no_acknowledged_append(
    store_url: str, backend: str, tmp_path: Path
) -> None:
    with EventStore(store_url) as store:
        project = register(store, tmp_path / "p").project_id
    proc = _spawn(store_url, project, 0, 100_000)
    assert proc.stdout is not None
    acknowledged: dict[int, int] = {}
    for line in proc.stdout:
        i, position = map(int, line.split())
        acknowledged[i] = position
        if len(acknowledged) >= 300:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    for line in proc.stdout.read().splitlines():  # acknowledged before the kill landed
        i, position = map(int, line.split())
        acknowledged[i] = position
    proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL
    if backend == "sqlite":
        with sqlite3.connect(tmp_path / "orbital.db") as raw:
            assert raw.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    with EventStore(store_url) as store, store.reader() as r:
        events = {e.position: e for e in r.read_stream(project, "ask:w0")}
        for i, position in acknowledged.items():
            assert _text(events[position]) == f"0:{i}"
        positions = [e.position for e in r.read_project(project)]
        assert positions == list(range(1, len(positions) + 1))
