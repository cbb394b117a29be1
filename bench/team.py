"""Team benchmark: one project in two checkouts (folders) over one store, on SQLite and on
PostgreSQL, each beside a single-checkout baseline measured in the same run.

Run: ``python bench/team.py [--pg URL] [--quick]`` from the repository root (the PostgreSQL
URL defaults to ``ORBITAL_TEST_PG_URL``; without one only SQLite runs). Prints per backend:

1. follow latency: an ask opened in checkout A (this process) until checkout B's ASKS.md
   holds it, with ``orbital follow`` running for B, p50/p99 — beside the baseline, the same
   write's own time until A's file holds it (the call's return);
2. appends per second of two writer processes, one in each checkout, beside two writer
   processes in one checkout; rounds, their spread (min-max) and the ratio.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from timing import pg_schema

from orbital.events import Actor
from orbital.service import Orbital

REPO = Path(__file__).resolve().parents[1]
ORBITAL = Path(sys.executable).with_name("orbital")


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


def checkouts(url: str, tmp: Path) -> tuple[Orbital, str, Path, Path]:
    """A project in folder ``a`` and a clone of it (its id file) in folder ``b``."""
    service = Orbital.open(url)
    a, b = tmp / "a", tmp / "b"
    a.mkdir()
    pid = service.init(a).project.project_id
    (b / "orbital").mkdir(parents=True)
    shutil.copy(a / "orbital" / "project-id", b / "orbital" / "project-id")
    service.init(b)
    return service, pid, a, b


def follow_latency(url: str, tmp: Path, writes: int) -> tuple[list[float], list[float]]:
    """(own write times in A, commit-in-A-to-file-in-B times) over ``writes`` asks."""
    service, pid, a, b = checkouts(url, tmp)
    log = tmp / "follow.log"
    with log.open("wb") as err:
        follower = subprocess.Popen(
            [str(ORBITAL), "follow", "--project", str(b)],
            env={**os.environ, "ORBITAL_DB": url},
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    try:
        while "up to date" not in log.read_text():
            time.sleep(0.01)
        service.project(a)  # this process writes in checkout a
        asks = b / "orbital" / "ASKS.md"
        own, follow = [], []
        for i in range(writes):
            text = f"latency probe number {i}"
            started = time.perf_counter()
            service.ask_open(pid, text, actor=Actor.AGENT)
            own.append(time.perf_counter() - started)
            while text not in asks.read_text("utf-8"):
                time.sleep(0.001)
            follow.append(time.perf_counter() - started)
    finally:
        follower.kill()
        follower.wait()
        service.close()
    return own, follow


def appends_per_second(url: str, tmp: Path, writes: int, two: bool) -> float:
    """Asks opened per second by two writer processes, in two checkouts or in one."""
    service, _pid, a, b = checkouts(url, tmp)
    service.close()
    control = tmp / "control"
    control.mkdir()
    procs = []
    for n, folder in enumerate((a, b if two else a)):
        args = [url, str(folder), "asks", str(n), str(writes), str(control)]
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "tests.team.writer", *args],
                cwd=REPO,
                stdout=subprocess.DEVNULL,
            )
        )
    while len(list(control.glob("ready-*"))) < len(procs):
        time.sleep(0.01)
    started = time.perf_counter()
    (control / "go").touch()
    for proc in procs:
        proc.wait()
    return len(procs) * writes / (time.perf_counter() - started)


def run(backend: str, url: str, rounds: int, probes: int, writes: int) -> None:
    own: list[float] = []
    follow: list[float] = []
    one: list[float] = []
    two: list[float] = []
    for _ in range(rounds):
        with store(backend, url) as (store_url, tmp):
            o, f = follow_latency(store_url, tmp, probes)
            own += o
            follow += f
        with store(backend, url) as (store_url, tmp):
            one.append(appends_per_second(store_url, tmp, writes, two=False))
        with store(backend, url) as (store_url, tmp):
            two.append(appends_per_second(store_url, tmp, writes, two=True))
    p50, p99 = percentile(follow, 0.5), percentile(follow, 0.99)
    b50, b99 = percentile(own, 0.5), percentile(own, 0.99)
    print(f"\n{backend}: {rounds} rounds")
    print(
        f"  follow latency A->B: p50 {p50:.0f} ms, p99 {p99:.0f} ms "
        f"(baseline, the write in A: p50 {b50:.0f} ms, p99 {b99:.0f} ms; "
        f"ratio p50 {p50 / b50:.2f}x) over {len(follow)} asks"
    )
    for label, rates in (("one checkout", one), ("two checkouts", two)):
        shown = ", ".join(f"{r:.0f}" for r in rates)
        print(
            f"  appends/s, 2 writers x {writes}, {label}: median {statistics.median(rates):.0f} "
            f"(rounds {shown}; spread {min(rates):.0f}-{max(rates):.0f})"
        )
    print(f"  ratio two checkouts / one: {statistics.median(two) / statistics.median(one):.2f}x")


@contextmanager
def store(backend: str, url: str) -> Iterator[tuple[str, Path]]:
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        if backend == "sqlite":
            yield f"sqlite:///{tmp / 'orbital.db'}", tmp
            return
        with pg_schema(url) as store_url:
            yield store_url, tmp


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pg", default=os.environ.get("ORBITAL_TEST_PG_URL", ""))
    parser.add_argument("--quick", action="store_true", help="fewer rounds and writes")
    args = parser.parse_args()
    rounds, probes, writes = (2, 20, 30) if args.quick else (3, 50, 100)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    run("sqlite", "", rounds, probes, writes)
    if args.pg:
        run("postgresql", args.pg, rounds, probes, writes)
    else:
        print("\npostgresql: skipped (no --pg URL and no ORBITAL_TEST_PG_URL)")


if __name__ == "__main__":
    main()
