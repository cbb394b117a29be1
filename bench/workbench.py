"""Workbench benchmark: the person's page and the entries API with a 20,000-entry project.

Run: ``python bench/workbench.py`` (``--quick``: 5,000 entries; ``--store DIR`` to
keep the built store and reuse it on the next run). Builds one project through the real write
path: three quarters of ``--entries`` written to DECISIONS.md by the agent in batches (40 days
ago), archived by the session-end backstop (yesterday), then the rest written today beside
the pointers; a few dozen asks, some overdue,
some done or dropped. The app is served by uvicorn in a subprocess on a loopback port; an httpx
client signs in with a Workbench token as a browser does (form, CSRF, session cookie) and
requests each route ``--repeat`` times in a row.

Prints, per route, the response size and the p50/p99 serve time, and the p50 as a ratio of
``GET /health`` measured in the same run (the baseline: what any request costs here). Targets
(issue 13, item 17): the default page and the project's page under 300 KB and served in under
300 ms; the entries API bounded by its page size, not by the project.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from timing import served

from orbital.service import Orbital

HOST = "127.0.0.1"
_CSRF = re.compile(r'name="csrf" value="([^"]+)"')
_PROJECT = re.compile(r'id="memory-([^"]+)"')


def build(workdir: Path, entries: int) -> str:
    """The store at ``workdir/store.db`` with one big project; returns a Workbench token."""
    from orbital.clock import FixedClock
    from orbital.events import Actor

    os.environ.setdefault("ORBITAL_MAX_FILE_BYTES", str(64 * 1024 * 1024))
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    url = f"sqlite:///{workdir}/store.db"
    root = workdir / "big"
    root.mkdir()
    started = time.perf_counter()
    with Orbital.open(url, clock=FixedClock(now - dt.timedelta(days=40))) as service:
        project = service.init_project(root, timezone="UTC").project_id
        written(service, project, "", range(entries * 3 // 4))
    with Orbital.open(url, clock=FixedClock(now - dt.timedelta(days=1))) as service:
        report = service.session_end(project)
        archived = sum(1 for e in report.events if e.type == "entry.archived")
    with Orbital.open(url) as service:
        kept = service.read_file(project, "DECISIONS.md")
        written(service, project, kept, range(entries * 3 // 4, entries))
        for n in range(60):
            due = (now - dt.timedelta(days=50 - n)).date().isoformat() if n % 3 == 0 else None
            service.ask_open(project, f"Decide on question {n}", due, actor=Actor.AGENT)
        ids = [a.id for a in service.asks(project)]
        for ask_id in ids[:10]:
            service.ask_close(project, ask_id, "done", "settled", actor=Actor.USER)
        for ask_id in ids[10:20]:
            service.ask_close(project, ask_id, "dropped", "not needed", actor=Actor.USER)
        token = service.credentials.create("workbench", label="bench").token
    took = time.perf_counter() - started
    print(f"built {entries:,} entries ({archived:,} archived by the backstop) in {took:.0f} s")
    (workdir / "token").write_text(token)
    return token


def written(service: Orbital, project: str, kept: str, numbers: range) -> None:
    """DECISIONS.md as ``kept`` plus the entries ``numbers``, written by the agent in five
    growing batches (each write is the whole file, as an agent writes it)."""
    from orbital.events import Actor

    step = max(len(numbers) // 5, 1)
    for upto in [*range(numbers.start + step, numbers.stop, step), numbers.stop]:
        text = kept + "".join(
            f"## Decision {i}: use tool {i}\nChose: option {i} for component {i % 97}.\n"
            f"Reason: it fits case {i}, which the team weighed against two other options "
            f"over a week of trials; the notes of that week are in the wiki page {i}.\n\n"
            for i in range(numbers.start, upto)
        )
        service.write_file(project, "DECISIONS.md", text.encode(), actor=Actor.AGENT)


def serve(port: int, workdir: str) -> None:
    import uvicorn

    from orbital.http import HttpSettings, create_app, loopback_hosts

    service = Orbital.open(f"sqlite:///{workdir}/store.db")
    app = create_app(service, HttpSettings(allowed_hosts=loopback_hosts(port)))
    uvicorn.run(app, host=HOST, port=port, log_level="warning")


@contextmanager
def server(workdir: Path) -> Iterator[str]:
    with served([sys.executable, __file__, "--serve", str(workdir)], HOST) as (_, url):
        yield url


def signed_in(client: httpx.Client, token: str) -> None:
    form = client.get("/workbench/login")
    found = _CSRF.search(form.text)
    assert found is not None, form.text
    done = client.post(
        "/workbench/login",
        data={"token": token, "csrf": found.group(1)},
        follow_redirects=True,
    )
    assert done.status_code == 200 and "Signed in as" in done.text, done.status_code


def measure(
    client: httpx.Client, path: str, repeat: int, headers: dict[str, str]
) -> tuple[int, list[float]]:
    """Bytes of the response and the wall-clock ms of each of ``repeat`` requests."""
    sizes, samples = set(), []
    for _ in range(repeat):
        started = time.perf_counter()
        response = client.get(path, headers=headers)
        samples.append((time.perf_counter() - started) * 1000)
        response.raise_for_status()
        sizes.add(len(response.content))
    return max(sizes), samples


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5,000 entries, 11 requests")
    parser.add_argument("--entries", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--store", type=Path, help="build here once and reuse on later runs")
    parser.add_argument("--serve", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(int(args.serve[1]), args.serve[0])
        return
    if args.quick:
        args.entries, args.repeat = 5_000, 11
    with tempfile.TemporaryDirectory() as scratch:
        workdir: Path = args.store or Path(scratch)
        workdir.mkdir(parents=True, exist_ok=True)
        if (workdir / "token").exists():
            token = (workdir / "token").read_text()
        else:
            token = build(workdir, args.entries)
        with server(workdir) as url, httpx.Client(base_url=url, timeout=120) as client:
            signed_in(client, token)
            first = client.get("/workbench").text
            found = _PROJECT.search(first)
            assert found is not None, "no project on the page"
            project = found.group(1)
            bearer = {"Authorization": f"Bearer {token}"}
            routes = [
                ("GET /health (baseline)", "/health", {}),
                ("GET /workbench (default page)", "/workbench", {}),
                ("GET /workbench?project=… (its page)", f"/workbench?project={project}", {}),
                (
                    "GET /workbench?project=…&q=… (search)",
                    f"/workbench?project={project}&q=component+42",
                    {},
                ),
                (
                    "GET …/entries (API, default page)",
                    f"/api/v1/workbench/{project}/entries",
                    bearer,
                ),
            ]
            baseline = 0.0
            print(f"{args.repeat} requests per route, one at a time, loopback")
            for name, path, headers in routes:
                size, samples = measure(client, path, args.repeat, headers=headers)
                p50 = statistics.median(samples)
                baseline = baseline or p50
                print(
                    f"   {name:40} {size / 1024:10,.1f} KB  p50 {p50:8.1f} ms  "
                    f"max {max(samples):8.1f} ms  {p50 / baseline:7.1f}x /health"
                )


if __name__ == "__main__":
    main()
