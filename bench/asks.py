"""ASKS.md benchmark: the agent's one-line append, and the legacy retractions migration.

Run: ``python bench/asks.py`` (``--quick`` for a smaller run). Prints medians and ratios:

1. an agent write that appends one ``- open <text>`` line to an ASKS.md of N events, through
   ``Orbital.write_file`` in-process (the proposal is the file Orbital projected plus the new
   line), for N = 1,000 / 10,000 / 50,000 (quick: 1,000 / 10,000); target: flat in N
   (O(change)), about 1-3 ms per write. "+ content" is the same write when the caller also
   reads back the whole file (``outcome.content``, what the HTTP response carries), which
   costs the size of the file by its nature; "other header" is the write whose first line
   is the original's format line instead of Orbital's (target: <= 10 ms at 50,000: a
   differing format line is no reason for the whole-file path). Beside it, in the same run,
   the file-based original's approach (reference §6.5) implemented here: re-read the whole
   file, line-diff prev vs new with ``difflib.SequenceMatcher(autojunk=False)``, fold every
   line, decide, and rewrite the whole file atomically (fsync'd temp file + rename +
   directory fsync);
2. migration of 50,000 legacy retractions (quick: 5,000) from a generated
   ``orbital/retractions.md`` via ``migrate_retractions``: events per second, and the time of a
   second, idempotent run (appends nothing).

The big logs are built by importing a pre-written ASKS.md (one transaction, one full
projection) when the project is registered; only the per-write path is timed.
"""

from __future__ import annotations

import datetime as dt
import difflib
import os
import random
import re
import tempfile
import time
from pathlib import Path

from timing import median_ms, quick_run

from orbital.clock import FixedClock
from orbital.domain.asks import random_minter
from orbital.events import Actor
from orbital.service import Orbital

NOW = dt.datetime(2026, 9, 19, 10, 0, tzinfo=dt.UTC)
TODAY = NOW.date()
HEADER = "<!--format ASKS is an append-only log of what waits on the user.-->"

VERBS = (
    "Decide", "Confirm", "Choose", "Send", "Review", "Approve", "Book", "Schedule", "Pick",
    "Sign off on", "Check", "Answer", "Settle", "Agree on", "Write up", "Share",
)  # fmt: skip
ADJS = (
    "final", "second", "quarterly", "public", "internal", "draft", "revised", "shared",
    "Chinese", "English", "mobile", "legacy", "new", "paid", "free", "beta",
)  # fmt: skip
NOUNS = (
    "venue", "deck", "budget", "pricing page", "release notes", "logo", "contract",
    "webinar language", "hiring plan", "roadmap", "booth", "domain name", "launch date",
    "API key", "invoice", "newsletter", "onboarding flow", "demo script", "press kit",
    "database", "CI provider", "support hours", "trademark", "partner list",
)  # fmt: skip
PEOPLE = (
    "Alice", "Bo", "Chen Wei", "Dana", "Erik", "Fatima", "宝玉", "Simon", "Grace", "Hiro",
    "the design team", "legal", "the investors", "marketing", "ops", "the board",
)  # fmt: skip
REASONS = ("changed my mind", "not needed any more", "too expensive", "wrong priority", "")


def ask_text(rng: random.Random, i: int) -> str:
    return (
        f"{rng.choice(VERBS)} the {rng.choice(ADJS)} {rng.choice(NOUNS)} with "
        f"{rng.choice(PEOPLE)} before the {rng.choice(ADJS)} {rng.choice(NOUNS)} (#{i})"
    )


def day(rng: random.Random) -> str:
    return (TODAY - dt.timedelta(days=rng.randrange(1, 700))).isoformat()


def asks_log(n: int, seed: int) -> str:
    """A canonical ASKS.md of ``n`` events: ~55% opens, closes by the user (2/3 done,
    1/3 dropped) and a few reopens, dates spread over two years (oldest first)."""
    rng = random.Random(seed)
    ids: set[str] = set()
    open_ids: list[str] = []
    closed: list[str] = []
    lines = [HEADER]
    dates = sorted(day(rng) for _ in range(n))
    for i, date in enumerate(dates):
        roll = rng.random()
        if len(open_ids) > 40 and roll < 0.43:
            ask_id = open_ids.pop(rng.randrange(len(open_ids)))
            kind = "done" if rng.random() < 2 / 3 else "dropped"
            lines.append(f'- {kind} {ask_id} {date} by:user "ok, {rng.choice(REASONS)}"')
            closed.append(ask_id)
        elif closed and roll < 0.45:
            ask_id = closed.pop(rng.randrange(len(closed)))
            lines.append(f'- reopen {ask_id} {date} by:user "back on the table"')
            open_ids.append(ask_id)
        else:
            while (ask_id := f"{rng.getrandbits(24):06x}") in ids:
                pass
            ids.add(ask_id)
            due = f" due:{date[:8]}28" if rng.random() < 0.1 else ""
            lines.append(f"- open {ask_id} {date}{due} {ask_text(rng, i)}")
            open_ids.append(ask_id)
    return "\n".join(lines) + "\n"


def new_line(i: int) -> str:
    """A new ask unlike any in the log (not a duplicate, not a repeat of a dropped one)."""
    return f"- open Ring up {random.Random(i).getrandbits(64):016x} about parcel {i}\n"


# -- the file-based original (reference §6.5), for the baseline ----------------------------

_EVENT = re.compile(r"\s*[-*]\s+(open|done|dropped|reopen)(?=\s|$)(.*)")
_OPEN_ID = re.compile(r"\s*\[?([0-9a-fA-F]{6})\]?\s+(\d{4}-\d{2}-\d{2})(?=\s|$)")
_DUE = re.compile(r"(?<!\S)\[?due:(\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2})?)\]?(?!\S)")
_CLOSE_ID = re.compile(r"\s*\[?([0-9a-fA-F]{6})\]?(?=\s|$)")
_DATE_BY = re.compile(r"\s*(?:(\d{4}-\d{2}-\d{2})\s*)?(?:by:(\S+))?(.*)")


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _fold_file(lines: list[str]) -> dict[str, dict[str, object]]:
    """Parse and fold every line (state = last event), as the original did on each write."""
    asks: dict[str, dict[str, object]] = {}
    for seq, line in enumerate(lines):
        match = _EVENT.fullmatch(line)
        if match is None:
            continue
        kind, rest = match[1], match[2]
        if kind == "open":
            head = _OPEN_ID.match(rest)
            if head is None:
                continue
            ask_id, date, rest = head[1].lower(), head[2], rest[head.end() :]
            due = _DUE.search(rest)
            if due is not None:
                rest = rest[: due.start()] + " " + rest[due.end() :]
            text = " ".join(rest.split())
            if not text:
                continue
            known = asks.get(ask_id)
            if known is None:
                asks[ask_id] = {"text": text, "state": "open", "updated": date, "seq": seq}
            else:
                known.update(state="open", updated=date, seq=seq)
            continue
        head = _CLOSE_ID.match(rest)
        if head is None or head[1].lower() not in asks:
            continue
        tail = _DATE_BY.match(rest[head.end() :])
        assert tail is not None
        state = "open" if kind == "reopen" else kind
        asks[head[1].lower()].update(
            state=state, updated=tail[1] or "", by=tail[2] or "agent", note=tail[3], seq=seq
        )
    return asks


def file_based_write(path: Path, proposal: bytes, today: str, rng: random.Random) -> list[str]:
    """One agent write of ASKS.md the file-based way; returns the appended lines."""
    prev = path.read_bytes().decode("utf-8", errors="replace")
    prev = prev.replace("\r\n", "\n").replace("\r", "\n")
    new = proposal.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    prev_lines, new_lines = prev.split("\n"), new.split("\n")
    matcher = difflib.SequenceMatcher(None, prev_lines, new_lines, autojunk=False)
    matched_new: set[int] = set()
    for block in matcher.get_matching_blocks():
        matched_new.update(range(block.b, block.b + block.size))
    prev_set = set(prev_lines)
    candidates = [
        line for i, line in enumerate(new_lines) if i not in matched_new and line not in prev_set
    ]
    asks = _fold_file(prev_lines)
    appended: list[str] = []
    for line in candidates:
        match = _EVENT.fullmatch(line)
        if match is None or match[1] != "open":
            continue
        text = " ".join(match[2].split())
        key = _norm(text)
        if not text or any(_norm(str(a["text"])) == key for a in asks.values()):
            continue  # a duplicate open, or a repeat of a dropped ask: refused
        while (ask_id := f"{rng.getrandbits(24):06x}") in asks:
            pass
        asks[ask_id] = {"text": text, "state": "open", "updated": today, "seq": len(asks)}
        appended.append(f"- open {ask_id} {today} {text}")
    out = prev if prev.endswith("\n") else prev + "\n"
    out += "".join(line + "\n" for line in appended)
    fd, temp = tempfile.mkstemp(prefix=".ASKS.md.", suffix=".tmp", dir=path.parent)
    with os.fdopen(fd, "wb") as handle:
        handle.write(out.encode())
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temp, path)
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return appended


# -- 1. the one-line agent write -----------------------------------------------------------


def open_orbital(db: Path, seed: int) -> Orbital:
    return Orbital.open(
        f"sqlite:///{db}", clock=FixedClock(NOW), mint=random_minter(random.Random(seed))
    )


def bench_write(
    tmp: Path, n: int, repeat: int
) -> tuple[float, float, float, float, float, int, tuple[float, float]]:
    """(build seconds, Orbital median ms, the same reading the outcome's content, the same
    with the original's format line as line 1, file-based median ms, writes accepted, the
    spread of Orbital's ms)."""
    log = asks_log(n, seed=n)
    root = tmp / f"asks{n}"
    (root / "orbital").mkdir(parents=True)
    (root / "orbital" / "ASKS.md").write_text(log, encoding="utf-8")
    start = time.perf_counter()
    orb = open_orbital(tmp / f"asks{n}.db", seed=n)
    pid = orb.init_project(root).project_id  # imports the pre-written log: one projection
    build = time.perf_counter() - start
    asks_md = root / "orbital" / "ASKS.md"
    lines = iter(range(10**9))
    accepted = 0

    def orbital_once(read_content: bool, header: bytes | None = None) -> None:
        nonlocal accepted
        proposal = asks_md.read_bytes() + new_line(next(lines)).encode()  # the agent's side
        if header is not None:  # the agent sends the original's format line back
            proposal = header + proposal[proposal.index(b"\n") :]
        start = time.perf_counter()
        outcome = orb.write_file(pid, "ASKS.md", proposal, actor=Actor.AGENT)
        content = outcome.content if read_content else None
        series = other_header if header else with_content if read_content else samples
        series.append(time.perf_counter() - start)
        assert content is None or content == asks_md.read_text(encoding="utf-8")
        accepted += any(e.type == "ask.opened" for e in outcome.events)

    samples: list[float] = []
    with_content: list[float] = []
    other_header: list[float] = []
    orbital_once(False)  # warm the in-process caches (the first call after start reads all asks)
    samples.clear()
    accepted = 0
    for _ in range(repeat):
        orbital_once(False)
    for _ in range(repeat):
        orbital_once(True)
    for _ in range(repeat):
        orbital_once(False, HEADER.encode())
    orbital_ms, content_ms = median_ms(samples), median_ms(with_content)
    header_ms = median_ms(other_header)
    orb.close()

    base_dir = tmp / f"file{n}"
    base_dir.mkdir()
    base_md = base_dir / "ASKS.md"
    base_md.write_text(log, encoding="utf-8")
    rng = random.Random(n)
    base_samples: list[float] = []
    for _ in range(repeat):
        proposal = base_md.read_bytes() + new_line(next(lines)).encode()
        start = time.perf_counter()
        appended = file_based_write(base_md, proposal, TODAY.isoformat(), rng)
        base_samples.append(time.perf_counter() - start)
        assert appended, "the file-based baseline refused a fresh ask"
    spread = (min(samples) * 1000, max(samples) * 1000)
    return build, orbital_ms, content_ms, header_ms, median_ms(base_samples), accepted, spread


# -- 2. the legacy migration ---------------------------------------------------------------


def retractions_md(n: int, seed: int) -> str:
    """``n`` legacy retractions (§10.1): mostly 6-hex ids, some free-form, escaped quotes."""
    rng = random.Random(seed)
    lines = []
    for i in range(n):
        legacy_id = f"{rng.getrandbits(24):06x}" if rng.random() < 0.9 else f"r-{i}"
        title = ask_text(rng, i).replace("(#", '("v2" #').replace('"', '\\"')
        reason = rng.choice(REASONS)
        lines.append(f'- [{legacy_id}] "{title}" — retracted by user {day(rng)}: {reason}')
    return "\n".join(lines) + "\n"


def bench_migration(tmp: Path, n: int) -> tuple[float, int, float, int]:
    """(first run seconds, events appended, second run seconds, events appended)."""
    root = tmp / f"migrate{n}"
    (root / "orbital").mkdir(parents=True)
    (root / "orbital" / "retractions.md").write_text(retractions_md(n, seed=7), encoding="utf-8")
    orb = open_orbital(tmp / f"migrate{n}.db", seed=7)
    pid = orb.init_project(root).project_id
    start = time.perf_counter()
    first = orb.migrate_retractions(pid)
    first_s = time.perf_counter() - start
    assert first.opened == n and first.dropped == n, (first.opened, first.dropped)
    start = time.perf_counter()
    second = orb.migrate_retractions(pid)
    second_s = time.perf_counter() - start
    orb.close()
    return first_s, first.appended_events, second_s, second.appended_events


def main() -> None:
    quick = quick_run(__doc__, "fewer samples, smaller logs")
    sizes = (1_000, 10_000) if quick else (1_000, 10_000, 50_000)
    repeat = 15 if quick else 31
    migrate_n = 5_000 if quick else 50_000
    with tempfile.TemporaryDirectory(prefix="orbital-bench-") as name:
        tmp = Path(name)
        print(f"1. agent write appending one `- open` line to ASKS.md, median of {repeat}:")
        print(
            f"   {'events':>7}  {'Orbital':>10}  {'+ content':>10}  {'other header':>12}  "
            f"{'file-based':>11}  {'file/Orbital':>12}"
        )
        results = {}
        for n in sizes:
            build, orbital_ms, content_ms, header_ms, base_ms, accepted, spread = bench_write(
                tmp, n, repeat
            )
            results[n] = orbital_ms
            print(
                f"   {n:>7,}  {orbital_ms:7.2f} ms  {content_ms:7.2f} ms  {header_ms:9.2f} ms  "
                f"{base_ms:8.2f} ms  {base_ms / orbital_ms:11.1f}x"
                f"   (Orbital {spread[0]:.1f} to {spread[1]:.1f} ms; log built in {build:.1f} s; "
                f"{accepted}/{3 * repeat} opens accepted)"
            )
        small, large = sizes[0], sizes[-1]
        print(
            f"   Orbital {large:,} vs {small:,}: {results[large] / results[small]:.2f}x "
            "(target: flat, ~1x; goal ~1-3 ms per write)"
        )
        first_s, first_events, second_s, second_events = bench_migration(tmp, migrate_n)
        print(f"\n2. migrate_retractions of {migrate_n:,} legacy retractions:")
        print(
            f"   first run   {first_s:8.2f} s   {first_events:,} events "
            f"({first_events / first_s:,.0f} events/s)"
        )
        print(
            f"   second run  {second_s:8.2f} s   {second_events:,} events appended "
            "(target: 0, idempotent)"
        )


if __name__ == "__main__":
    main()
