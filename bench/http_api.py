"""HTTP benchmark: ``GET …/context`` against a plain Litestar route serving the same bytes.

Run: ``python bench/http_api.py`` (``--seconds 2 --rounds 1`` for a shorter run). The project
is ``bench/context.py``'s (memory files at their hard budgets, 40 open asks: a ~95 KB view).
Each server runs under uvicorn in its own subprocess on a free loopback port, and the load
comes from outside both: ``wrk`` (Debian's ``wrk`` package) when it is on the PATH, else a
small client of this script's own in separate processes (raw sockets, keep-alive, one
connection per thread), which says so. ``--concurrency`` connections keep one request each in
flight for ``--seconds`` per route, after a short warm-up; the routes take turns, ``--rounds``
times. Printed per route: requests/second, p50/p99 latency (medians over the rounds), and the
share of the baseline's requests/second with its spread over the rounds (target: >= 70 %,
p99 <= 20 ms).

Baseline: a Litestar app whose one route returns the bytes Orbital answered, from memory,
with the same content type. Also measured: the first ``GET …/context`` after the server
starts against the median of the next ten (target: as fast as the rest; the same-bytes
route's first against its next ten says what uvicorn's own first answer costs), ``GET
/health`` and ``GET …/history`` (bearer token verified on every request). Both sides share
the 2 cores with the load generator, so the ratio is what to compare; ``--wrk-threads 1``
(default 2) leaves the server a core of its own, and with it the p99 is the server's rather
than the scheduler's.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from multiprocessing import Pool
from pathlib import Path
from threading import Thread

from timing import free_port

HOST = "127.0.0.1"
TARGET_SHARE = 0.70
TARGET_P99_MS = 20.0


# -- the servers (each in its own process) -----------------------------------------------


def serve_bytes(port: int, body_file: str) -> None:
    """A plain Litestar route answering the same bytes from memory."""
    import uvicorn
    from litestar import Litestar, get

    body = Path(body_file).read_bytes()

    @get("/same", sync_to_thread=False, media_type="application/json")
    def same() -> bytes:
        return body

    uvicorn.run(Litestar([same]), host=HOST, port=port, log_level="warning")


def serve_orbital(port: int, workdir: str) -> None:
    import uvicorn

    from orbital.http import HttpSettings, create_app, loopback_hosts
    from orbital.service import Orbital

    service = Orbital.open(os.environ.get(STORE_ENV) or f"sqlite:///{workdir}/context.db")
    settings = HttpSettings(allowed_hosts=loopback_hosts(port), own_process=True)
    uvicorn.run(create_app(service, settings), host=HOST, port=port, log_level="warning")


#: The store the servers open when ``--store`` names one (a PostgreSQL URL): handed down.
STORE_ENV = "ORBITAL_BENCH_STORE"


def prepare(workdir: str) -> tuple[str, str]:
    """``bench/context.py``'s project and an agent token for it."""
    from context import build_project

    from orbital.tokens import default_encoding

    encoding = default_encoding()
    orb, project, _ = build_project(
        Path(workdir), lambda t: len(encoding.encode_ordinary(t)), os.environ.get(STORE_ENV, "")
    )
    with orb:
        token = orb.credentials.create("agent", [project], label="bench").token
    return project, token


@contextmanager
def server(*args: str) -> Iterator[int]:
    """A server subprocess (``--serve ARGS… PORT``); yields its port once it accepts."""
    port = free_port(HOST)
    process = subprocess.Popen([sys.executable, __file__, "--serve", *args, str(port)])
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection((HOST, port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError(f"server {args[0]} did not start") from None
                time.sleep(0.01)
        yield port
    finally:
        process.terminate()
        process.wait(10)


# -- one request, raw ----------------------------------------------------------------------


def request_bytes(path: str, headers: dict[str, str], port: int) -> bytes:
    lines = [
        f"GET {path} HTTP/1.1",
        f"Host: {HOST}:{port}",
        *(f"{k}: {v}" for k, v in headers.items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def read_response(sock: socket.socket, pending: bytes) -> tuple[int, bytes, bytes]:
    """(status, body, bytes read past it) of one keep-alive response with Content-Length."""
    data = pending
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    found = re.search(rb"(?i)\r\ncontent-length:\s*(\d+)", head)
    length = int(found[1]) if found else 0
    parts, have = [rest], len(rest)
    while have < length:
        chunk = sock.recv(max(65536, length - have))
        if not chunk:
            raise ConnectionError("the server closed the connection")
        parts.append(chunk)
        have += len(chunk)
    body = b"".join(parts)
    return status, body[:length], body[length:]


def fetch(port: int, path: str, headers: dict[str, str]) -> tuple[int, bytes, float]:
    """One request on a new connection: (status, body, seconds)."""
    with socket.create_connection((HOST, port)) as sock:
        start = time.perf_counter()
        sock.sendall(request_bytes(path, headers, port))
        status, body, _ = read_response(sock, b"")
        return status, body, time.perf_counter() - start


# -- the load generators -------------------------------------------------------------------


def wrk_load(
    port: int,
    path: str,
    headers: dict[str, str],
    seconds: float,
    connections: int,
    threads: int,
) -> tuple[float, float, float]:
    """(req/s, p50 ms, p99 ms) from ``wrk --latency`` with ``threads`` threads: with two,
    wrk and the server's one thread share the machine's two cores three ways, and either
    side's p99 is mostly the scheduler's."""
    duration = f"-d{max(1, round(seconds))}s"
    args = ["wrk", f"-t{threads}", f"-c{connections}", duration, "--latency"]
    for name, value in headers.items():
        args += ["-H", f"{name}: {value}"]
    out = subprocess.run(
        [*args, f"http://{HOST}:{port}{path}"], capture_output=True, text=True, check=True
    ).stdout
    if "Non-2xx" in out or "Socket errors" in out:
        raise RuntimeError(f"wrk saw errors:\n{out}")
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out)[1])  # type: ignore[index]

    def cut(percent: str) -> float:
        value, unit = re.search(rf"\s{percent}%\s+([\d.]+)(us|ms|s)\b", out).groups()  # type: ignore[union-attr]
        return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]

    return rate, cut("50"), cut("99")


def _client_thread(
    port: int, request: bytes, stop: float, latencies: list[float], errors: list[str]
) -> None:
    with socket.create_connection((HOST, port)) as sock:
        pending = b""
        while time.perf_counter() < stop:
            start = time.perf_counter()
            sock.sendall(request)
            status, _, pending = read_response(sock, pending)
            latencies.append((time.perf_counter() - start) * 1000)
            if status != 200:
                errors.append(str(status))
                return


def _client_process(job: tuple[int, bytes, float, int]) -> tuple[list[float], list[str]]:
    port, request, stop_in, threads = job
    stop = time.perf_counter() + stop_in
    latencies: list[float] = []
    errors: list[str] = []
    workers = [
        Thread(target=_client_thread, args=(port, request, stop, latencies, errors))
        for _ in range(threads)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return latencies, errors


def own_load(
    port: int, path: str, headers: dict[str, str], seconds: float, connections: int
) -> tuple[float, float, float]:
    """(req/s, p50 ms, p99 ms) from this script's client: two processes of raw-socket
    keep-alive threads (no HTTP library in the loop)."""
    processes = 2
    request = request_bytes(path, headers, port)
    jobs = [(port, request, seconds, connections // processes)] * processes
    began = time.perf_counter()
    with Pool(processes) as pool:
        results = pool.map(_client_process, jobs)
    elapsed = time.perf_counter() - began
    latencies = [ms for lat, _ in results for ms in lat]
    errors = [e for _, err in results for e in err]
    if errors:
        raise RuntimeError(f"non-200 answers: {sorted(set(errors))}")
    cuts = statistics.quantiles(latencies, n=100)
    return len(latencies) / elapsed, cuts[49], cuts[98]


def load(
    port: int,
    path: str,
    headers: dict[str, str],
    seconds: float,
    connections: int,
    wrk_threads: int,
) -> tuple[float, float, float]:
    status, _, _ = fetch(port, path, headers)  # a short warm-up on its own connection
    if status != 200:
        raise RuntimeError(f"GET {path} answered {status}")
    generator = partial(wrk_load, threads=wrk_threads) if shutil.which("wrk") else own_load
    generator(port, path, headers, min(1.0, seconds / 4), connections)
    return generator(port, path, headers, seconds, connections)


# -- the run -------------------------------------------------------------------------------


def first_request(kind: str, where: str, path: str, headers: dict[str, str]) -> tuple[float, float]:
    """(ms of the first GET after the server accepts, median ms of the next ten), each on a
    new connection."""
    with server(kind, where) as port:
        status, _, first = fetch(port, path, headers)
        if status != 200:
            raise RuntimeError(f"GET {path} answered {status}")
        rest = [fetch(port, path, headers)[2] for _ in range(10)]
    return first * 1000, statistics.median(rest) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="load time per route")
    parser.add_argument("--rounds", type=int, default=3, help="turns of every route")
    parser.add_argument("--concurrency", type=int, default=16, help="requests in flight")
    parser.add_argument(
        "--wrk-threads", type=int, default=2, help="wrk's threads (1 leaves a core to the server)"
    )
    parser.add_argument(
        "--store",
        default="",
        help="an empty store's URL (a PostgreSQL database or schema); default: SQLite, temp dir",
    )
    parser.add_argument("--serve", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.store:
        os.environ[STORE_ENV] = args.store
    if args.serve:
        kind, where, port = args.serve
        (serve_bytes if kind == "bytes" else serve_orbital)(int(port), where)
        return

    with tempfile.TemporaryDirectory(prefix="orbital-bench-") as workdir:
        project, token = prepare(workdir)
        auth = {"Authorization": f"Bearer {token}"}
        context = f"/api/v1/projects/{project}/context"
        first, rest = first_request("orbital", workdir, context, auth)
        generator = (
            f"wrk -t{args.wrk_threads}"
            if shutil.which("wrk")
            else "own client, 2 processes (no wrk)"
        )
        print(
            f"{args.concurrency} connections, {args.seconds:g} s per route, {args.rounds} "
            f"round(s), load from {generator}, loopback; store "
            f"{'PostgreSQL' if args.store else 'SQLite'}; load average "
            f"{os.getloadavg()[0]:.1f}"
        )
        rows: dict[str, list[tuple[float, float, float]]] = {}
        with server("orbital", workdir) as port:
            status, body, _ = fetch(port, context, auth)
            if status != 200:
                raise RuntimeError(f"GET {context} answered {status}")
            body_file = Path(workdir) / "context.json"
            body_file.write_bytes(body)
            bare_first, bare_rest = first_request("bytes", str(body_file), "/same", {})
            print(
                f"   first GET …/context after start {first:7.2f} ms, next ten median "
                f"{rest:6.2f} ms ({first / rest:.1f}x; target: as fast as the rest)"
            )
            print(
                f"   the same-bytes route's first    {bare_first:7.2f} ms, next ten median "
                f"{bare_rest:6.2f} ms ({bare_first / bare_rest:.1f}x: uvicorn's own first answer)"
            )
            routes = [
                ("GET /health", "/health", {}),
                ("GET …/context (bearer token)", context, auth),
                ("GET …/history (bearer token)", f"/api/v1/projects/{project}/history", auth),
            ]
            shape = (args.seconds, args.concurrency, args.wrk_threads)
            with server("bytes", str(body_file)) as same_port:
                for _ in range(args.rounds):
                    rows.setdefault("baseline", []).append(load(same_port, "/same", {}, *shape))
                    for name, path, headers in routes:
                        rows.setdefault(name, []).append(load(port, path, headers, *shape))
        base = rows.pop("baseline")
        print(f"   {'Litestar route, same bytes (' + f'{len(body):,} B)':34} " + _figures(base))
        for name, measured in rows.items():
            shares = [m[0] / b[0] for m, b in zip(measured, base, strict=True)]
            print(
                f"   {name:34} {_figures(measured)}  {statistics.median(shares):4.0%} of "
                f"baseline (rounds {min(shares):.0%} to {max(shares):.0%})"
            )
        print(
            f"   target for …/context: >= {TARGET_SHARE:.0%} of baseline, "
            f"p99 <= {TARGET_P99_MS:g} ms"
        )


def _figures(measured: list[tuple[float, float, float]]) -> str:
    rate, p50, p99 = (statistics.median(m[i] for m in measured) for i in range(3))
    return f"{rate:8,.0f} req/s  p50 {p50:6.2f} ms  p99 {p99:6.2f} ms"


if __name__ == "__main__":
    main()
