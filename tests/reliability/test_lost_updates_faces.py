"""No lost update between whole-file writers that send no base (issue 33 finding 1), through
the agent's other faces: four ``orbital mcp`` stdio servers (one per agent, each its own
process) calling ``memory_read`` then ``memory_write`` without ``base``, and four agents
running ``orbital write DECISIONS.md`` without ``--base`` on the file they read from disk.
Each adds one entry per write; every acknowledged entry is live at the end. Bounded, for CI
time (HTTP runs 4 x 100 in ``test_lost_updates.py``): 4 x 25 MCP writes and 4 x 3 CLI writes
(a process each, about 2 s a write on two loaded cores); the figures are printed in the
run's summary."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital

ORBITAL = str(Path(sys.executable).parent / "orbital")
WRITERS = 4
MCP_WRITES = 25
CLI_WRITES = 3


class Tally:
    """What the writers of one run had acknowledged, and anything else they were answered."""

    def __init__(self) -> None:
        self.acknowledged: list[str] = []
        self.failures: list[str] = []
        self.lock = threading.Lock()

    def ack(self, title: str) -> None:
        with self.lock:
            self.acknowledged.append(title)


def _project(store_url: str, tmp_path: Path, clock: FixedClock) -> tuple[Path, str]:
    root = tmp_path / "project"
    root.mkdir()
    with Orbital.open(store_url, clock=clock) as service:
        return root, service.init_project(root, timezone="UTC").project_id


def _race(work: Callable[[int], None]) -> float:
    """``work(k)`` for each writer ``k`` at once; the seconds it took."""
    threads = [threading.Thread(target=work, args=(k,)) for k in range(WRITERS)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started


def _check(
    store_url: str, project: str, tally: Tally, figures: list[str], what: str, took: float
) -> None:
    with Orbital.open(store_url) as service:
        rows = service.memory_entries(project)
        backend = service.store.backend
    live = {r.title for r in rows if r.status == "live"}
    lost = [title for title in tally.acknowledged if title not in live]
    figures.append(
        f"lost updates ({backend}): {what} without a base: {len(tally.acknowledged)} "
        f"acknowledged, lost {len(lost)}, {took:.1f} s"
    )
    assert tally.failures == []
    assert lost == []


class Stdio:
    """One ``orbital mcp`` process, spoken to line by line."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [ORBITAL, "mcp", "--project", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            text=True,
        )
        self.next_id = 0
        self.call_raw("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}})

    def call_raw(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.next_id += 1
        request = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        answer: dict[str, Any] = json.loads(self.process.stdout.readline())
        return answer

    def tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = self.call_raw(
            "tools/call", {"name": name, "arguments": arguments}
        )["result"]
        return result

    def close(self) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)
        self.process.stdout.close()


def test_concurrent_mcp_writers_without_a_base_lose_no_entry(
    store_url: str, tmp_path: Path, clock: FixedClock, figures: list[str]
) -> None:
    root, project = _project(store_url, tmp_path, clock)
    env = {**os.environ, "ORBITAL_DB": store_url, "ORBITAL_STATE_DIR": str(tmp_path / "state")}
    tally = Tally()

    def agent(k: int) -> None:
        server = Stdio(root, env)
        try:
            for i in range(MCP_WRITES):
                read = server.tool("memory_read", {"file": "DECISIONS.md"})
                text = read["content"][0]["text"]
                title = f"Agent {k} decision {i}"
                entry = f"\n## {title}\nChose: option {k}-{i}.\n"
                written = server.tool(
                    "memory_write", {"file": "DECISIONS.md", "content": text + entry}
                )
                if written["isError"]:
                    tally.failures.append(written["content"][0]["text"][:200])
                    return
                tally.ack(title)
        finally:
            server.close()

    took = _race(agent)
    what = f"{WRITERS} MCP stdio agents x {MCP_WRITES} memory_write"
    _check(store_url, project, tally, figures, what, took)


def test_concurrent_cli_writers_without_a_base_lose_no_entry(
    store_url: str, tmp_path: Path, clock: FixedClock, figures: list[str]
) -> None:
    root, project = _project(store_url, tmp_path, clock)
    env = {**os.environ, "ORBITAL_DB": store_url, "ORBITAL_STATE_DIR": str(tmp_path / "state")}
    decisions = root / "orbital" / "DECISIONS.md"
    tally = Tally()

    def agent(k: int) -> None:
        for i in range(CLI_WRITES):
            title = f"Agent {k} decision {i}"
            text = decisions.read_bytes() + f"\n## {title}\nChose: option {k}-{i}.\n".encode()
            done = subprocess.run(
                [ORBITAL, "write", "--project", str(root), "DECISIONS.md"],
                input=text,
                capture_output=True,
                env=env,
                timeout=120,
            )
            if done.returncode != 0:
                tally.failures.append(done.stderr.decode()[:200])
                return
            tally.ack(title)

    took = _race(agent)
    what = f"{WRITERS} agents x {CLI_WRITES} orbital write"
    _check(store_url, project, tally, figures, what, took)


KEPT = (
    "DECISIONS.md: kept ship-on-fridays: left out of this write, but a write that does not say "
    "which version it was made from (--base, If-Match, base) removes only the entries it "
    "names, and this one may have been written after your read. To remove them, write again "
    "with the version you read, or name them (--remove, remove)."
)


def test_mcp_and_the_cli_say_which_entries_a_write_without_a_base_kept(
    store_url: str, tmp_path: Path, clock: FixedClock
) -> None:
    root, project = _project(store_url, tmp_path, clock)
    env = {**os.environ, "ORBITAL_DB": store_url, "ORBITAL_STATE_DIR": str(tmp_path / "state")}
    read = (root / "orbital" / "DECISIONS.md").read_text()
    with Orbital.open(store_url, clock=clock) as service:
        added = read + "\n## Ship on Fridays\nChose: yes.\n"
        service.write_file(project, "DECISIONS.md", added.encode(), actor=Actor.AGENT)
    server = Stdio(root, env)
    try:
        text = read + "\n## Keep a changelog\nChose: one.\n"
        written = server.tool("memory_write", {"file": "DECISIONS.md", "content": text})
    finally:
        server.close()
    assert (written["isError"], written["structuredContent"]["warnings"]) == (False, [KEPT])
    text = read + "\n## Pin the toolchain\nChose: yes.\n"
    done = subprocess.run(
        [ORBITAL, "write", "--project", str(root), "DECISIONS.md", "--json"],
        input=text.encode(),
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert (done.returncode, json.loads(done.stdout)["warnings"]) == (
        0,
        [
            KEPT.replace("ship-on-fridays", "ship-on-fridays, keep-a-changelog").replace(
                "this one", "these"
            )
        ],
    )
    with Orbital.open(store_url) as service:
        live = [r.id for r in service.memory_entries(project) if r.status == "live"]
    assert live == ["ship-on-fridays", "keep-a-changelog", "pin-the-toolchain"]
