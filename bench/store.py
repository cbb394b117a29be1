"""Event-store benchmark: the store against raw sqlite3 on the same machine and pragmas.

Run: ``python bench/store.py [--pg URL] [--quick]`` (the PostgreSQL URL defaults to
``ORBITAL_TEST_PG_URL``; without one the PostgreSQL row is skipped). Prints medians and ratios:

1. one durable append (its own transaction) through the store vs a raw INSERT + COMMIT
   loop on the same SQLite library (pysqlite3's: its build syncs with ``fsync`` where
   Python's own sqlite3 uses ``fdatasync``, so that one is printed beside, not as the
   baseline), interleaved one by one in rounds (target: ratio <= 2x in every round; the
   rounds' spread is printed); then, with a PostgreSQL URL, one append through a PostgreSQL
   store (a schema of its own) interleaved with one through a SQLite store (target: <= 2x
   SQLite's, issue 30);
2. one append of a 10,000-event batch vs raw ``executemany`` of the same rows in one
   transaction (target: >= 50% of the raw rate);
3. reading current state (materialised) of a project with 1k vs 100k events
   (target: flat), beside a full replay of the log for contrast;
4. the store's size: ``bench/history.py``'s project of 100,000 events (quick: 10,000; memory
   writes through the service, ask events in bulk with the asks snapshot hook), bytes per
   event and where they go, per table and index (SQLite's ``dbstat``; target <= 500 bytes
   per event at 100k);
5. importing that project's exported log into a new store (``Orbital.import_log``, the whole
   of ``orbital import``: the events, the files written, the search index), events/s per
   round, on SQLite and, with ``--pg URL`` (default: ``ORBITAL_TEST_PG_URL``), on PostgreSQL
   in a schema of its own; beside the raw ``executemany`` rate of 10,000 rows on the same
   database in the same run (SQLite: row 2's; target >= 50,000 events/s on both).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import shutil
import sqlite3
import statistics
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pysqlite3.dbapi2 as pysqlite3
from timing import median_ms, pg_schema, timed

from orbital.catalogue import ASK_PREFIX, ask_stream
from orbital.events import Actor, AskOpened, RecordedEvent, encode_event
from orbital.service import Orbital
from orbital.store import EventStore, Reducer

DAY = dt.date(2026, 9, 19)
PRAGMAS = ("journal_mode = WAL", "synchronous = FULL", "foreign_keys = ON", "busy_timeout = 5000")


class Tally(msgspec.Struct):
    count: int
    last_position: int


def tally(state: Tally | None, event: RecordedEvent) -> Tally:
    return Tally((state.count if state else 0) + 1, event.position)


def event(i: int) -> AskOpened:
    return AskOpened(ask_id=f"{i % 100:06x}", text=f"ask number {i}", date=DAY)


def raw_connection(path: Path, library: Any = pysqlite3) -> sqlite3.Connection:
    """A plain connection (``library``: the store's SQLite, pysqlite3's, or Python's own)."""
    conn: sqlite3.Connection = library.connect(path, isolation_level=None)
    for pragma in PRAGMAS:
        conn.execute(f"PRAGMA {pragma}")
    conn.execute(
        "CREATE TABLE events (position INTEGER PRIMARY KEY, project_id TEXT NOT NULL,"
        " stream TEXT NOT NULL, version INTEGER NOT NULL, type TEXT NOT NULL,"
        " data TEXT NOT NULL, actor TEXT NOT NULL, session TEXT, recorded_at TEXT NOT NULL,"
        " event_id TEXT NOT NULL UNIQUE, UNIQUE (project_id, stream, version))"
    )
    return conn


def raw_row(i: int, version: int) -> tuple[object, ...]:
    return (
        "p",
        ask_stream(f"{i % 100:06x}"),
        version,
        "ask.opened",
        encode_event(event(i)).decode(),
        "agent",
        None,
        dt.datetime.now(dt.UTC).isoformat(),
        uuid.uuid4().hex,
    )


INSERT = (
    "INSERT INTO events (project_id, stream, version, type, data, actor, session,"
    " recorded_at, event_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def register(store: EventStore, root: Path) -> str:
    with store.writing() as w:
        return w.register_project(root).project_id


def bench_single(tmp: Path, n: int, rounds: int) -> list[tuple[float, float, float]]:
    """Per round, the medians of ``n`` raw appends through the store's SQLite library, ``n``
    through Python's and ``n`` store appends, interleaved one by one (in turning order), so
    all three see the same load on the machine."""
    same = raw_connection(tmp / "raw1.db")
    python = raw_connection(tmp / "raw1-python.db", sqlite3)
    store = EventStore(f"sqlite:///{tmp / 'store1.db'}", reducers={"ask": Reducer(Tally, tally)})
    project = register(store, tmp / "p1")
    versions: dict[str, int] = {}
    counter = iter(range(10**9))

    def raw_once(conn: sqlite3.Connection) -> None:
        i = next(counter)
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(INSERT, raw_row(i, i + 1))
        conn.execute("COMMIT")

    def store_once() -> None:
        i = next(counter)
        stream = ask_stream(f"{i % 100:06x}")
        with store.writing() as w:
            result = w.append(
                project,
                stream,
                [event(i)],
                expected_version=versions.get(stream, 0),
                actor=Actor.AGENT,
            )
        versions[stream] = result.version

    medians = []
    for _ in range(rounds):
        samples: list[list[float]] = [[], [], []]
        runs = [(lambda: raw_once(same), 0), (lambda: raw_once(python), 1), (store_once, 2)]
        for k in range(n):
            for fn, slot in runs[k % 3 :] + runs[: k % 3]:
                samples[slot] += timed(fn, 1)
        medians.append((median_ms(samples[0]), median_ms(samples[1]), median_ms(samples[2])))
    same.close()
    python.close()
    store.close()
    return medians


def bench_backends(tmp: Path, pg_url: str, n: int, rounds: int) -> list[tuple[float, float]]:
    """Per round, the medians of ``n`` appends (each its own transaction) through a SQLite
    store and ``n`` through a PostgreSQL store, interleaved one by one."""
    with pg_schema(pg_url) as url:
        stores = [EventStore(f"sqlite:///{tmp / 'store-vs.db'}"), EventStore(url)]
        for store in stores:
            store.reducers = {"ask": Reducer(Tally, tally)}
        projects = [register(store, tmp / f"vs-{store.backend}") for store in stores]
        versions: list[dict[str, int]] = [{}, {}]
        counter = iter(range(10**9))

        def once(slot: int) -> None:
            i = next(counter)
            stream = ask_stream(f"{i % 100:06x}")
            with stores[slot].writing() as w:
                result = w.append(
                    projects[slot],
                    stream,
                    [event(i)],
                    expected_version=versions[slot].get(stream, 0),
                    actor=Actor.AGENT,
                )
            versions[slot][stream] = result.version

        medians = []
        for _ in range(rounds):
            samples: list[list[float]] = [[], []]
            for k in range(n):
                for slot in (k % 2, 1 - k % 2):
                    samples[slot] += timed(lambda s=slot: once(s), 1)  # type: ignore[misc]
            medians.append((median_ms(samples[0]), median_ms(samples[1])))
        for store in stores:
            store.close()
    return medians


def bench_batch(tmp: Path, size: int, repeat: int) -> tuple[float, float]:
    raw = raw_connection(tmp / "raw2.db")
    rounds = iter(range(10**9))

    def raw_batch() -> None:
        r = next(rounds)
        rows = [raw_row(i, r * size + i + 1) for i in range(size)]
        raw.execute("BEGIN IMMEDIATE")
        raw.executemany(INSERT, rows)
        raw.execute("COMMIT")

    raw_samples = timed(raw_batch, repeat)
    raw.close()

    store = EventStore(f"sqlite:///{tmp / 'store2.db'}", reducers={"ask": Reducer(Tally, tally)})
    project = register(store, tmp / "p2")
    batch = [event(i) for i in range(size)]

    def store_batch() -> None:
        with store.writing() as w:
            w.append(project, ask_stream("batch"), batch, expected_version=None, actor=Actor.AGENT)

    store_samples = timed(store_batch, repeat)
    store.close()
    return size / statistics.median(raw_samples), size / statistics.median(store_samples)


def bench_state(tmp: Path, total: int, repeat: int) -> tuple[float, float, float]:
    store = EventStore(
        f"sqlite:///{tmp / f'state{total}.db'}", reducers={"ask": Reducer(Tally, tally)}
    )
    project = register(store, tmp / f"p{total}")
    chunk = 1000
    for start in range(0, total, chunk):
        with store.writing() as writer:
            for stream_no in range(100):
                batch = [event(i) for i in range(start, start + chunk) if i % 100 == stream_no]
                if batch:
                    writer.append(
                        project,
                        ask_stream(f"{stream_no:06x}"),
                        batch,
                        expected_version=None,
                        actor=Actor.AGENT,
                    )

    def state() -> None:
        with store.reader() as r:
            r.state(project, ask_stream("000007"))

    def states() -> None:
        with store.reader() as r:
            r.states(project, ASK_PREFIX)

    def replay() -> None:
        folded: dict[str, Tally | None] = {}
        with store.reader() as r:
            for recorded in r.read_project(project, stream_prefix=ASK_PREFIX):
                folded[recorded.stream] = tally(folded.get(recorded.stream), recorded)

    one = median_ms(timed(state, repeat))
    every = median_ms(timed(states, repeat))

    replayed = median_ms(timed(replay, max(3, repeat // 20)))
    store.close()
    return one, every, replayed


def bench_size(tmp: Path, total: int) -> tuple[int, int, list[tuple[str, int]], bytes]:
    """Events, bytes and bytes per table or index of a history-like project's store, and its
    exported log (row 5's file)."""
    from history import build  # bench/history.py's project, built the same way

    built = build(tmp, total, seed=total)
    events = built.events
    exported = b"".join(built.orbital.export_log(built.project))
    built.orbital.close()
    path = tmp / f"history{total}.db"
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        rows = conn.execute(  # Python's SQLite has the dbstat table; pysqlite3's does not
            "SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC"
        ).fetchall()
    return events, sum(size for _, size in rows), rows, exported


def raw_pg_rate(url: str, size: int, repeat: int) -> float:
    """Raw ``executemany`` of ``size`` rows (row 2's) into a table like the raw one, in a
    schema of its own, through psycopg (pipelined): events/s, median of ``repeat``."""
    import psycopg
    import sqlalchemy as sa

    plain = sa.make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    schema = f"bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
        try:
            conn.execute(
                f"CREATE TABLE {schema}.events (position BIGSERIAL PRIMARY KEY,"
                " project_id TEXT NOT NULL, stream TEXT NOT NULL, version INTEGER NOT NULL,"
                " type TEXT NOT NULL, data TEXT NOT NULL, actor TEXT NOT NULL, session TEXT,"
                " recorded_at TEXT NOT NULL, event_id TEXT NOT NULL UNIQUE,"
                " UNIQUE (project_id, stream, version))"
            )
            rounds = iter(range(10**9))

            def raw_batch() -> None:
                r = next(rounds)
                rows = [raw_row(i, r * size + i + 1) for i in range(size)]
                with conn.transaction(), conn.cursor() as cursor:
                    cursor.executemany(
                        INSERT.replace("events", f"{schema}.events").replace("?", "%s"), rows
                    )

            return size / statistics.median(timed(raw_batch, repeat))
        finally:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def bench_import(tmp: Path, checkout: Path, exported: bytes, urls: Iterator[str]) -> list[float]:
    """Events/s of importing ``exported`` into each new store ``urls`` yields, each into a
    copy of the project's checkout (its committed files, as a clone has them)."""
    rates = []
    for n, url in enumerate(urls):
        clone = tmp / f"import{n}"
        shutil.copytree(checkout, clone)
        with Orbital.open(url) as target:
            start = time.perf_counter()
            imported = target.import_log(clone, [exported]).imported
            rates.append(imported / (time.perf_counter() - start))
    return rates


def import_rounds(
    tmp: Path, exported: bytes, checkout: Path, rounds: int, pg: str
) -> dict[str, list[float]]:
    """Row 5's rates per backend (PostgreSQL only with a URL)."""
    sqlite_urls = (f"sqlite:///{tmp / f'import{n}.db'}" for n in range(rounds))
    rates = {"SQLite": bench_import(tmp, checkout, exported, sqlite_urls)}
    if pg:

        def pg_urls() -> Iterator[str]:
            for _ in range(rounds):
                with pg_schema(pg) as url:
                    yield url

        rates["PostgreSQL"] = bench_import(tmp / "pg", checkout, exported, pg_urls())
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples, smaller logs")
    parser.add_argument(
        "--pg",
        default=os.environ.get("ORBITAL_TEST_PG_URL", ""),
        help="a PostgreSQL server for rows 1 and 5 (a schema of its own is made and dropped)",
    )
    parser.add_argument("--only-append", action="store_true", help="only the single appends")
    args = parser.parse_args()
    quick = args.quick
    n_single = 100 if quick else 400
    single_rounds = 3 if quick else 5
    batch_repeat = 3 if quick else 7
    sizes = (1_000, 10_000) if quick else (1_000, 100_000)
    import_rounds_n = 2 if quick else 3
    with tempfile.TemporaryDirectory(prefix="orbital-bench-") as name:
        tmp = Path(name)
        print(
            f"SQLite {pysqlite3.sqlite_version} (the store's, pysqlite3), pragmas: "
            f"{', '.join(PRAGMAS)}; load average {os.getloadavg()[0]:.1f}"
        )
        rounds = bench_single(tmp, n_single, single_rounds)
        ratios = sorted(store_ms / raw_ms for raw_ms, _, store_ms in rounds)
        to_python = sorted(store_ms / python_ms for _, python_ms, store_ms in rounds)
        print(
            f"\n1. single durable append, {single_rounds} rounds of {n_single} each, "
            "interleaved with the raw loops (median of the rounds' medians):"
        )
        for label, slot in (
            ("raw INSERT+COMMIT, store's SQLite", 0),
            ("raw INSERT+COMMIT, Python's sqlite3", 1),
            ("Writer.append (own tx)", 2),
        ):
            print(f"   {label:37} {statistics.median(r[slot] for r in rounds):8.3f} ms")
        print(
            f"   ratio store/raw (same SQLite)         {statistics.median(ratios):8.2f}x   "
            f"(rounds {ratios[0]:.2f}x-{ratios[-1]:.2f}x; target <= 2x in every round)"
        )
        print(
            f"   ratio store/raw (Python's sqlite3 {sqlite3.sqlite_version}) "
            f"{statistics.median(to_python):6.2f}x   "
            f"(rounds {to_python[0]:.2f}x-{to_python[-1]:.2f}x)"
        )
        if args.pg:
            both = bench_backends(tmp, args.pg, n_single, single_rounds)
            pg_ratios = sorted(pg_ms / sqlite_ms for sqlite_ms, pg_ms in both)
            for label, slot in (("SQLite store", 0), ("PostgreSQL store", 1)):
                median = statistics.median(r[slot] for r in both)
                print(f"   {'Writer.append, ' + label:37} {median:8.3f} ms")
            print(
                f"   ratio PostgreSQL/SQLite               {statistics.median(pg_ratios):8.2f}x   "
                f"(rounds {pg_ratios[0]:.2f}x-{pg_ratios[-1]:.2f}x; target <= 2x)"
            )
        else:
            print("   PostgreSQL: skipped (no --pg URL and no ORBITAL_TEST_PG_URL)")
        if args.only_append:
            return
        raw_rate, store_rate = bench_batch(tmp, 10_000, batch_repeat)
        print(f"\n2. one batch of 10,000 events, median of {batch_repeat}:")
        print(f"   raw executemany            {raw_rate:10,.0f} events/s")
        print(f"   Writer.append (own tx)     {store_rate:10,.0f} events/s")
        print(f"   store / raw                {store_rate / raw_rate:9.0%}   (target >= 50%)")
        print("\n3. current state of a project (100 asks), median:")
        results = {total: bench_state(tmp, total, 200) for total in sizes}
        for total, (one, every, replayed) in results.items():
            print(
                f"   {total:>7,} events: one stream {one:6.3f} ms, all 100 streams "
                f"{every:6.3f} ms, full replay {replayed:9.1f} ms"
            )
        small, large = (results[s] for s in sizes)
        print(
            f"   {sizes[1]:,} vs {sizes[0]:,}: one stream {large[0] / small[0]:.2f}x, "
            f"all streams {large[1] / small[1]:.2f}x (target: flat, ~1x); "
            f"replay {large[2] / small[2]:.0f}x"
        )
        events, size, parts, exported = bench_size(tmp, sizes[1])
        print(f"\n4. store size, bench/history.py's project of {events:,} events:")
        print(f"   {size:,} bytes = {size / events:,.0f} bytes per event   (target <= 500)")
        for name, part in parts[:9]:
            print(f"   {name:38} {part / events:7.1f} bytes/event  {part / size:6.1%}")
        checkout = tmp / f"project{sizes[1]}"
        rates = import_rounds(tmp, exported, checkout, import_rounds_n, args.pg)
        raws = {"SQLite": raw_rate}
        if args.pg:
            raws["PostgreSQL"] = raw_pg_rate(args.pg, 10_000, batch_repeat)
        print(
            f"\n5. import of that project's exported log ({events:,} events) into a new store,"
            f" {import_rounds_n} rounds (target >= 50,000 events/s):"
        )
        for backend, found in rates.items():
            found.sort()
            print(
                f"   {backend:10} import {statistics.median(found):9,.0f} events/s "
                f"(rounds {found[0]:,.0f}-{found[-1]:,.0f}); raw executemany "
                f"{raws[backend]:9,.0f} events/s: {statistics.median(found) / raws[backend]:4.0%}"
            )
        if not args.pg:
            print("   PostgreSQL: skipped (no --pg URL and no ORBITAL_TEST_PG_URL)")


if __name__ == "__main__":
    main()
