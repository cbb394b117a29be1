"""One writer process of the lock-fairness run (``test_lock_fairness.py``).

Usage (from the repository root):
``python -m tests.reliability.lock_writer URL PROJECT WRITER COUNT DIRECTORY``
Opens the store, touches ``DIRECTORY/ready-WRITER`` and waits for ``DIRECTORY/go`` (so every
writer begins together), then opens COUNT asks as the agent through the service, one use case
(one write transaction) each. Prints one JSON line: for each write, when it was asked for and
when it returned (``time.monotonic()``, one clock for every process on Linux) and whether it
was acknowledged (false: the busy timeout); ``open_locked`` when even opening the store timed
out.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from orbital.errors import StoreLocked
from orbital.events import Actor
from orbital.service import Orbital


def main() -> None:
    url, project, writer = sys.argv[1], sys.argv[2], sys.argv[3]
    count, directory = int(sys.argv[4]), Path(sys.argv[5])
    try:
        service = Orbital.open(url, create=False)
        service.asks(project, "open")  # warm: the project, the asks' state, the file's bytes
    except StoreLocked:  # opening checks the schema under the write lock too
        (directory / f"ready-{writer}").touch()
        print(json.dumps({"writer": writer, "open_locked": True, "writes": []}))
        return
    (directory / f"ready-{writer}").touch()
    while not (directory / "go").exists():
        time.sleep(0.005)
    writes = []
    for i in range(count):
        asked = time.monotonic()
        try:
            service.ask_open(project, f"writer {writer} ask {i}", actor=Actor.AGENT)
            ok = True
        except StoreLocked:
            ok = False
        writes.append((asked, time.monotonic(), ok))
    service.close()
    print(json.dumps({"writer": writer, "open_locked": False, "writes": writes}))


if __name__ == "__main__":
    main()
