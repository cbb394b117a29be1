"""Scale benchmark: the paths an agent or a person waits on, at 1k / 10k / 100k / 1M events.

Run: ``python bench/scale.py`` (``--quick``: 1k and 10k only; ``--sizes 1000 1000000``;
``--keep DIR`` keeps each built project and store in ``DIR`` and reuses them next time, since
a 1M-event build takes minutes; ``--pg URL``: the same rows again on PostgreSQL, each
project's log imported into a new store in a schema of its own, dropped afterwards). Each
project is ``bench/history.py``'s mix (memory writes through ``write_file``, ask events in
bulk: at 1M events about 500,000 asks, 100,000 of them open and 150,000 dropped). Every row is
timed on each size in the same run, and printed side by side with the largest/smallest
ratio; the rows whose target is a ratio print their baseline (``python -c pass`` through the
same ``subprocess`` call, in the same rounds).

Rows (p50 of the rounds; issue 30's targets, the same at every size):
1. ``orbital ask open`` as a new process, wall time — <= 8x ``python -c pass``;
2. ``ask_open`` in a long-lived process right after another process appended — <= 5 ms;
3. the view right after that write, in the same process — <= 2 ms;
4. opening the store and the first view (a new ``Orbital`` in this process) — <= 200 ms;
5. ``orbital serve``'s RSS after its first ``GET …/context`` — <= 100 MiB;
6. ASKS.md as of an instant in the middle of the log — <= 20 ms.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
from history import build
from serve_memory import rss_mib, started
from timing import pg_schema

from orbital.events import Actor
from orbital.service import Orbital

SIZES = (1_000, 10_000, 100_000, 1_000_000)
TARGETS = {
    "ask open, new process": "<= 8x",
    "ask_open after another process": "<= 5 ms",
    "view after a write": "<= 2 ms",
    "open + first view": "<= 200 ms",
    "serve RSS after first view": "<= 100 MiB",
    "ASKS.md as of the middle": "<= 20 ms",
}


def ready(keep: Path, total: int) -> tuple[str, str, Path]:
    """(store URL, project id, project folder) of a ``total``-event project kept in ``keep``,
    built there first when missing."""
    done = keep / f"built{total}"
    if not done.exists():
        names = (f"history{total}.db*", f"project{total}", f"pg-project{total}")
        for stale in (found for name in names for found in keep.glob(name)):  # not 10x's
            shutil.rmtree(stale) if stale.is_dir() else stale.unlink()
        started_at = time.perf_counter()
        built = build(keep, total, seed=total)
        with built.orbital as orb:
            agent = orb.credentials.create("agent", [built.project], label="bench").token
        took = time.perf_counter() - started_at
        print(f"   built {built.events:,} events in {took:.0f} s", flush=True)
        done.write_text(f"{built.project}\n{agent}\n")
    project = done.read_text().split()[0]
    return f"sqlite:///{keep / f'history{total}.db'}", project, keep / f"project{total}"


def agent_token(keep: Path, total: int) -> str:
    return (keep / f"built{total}").read_text().split()[1]


def wall(command: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def in_ms(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


@contextlib.contextmanager
def on_postgresql(keep: Path, total: int, pg: str) -> Iterator[tuple[str, str, Path, str]]:
    """The kept project's log imported into a new PostgreSQL store, in a copy of its checkout:
    (store URL, project id, checkout, an agent's token)."""
    url, project, root = ready(keep, total)
    with Orbital.open(url) as orb:
        exported = b"".join(orb.export_log(project))
    clone = keep / f"pg-project{total}"
    shutil.rmtree(clone, ignore_errors=True)
    shutil.copytree(root, clone)
    with pg_schema(pg) as pg_url:
        with Orbital.open(pg_url) as target:
            target.import_log(clone, [exported])
            agent = target.credentials.create("agent", [project], label="bench").token
        yield pg_url, project, clone, agent


def measure(
    keep: Path, url: str, project: str, root: Path, agent: str, rounds: int
) -> dict[str, float]:
    env = {**os.environ, "ORBITAL_DB": url, "ORBITAL_STATE_DIR": str(keep / "state")}
    env.pop("ORBITAL_NOW", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(keep / "pycache")
    orbital = str(Path(sys.executable).with_name("orbital"))
    bare = [sys.executable, "-c", "pass"]
    samples: dict[str, list[float]] = {name: [] for name in (*TARGETS, "python -c pass")}
    os.environ["ORBITAL_STATE_DIR"] = env["ORBITAL_STATE_DIR"]
    with Orbital.open(url) as orb:
        orb.context_view(project)  # the long-lived process has looked once
        stamp = time.time_ns()
        for i in range(-1, rounds):  # round -1 warms the OS cache and the kept outputs
            text = f"Scale round {stamp} {i} new process"
            base = wall(bare, env, root)
            cold = wall([orbital, "ask", "open", text, "--project", str(root)], env, root)
            mine = f"Scale round {stamp} {i} here"
            opened = in_ms(lambda: orb.ask_open(project, mine, actor=Actor.AGENT))  # noqa: B023
            view = in_ms(lambda: orb.context_view(project))
            if i < 0:
                continue
            samples["python -c pass"].append(base * 1000)
            samples["ask open, new process"].append(cold * 1000)
            samples["ask_open after another process"].append(opened)
            samples["view after a write"].append(view)
        at = orb.as_of(project, orb.head(project) // 2)
        assert at is not None
        for i in range(-1, rounds):
            took = in_ms(lambda: orb.read_file(project, "ASKS.md", as_of=at[1]))
            if i >= 0:
                samples["ASKS.md as of the middle"].append(took)
    for i in range(-1, min(rounds, 7)):

        def first_view() -> None:
            with Orbital.open(url) as fresh:
                fresh.context_view(project)

        took = in_ms(first_view)
        if i >= 0:
            samples["open + first view"].append(took)
    command = [orbital, "--db", url, "serve", "--port"]
    with started(command) as (process, base_url), httpx.Client(timeout=300) as client:
        headers = {"Authorization": f"Bearer {agent}"}
        client.get(f"{base_url}/api/v1/projects/{project}/context", headers=headers)
        samples["serve RSS after first view"].append(rss_mib(process.pid)[0])
    out = {name: statistics.median(values) for name, values in samples.items()}
    out["ask open, new process"] /= out["python -c pass"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1k and 10k events, 5 rounds")
    parser.add_argument("--sizes", type=int, nargs="+", help="event counts to build")
    parser.add_argument("--rounds", type=int, help="rounds per size (default 11, quick 5)")
    parser.add_argument("--keep", type=Path, help="keep and reuse built projects here")
    parser.add_argument("--pg", default="", help="a PostgreSQL server: the rows there too")
    args = parser.parse_args()
    sizes = args.sizes or ((1_000, 10_000) if args.quick else SIZES)
    rounds = args.rounds or (5 if args.quick else 11)
    with tempfile.TemporaryDirectory(prefix="orbital-scale-") as name:
        keep = args.keep or Path(name)
        keep.mkdir(parents=True, exist_ok=True)
        print(f"Load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)")
        rows: dict[str, dict[int, dict[str, float]]] = {"SQLite": {}}
        for total in sizes:
            print(f"{total:,} events:", flush=True)
            url, project, root = ready(keep, total)
            token = agent_token(keep, total)
            rows["SQLite"][total] = measure(keep, url, project, root, token, rounds)
            if args.pg:
                with on_postgresql(keep, total, args.pg) as (pg_url, _, clone, agent):
                    found = measure(keep, pg_url, project, clone, agent, rounds)
                rows.setdefault("PostgreSQL", {})[total] = found
        small, large = sizes[0], sizes[-1]
        header = "".join(f"{f'{n:,} ev':>12}" for n in sizes)
        for backend, by_size in rows.items():
            print(f"\n{backend}: p50 of {rounds} rounds (ask open: ratio to python -c pass)")
            print(f"{'row':34}{header}{'big/small':>11}  target")
            for row, target in TARGETS.items():
                unit = "x" if target.endswith("x") else " MiB" if "MiB" in target else " ms"
                cells = "".join(f"{by_size[n][row]:>8.1f}{unit:<4}" for n in sizes)
                ratio = by_size[large][row] / by_size[small][row]
                print(f"{row:34}{cells}{ratio:>10.2f}x  {target}")
            bare = "".join(f"{by_size[n]['python -c pass']:>8.1f} ms " for n in sizes)
            print(f"{'python -c pass (baseline)':34}{bare}")
        print(f"Load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
