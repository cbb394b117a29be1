"""Issue 12 "done when": ``kill -9`` trials of real ``orbital`` processes mid-write. Each trial
starts ``orbital ask open`` or ``orbital write DECISIONS.md`` and kills it at a random moment
(before, during or after its write). Afterwards every acknowledged write is there, nothing
unacknowledged came back as a hand edit by ``file``, and nothing the crashes left is beside
the files."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from orbital.events import Actor
from orbital.service import Orbital

TRIALS = 12
ORBITAL = [sys.executable, "-c", "from orbital.cli import main; main()"]


def _run_killed(args: list[str], stdin: bytes, env: dict[str, str], after: float) -> bool:
    """Run ``orbital ARGS``, SIGKILL it after ``after`` s; True when it exited 0 first."""
    process = subprocess.Popen(
        [*ORBITAL, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert process.stdin is not None
    process.stdin.write(stdin)
    process.stdin.close()
    deadline = time.monotonic() + after
    while time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.005)
    if process.poll() is None:
        process.send_signal(signal.SIGKILL)
    return process.wait() == 0


def test_kill_9_mid_write_loses_no_acknowledged_write_and_brings_nothing_back(
    store_url: str, tmp_path: Path, figures: list[str]
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    service = Orbital.open(store_url)
    project = service.init_project(root, timezone="UTC").project_id
    service.close()
    env = {**os.environ, "ORBITAL_DB": store_url}
    rng = random.Random(12)
    started = time.monotonic()  # one run to the end: how long a write takes on this machine
    assert _run_killed(["ask", "open", "--project", str(root), "Timed ask"], b"", env, 60)
    took = time.monotonic() - started
    acknowledged = ["Timed ask"]
    for trial in range(TRIALS):
        after = rng.uniform(0.5, 1.05) * took  # start-up is most of it: kills land all along
        if trial % 2:
            text = f"Trial ask {trial}"
            if _run_killed(["ask", "open", "--project", str(root), text], b"", env, after):
                acknowledged.append(text)
        else:
            current = (root / "orbital" / "DECISIONS.md").read_bytes()
            entry = f"## Trial decision {trial}\nChose: {trial}.\n"
            content = current.rstrip(b"\n") + f"\n\n{entry}".encode()
            args = ["write", "--project", str(root), "DECISIONS.md"]
            if _run_killed(args, content, env, after):
                acknowledged.append(f"Trial decision {trial}")

    service = Orbital.open(store_url)
    try:
        report = service.sync(project)
        view = service.read_file(project, "DECISIONS.md") + service.read_file(project, "ASKS.md")
        lost = [text for text in acknowledged if text not in view]
        by_file = [e for e in service.history(project) if e.actor == Actor.FILE]
        left = sorted(p.name for p in (root / "orbital").iterdir() if p.name.startswith("."))
        figures.append(
            f"kill -9 trials ({service.store.backend}): {TRIALS} trials, {len(acknowledged)} "
            f"acknowledged writes, lost {len(lost)}, came back as hand edits {len(by_file)}, "
            f"left beside {len(left)}"
        )
        assert (lost, by_file, left, report.conflicts) == ([], [], [], [])
        assert (root / "orbital" / "ASKS.md").read_text() == service.read_file(project, "ASKS.md")
    finally:
        service.close()
