"""MCP benchmark: ``orbital mcp`` over stdio, driven by the MCP SDK's own client (named
mcp_server.py, not mcp.py: a script's directory comes first on the path and would shadow the SDK).

Run: ``python bench/mcp_server.py`` (``--quick`` for fewer samples). The project holds a few
decisions, lessons and open asks (a view of a few thousand characters). Prints medians:

1. server start to first answer: from spawning ``orbital mcp --project P`` to its answer to
   ``initialize`` (target <= 500 ms), and to the first ``memory_context`` result through the
   SDK client's whole handshake (the store opened meanwhile); beside them the same machine's
   ``python3 -c pass`` and the venv's Python importing only the MCP SDK, so the figures can be
   read against what any Python process, and the SDK alone, cost here;
2. ``memory_context`` warm, round trip as the client sees it (target p50 <= 5 ms).

Wall times grow with whatever else the machine runs; the CPU times (user + system, from
``getrusage``) beside them grow less, so on a busy machine compare those, and the ratios to
``python3 -c pass`` measured in the same run.
"""

from __future__ import annotations

import datetime as dt
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from timing import median_ms, quick_run

from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital

NOW = dt.datetime(2026, 9, 19, 10, 0, tzinfo=dt.UTC)
ORBITAL = str(Path(sys.executable).parent / "orbital")


def build_project(db: str, root: Path) -> None:
    """A project with some of everything, written the way an agent writes."""
    root.mkdir()
    with Orbital.open(db, clock=FixedClock(NOW)) as service:
        pid = service.init_project(root, timezone="UTC").project_id
        decisions = "".join(
            f"## choice-{i}\nChose: option {i}.\nReason: it fits case {i}.\nRejected: the rest.\n\n"
            for i in range(20)
        )
        lessons = "".join(f"{i}. When case {i} happens, do step {i} first.\n" for i in range(1, 21))
        service.write_file(pid, "DECISIONS.md", decisions.encode(), actor=Actor.AGENT)
        service.write_file(pid, "LESSONS.md", lessons.encode(), actor=Actor.AGENT)
        for i in range(10):
            service.ask_open(pid, f"Decide on question number {i}", actor=Actor.AGENT)


def children_cpu() -> float:
    """CPU seconds (user + system) of the child processes that have ended so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_timed(argv: list[str], repeat: int) -> tuple[float, float]:
    """Median wall and CPU milliseconds of running ``argv`` to its exit."""
    walls, cpus = [], []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), children_cpu()
        subprocess.run(argv, check=True)
        walls.append(time.perf_counter() - start)
        cpus.append(children_cpu() - cpu)
    return median_ms(walls), median_ms(cpus)


def params(db: str, root: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=ORBITAL, args=["mcp", "--project", str(root)], env={"ORBITAL_DB": db}
    )


INITIALIZE = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}\n'
)


def initialize_answer(db: str, root: Path) -> float:
    """Seconds from spawning the server to its answer to ``initialize``."""
    start = time.perf_counter()
    server = subprocess.Popen(
        [ORBITAL, "mcp", "--project", str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={"ORBITAL_DB": db, "PATH": "/usr/bin:/bin"},
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(INITIALIZE)
    server.stdin.flush()
    answer = server.stdout.readline()
    elapsed = time.perf_counter() - start
    server.stdin.close()
    server.wait()
    assert b'"serverInfo"' in answer, answer
    return elapsed


async def first_answer(db: str, root: Path) -> float:
    """Seconds from spawning the server to its first ``memory_context`` answer."""
    start = time.perf_counter()
    async with Client(params(db, root)) as client:
        result = await client.call_tool("memory_context", {})
        elapsed = time.perf_counter() - start
    assert not result.is_error
    return elapsed


async def warm_calls(db: str, root: Path, calls: int) -> list[float]:
    """Seconds of each of ``calls`` ``memory_context`` round trips after ten warm-ups."""
    samples = []
    async with Client(params(db, root)) as client:
        for _ in range(10):
            await client.call_tool("memory_context", {})
        for _ in range(calls):
            start = time.perf_counter()
            result = await client.call_tool("memory_context", {})
            samples.append(time.perf_counter() - start)
            assert not result.is_error
    return samples


def main() -> None:
    quick = quick_run(__doc__, "fewer samples")
    starts, calls = (3, 100) if quick else (7, 500)
    with tempfile.TemporaryDirectory() as tmp:
        db, root = f"sqlite:///{Path(tmp) / 'store.db'}", Path(tmp) / "project"
        build_project(db, root)

        baseline = run_timed(["python3", "-c", "pass"], starts)
        venv_python = run_timed([sys.executable, "-c", "pass"], starts)
        sdk = run_timed([sys.executable, "-c", "import mcp.server.mcpserver"], starts)
        initialized, init_cpu = [], []
        for _ in range(starts):
            cpu = children_cpu()
            initialized.append(initialize_answer(db, root))
            init_cpu.append(children_cpu() - cpu)
        firsts, server_cpu = [], []
        for _ in range(starts):
            cpu = children_cpu()
            firsts.append(anyio.run(first_answer, db, root))
            server_cpu.append(children_cpu() - cpu)
        start_cpu = median_ms(server_cpu)
        print("wall and CPU (user + system) time, medians; CPU is less sensitive to other load")
        spread = max(initialized) * 1000 - min(initialized) * 1000
        print(f"start to first answer (initialize): {median_ms(initialized):8.1f} ms, server CPU "
              f"{median_ms(init_cpu):6.1f} ms (to its exit), spread {spread:.1f} ms, {starts} runs "
              "(target <= 500 ms)")  # fmt: skip
        print(f"start to first memory_context: {median_ms(firsts):8.1f} ms, server CPU "
              f"{start_cpu:6.1f} ms, {starts} runs")  # fmt: skip
        print(f"  python3 -c pass:      {baseline[0]:8.1f} ms, CPU {baseline[1]:6.1f} ms; ratio "
              f"{median_ms(initialized) / baseline[0]:.1f}x (initialize)")  # fmt: skip
        print(f"  venv python -c pass:  {venv_python[0]:8.1f} ms, CPU {venv_python[1]:6.1f} ms "
              "(python3 on PATH may be a shim)")  # fmt: skip
        print(f"  import the MCP SDK:   {sdk[0]:8.1f} ms, CPU {sdk[1]:6.1f} ms")

        cpu, mine = children_cpu(), own_cpu()
        samples = anyio.run(warm_calls, db, root, calls)
        client_cpu = (own_cpu() - mine) / (calls + 10) * 1000
        per_call = max(0.0, (children_cpu() - cpu) * 1000 - start_cpu) / (calls + 10)
        p90 = statistics.quantiles(samples, n=10)[-1] * 1000
        print(
            f"memory_context warm:   {median_ms(samples):8.2f} ms p50, {p90:.2f} ms p90 over "
            f"{calls} calls (target p50 <= 5 ms); CPU per call: server ~{per_call:.2f} ms, "
            f"client {client_cpu:.2f} ms"
        )


if __name__ == "__main__":
    main()
