"""Timing helpers shared by the benchmarks (each script runs as ``python bench/<name>.py``,
so this module is importable as ``timing``)."""

from __future__ import annotations

import argparse
import socket
import statistics
import time
from collections.abc import Callable


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
