"""History and as-of benchmark: past states and one entry's history in long logs.

Run: ``python bench/history.py`` (``--quick`` for a smaller run). Builds one project per size,
1,000 / 10,000 / 100,000 events (quick: 1,000 / 10,000), spread over simulated days: every day
a few agent writes of DECISIONS.md, LESSONS.md and PROJECT_STATE.md through
``Orbital.write_file`` (each revises one entry of a fixed pool, a few entries much more often
than the rest, so there are hundreds of entry revisions; the pool is created on day one, so the
files have the same size at every log length), and batches of ask events (opens by the agent,
closes done/dropped by the user, a few reopens) between them. Only the reads are timed;
building takes the asks' bulk path (the events appended straight through the store's writer,
with the service's asks snapshot hook, as ``migrate_retractions`` does; ASKS.md is regenerated
once at the end), while every memory write goes through the real write path (so memory
snapshots land where they would in use). Prints medians (>= 21 samples) and, against a
baseline measured in the same run — a naive full replay: every event of the project up to the
as-of position read with ``Reader.read_project`` and folded with the pure folds
(``fold_file`` per memory key, ``render_file``; the asks fold and the view assembly) — the
ratio:

1. ``read_file("DECISIONS.md", as_of=<an instant in the middle of the log>)`` and
   ``read_file("ASKS.md", as_of=...)``;
2. ``context_view(as_of=...)``;
3. ``history(project, HistoryQuery(entry=<the most revised entry>))`` fully consumed, and
   ``revisions(project, entry_id)``.

Targets: as-of renders flat across sizes (the largest/smallest ratio is printed), well under
50 ms at 100k events; the history of one entry among 100k events, reported in ms. ASKS.md as
of the middle is a prefix of today's file, so its size grows with the log: its per-line cost
is printed beside it.
"""

from __future__ import annotations

import datetime as dt
import random
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from timing import median_ms, quick_run, timed

from orbital.catalogue import (
    ASK_PREFIX,
    ASKS_STREAM,
    ENTRY_PREFIX,
    FILE_PREFIX,
    MEMORY_FILES,
    ask_stream,
    entry_stream,
    stream_id,
)
from orbital.domain.asks import fold as fold_asks
from orbital.domain.asks import random_minter
from orbital.domain.entries import fold_file
from orbital.domain.workspaces import ProjectTexts
from orbital.events import Actor, Event, RecordedEvent
from orbital.events.asks import AskClosed, AskOpened, AskReopened
from orbital.grammar.asks_md import render_file as render_asks
from orbital.grammar.render import render_file
from orbital.service import HistoryQuery, Orbital, Revision
from orbital.service._memory_state import MEMORY_KEYS
from orbital.service._view_outputs import zone_of
from orbital.service._workspaces import ViewTexts
from orbital.tokens import CachedCounter
from projections.asks_view import runtime_block
from projections.view_order import ViewParts, assemble

START = dt.datetime(2025, 1, 6, 8, 0, tzinfo=dt.UTC)
TZ = "UTC"
#: Memory writes per simulated day (one per slot; ask batches go between them).
MEMORY_WRITES_PER_DAY = 3
POOL = {"decisions": 24, "lessons": 16, "state": 10}
#: Which file a day's memory write goes to.
FILE_WEIGHTS = {"decisions": 0.5, "lessons": 0.3, "state": 0.2}

WORDS = (
    "service", "cache", "schema", "migration", "worker", "queue", "token", "budget", "parser",
    "renderer", "client", "server", "release", "deploy", "review", "index", "snapshot", "event",
    "stream", "projection", "writer", "reader", "lock", "retry", "timeout", "config", "secret",
    "session", "agent", "editor", "workbench", "archive", "pointer", "entry", "lesson", "file",
)  # fmt: skip
TECH = (
    "SQLite", "PostgreSQL", "Litestar", "msgspec", "tiktoken", "Alembic", "uvicorn", "httpx",
    "rapidfuzz", "pytest", "hypothesis", "mypy", "ruff", "click", "rich", "tqdm", "WAL",
)  # fmt: skip
ASK_VERBS = ("Decide", "Confirm", "Choose", "Review", "Approve", "Schedule", "Pick", "Check")
ASK_NOUNS = ("venue", "deck", "budget", "pricing page", "release notes", "logo", "contract")


class SimClock:
    """A clock the build advances through simulated days (one instance shared by the service,
    its store and its context, so ``recorded_at`` and the files' dates agree)."""

    def __init__(self, at: dt.datetime) -> None:
        self.at = at

    def now(self) -> dt.datetime:
        return self.at


def sentence(rng: random.Random, words: int) -> str:
    picked = [rng.choice(WORDS) for _ in range(words)]
    picked[rng.randrange(words)] = rng.choice(TECH)
    return " ".join(picked).capitalize()


def marker(key: str, n: int, rev: int) -> str:
    return f"({key[0]}{n:02d} r{rev})"


def pool_text(key: str, rng: random.Random) -> str:
    """The day-one text of a memory file: its whole pool of entries, revision 0."""
    parts = []
    for n in range(POOL[key]):
        tag = marker(key, n, 0)
        if key == "decisions":
            parts.append(
                f"## Use {TECH[n % len(TECH)]} for the {WORDS[n]} {WORDS[n + 1]} {n}\n"
                f"Chose: {sentence(rng, 10)}.\nReason: {sentence(rng, 16)} {tag}.\n"
                f"Rejected: {sentence(rng, 8)}.\n"
            )
        elif key == "lessons":
            parts.append(f"{n + 1}. {sentence(rng, 8)}. {sentence(rng, 16)} {tag}.\n")
        else:
            parts.append(f"- {sentence(rng, 14)} {tag}.\n")
    sep = "\n" if key != "state" else ""
    return sep.join(parts)


def revise(text: str, key: str, n: int, rev: int, rng: random.Random) -> str:
    """``text`` with entry ``n``'s tagged line rewritten (a new sentence, revision ``rev``)."""
    prefix = re.escape(f"({key[0]}{n:02d} r")
    line = re.compile(rf"^(Reason: |\d+\. [^.\n]*\. |- )[^\n]*?{prefix}\d+\)\.", re.MULTILINE)
    new, count = line.subn(
        lambda m: f"{m[1]}{sentence(rng, 16)} {marker(key, n, rev)}.", text, count=1
    )
    assert count == 1, (key, n)
    return new


@dataclass
class Built:
    orbital: Orbital
    project: str
    events: int
    memory_events: int
    entry_revisions: int
    seconds: float
    hot_entry: str
    hot_revisions: int


class AskMaker:
    """The asks side of the simulation: fresh opens, user closes, a few reopens."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.open: list[str] = []
        self.closed: list[str] = []
        self.taken: set[str] = set()
        self.made = 0

    def batch(self, size: int, day: dt.date) -> list[tuple[str, Event, Actor]]:
        rng = self.rng
        out: list[tuple[str, Event, Actor]] = []
        for _ in range(size):
            roll = rng.random()
            if len(self.open) > 30 and roll < 0.45:
                ask_id = self.open.pop(rng.randrange(len(self.open)))
                done = rng.random() < 2 / 3
                note = '"ok, done"' if done else '"not needed any more"'
                close = AskClosed(
                    ask_id=ask_id,
                    kind="done" if done else "dropped",
                    date=day,
                    by="user",
                    note=note,
                )
                out.append((ask_id, close, Actor.USER))
                self.closed.append(ask_id)
            elif self.closed and roll < 0.47:
                ask_id = self.closed.pop(rng.randrange(len(self.closed)))
                reopen = AskReopened(ask_id=ask_id, date=day, by="user", note='"back on"')
                out.append((ask_id, reopen, Actor.USER))
                self.open.append(ask_id)
            else:
                while (ask_id := f"{rng.getrandbits(24):06x}") in self.taken:
                    pass
                self.taken.add(ask_id)
                self.made += 1
                text = (
                    f"{rng.choice(ASK_VERBS)} the {rng.choice(ASK_NOUNS)} with "
                    f"{rng.choice(TECH)} before {rng.choice(WORDS)} (#{self.made})"
                )
                due = f"{day + dt.timedelta(days=14)}" if rng.random() < 0.1 else None
                out.append((ask_id, AskOpened(ask_id=ask_id, text=text, date=day, due=due),
                            Actor.AGENT))  # fmt: skip
                self.open.append(ask_id)
        return out


def build(tmp: Path, total: int, seed: int) -> Built:
    """A project of about ``total`` events (see the module docstring)."""
    rng = random.Random(seed)
    root = tmp / f"project{total}"
    root.mkdir()
    clock = SimClock(START)
    orb = Orbital.open(
        f"sqlite:///{tmp / f'history{total}.db'}", clock=clock, mint=random_minter(rng)
    )
    start = time.perf_counter()
    pid = orb.init_project(root, timezone=TZ).project_id
    for key in POOL:
        orb.write_file(pid, MEMORY_FILES[key], pool_text(key, rng).encode(), actor=Actor.AGENT)
    days = max(20, round(total**0.5 * 1.3))  # 1k: 41 days, 10k: 130, 100k: 411
    asks = AskMaker(rng)
    revs = {key: [0] * POOL[key] for key in POOL}
    # Zipf-like: a few entries are revised much more often than the rest.
    weights = {key: [1 / (n + 1) for n in range(POOL[key])] for key in POOL}
    memory_writes = days * MEMORY_WRITES_PER_DAY
    ask_slots = days * MEMORY_WRITES_PER_DAY
    per_slot = max(1, (total - orb.head(pid) - memory_writes) // ask_slots)
    for d in range(days):
        day_start = START + dt.timedelta(days=d + 1)
        for slot in range(MEMORY_WRITES_PER_DAY):
            clock.at = day_start + dt.timedelta(hours=3 * slot, minutes=rng.randrange(60))
            key = rng.choices(list(FILE_WEIGHTS), weights=list(FILE_WEIGHTS.values()))[0]
            n = rng.choices(range(POOL[key]), weights=weights[key])[0]
            revs[key][n] += 1
            name = MEMORY_FILES[key]
            text = revise(orb.read_file(pid, name), key, n, revs[key][n], rng)
            orb.write_file(pid, name, text.encode(), actor=Actor.AGENT)
            clock.at += dt.timedelta(minutes=30 + rng.randrange(60))
            size = max(1, int(per_slot * rng.uniform(0.5, 1.5)))
            appended = 0
            with orb.store.writing() as w:
                for ask_id, event, actor in asks.batch(size, clock.at.date()):
                    w.append(pid, ask_stream(ask_id), [event], expected_version=None, actor=actor)
                    appended += 1
                orb.units.asks.maybe_snapshot(w, pid, appended)  # what every ask append does
    orb.regenerate(pid)  # ASKS.md written once, as the per-write appends would have left it
    seconds = time.perf_counter() - start
    memory = [e for e in orb.history(pid, HistoryQuery(stream=ENTRY_PREFIX)) if e.type]
    file_events = list(orb.history(pid, HistoryQuery(stream=FILE_PREFIX)))
    revised: dict[str, int] = {}
    for e in memory:
        if e.type in ("entry.revised", "entry.retitled"):
            revised[e.stream] = revised.get(e.stream, 0) + 1
    hot_stream = max(revised, key=lambda s: revised[s])
    return Built(
        orbital=orb,
        project=pid,
        events=orb.head(pid),
        memory_events=len(memory) + len(file_events),
        entry_revisions=sum(revised.values()),
        seconds=seconds,
        hot_entry=stream_id(hot_stream),
        hot_revisions=revised[hot_stream],
    )


# -- the naive baseline: full replay to the as-of position -----------------------------------


def replay(orb: Orbital, pid: str, position: int) -> list[RecordedEvent]:
    with orb.store.reader() as r:
        return list(r.read_project(pid, until_position=position))


def naive_file(orb: Orbital, pid: str, position: int, key: str) -> str:
    events = [e.event for e in replay(orb, pid, position)]
    return render_file(fold_file(key, events))


def naive_asks(orb: Orbital, pid: str, position: int) -> str:
    return render_asks(
        e.event
        for e in replay(orb, pid, position)
        if e.stream.startswith(ASK_PREFIX) or e.stream == ASKS_STREAM
    )


def naive_view(orb: Orbital, pid: str, position: int, today: dt.date, count: CachedCounter) -> str:
    recorded = replay(orb, pid, position)
    events = [e.event for e in recorded]
    texts = {key: render_file(fold_file(key, events)) for key in MEMORY_KEYS}
    asks = fold_asks((e.position, e.event) for e in recorded if e.stream.startswith(ASK_PREFIX))
    block = runtime_block(asks, today, empty_cue=True)
    project = orb.project_by_id(pid)
    setting = ViewTexts(ProjectTexts(), None).zone_setting(project)
    zone = zone_of(setting, project, dt.datetime.now(dt.UTC))[1]
    return assemble(ViewParts(today, zone, asks_block=block, files=texts), count)


def naive_history(orb: Orbital, pid: str, entry_id: str) -> list[RecordedEvent]:
    stream = entry_stream(entry_id)
    with orb.store.reader() as r:
        return [e for e in r.read_project(pid) if e.stream == stream]


# -- the measurements --------------------------------------------------------------------------


@dataclass
class Row:
    orbital_ms: float
    naive_ms: float


def measure(built: Built, repeat: int, naive_repeat: int) -> dict[str, Row]:
    orb, pid = built.orbital, built.project
    at = orb.as_of(pid, built.events // 2)
    assert at is not None
    mid_position, mid_instant = orb.as_of(pid, at[1]) or at  # the instant's last position
    today = mid_instant.date()
    count = CachedCounter()
    entry = built.hot_entry

    def decisions() -> str:
        return orb.read_file(pid, "DECISIONS.md", as_of=mid_instant)

    def asks_md() -> str:
        return orb.read_file(pid, "ASKS.md", as_of=mid_instant)

    def view() -> str:
        return orb.context_view(pid, as_of=mid_instant)

    def history() -> list[RecordedEvent]:
        return list(orb.history(pid, HistoryQuery(entry=entry)))

    def revisions() -> list[Revision]:
        return orb.revisions(pid, entry)

    # Same answers as the naive replay (and one warm-up call each: token counts are cached).
    assert decisions() == naive_file(orb, pid, mid_position, "decisions")
    assert asks_md() == naive_asks(orb, pid, mid_position)
    assert view() == naive_view(orb, pid, mid_position, today, count)
    assert [e.position for e in history()] == [e.position for e in naive_history(orb, pid, entry)]
    assert len(revisions()) == built.hot_revisions + 1  # created + each

    cases: dict[str, tuple[Callable[[], object], Callable[[], object]]] = {
        "read_file DECISIONS.md as of": (
            decisions,
            lambda: naive_file(orb, pid, mid_position, "decisions"),
        ),
        "read_file ASKS.md as of": (asks_md, lambda: naive_asks(orb, pid, mid_position)),
        "context_view as of": (
            view,
            lambda: naive_view(orb, pid, mid_position, today, count),
        ),
        "history(entry=…) consumed": (history, lambda: naive_history(orb, pid, entry)),
        "revisions(entry)": (revisions, lambda: naive_history(orb, pid, entry)),
    }
    return {
        name: Row(median_ms(timed(fast, repeat)), median_ms(timed(naive, naive_repeat)))
        for name, (fast, naive) in cases.items()
    }


def asks_lines(built: Built) -> int:
    orb, pid = built.orbital, built.project
    at = orb.as_of(pid, built.events // 2)
    assert at is not None
    return orb.read_file(pid, "ASKS.md", as_of=at[1]).count("\n")


def main() -> None:
    quick = quick_run(__doc__, "fewer samples, smaller logs")
    sizes = (1_000, 10_000) if quick else (1_000, 10_000, 100_000)
    repeat = 21 if quick else 31
    naive_repeat = 3 if quick else 5
    with tempfile.TemporaryDirectory(prefix="orbital-bench-") as name:
        tmp = Path(name)
        results: dict[int, dict[str, Row]] = {}
        lines: dict[int, int] = {}
        print("Projects (memory writes through write_file, ask events in bulk):")
        for total in sizes:
            built = build(tmp, total, seed=total)
            print(
                f"   {built.events:>7,} events: {built.memory_events:,} memory events, "
                f"{built.entry_revisions:,} entry revisions (hottest entry "
                f"{built.hot_revisions}), built in {built.seconds:.1f} s"
            )
            results[total] = measure(built, repeat, naive_repeat)
            lines[total] = asks_lines(built)
            built.orbital.close()
        small, large = sizes[0], sizes[-1]
        print(
            f"\nMedian of {repeat} (naive full replay: median of {naive_repeat}); as of an "
            "instant in the middle of each log:"
        )
        header = "".join(f"{f'{n:,} events':>22}" for n in sizes)
        print(f"   {'':30}{header}   {large // 1000}k/{small // 1000}k")
        for case in results[small]:
            cells = "".join(
                f"{results[n][case].orbital_ms:9.2f} ms ({results[n][case].naive_ms / results[n][case].orbital_ms:6.0f}x)"  # noqa: E501
                for n in sizes
            )
            ratio = results[large][case].orbital_ms / results[small][case].orbital_ms
            print(f"   {case:30}{cells}   {ratio:6.2f}x")
        print("   (in brackets: naive full replay / Orbital, same run)")
        naive = "".join(f"{results[n]['context_view as of'].naive_ms:19.1f} ms" for n in sizes)
        print(f"   {'naive replay, context view':30}{naive}")
        per_line = "".join(
            f"{results[n]['read_file ASKS.md as of'].orbital_ms * 1000 / lines[n]:13.2f} µs/line"
            for n in sizes
        )
        print(f"   {'ASKS.md as of, per line':30}{per_line}")
        print(f"   {'ASKS.md lines as of':30}" + "".join(f"{lines[n]:>22,}" for n in sizes))
        worst = max(
            results[large][c].orbital_ms
            for c in ("read_file DECISIONS.md as of", "context_view as of")
        )
        print(
            f"\nTargets: as-of renders flat across sizes ({large // 1000}k/{small // 1000}k "
            f"ratio above, ~1x) and well under 50 ms at {large:,} events (slowest memory "
            f"render {worst:.2f} ms); history of one entry among {large:,} events: "
            f"{results[large]['history(entry=…) consumed'].orbital_ms:.2f} ms."
        )


if __name__ == "__main__":
    main()
