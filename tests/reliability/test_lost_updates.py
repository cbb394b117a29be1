"""No lost update between whole-file writers (issue 12 item 1, issue 33 finding 1):
concurrent writers, each reading DECISIONS.md, adding one entry and writing the whole file
back, against the real HTTP app under uvicorn on a loopback socket.

With ``If-Match`` (the ETag it read) a write is decided against that version and replayed on
today's file; without it, a write retires only what it names. Either way nothing another
writer added meanwhile is retired. A 409 (a real clash) is retried after reading again, as the
writer is told to, and so is a 503 (the store stayed locked past its busy timeout on a loaded
machine). Bounded: 4 writers x 100 writes each way (about 20 s each here); the figures are
printed in the run's summary.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from orbital.clock import FixedClock
from orbital.http import HttpSettings, create_app, loopback_hosts
from orbital.service import Orbital
from tests.http.http_helpers import bearer, free_port, live_server

WRITERS = 4
WRITES = 100
#: A writer gives up on one entry after this many 409s (none are expected: writers only add).
RETRIES = 20


class Run:
    """One writer's tally."""

    def __init__(self) -> None:
        self.acknowledged = 0
        self.conflicts = 0
        self.busy = 0
        self.failures: list[str] = []


#: Every ETag the writers read (None when a read had none).
tags: set[str | None] = set()


def writer(url: str, token: str, project: str, k: int, run: Run, based: bool) -> None:
    path = f"/api/v1/projects/{project}/files/DECISIONS.md"
    with httpx.Client(base_url=url, headers=bearer(token), timeout=60) as http:
        for i in range(WRITES):
            for _ in range(RETRIES):
                read = http.get(path)
                content = read.json()["content"]
                entry = f"\n## Writer {k} decision {i}\nChose: option {k}-{i}.\n"
                etag = read.headers.get("ETag")  # always there: checked below
                tags.add(etag)
                match = {"If-Match": etag} if etag and based else {}
                written = http.put(path, json={"content": content + entry}, headers=match)
                if written.status_code == 200:
                    run.acknowledged += 1
                    break
                if written.status_code == 503:  # the store stayed locked: retry, as told
                    run.busy += 1
                    continue
                if written.status_code != 409:
                    run.failures.append(f"{written.status_code} {written.text[:200]}")
                    return
                run.conflicts += 1
            else:
                run.failures.append(f"writer {k} gave up on write {i}")


@pytest.fixture
def served(
    store_url: str, tmp_path: Path, clock: FixedClock
) -> Iterator[tuple[str, Orbital, str, str]]:
    service = Orbital.open(store_url, clock=clock)
    root = tmp_path / "project"
    root.mkdir()
    project = service.init_project(root, timezone="UTC").project_id
    token = service.credentials.create("agent", [project], label="writers").token
    port = free_port()
    app = create_app(service, HttpSettings(allowed_hosts=loopback_hosts(port)))
    with live_server(app, port) as url:
        yield url, service, project, token
    service.close()


@pytest.mark.parametrize("based", [True, False], ids=["if-match", "no-base"])
def test_concurrent_whole_file_writers_lose_no_entry(
    served: tuple[str, Orbital, str, str], backend: str, based: bool, figures: list[str]
) -> None:
    url, service, project, token = served
    runs = [Run() for _ in range(WRITERS)]
    threads = [
        threading.Thread(target=writer, args=(url, token, project, k, runs[k], based))
        for k in range(WRITERS)
    ]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    rows = service.memory_entries(project)
    live = sum(r.status == "live" for r in rows)
    retired = sum(r.status == "retired" for r in rows)
    acknowledged = sum(r.acknowledged for r in runs)
    conflicts = sum(r.conflicts for r in runs)
    busy = sum(r.busy for r in runs)
    how = "with If-Match" if based else "without a base"
    figures.append(
        f"lost updates ({backend}): {WRITERS} writers x {WRITES} HTTP DECISIONS writes {how}: "
        f"{acknowledged} acknowledged, {live} of {WRITERS * WRITES} entries live, {retired} "
        f"retired, {conflicts} conflicts and {busy} store-busy answers retried, {seconds:.1f} s"
    )
    assert None not in tags
    assert [f for r in runs for f in r.failures] == []
    assert acknowledged == WRITERS * WRITES
    assert (live, retired) == (WRITERS * WRITES, 0)
    text = (Path(service.project(project).root) / "orbital" / "DECISIONS.md").read_text()
    assert all(
        f"## Writer {k} decision {i} " in text for k in range(WRITERS) for i in range(WRITES)
    )
