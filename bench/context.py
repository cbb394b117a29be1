"""Injection-view benchmark: a project at upstream's hard budgets.

Run: ``python bench/context.py`` (``--quick`` for fewer samples). The project holds
DECISIONS ~9k tokens, LESSONS ~6k, PROJECT_STATE ~2k, INDEX ~2k (cl100k, counted with the
encoding Orbital uses, ``orbital.tokens.default_encoding()``) and 40 open asks. Prints medians
and ratios:

1. building the per-turn injection view in-process with ``Orbital.context_view``: warm
   (repeated calls) and cold-ish (the first call after a new ask write, so the view is
   rebuilt; round-robin with the baseline after each write, per-round ratios printed),
   against the file-based approach implemented here (re-read the four files and ASKS.md from
   disk, re-count them with tiktoken, per-file budget check and head-trim, asks block) with the
   same encoding; target: Orbital >= 20x faster;
2. one agent write of a new DECISIONS entry into the 9k-token file, round-robin with the
   original's write path implemented here on a copy of the same file (reference §5:
   ``process_on_write`` = read the previous file, ``ensure_format_header``, ``stamp`` §2.4;
   then one atomic fsync'd write: temp file + fsync + rename + directory fsync); target:
   Orbital no slower than it (ratio <= 1);
3. ``GET /api/v1/projects/{project}/context`` over HTTP (uvicorn on 127.0.0.1, httpx), when
   ``orbital.http.create_app`` exposes it.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import random
import re
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from timing import free_port, median_ms, quick_run, timed

from orbital.catalogue import FILE_BUDGETS, LAYER1_KEYS, MEMORY_FILES
from orbital.clock import FixedClock
from orbital.domain.asks import random_minter
from orbital.domain.measure import measure_text
from orbital.events import Actor
from orbital.service import Orbital
from orbital.tokens import default_encoding

NOW = dt.datetime(2026, 9, 19, 10, 0, tzinfo=dt.UTC)
TODAY = NOW.date()
ROUTE = "/api/v1/projects/{project}/context"
FILES = {key: MEMORY_FILES[key] for key in LAYER1_KEYS}

WORDS = (
    "service", "cache", "schema", "migration", "worker", "queue", "token", "budget", "parser",
    "renderer", "client", "server", "release", "deploy", "review", "index", "snapshot", "event",
    "stream", "projection", "writer", "reader", "lock", "retry", "timeout", "config", "secret",
    "session", "agent", "editor", "workbench", "archive", "pointer", "entry", "lesson", "file",
    "latency", "throughput", "benchmark", "profile", "fixture", "contract", "route", "handler",
)  # fmt: skip
TECH = (
    "SQLite", "PostgreSQL", "Litestar", "msgspec", "tiktoken", "Alembic", "uvicorn", "httpx",
    "rapidfuzz", "pytest", "hypothesis", "mypy", "ruff", "click", "rich", "tqdm", "WAL",
)  # fmt: skip


def sentence(rng: random.Random, words: int) -> str:
    picked = [rng.choice(WORDS) for _ in range(words)]
    picked[rng.randrange(words)] = rng.choice(TECH)
    return " ".join(picked).capitalize() + "."


def fill(
    make: Callable[[int], str], target: int, overhead: int, count: Callable[[str], int]
) -> str:
    """Entries from ``make(i)`` until the text (plus ``overhead`` tokens per entry for the
    comments Orbital adds) reaches ``target`` tokens."""
    parts: list[str] = []
    total = 0
    i = 0
    while True:
        part = make(i)
        cost = count(part) + overhead
        if total + cost > target:
            return "".join(parts)
        parts.append(part)
        total += cost
        i += 1


def decision(rng: random.Random, i: int) -> str:
    return (
        f"## Use {rng.choice(TECH)} for the {rng.choice(WORDS)} {rng.choice(WORDS)} ({i})\n"
        f"Chose: {sentence(rng, 12)}\n"
        f"Reason: {sentence(rng, 22)}\n"
        f"Rejected: {sentence(rng, 10)}\n\n"
    )


def lesson(rng: random.Random, i: int) -> str:
    return f"{i + 1}. {sentence(rng, 8)} {sentence(rng, 20)} {sentence(rng, 14)}\n\n"


def state_line(rng: random.Random, i: int) -> str:
    return f"- {sentence(rng, 14)} (item {i})\n"


def index_part(rng: random.Random, i: int) -> str:
    lines = [f"## {rng.choice(WORDS)} {rng.choice(WORDS)} area {i}\n"]
    for j in range(6):
        path = f"src/{rng.choice(WORDS)}/{rng.choice(WORDS)}_{i}_{j}.py"
        lines.append(f"- {path} — {sentence(rng, 10)}\n")
    return "".join(lines) + "\n"


def build_project(
    tmp: Path, count: Callable[[str], int], store: str = ""
) -> tuple[Orbital, str, Path]:
    """The project in ``tmp`` (its store there too, unless ``store`` names one)."""
    root = tmp / "project"
    root.mkdir()
    rng = random.Random(42)
    orb = Orbital.open(
        store or f"sqlite:///{tmp / 'context.db'}",
        clock=FixedClock(NOW),
        mint=random_minter(random.Random(42)),
    )
    pid = orb.init_project(root).project_id
    # Targets a little under each hard budget once Orbital's comments are added (measured).
    texts = {
        "decisions": "# DECISIONS\n\n"
        + fill(lambda i: decision(rng, i), FILE_BUDGETS["decisions"].hard - 120, 28, count),
        "lessons": "# LESSONS\n\n"
        + fill(lambda i: lesson(rng, i), FILE_BUDGETS["lessons"].hard - 40, 28, count),
        "state": "# PROJECT_STATE\n\n## Now\n\n"
        + fill(lambda i: state_line(rng, i), FILE_BUDGETS["state"].hard - 100, 0, count),
        "index": "# INDEX\n\n"
        + fill(lambda i: index_part(rng, i), FILE_BUDGETS["index"].hard - 60, 0, count),
    }
    for key, text in texts.items():
        orb.write_file(pid, FILES[key], text.encode(), actor=Actor.AGENT)
    for i in range(40):
        text = f"Decide the {rng.choice(WORDS)} {rng.choice(TECH)} plan {i}"
        orb.ask_open(pid, text, actor=Actor.USER)
    return orb, pid, root / "orbital"


# -- the file-based approach, for the baseline ---------------------------------------------

_MEM = re.compile(r"[ \t]*<!--\s*mem\s.*?-->[ \t]*\n?", re.DOTALL)
_OPEN = re.compile(r"- open ([0-9a-f]{6}) (\d{4}-\d{2}-\d{2}) (?:due:(\S+) )?(.*)")
_CLOSE = re.compile(r"- (done|dropped|reopen) ([0-9a-f]{6})")
TRIM_NOTE = (
    "\n[... older content trimmed from this view — read the file on disk for the full text ...]"
)


def head_trim(text: str, hard: int, encode: Callable[[str], list[int]]) -> str:
    """§4.3 with real tokens: whole text if it fits, else the top lines that fit + the note."""
    if len(encode(text)) <= hard:
        return text
    limit = hard - len(encode(TRIM_NOTE))
    kept, used = [], 0
    for line in text.splitlines():
        cost = len(encode(line)) + 1
        if used + cost > limit:
            break
        kept.append(line)
        used += cost
    return "\n".join(kept) + TRIM_NOTE


def file_based_view(directory: Path, encode: Callable[[str], list[int]]) -> str:
    """Re-read the files, re-count them with tiktoken, trim each to its hard budget, and add
    the asks block folded from ASKS.md (what a file-based implementation does per turn)."""
    parts = [f"Today is {TODAY.isoformat()}."]
    for key, name in FILES.items():
        text = (directory / name).read_text(encoding="utf-8")
        if key == "state":
            text = _MEM.sub("", text)
        if text.strip():
            parts.append(f"[{name}]\n{head_trim(text, FILE_BUDGETS[key].hard, encode)}")
    asks: dict[str, tuple[str, str, str]] = {}
    for line in (directory / "ASKS.md").read_text(encoding="utf-8").splitlines():
        if opened := _OPEN.fullmatch(line):
            asks[opened[1]] = ("open", opened[2], opened[4])
        elif (closed := _CLOSE.match(line)) and closed[2] in asks:
            state = "open" if closed[1] == "reopen" else closed[1]
            asks[closed[2]] = (state, *asks[closed[2]][1:])
    open_asks = sorted((a for a in asks.items() if a[1][0] == "open"), key=lambda a: a[1][1])
    block = [f"Open asks ({len(open_asks)}):"]
    block += [f"[{ask_id}] {text}" for ask_id, (_, _, text) in open_asks[-10:][::-1]]
    if len(open_asks) > 10:
        block.append(f"…and {len(open_asks) - 10} more in orbital/ASKS.md")
    parts.append("\n".join(block))
    return "\n\n".join(parts)


# -- the original's DECISIONS write (reference §5, §2.4), for the baseline -----------------

DECISIONS_HEADER = (
    "<!--format DECISIONS entries: '## <slug>' then Chose / Reason / Rejected. Supersede or "
    "replace old entries when a decision changes; never leave contradictions.-->"
)
_SPLIT = re.compile(r"(^##\s+)", re.M)
_TITLE_COMMENT = re.compile(r"\s*<!--\s*mem\s+(?P<body>.*?)\s*-->\s*$")
_DATE_PREFIX = re.compile(r"^\d{4}-\d{2}(-\d{2})?:?\s*")


def ensure_format_header(text: str) -> str:
    """§2.6: the ``<!--format`` span replaced by the current template, or the template first."""
    if not text.lstrip().startswith("<!--format"):
        return DECISIONS_HEADER + "\n" + text
    start = text.index("<!--format")
    end = text.find("-->", start)
    if end < 0:
        return DECISIONS_HEADER + "\n" + text
    rest = text[end + 3 :]
    return text[:start] + DECISIONS_HEADER + "\n" + (rest[1:] if rest.startswith("\n") else rest)


def _split(text: str) -> tuple[str, list[str]] | None:
    parts = _SPLIT.split(text)
    if len(parts) < 3:
        return None
    return parts[0], [parts[i] + parts[i + 1] for i in range(1, len(parts), 2)]


def _title(first: str) -> tuple[str, dict[str, str]]:
    found = _TITLE_COMMENT.search(first)
    if found is None:
        return first.rstrip(), {}
    fields = {}
    for token in found["body"].split():
        name, sep, value = token.partition(":")
        if sep and name:
            fields[name] = value
    return first[: found.start()].rstrip(), fields


def _normalized(title: str) -> str:
    text = " ".join(re.sub(r"^##\s+", "", title).replace("**", "").strip().lower().split())
    return _DATE_PREFIX.sub("", text)


def stamp(new: str, old: str, today: str) -> str:
    """§2.4 for DECISIONS: ids, created and touched carried by id, else by title."""
    by_id: dict[str, dict[str, str]] = {}
    by_title: dict[str, dict[str, str]] = {}
    bodies: dict[str, str] = {}
    for chunk in (_split(old) or ("", []))[1]:
        first, _, body = chunk.partition("\n")
        title, meta = _title(first)
        normalized = _normalized(title)
        by_title[normalized] = meta
        if meta.get("id"):
            by_id[meta["id"]] = meta
        bodies[meta.get("id") or normalized] = body.strip()
    split = _split(new)
    if split is None:
        return new
    preamble, chunks = split
    out, assigned = [], set()
    for chunk in chunks:
        first, newline, body = chunk.partition("\n")
        title, own = _title(first)
        normalized = _normalized(title)
        prev = by_id.get(own.get("id", "")) or by_title.get(normalized)
        if prev is not None:
            entry_id = prev.get("id") or own.get("id") or ""
            created = prev.get("created") or today
            before = bodies.get(prev.get("id", "")) or bodies.get(normalized)
            touched = today if body.strip() != before else prev.get("touched") or today
            tag = own.get("tag") or prev.get("tag", "")
        else:
            entry_id, created, touched, tag = own.get("id", ""), today, today, own.get("tag", "")
        if not entry_id:
            base = re.sub(r"[^a-z0-9]+", "-", normalized).strip("-")[:32] or "entry"
            entry_id, n = base, 1
            while entry_id in assigned:
                n += 1
                entry_id = f"{base}-{n}"
        assigned.add(entry_id)
        fields = {"id": entry_id, "created": created, "touched": touched, "tag": tag}
        comment = "<!--mem " + " ".join(f"{k}:{v}" for k, v in fields.items() if v) + "-->"
        out.append(f"{title} {comment}{newline}{body}")
    if preamble and not preamble.endswith("\n"):
        preamble += "\n"
    return preamble + "".join(out)


def original_write(path: Path, proposal: bytes, today: str) -> None:
    """The original's agent write of DECISIONS.md: ``process_on_write``, then the file
    written atomically (fsync'd temp file, rename, directory fsync)."""
    previous = path.read_text(encoding="utf-8")
    content = stamp(ensure_format_header(proposal.decode("utf-8")), previous, today)
    fd, temp = tempfile.mkstemp(prefix=".DECISIONS.md.", suffix=".tmp", dir=path.parent)
    with os.fdopen(fd, "wb") as handle:
        handle.write(content.encode())
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temp, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


# -- HTTP ------------------------------------------------------------------------------------


def http_route_available(orb: Orbital) -> bool:
    """Whether ``create_app`` serves ``GET /api/v1/projects/{project}/context``."""
    try:
        from orbital.http import create_app
    except ImportError:
        return False
    paths = {route.path for route in create_app(orb).routes}
    return any(re.fullmatch(r"/api/v1/projects/\{project(:str)?\}/context", p) for p in paths)


def bench_http(orb: Orbital, pid: str, repeat: int) -> tuple[float, int] | str:
    """Median ms of GET .../context against uvicorn on a free loopback port, or a reason."""
    import httpx
    import uvicorn

    from orbital.http import HttpSettings, create_app, loopback_hosts

    logging.getLogger("httpx").setLevel(logging.WARNING)  # no line per request
    port = free_port()
    token = orb.credentials.create("agent", [pid], label="bench").token
    app = create_app(orb, HttpSettings(allowed_hosts=loopback_hosts(port)))
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    if not server.started:
        return "the HTTP server did not start within 10 s"
    try:
        headers = {"Authorization": f"Bearer {token}"}
        base = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=base, headers=headers, timeout=5.0) as client:
            url = ROUTE.format(project=pid)
            first = client.get(url)
            if first.status_code != 200:
                return f"GET {url} answered {first.status_code}: {first.text[:120]}"
            samples = timed(lambda: client.get(url).raise_for_status(), repeat)
            return median_ms(samples), len(first.content)
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def main() -> None:
    quick = quick_run(__doc__, "fewer samples")
    warm_repeat = 200 if quick else 1000
    repeat = 15 if quick else 41
    write_repeat = 9 if quick else 21
    encoding = default_encoding()
    encode = encoding.encode_ordinary

    def count(text: str) -> int:
        return len(encode(text))

    with tempfile.TemporaryDirectory(prefix="orbital-bench-") as name:
        tmp = Path(name)
        orb, pid, directory = build_project(tmp, count)
        sizes = {
            key: int(measure_text((directory / file).read_text(encoding="utf-8"), key, count))
            for key, file in FILES.items()
        }
        print(f"Load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)")
        print(f"Encoding {encoding.name}; files by budget measure (tokens / hard budget):")
        print(
            "   "
            + ", ".join(f"{FILES[k]} {sizes[k]:,}/{FILE_BUDGETS[k].hard:,}" for k in FILES)
            + f"; {len(orb.asks(pid))} open asks"
        )

        view = orb.context_view(pid)
        warm = median_ms(timed(lambda: orb.context_view(pid), warm_repeat))
        cold_samples: list[float] = []
        base_samples: list[float] = []
        for i in range(repeat):  # round-robin after each ask write: both see the same load
            orb.ask_open(pid, f"Follow up on bench item {i}", actor=Actor.USER)
            views: list[tuple[list[float], Callable[[], str]]] = [
                (cold_samples, lambda: orb.context_view(pid)),
                (base_samples, lambda: file_based_view(directory, encode)),
            ]
            for samples, render in views if i % 2 == 0 else views[::-1]:
                start = time.perf_counter()
                render()
                samples.append(time.perf_counter() - start)
        cold, base = median_ms(cold_samples), median_ms(base_samples)
        rounds = sorted(b / c for b, c in zip(base_samples, cold_samples, strict=True))
        baseline_view = file_based_view(directory, encode)
        print(f"\n1. injection view ({count(view):,} tokens; file-based {count(baseline_view):,}):")
        print(
            f"   file-based (read + tiktoken + trim)  {base:8.3f} ms   median of {repeat} "
            f"({spread(base_samples)})"
        )
        print(f"   Orbital context_view, warm            {warm:8.3f} ms   median of {warm_repeat}")
        print(
            f"   Orbital context_view, after a write   {cold:8.3f} ms   median of {repeat} "
            f"({spread(cold_samples)})"
        )
        print(
            f"   file-based / Orbital: warm {base / warm:6.1f}x, after a write "
            f"{base / cold:5.1f}x (per round {rounds[0]:.1f} to {rounds[-1]:.1f}x; target >= 20x)"
        )

        decisions = directory / "DECISIONS.md"
        original = tmp / "original" / "DECISIONS.md"
        original.parent.mkdir()
        original.write_bytes(decisions.read_bytes())
        rng = random.Random(7)
        before = sizes["decisions"]
        write_samples, base_samples, after_samples = [], [], []
        for i in range(write_repeat):
            entry = decision(rng, 1000 + i).encode()

            def ours(entry: bytes = entry) -> None:
                proposal = decisions.read_bytes() + entry
                start = time.perf_counter()
                outcome = orb.write_file(pid, "DECISIONS.md", proposal, actor=Actor.AGENT)
                write_samples.append(time.perf_counter() - start)
                assert outcome.events, outcome.warnings
                start = time.perf_counter()
                orb.context_view(pid)
                after_samples.append(time.perf_counter() - start)

            def theirs(entry: bytes = entry) -> None:
                proposal = original.read_bytes() + entry
                start = time.perf_counter()
                original_write(original, proposal, TODAY.isoformat())
                base_samples.append(time.perf_counter() - start)

            for step in (ours, theirs) if i % 2 == 0 else (theirs, ours):  # round-robin
                step()
        after = int(measure_text(decisions.read_text(encoding="utf-8"), "decisions", count))
        ratios = sorted(o / b for o, b in zip(write_samples, base_samples, strict=True))
        ours_ms, theirs_ms = median_ms(write_samples), median_ms(base_samples)
        print(
            f"\n2. agent write of one new DECISIONS entry, median of {write_repeat} (alternating):"
        )
        print(
            f"   original process_on_write + fsync'd write {theirs_ms:8.3f} ms   "
            f"(spread {min(base_samples) * 1000:.1f} to {max(base_samples) * 1000:.1f} ms)"
        )
        print(
            f"   Orbital write_file DECISIONS.md       {ours_ms:8.3f} ms   "
            f"(spread {min(write_samples) * 1000:.1f} to {max(write_samples) * 1000:.1f} ms; "
            f"file {before:,} -> {after:,} tokens)"
        )
        print(
            f"   Orbital / original: {ours_ms / theirs_ms:5.2f}x (per round {ratios[0]:.2f} to "
            f"{ratios[-1]:.2f}; target <= 1)"
        )
        print(f"   then context_view (rebuilt)           {median_ms(after_samples):8.3f} ms")

        print("\n3. HTTP GET /api/v1/projects/{project}/context:")
        if not http_route_available(orb):
            print("   HTTP route not available yet")
        else:
            result = bench_http(orb, pid, repeat * 5)
            if isinstance(result, str):
                print(f"   skipped: {result}")
            else:
                print(
                    f"   uvicorn + httpx, keep-alive        {result[0]:8.3f} ms   "
                    f"median of {repeat * 5} ({result[1]:,} bytes)"
                )
        orb.close()
        print(f"\nLoad average at end: {os.getloadavg()[0]:.2f}")


def spread(samples: list[float]) -> str:
    return f"spread {min(samples) * 1000:.3f} to {max(samples) * 1000:.3f} ms"


if __name__ == "__main__":
    main()
