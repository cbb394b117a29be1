"""Memory benchmark: ``orbital serve``'s resident set with a 100,000-event project.

Run: ``python bench/serve_memory.py`` (``--quick``: 10,000 events; ``--store DIR`` builds the
project there once and reuses it). The project is ``bench/history.py``'s (memory writes
through the service, ask events in bulk), with an agent and a Workbench token. ``orbital
serve`` starts as a person starts it (the venv's ``orbital`` command, a process of its own),
and its RSS (``VmRSS`` in ``/proc``) is read after it accepts, after the first
``GET …/context``, after the Workbench page (signed in as a browser is), after 100 more
requests (context, a memory file, the page, ``/health``), and after one ``/mcp`` call. Peak is
``VmHWM``. The baseline, in the same run: a hello-world Litestar app under uvicorn, started
the same way (a process of its own), read after it accepts and after 100 requests. Both are
started ``--rounds`` times, taking turns; medians and spread are printed. Target (issue 17):
<= 100 MiB at 100,000 events after the 100 requests.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from timing import served

HOST = "127.0.0.1"
TARGET_MIB = 100.0
REQUESTS = 100
_CSRF = re.compile(r'name="csrf" value="([^"]+)"')
MCP_CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}


#: The baseline: a hello-world Litestar app (its own source, so it imports nothing of this
#: script's).
HELLO = f"""
import sys

import uvicorn
from litestar import Litestar, get


@get("/health", sync_to_thread=False)
def index() -> str:
    return "Hello, world!"


uvicorn.run(Litestar([index]), host="{HOST}", port=int(sys.argv[1]), log_level="warning")
"""


def build(workdir: Path, events: int) -> None:
    """``bench/history.py``'s project in ``workdir`` and a token of each audience."""
    from history import build as build_history

    built = build_history(workdir, events, seed=events)
    with built.orbital as service:
        agent = service.credentials.create("agent", [built.project], label="bench").token
        person = service.credentials.create("workbench", label="bench").token
    (workdir / "tokens").write_text(f"{built.project}\n{agent}\n{person}\n")
    print(f"built {built.events:,} events in {built.seconds:.0f} s")


def rss_mib(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of process ``pid`` in MiB."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return tuple(int(fields[k].split()[0]) / 1024 for k in ("VmRSS", "VmHWM"))  # type: ignore[return-value]


@contextmanager
def started(command: list[str]) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """A server process (a 100,000-event project may take long to open); yields it and its
    URL once it answers."""
    with served(command, HOST, timeout=120) as found:
        yield found


def orbital_round(workdir: Path) -> dict[str, tuple[float, float]]:
    project, agent, person = (workdir / "tokens").read_text().split()
    orbital = str(Path(sys.executable).with_name("orbital"))
    db = f"sqlite:///{workdir}/history{project.removeprefix('project')}.db"
    command = [orbital, "--db", db, "serve", "--port"]
    out: dict[str, tuple[float, float]] = {}
    with started(command) as (process, url), httpx.Client(base_url=url, timeout=120) as client:
        out["after start"] = rss_mib(process.pid)
        bearer = {"Authorization": f"Bearer {agent}"}
        api = f"/api/v1/projects/{project}"
        client.get(f"{api}/context", headers=bearer).raise_for_status()
        out["after the first GET …/context"] = rss_mib(process.pid)
        form = client.get("/workbench/login")
        found = _CSRF.search(form.text)
        assert found is not None, form.text
        page = client.post(
            "/workbench/login",
            data={"token": person, "csrf": found.group(1)},
            follow_redirects=True,
        )
        assert page.status_code == 200 and "Signed in as" in page.text, page.status_code
        out["after the Workbench page"] = rss_mib(process.pid)
        paths = [
            (f"{api}/context", bearer),
            (f"{api}/files/DECISIONS.md", bearer),
            ("/workbench", {}),
            ("/health", {}),
        ]
        for n in range(REQUESTS):
            path, headers = paths[n % len(paths)]
            client.get(path, headers=headers).raise_for_status()
        out[f"after {REQUESTS} more requests"] = rss_mib(process.pid)
        mcp_headers = {**bearer, "Accept": "application/json, text/event-stream"}
        client.post("/mcp", json=MCP_CALL, headers=mcp_headers).raise_for_status()
        out["after one /mcp call"] = rss_mib(process.pid)
    return out


def hello_round() -> dict[str, tuple[float, float]]:
    out: dict[str, tuple[float, float]] = {}
    command = [sys.executable, "-c", HELLO]
    with started(command) as (process, url), httpx.Client(base_url=url, timeout=120) as client:
        out["after start"] = rss_mib(process.pid)
        for _ in range(REQUESTS):
            client.get("/health").raise_for_status()
        out[f"after {REQUESTS} requests"] = rss_mib(process.pid)
    return out


def summary(rounds: list[dict[str, tuple[float, float]]], label: str) -> None:
    print(f"{label}:")
    for stage in rounds[0]:
        now = sorted(r[stage][0] for r in rounds)
        peak = statistics.median(r[stage][1] for r in rounds)
        print(
            f"   {stage:34} {statistics.median(now):7.1f} MiB  "
            f"(rounds {now[0]:.1f}-{now[-1]:.1f}; peak {peak:.1f})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10,000 events, 1 round")
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--store", type=Path, help="build here once and reuse on later runs")
    args = parser.parse_args()
    if args.quick:
        args.events, args.rounds = 10_000, 1
    with tempfile.TemporaryDirectory(prefix="orbital-bench-") as scratch:
        workdir: Path = args.store or Path(scratch)
        workdir.mkdir(parents=True, exist_ok=True)
        if not (workdir / "tokens").exists():
            build(workdir, args.events)
        ours, theirs = [], []
        for _ in range(args.rounds):
            ours.append(orbital_round(workdir))
            theirs.append(hello_round())
        print(
            f"{args.rounds} rounds, taking turns; load average "
            f"{' / '.join(f'{x:.1f}' for x in os.getloadavg())}"
        )
        summary(ours, f"orbital serve, {args.events:,}-event project (VmRSS, median)")
        summary(theirs, "hello-world Litestar app, same way (the baseline)")
        served = statistics.median(r[f"after {REQUESTS} more requests"][0] for r in ours)
        base = statistics.median(r[f"after {REQUESTS} requests"][0] for r in theirs)
        print(
            f"after {REQUESTS} requests: {served:.1f} MiB = {served / base:.2f}x the hello-world "
            f"app's {base:.1f} MiB (target <= {TARGET_MIB:.0f} MiB: "
            f"{'met' if served <= TARGET_MIB else 'not met'})"
        )


if __name__ == "__main__":
    main()
