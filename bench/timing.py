"""Timing helpers shared by the benchmarks (each script runs as ``python bench/<name>.py``,
so this module is importable as ``timing``)."""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    """Wall-clock seconds of ``repeat`` calls of ``fn``."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return samples


def free_port(host: str = "127.0.0.1") -> int:
    """A free TCP port on a loopback address."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def quick_run(doc: str | None, help: str) -> bool:
    """Whether the benchmark was asked for a quick run (``--quick``); ``doc``'s first line
    describes it in ``--help``."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=help)
    return bool(parser.parse_args().quick)


@contextmanager
def served(
    command: list[str], host: str = "127.0.0.1", *, timeout: float = 30
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """A server started as ``command`` plus a free port; yields it and its URL once its
    ``/health`` answers, and stops it afterwards."""
    port = free_port(host)
    process = subprocess.Popen([*command, str(port)], stdout=subprocess.DEVNULL)
    url = f"http://{host}:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                httpx.get(f"{url}/health", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError(f"{command[0]} did not start") from None
                time.sleep(0.05)
        yield process, url
    finally:
        process.terminate()
        process.wait(10)


@contextmanager
def pg_schema(url: str) -> Iterator[str]:
    """A fresh schema on the PostgreSQL server (dropped afterwards), as a store URL."""
    import sqlalchemy as sa

    url = url.replace("postgresql://", "postgresql+psycopg://", 1)
    schema = f"bench_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(url)
    with admin.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield (
            sa.make_url(url)
            .update_query_dict({"options": f"-csearch_path={schema}"})
            .render_as_string(hide_password=False)
        )
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
