"""One memory, many machines (issue 18): two checkouts of one project in two folders, each
followed by its own ``orbital follow`` process, over one store (each backend).

A write in one checkout reaches the other's files within a second; a hand edit in one is
taken in there and reaches the other; a follower killed and started again catches up from
its checkpoints; and 2 x 4 writer processes (asks, DECISIONS.md and LESSONS.md, half in each
checkout), 250 writes each, lose nothing: positions gapless, both checkouts' files
byte-identical to a third checkout rendered fresh from the log. Run with ``-s`` to see the figures.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from orbital.catalogue import MEMORY_DIR, PROJECT_ID_FILE
from orbital.events import Actor, event_type
from orbital.service import Orbital

ORBITAL = Path(sys.executable).with_name("orbital")
NAMES = ("ASKS.md", "DECISIONS.md", "LESSONS.md", "PROJECT_STATE.md", "INDEX.md")
CHECKOUTS, WRITERS, WRITES = 2, 4, 250


@dataclass
class Team:
    url: str
    service: Orbital
    pid: str
    tmp: Path
    a: Path
    b: Path

    def join(self, name: str) -> Path:
        """A new folder holding the project's id file (a clone), registered by ``init``."""
        folder = self.tmp / name
        (folder / MEMORY_DIR).mkdir(parents=True)
        shutil.copy(self.a / MEMORY_DIR / PROJECT_ID_FILE, folder / MEMORY_DIR / PROJECT_ID_FILE)
        assert self.service.init(folder).project.project_id == self.pid
        return folder

    def files(self, folder: Path) -> dict[str, bytes]:
        found = {}
        for name in NAMES:
            path = folder / MEMORY_DIR / name
            found[name] = path.read_bytes() if path.exists() else b""
        return found


@pytest.fixture
def team(store_url: str, tmp_path: Path) -> Iterator[Team]:
    service = Orbital.open(store_url)  # the real clock, as the other processes have
    a = tmp_path / "a"
    a.mkdir()
    pid = service.init(a).project.project_id
    made = Team(store_url, service, pid, tmp_path, a, a)
    made.b = made.join("b")
    yield made
    service.close()


class Follower:
    """An ``orbital follow`` process for one folder."""

    def __init__(self, url: str, folder: Path, log: Path) -> None:
        self.url, self.folder, self.log = url, folder, log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Follower:
        with self.log.open("ab") as err:
            self.proc = subprocess.Popen(
                [str(ORBITAL), "follow", "--project", str(self.folder)],
                env={**os.environ, "ORBITAL_DB": self.url},
                stdout=subprocess.DEVNULL,
                stderr=err,
            )
        seen = self.log.read_text().count("up to date")
        wait_for(lambda: self.log.read_text().count("up to date") > seen, 60, "follower up")
        return self

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def followers(team: Team) -> Iterator[Callable[[Path], Follower]]:
    started: list[Follower] = []

    def follow(folder: Path) -> Follower:
        started.append(Follower(team.url, folder, team.tmp / f"follow-{folder.name}.log"))
        return started[-1].start()

    yield follow
    for each in started:
        each.kill()


def wait_for(done: Callable[[], bool], seconds: float, what: str) -> float:
    """Seconds until ``done()`` held (polled every 5 ms); fails after ``seconds``."""
    started = time.perf_counter()
    while not done():
        if time.perf_counter() - started > seconds:
            pytest.fail(f"{what}: not within {seconds} s")
        time.sleep(0.005)
    return time.perf_counter() - started


def contains(path: Path, text: str) -> Callable[[], bool]:
    return lambda: path.exists() and text in path.read_text("utf-8")


def test_a_write_in_one_checkout_reaches_the_others_files_within_a_second(
    team: Team, followers: Callable[[Path], Follower]
) -> None:
    followers(team.b)
    team.service.project(team.a)  # this process now writes in checkout a
    team.service.ask_open(team.pid, "ship the team memory", actor=Actor.AGENT)
    ask = wait_for(contains(team.b / "orbital/ASKS.md", "ship the team memory"), 1.0, "ask")
    text, version = team.service.read_versioned(team.pid, "DECISIONS.md")
    entry = "\n## Share memory through PostgreSQL\nChose: one store, a checkout per folder.\n"
    team.service.write_file(
        team.pid, "DECISIONS.md", (text + entry).encode(), actor=Actor.AGENT, base=version
    )
    decision = wait_for(
        contains(team.b / "orbital/DECISIONS.md", "## Share memory through PostgreSQL"), 1.0, "file"
    )
    print(f"\nfollow latency: ask {ask * 1000:.0f} ms, DECISIONS.md {decision * 1000:.0f} ms")
    assert team.files(team.b) == team.files(team.a)


def test_a_hand_edit_in_one_checkout_is_taken_in_there_and_reaches_the_other(
    team: Team, followers: Callable[[Path], Follower]
) -> None:
    followers(team.a)
    followers(team.b)
    edited = team.b / "orbital/DECISIONS.md"
    with edited.open("a", encoding="utf-8") as f:
        f.write("\n## Keep the store in PostgreSQL\nChose: by hand in checkout b.\n")
    reached = contains(team.a / "orbital/DECISIONS.md", "## Keep the store in PostgreSQL")
    wait_for(reached, 30, "the hand edit in a")
    wait_for(lambda: team.files(team.a) == team.files(team.b), 30, "a and b the same")
    assert "<!--mem id:keep-the-store-in-postgresql " in edited.read_text("utf-8")
    kinds = [
        event_type(type(e.event)) for e in team.service.history(team.pid) if e.actor == Actor.FILE
    ]
    assert kinds[:2] == ["file.hand_edit_detected", "entry.created"]


def test_a_follower_killed_and_started_again_catches_up_from_its_checkpoints(
    team: Team, followers: Callable[[Path], Follower]
) -> None:
    follower = followers(team.a)
    before = team.files(team.a)
    follower.kill()
    team.service.project(team.b)  # this process writes in checkout b
    for i in range(3):
        team.service.ask_open(team.pid, f"while a was down {i}", actor=Actor.AGENT)
    assert team.files(team.a) == before  # nobody wrote a's files
    follower.start()
    wait_for(lambda: team.files(team.a) == team.files(team.b), 30, "a caught up")
    assert "while a was down 2" in (team.a / "orbital/ASKS.md").read_text("utf-8")


@pytest.mark.timeout(1800)
def test_concurrent_writers_in_two_checkouts_lose_nothing(
    team: Team, followers: Callable[[Path], Follower], backend: str
) -> None:
    followers(team.a)
    followers(team.b)
    control = team.tmp / "control"
    control.mkdir()
    procs = []
    for n in range(CHECKOUTS * WRITERS):
        folder = team.a if n < WRITERS else team.b
        kind = ("asks", "decisions", "asks", "lessons")[n % 4]
        args = [team.url, str(folder), kind, str(n), str(WRITES), str(control)]
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "tests.team.writer", *args],
                stdout=subprocess.PIPE,
                cwd=Path(__file__).parents[2],
            )
        )
    wait_for(lambda: len(list(control.glob("ready-*"))) == len(procs), 120, "writers ready")
    started = time.perf_counter()
    (control / "go").touch()
    runs = [json.loads(p.communicate()[0]) for p in procs]
    seconds = time.perf_counter() - started
    assert [p.returncode for p in procs] == [0] * len(procs)
    fresh = team.join("fresh")
    wait_for(lambda: team.files(team.a) == team.files(fresh), 120, "a like a fresh render")
    wait_for(lambda: team.files(team.b) == team.files(fresh), 120, "b like a fresh render")
    conflicts = sum(r["conflicts"] for r in runs)
    print(
        f"\nteam ({backend}): {len(procs)} writers x {WRITES} writes in two checkouts, "
        f"{seconds:.1f} s, {conflicts} stale writes retried"
    )
    assert [r["done"] for r in runs] == [WRITES] * len(procs)
    events = list(team.service.history(team.pid))
    assert [e.position for e in events] == list(range(1, len(events) + 1))
    assert team.service.head() == len(events)
    asks = team.files(fresh)["ASKS.md"].decode()
    decisions = team.files(fresh)["DECISIONS.md"].decode()
    lessons = team.files(fresh)["LESSONS.md"].decode()
    for n in range(CHECKOUTS * WRITERS):
        for i in range(WRITES):
            if n % 2 == 0:
                assert f" writer {n} ask number {i}\n" in asks
            elif n % 4 == 1:
                assert f"## Writer {n} decision {i} <!--mem" in decisions
            else:
                assert f". Writer {n} lesson {i}: keep the log. <!--mem" in lessons
    assert len(team.service.asks(team.pid)) == CHECKOUTS * WRITERS // 2 * WRITES
