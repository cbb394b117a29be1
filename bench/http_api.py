"""HTTP benchmark: Orbital's routes against a plain Litestar JSON hello route, same run.

Run: ``python bench/http_api.py`` (``--seconds 2`` for a shorter run). Each server runs under
uvicorn in its own subprocess on a free loopback port; an httpx async client keeps
``--concurrency`` requests in flight for ``--seconds`` per route, after a short warm-up, and
prints requests/second, p50/p99 latency and the ratio to the hello route (target: >= 70%).

Routes: ``GET /health`` (no credential), then ``GET …/context`` and ``GET …/history`` of a
small project (bearer token verified on every request, so the credential lookup is in the
measurement). The client shares the machine with the server: on 2 cores the numbers are a
floor, and the ratio to the hello route is what to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from timing import free_port

HOST = "127.0.0.1"


def serve_hello(port: int) -> None:
    import uvicorn
    from litestar import Litestar, get

    @get("/hello", sync_to_thread=False)
    def hello() -> dict[str, str]:
        return {"hello": "world"}

    uvicorn.run(Litestar([hello]), host=HOST, port=port, log_level="warning")


def serve_orbital(port: int, workdir: str) -> None:
    import uvicorn

    from orbital.http import HttpSettings, create_app, loopback_hosts
    from orbital.service import Orbital

    service = Orbital.open(f"sqlite:///{workdir}/store.db")
    app = create_app(service, HttpSettings(allowed_hosts=loopback_hosts(port)))
    uvicorn.run(app, host=HOST, port=port, log_level="warning")


def prepare(workdir: str) -> tuple[str, str]:
    """A project with a few asks and an agent token for it."""
    from orbital.events import Actor
    from orbital.service import Orbital

    root = Path(workdir) / "project"
    root.mkdir()
    with Orbital.open(f"sqlite:///{workdir}/store.db") as service:
        project = service.init_project(root).project_id
        for n in range(20):
            service.ask_open(project, f"Decide on option {n}", actor=Actor.AGENT)
        token = service.credentials.create("agent", [project]).token
    return project, token


@contextmanager
def server(*args: str) -> Iterator[str]:
    port = free_port(HOST)
    process = subprocess.Popen([sys.executable, __file__, "--serve", *args, str(port)])
    url = f"http://{HOST}:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                httpx.get(f"{url}/", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError(f"server {args[0]} did not start") from None
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait(10)


async def load(
    url: str, headers: dict[str, str], seconds: float, concurrency: int
) -> tuple[float, list[float]]:
    """Requests/second and per-request latencies (ms) over ``seconds`` of steady load."""
    latencies: list[float] = []
    async with httpx.AsyncClient(headers=headers, timeout=10) as client:
        warm_until = time.perf_counter() + min(0.5, seconds / 4)
        while time.perf_counter() < warm_until:
            (await client.get(url)).raise_for_status()
        stop = time.perf_counter() + seconds

        async def worker() -> None:
            while time.perf_counter() < stop:
                started = time.perf_counter()
                response = await client.get(url)
                latencies.append((time.perf_counter() - started) * 1000)
                response.raise_for_status()

        began = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - began
    return len(latencies) / elapsed, latencies


def report(name: str, rate: float, latencies: list[float], baseline: float | None) -> None:
    cuts = statistics.quantiles(latencies, n=100)
    ratio = f"{rate / baseline:6.0%} of hello" if baseline else ""
    print(
        f"   {name:34} {rate:8,.0f} req/s  p50 {cuts[49]:6.2f} ms  p99 {cuts[98]:6.2f} ms  {ratio}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="load time per route")
    parser.add_argument("--concurrency", type=int, default=16, help="requests in flight")
    parser.add_argument("--serve", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        kind, *rest = args.serve
        if kind == "hello":
            serve_hello(int(rest[0]))
        else:
            serve_orbital(int(rest[1]), rest[0])
        return

    with tempfile.TemporaryDirectory() as workdir:
        project, token = prepare(workdir)
        print(f"{args.concurrency} requests in flight, {args.seconds:g} s per route, loopback")
        with server("hello") as hello_url:
            base_rate, base_lat = asyncio.run(
                load(f"{hello_url}/hello", {}, args.seconds, args.concurrency)
            )
        report("plain Litestar GET /hello", base_rate, base_lat, None)
        with server("orbital", workdir) as url:
            routes = [
                ("GET /health", f"{url}/health", {}),
                (
                    "GET …/context (bearer token)",
                    f"{url}/api/v1/projects/{project}/context",
                    {"Authorization": f"Bearer {token}"},
                ),
                (
                    "GET …/history (bearer token)",
                    f"{url}/api/v1/projects/{project}/history",
                    {"Authorization": f"Bearer {token}"},
                ),
            ]
            for name, route, headers in routes:
                rate, latencies = asyncio.run(load(route, headers, args.seconds, args.concurrency))
                report(name, rate, latencies, base_rate)


if __name__ == "__main__":
    main()
