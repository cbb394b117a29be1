"""A standalone writer process for the multi-process and kill tests.

Usage (from the repository root): python -m tests.store.writer_process URL PROJECT WRITER COUNT
Appends COUNT single-event batches to stream ``ask:w<WRITER>`` and prints, after each
append returned (the durable acknowledgement), ``<i> <position>`` on its own line.
"""

from __future__ import annotations

import datetime as dt
import sys

from orbital.events import Actor, AskOpened
from orbital.store import EventStore
from tests.store.store_helpers import append


def main() -> None:
    url, project, writer, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    stream = f"ask:w{writer}"
    with EventStore(url, upgrade=False, timeout_ms=60_000) as store:
        with store.reader() as r:
            version = r.stream_version(project, stream)
        for i in range(version, count):
            event = AskOpened(ask_id=f"w{writer}", text=f"{writer}:{i}", date=dt.date(2026, 1, 1))
            result = append(store, project, stream, [event], expected_version=i, actor=Actor.AGENT)
            print(i, result.positions[0], flush=True)


if __name__ == "__main__":
    main()
