"""One writer process of the team run (``test_team.py``).

Usage (from the repository root):
``python -m tests.team.writer URL FOLDER KIND WRITER COUNT DIRECTORY``
Opens the store in the checkout at FOLDER, touches ``DIRECTORY/ready-WRITER`` and waits for
``DIRECTORY/go`` (so every writer begins together), then makes COUNT writes as the agent, one
use case each: KIND ``asks`` opens an ask; KIND ``decisions`` (``lessons``) reads
DECISIONS.md (LESSONS.md) with its version and writes it back with one entry added, decided
against that version (a ``StaleWrite``: read again and retry). Prints one JSON line: the
writes acknowledged and the conflicts and busy stores retried.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from orbital.errors import StaleWrite, StoreLocked
from orbital.events import Actor
from orbital.service import Orbital


def main() -> None:
    url, folder, kind, writer = sys.argv[1], Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    count, directory = int(sys.argv[5]), Path(sys.argv[6])
    service = Orbital.open(url, create=False)
    pid = service.project(folder).project_id  # and this process works in that checkout
    (directory / f"ready-{writer}").touch()
    while not (directory / "go").exists():
        time.sleep(0.005)
    done = conflicts = busy = 0
    for i in range(count):
        while True:
            try:
                if kind == "asks":
                    service.ask_open(pid, f"writer {writer} ask number {i}", actor=Actor.AGENT)
                else:
                    name = f"{kind.upper()}.md"
                    text, version = service.read_versioned(pid, name)
                    if kind == "decisions":
                        entry = f"\n## Writer {writer} decision {i}\nChose: option {i}.\n"
                    else:
                        entry = f"\n1. Writer {writer} lesson {i}: keep the log.\n"
                    content = (text + entry).encode()
                    service.write_file(pid, name, content, actor=Actor.AGENT, base=version)
                done += 1
                break
            except StaleWrite:
                conflicts += 1
            except StoreLocked:
                busy += 1
    service.close()
    print(json.dumps({"writer": writer, "done": done, "conflicts": conflicts, "busy": busy}))


if __name__ == "__main__":
    main()
