"""Issue 12 "done when", issue 33: ``kill -9`` trials of real ``orbital`` processes that have
acknowledged writes. Each trial starts ``orbital mcp`` (a stdio server: one process, many
writes, each answered once committed), has it open asks and add DECISIONS entries (one write
in three) until it has acknowledged a random number of them, sends one more write and kills
the process at a random moment of it (before, during or after the commit). Afterwards every
acknowledged write is there, nothing unacknowledged came back as a hand edit by ``file``, and
nothing the crashes left is beside the files."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from orbital.events import Actor
from orbital.service import Orbital

TRIALS = 10
#: How many writes a trial's process acknowledges before the write it is killed in.
ACKNOWLEDGED = (15, 30)
ORBITAL = str(Path(sys.executable).parent / "orbital")


class Server:
    """One ``orbital mcp`` process, spoken to line by line."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [ORBITAL, "mcp", "--project", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.next_id = 0
        self.answer(self.send("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}}))

    def send(self, method: str, params: dict[str, Any]) -> int:
        assert self.process.stdin is not None
        self.next_id += 1
        request = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.process.stdin.write(json.dumps(request).encode() + b"\n")
        self.process.stdin.flush()
        return self.next_id

    def answer(self, sent: int) -> dict[str, Any]:
        assert self.process.stdout is not None
        answer: dict[str, Any] = json.loads(self.process.stdout.readline())
        assert answer["id"] == sent, answer
        return answer

    def tool(self, name: str, arguments: dict[str, Any]) -> int:
        return self.send("tools/call", {"name": name, "arguments": arguments})

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            assert stream is not None
            stream.close()


def _trial(root: Path, env: dict[str, str], rng: random.Random, trial: int) -> list[str]:
    """One trial: the texts of the writes its process acknowledged before it was killed."""
    server = Server(root, env)
    read = server.answer(server.tool("memory_read", {"file": "DECISIONS.md"}))["result"]
    content = read["content"][0]["text"]
    base = int(read["content"][1]["text"].split()[1])
    acknowledged: list[str] = []
    last = 0.05
    target = rng.randint(*ACKNOWLEDGED)
    for n in range(target + 1):
        if n % 3:
            text = f"Trial {trial} ask {n}"
            sent = server.tool("ask_open", {"text": text})
        else:
            text = f"Trial {trial} decision {n}"
            entry = f"\n## {text}\nChose: {n}.\n"
            arguments = {"file": "DECISIONS.md", "content": content + entry, "base": base}
            sent = server.tool("memory_write", arguments)
        if n == target:
            break  # the write the kill lands in, at any moment of it
        started = time.monotonic()
        answer = server.answer(sent)["result"]
        last = time.monotonic() - started
        assert not answer["isError"], answer
        acknowledged.append(text)
        if "version" in answer["structuredContent"]:
            content = answer["structuredContent"]["content"]
            base = answer["structuredContent"]["version"]
    time.sleep(rng.uniform(0, 1.5) * last)
    server.kill()
    return acknowledged


def test_kill_9_of_a_process_with_acknowledged_writes_loses_none_and_brings_nothing_back(
    store_url: str, tmp_path: Path, figures: list[str]
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    with Orbital.open(store_url) as service:
        project = service.init_project(root, timezone="UTC").project_id
    env = {**os.environ, "ORBITAL_DB": store_url, "ORBITAL_STATE_DIR": str(tmp_path / "state")}
    rng = random.Random(33)
    started = time.monotonic()
    acknowledged = [text for trial in range(TRIALS) for text in _trial(root, env, rng, trial)]
    took = time.monotonic() - started

    with Orbital.open(store_url) as service:
        report = service.sync(project)
        view = service.read_file(project, "DECISIONS.md") + service.read_file(project, "ASKS.md")
        lost = [text for text in acknowledged if text not in view]
        by_file = [e for e in service.history(project) if e.actor == Actor.FILE]
        left = sorted(p.name for p in (root / "orbital").iterdir() if p.name.startswith("."))
        figures.append(
            f"kill -9 trials ({service.store.backend}): {TRIALS} trials, each killing an "
            f"orbital mcp process in a write after it acknowledged {ACKNOWLEDGED[0]} to "
            f"{ACKNOWLEDGED[1]}: {len(acknowledged)} acknowledged writes, lost {len(lost)}, "
            f"came back as hand edits {len(by_file)}, left beside {len(left)}, {took:.1f} s"
        )
        assert (lost, by_file, left, report.conflicts) == ([], [], [], [])
        assert (root / "orbital" / "ASKS.md").read_text() == service.read_file(project, "ASKS.md")
