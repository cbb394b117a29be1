"""Search and recall benchmark (issue 29): search on a long log, the prompt hook's added cost,
and the recall pointers on the labeled set.

Run: ``python bench/search.py`` (``--quick``: a 10,000-event project and fewer rounds).

1. **Search, warm.** The 100,000-event project of ``bench/history.py`` (memory writes through
   the real write path, ask events in bulk), on SQLite. The first search builds the index
   (its time is printed); then ``Orbital.search`` for words of the project's texts, each
   request timed whole (the index's currency check and the full-text query). Baseline in the
   same run: a plain indexed ``SELECT`` of one event by its position in a read transaction of
   the same store. Target: search p50 ≤ 20 ms.
2. **The hook's added cost.** ``orbital hook claude-code prompt`` started as Claude Code starts
   it (a new process, the installed command line through ``sh -c``) in the labeled set's
   project, rounds alternating the same hook with recall (a prompt that brings a pointer, and
   one that brings none) and without it (``ORBITAL_RECALL=0``). Target: ≤ 10 ms per prompt.
   Beside it, the recall's own share in process: the quick lane's answer with and without it.
3. **Recall on the labeled set** (``bench/data/recall.jsonl``, written before the rule was
   tuned): its entries are lessons among 300 that the session end cuts to budget, all of
   them archived; each prompt is asked once. Printed: how often a pointer to the expected
   entry appears when it should, a wrong pointer beside it, and how often any pointer
   appears when none should.
"""

from __future__ import annotations

import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from history import build
from timing import median_ms, quick_run, timed

from orbital.events import Actor
from orbital.service import Orbital
from orbital.service._sessions import SessionMark, SessionMarks
from projections.search import search_query

DATA = Path(__file__).parent / "data" / "recall.jsonl"
QUERIES = ("cache", "schema migration", "worker queue", "SQLite", "deploy review", "venue")
#: Filler lessons; the labeled entries are lessons 21 to 32 (the oldest are kept live).
FILLER = ("cache", "schema", "deploy", "lint", "queue", "retry", "token", "index", "docker")
FIRST_LABELED = 21


def bench_search(tmp: Path, events: int, rounds: int) -> None:
    print(f"Building a project of about {events:,} events…", flush=True)
    built = build(tmp, events, seed=29)
    orb, pid = built.orbital, built.project
    print(f"  {built.events:,} events, built in {built.seconds:.1f} s")
    start = time.perf_counter()
    first = orb.search(pid, search_query("cache"))
    print(f"  first search (builds the index): {time.perf_counter() - start:.2f} s")
    with orb.store.reader() as r:
        docs = r._conn.scalar("SELECT count(*) FROM search_docs WHERE project_id = :p", {"p": pid})
    print(f"  index: {docs:,} texts; 'cache' finds {len(first)} (the first 20)")
    middle = built.events // 2

    def by_position() -> object:
        with orb.store.reader() as r:
            return r._conn.scalar("SELECT data FROM events WHERE position = :p", {"p": middle})

    samples: list[float] = []
    base: list[float] = []
    each: dict[str, list[float]] = {words: [] for words in QUERIES}
    for _ in range(rounds):
        for words in QUERIES:
            query = search_query(words)
            took = timed(lambda q=query: orb.search(pid, q), 1)  # type: ignore[misc]
            samples += took
            each[words] += took
            base += timed(by_position, 1)
    with orb.store.reader() as r:
        matched = {
            w: r._conn.scalar(
                "SELECT count(*) FROM search_fts WHERE search_fts MATCH :m",
                {"m": " ".join(f'"{word}"' for word in w.split())},
            )
            for w in QUERIES
        }
    search_ms, base_ms = median_ms(samples), median_ms(base)
    print(
        f"Search p50 (warm, {len(samples)} searches of {len(QUERIES)} queries): "
        f"{search_ms:.2f} ms (p90 {_p90(samples):.2f} ms); baseline SELECT by position "
        f"{base_ms:.3f} ms; ratio {search_ms / base_ms:.1f}x; target <= 20 ms: "
        f"{'met' if search_ms <= 20 else 'NOT met'}"
    )
    for words in QUERIES:
        print(
            f"  {words!r}: p50 {median_ms(each[words]):.2f} ms "
            f"({matched[words]:,} texts hold every word)"
        )
    orb.close()


def _p90(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=10)[-1] * 1000


def labeled() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    return [r for r in rows if "entry" in r], [r for r in rows if "prompt" in r]


def recall_project(tmp: Path, db_url: str, orbital: str, env: dict[str, str]) -> Path:
    """The labeled set's project: its entries archived by the session end."""
    entries, _ = labeled()
    root = tmp / "recall"
    root.mkdir()
    for command in ("init", "install claude-code"):
        args = [orbital, *command.split(), "--project", str(root)]
        subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL)
    lines = []
    for i in range(1, 301):
        n = i - FIRST_LABELED
        if 0 <= n < len(entries):
            lines.append(f"{i}. {entries[n]['title']}: {entries[n]['body']}")
        else:
            lines.append(f"{i}. Run the {FILLER[i % 9]} check before the {FILLER[i * 4 % 9]} step")
    with Orbital.open(db_url) as orb:
        pid = orb.project(root).project_id
        orb.write_file(pid, "LESSONS.md", ("\n".join(lines) + "\n").encode(), actor=Actor.AGENT)
        orb.session_end(pid)
        archive = orb.read_file(pid, "LESSONS_ARCHIVE.md")
    missing = [e["entry"] for e in entries if e["title"] not in archive]
    assert not missing, f"not archived: {missing}"
    return root


def bench_recall(db_url: str, root: Path) -> None:
    entries, prompts = labeled()
    should = [p for p in prompts if p["expect"]]
    should_not = [p for p in prompts if not p["expect"]]
    with Orbital.open(db_url) as orb:
        pid = orb.project(root).project_id
        ids = {}
        for e in entries:
            (hit,) = orb.search(pid, search_query(e["title"], limit=1))
            ids[hit.id] = e["entry"]
        found, wrong, alarms = 0, 0, 0
        for p in prompts:
            text = orb.recall(pid, p["prompt"], 3)
            named = {ids.get(i, i) for i in ids if f"memory_get {i})" in text}
            others = text.count("memory_get ") - len(named)
            if p["expect"]:
                found += bool(named & set(p["expect"]))
                wrong += bool((named - set(p["expect"])) or others)
            else:
                alarms += bool(text)
    print(
        f"Recall on {len(prompts)} labeled prompts ({DATA.name}): the expected pointer appears "
        f"for {found}/{len(should)} prompts that should bring one "
        f"({found / len(should):.0%}; a wrong pointer beside it for {wrong}); a pointer appears "
        f"for {alarms}/{len(should_not)} prompts that should bring none "
        f"({alarms / len(should_not):.0%})"
    )


def bench_hook(root: Path, orbital: str, env: dict[str, str], rounds: int) -> None:
    prompts = {
        "match": "the session cache loses users after a deploy: where do sessions live?",
        "none": "make the login button blue",
    }
    sessions = iter(range(1_000_000))

    def payload_of(prompt: str) -> str:
        """A prompt in a session of its own (a session is pointed at an entry once), seen
        before: its mark is at the head, so the quick lane answers, as on most prompts."""
        session = f"bench-{next(sessions)}"
        marks = SessionMarks(Path(env["ORBITAL_STATE_DIR"]) / "sessions")
        marks.put(pid, session, SessionMark(seen=head))
        return json.dumps(
            {
                "hook_event_name": "UserPromptSubmit",
                "session_id": session,
                "cwd": str(root),
                "transcript_path": str(root / "bench.jsonl"),
                "prompt": prompt,
            }
        )

    with Orbital.open(env["ORBITAL_DB"]) as orb:
        pid = orb.project(root).project_id
        head = orb.head(pid)
        orb.search(pid, search_query("sessions"))  # the index current
    command = f"{shlex.quote(orbital)} hook claude-code prompt"
    off = {**env, "ORBITAL_RECALL": "0"}

    def run(payload: str, environment: dict[str, str]) -> tuple[float, float, str]:
        """One hook process: its wall time, its CPU time (user + system, the shell's and
        orbital's: what it costs the machine, little moved by other load) and its answer."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            ["sh", "-c", command],
            input=payload.encode(),
            env=environment,
            cwd=root,
            capture_output=True,
            check=True,
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return wall, cpu, done.stdout.decode()

    for prompt in prompts.values():  # warm-up: the OS's file cache
        run(payload_of(prompt), env)
    answers = {kind: run(payload_of(p), env)[2] for kind, p in prompts.items()}
    assert "memory_get" in answers["match"] and answers["none"] == "", answers
    for kind, prompt in prompts.items():
        walls: dict[str, list[float]] = {"on": [], "off": []}
        cpus: dict[str, list[float]] = {"on": [], "off": []}
        for i in range(rounds):  # in pairs, each pair's order alternating
            for setting in ("on", "off") if i % 2 else ("off", "on"):
                wall, cpu, _ = run(payload_of(prompt), env if setting == "on" else off)
                walls[setting].append(wall)
                cpus[setting].append(cpu)
        added = [a - b for a, b in zip(walls["on"], walls["off"], strict=True)]
        on, without = median_ms(walls["on"]), median_ms(walls["off"])
        cpu_on, cpu_off = median_ms(cpus["on"]), median_ms(cpus["off"])
        print(
            f"Prompt hook ({'a pointer' if kind == 'match' else 'no pointer'}), whole process, "
            f"{rounds} pairs: wall p50 with recall {on:.1f} ms, without (ORBITAL_RECALL=0, "
            f"the baseline) {without:.1f} ms, ratio {on / without:.3f}, added per pair (p50) "
            f"{median_ms(added):+.1f} ms; CPU p50 {cpu_on:.1f} ms vs {cpu_off:.1f} ms, added "
            f"{cpu_on - cpu_off:+.1f} ms; target <= 10 ms added: "
            f"{'met' if median_ms(added) <= 10 else 'NOT met'} (wall)"
        )


def bench_quick_lane(root: Path, db_url: str, rounds: int) -> None:
    """The recall's own share of the hook, in process: the quick lane's answer to a prompt
    with recall and without (the imports and the process start left out)."""
    from orbital.agents.claude_code_hooks import Payload, parse_payload
    from orbital.service._first_look import quick_answer

    with Orbital.open(db_url) as orb:
        pid = orb.project(root).project_id
        head = orb.head(pid)
    marks = SessionMarks()
    prompt = "the session cache loses users after a deploy: where do sessions live?"

    def payload(n: int) -> Payload:
        """A session of its own (a session is pointed at an entry once), seen at the head."""
        marks.put(pid, f"lane-{n}", SessionMark(seen=head))
        body = {"hook_event_name": "UserPromptSubmit", "session_id": f"lane-{n}"}
        return parse_payload(json.dumps({**body, "cwd": str(root), "prompt": prompt}).encode())

    times: dict[str, list[float]] = {"on": [], "off": []}
    for n in range(rounds):
        for setting in ("on", "off"):
            os.environ["ORBITAL_RECALL"] = "3" if setting == "on" else "0"
            asked = payload(n * 2 + (setting == "on"))
            start = time.perf_counter()
            answer = quick_answer("prompt", asked, db_url)
            times[setting].append(time.perf_counter() - start)
            assert answer is not None and (answer.answer is not None) == (setting == "on")
    os.environ.pop("ORBITAL_RECALL")
    on, off = median_ms(times["on"]), median_ms(times["off"])
    print(
        f"Quick lane in process (a pointer), p50 over {rounds}: with recall {on:.2f} ms, "
        f"without {off:.2f} ms; the recall's own cost {on - off:+.2f} ms"
    )


def main() -> None:
    quick = quick_run(__doc__, "a 10,000-event project and fewer rounds")
    orbital = str(Path(sys.executable).parent / "orbital")
    print(f"Load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)")
    with tempfile.TemporaryDirectory(prefix="orbital-search-") as name:
        tmp = Path(name)
        db_url = f"sqlite:///{tmp / 'recall.db'}"
        env = {**os.environ, "ORBITAL_DB": db_url, "ORBITAL_STATE_DIR": str(tmp / "state")}
        env.pop("ORBITAL_NOW", None)
        env.pop("ORBITAL_RECALL", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        os.environ["ORBITAL_STATE_DIR"] = env["ORBITAL_STATE_DIR"]
        root = recall_project(tmp, db_url, orbital, env)
        bench_recall(db_url, root)
        bench_hook(root, orbital, env, 7 if quick else 31)
        bench_quick_lane(root, db_url, 21 if quick else 201)
        bench_search(tmp, 10_000 if quick else 100_000, 3 if quick else 11)
    print(f"Load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
