"""Claude Code hooks benchmark: each hook as Claude Code runs it, a new process per event.

Run: ``python bench/hooks.py`` (``--quick`` for fewer rounds, ``--rounds N``). Builds a project
with DECISIONS, LESSONS, PROJECT_STATE and INDEX just under upstream's hard budgets (as
``bench/context.py`` does) and an ASKS.md of 10,000 ask events, runs ``orbital install
claude-code`` in it, then takes the command lines the installer wrote to
``.claude/settings.local.json`` and runs them through ``sh -c`` with their JSON on stdin, as
Claude Code does. ``python3 -c pass`` (this interpreter, also through ``sh -c``) runs twice in
every round, so the baseline sees the same load as the hooks (the machine is shared). Bytecode
is cached (in a temporary ``PYTHONPYCACHEPREFIX``) as it is for an installed package.

One round, in order (each step a new process, timed whole, wall clock):

1. ``prompt``, nothing changed since session A last looked;
2. ``pre-tool`` then ``post-tool`` of an ``Edit`` by session B appending a DECISIONS entry (the
   bench writes what the hook's ``updatedInput`` says, as the tool would), then the same for an
   ``Edit`` of ASKS.md adding an open ask;
3. ``prompt`` of session A again: B's writes are reported;
4. ``session-start`` of a new session with the view file behind (B wrote since it was
   rendered), then, once the detached process that hook started has brought the view file to
   the head (untimed wait), ``session-start`` of another new session with the view file
   current.

Each answer is checked (nothing / context / allow), so the bench times the path it names.
Prints p50 and p90 per step and the ratio of each p50 to ``-c pass``'s. Targets (issue 14):
session start <= 250 ms, a prompt when nothing changed <= 100 ms, a Write/Edit of a memory
file <= 300 ms, p50.

``--pg URL`` (a PostgreSQL server) runs every round on a PostgreSQL store too (a schema of its
own), right after the SQLite one, and prints each step's p50 on both and their ratio (target,
issue 30: PostgreSQL <= 2x SQLite), in wall time and in the CPU time of the hook's process.

``--cli`` adds the cold CLI commands of issue 17 to each round (``orbital context``, ``orbital
show DECISIONS.md``, both once right after the round's writes and once more with nothing
written since, ``orbital ask open``, ``orbital write DECISIONS.md``; targets: reads <= 5x,
writes <= 8x ``-c pass``, on a 50k-event project: ``--ask-events 50000``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from contextlib import ExitStack
from pathlib import Path

from asks import asks_log, new_line
from context import TECH, WORDS, decision, fill, index_part, lesson, sentence, state_line
from timing import pg_schema

from orbital.agents.claude_code import VIEW_FILE
from orbital.agents.claude_code_hooks import view_position
from orbital.catalogue import FILE_BUDGETS
from orbital.events import Actor
from orbital.service import Orbital
from orbital.tokens import default_encoding

ASK_EVENTS = 10_000
Json = dict[str, object]


def build_project(tmp: Path, db_url: str, ask_events: int = ASK_EVENTS) -> Path:
    """The project: an ASKS.md of ``ask_events`` events imported at init, the four files
    near their hard budgets, 40 open asks from the person."""
    root = tmp / "project"
    (root / "orbital").mkdir(parents=True)
    (root / "orbital" / "ASKS.md").write_text(asks_log(ask_events, seed=1), encoding="utf-8")
    encode = default_encoding().encode_ordinary

    def count(text: str) -> int:
        return len(encode(text))

    rng = random.Random(42)
    texts = {
        "DECISIONS.md": "# DECISIONS\n\n"
        + fill(lambda i: decision(rng, i), FILE_BUDGETS["decisions"].hard - 120, 28, count),
        "LESSONS.md": "# LESSONS\n\n"
        + fill(lambda i: lesson(rng, i), FILE_BUDGETS["lessons"].hard - 40, 28, count),
        "PROJECT_STATE.md": "# PROJECT_STATE\n\n## Now\n\n"
        + fill(lambda i: state_line(rng, i), FILE_BUDGETS["state"].hard - 100, 0, count),
        "INDEX.md": "# INDEX\n\n"
        + fill(lambda i: index_part(rng, i), FILE_BUDGETS["index"].hard - 60, 0, count),
    }
    with Orbital.open(db_url) as orb:
        pid = orb.init_project(root).project_id
        for name, text in texts.items():
            orb.write_file(pid, name, text.encode(), actor=Actor.AGENT)
        for i in range(40):
            text = f"Decide the {rng.choice(WORDS)} {rng.choice(TECH)} plan {i}"
            orb.ask_open(pid, text, actor=Actor.USER)
    return root


def installed_commands(root: Path, orbital: str, env: Mapping[str, str]) -> dict[str, str]:
    """``orbital install claude-code``, then each hook's command line by event."""
    subprocess.run(
        [orbital, "install", "claude-code", "--project", str(root)],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    settings = json.loads((root / ".claude" / "settings.local.json").read_text())
    commands: dict[str, str] = {}
    for event, groups in settings["hooks"].items():
        for group in groups:
            for entry in group["hooks"]:
                if " hook claude-code " in entry["command"]:
                    commands[event] = entry["command"]
    return commands


class Runner:
    """Runs command lines through ``sh -c`` in the project, keeping each step's wall times."""

    def __init__(self, root: Path, env: Mapping[str, str]) -> None:
        self.root = root
        self.env = dict(env)
        self.samples: dict[str, list[float]] = {}
        #: Each step's CPU seconds (user + system) of the processes it waited for: the hook's
        #: own work, which the machine's load does not stretch (a database server's is not
        #: in it).
        self.cpu: dict[str, list[float]] = {}
        self.timing = True
        #: Each hook's installed command line, by Claude Code's event name.
        self.hooks: dict[str, str] = {}

    def run(
        self, step: str, command: str, payload: Json | None = None, stdin: bytes = b""
    ) -> Json | None:
        data = stdin if payload is None else json.dumps(payload).encode()
        used = _children_cpu()
        start = time.perf_counter()
        done = subprocess.run(
            command, shell=True, input=data, capture_output=True, cwd=self.root, env=self.env
        )
        elapsed = time.perf_counter() - start
        used = _children_cpu() - used
        if done.returncode != 0 or b"orbital hook:" in done.stderr:
            raise SystemExit(f"{step} failed ({done.returncode}): {done.stderr.decode()}")
        if self.timing:
            self.samples.setdefault(step, []).append(elapsed)
            self.cpu.setdefault(step, []).append(used)
        out = done.stdout.strip()
        if payload is None:
            return {"stdout": out.decode()}
        return json.loads(out) if out else None


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def context_of(answer: Json | None) -> str:
    assert answer is not None, "expected context, got no answer"
    output = answer["hookSpecificOutput"]
    assert isinstance(output, dict)
    return str(output.get("additionalContext", ""))


class Session:
    def __init__(self, root: Path, session_id: str) -> None:
        self.root = root
        self.id = session_id

    def payload(self, event: str, **fields: object) -> Json:
        return {
            "session_id": self.id,
            "transcript_path": str(self.root / f"{self.id}.jsonl"),
            "cwd": str(self.root),
            "hook_event_name": event,
            **fields,
        }


def edit_round(
    run: Runner, hooks: Mapping[str, str], b: Session, name: str, addition: str, step: str
) -> None:
    """Session B's ``Edit`` of ``orbital/<name>`` appending ``addition``: PreToolUse, the
    tool's write of what the hook allowed, PostToolUse."""
    path = run.root / "orbital" / name
    text = path.read_text(encoding="utf-8")
    tail = text[-300:]
    edit = {"file_path": str(path), "old_string": tail, "new_string": tail + addition}
    pre = b.payload("PreToolUse", tool_name="Edit", tool_input=edit)
    answer = run.run(f"pre-tool Edit {step}", hooks["PreToolUse"], pre)
    assert answer is not None, f"the Edit of {name} got no answer"
    output = answer["hookSpecificOutput"]
    assert isinstance(output, dict) and output["permissionDecision"] == "allow", answer
    updated = output["updatedInput"]
    assert isinstance(updated, dict)
    path.write_text(text.replace(updated["old_string"], updated["new_string"], 1), "utf-8")
    post = b.payload("PostToolUse", tool_name="Edit", tool_input=updated, tool_response={})
    run.run(f"post-tool Edit {step}", hooks["PostToolUse"], post)


def one_round(run: Runner, hooks: Mapping[str, str], i: int, baseline: str) -> None:
    root = run.root
    a, b = Session(root, "session-a"), Session(root, "session-b")
    rng = random.Random(i)
    run.run("python3 -c pass", baseline)
    answer = run.run("prompt, nothing changed", hooks["UserPromptSubmit"], a.payload(
        "UserPromptSubmit", prompt="go on"))  # fmt: skip
    assert answer is None, answer
    entry = f"\n\n## Bench decision {i}\nChose: {sentence(rng, 12)}\nReason: {sentence(rng, 20)}\n"
    edit_round(run, hooks, b, "DECISIONS.md", entry, "DECISIONS.md")
    ask = "\n" + new_line(1_000_000 + i).rstrip("\n")
    edit_round(run, hooks, b, "ASKS.md", ask, "ASKS.md")
    run.run("python3 -c pass", baseline)
    prompt = a.payload("UserPromptSubmit", prompt="and now?")
    assert f"about parcel {1_000_000 + i}" in context_of(
        run.run("prompt, after another session's writes", hooks["UserPromptSubmit"], prompt)
    )
    start = Session(root, f"start-behind-{i}").payload("SessionStart", source="startup")
    assert "Bench decision" in context_of(
        run.run("session-start, view behind", hooks["SessionStart"], start)
    )
    view_rendered(root, run.env["ORBITAL_DB"])
    start = Session(root, f"start-current-{i}").payload("SessionStart", source="startup")
    answer = run.run("session-start, view current", hooks["SessionStart"], start)
    assert answer is None, answer


def view_rendered(root: Path, db_url: str, timeout: float = 120.0) -> None:
    """Wait until the view file is at the project's head: a session start whose file was
    behind leaves its render to a detached process (``orbital editor view-file``)."""
    with Orbital.open(db_url) as orb:
        head = orb.head(orb.project(root).project_id)
    view = root / VIEW_FILE
    deadline = time.monotonic() + timeout
    while view_position(view.read_text(encoding="utf-8")) != head:
        if time.monotonic() > deadline:
            raise SystemExit(f"the view file never reached @{head}")
        time.sleep(0.05)


def cli_round(run: Runner, hooks: Mapping[str, str], orbital: str, i: int) -> None:
    """The cold CLI commands of issue 17, each a new process; then session A looks (untimed),
    so the next round's first prompt has nothing new again."""
    project = f"--project {shlex.quote(str(run.root))}"
    view = run.run("cli: orbital context", f"{orbital} context {project}")
    assert view is not None and "DECISIONS" in str(view["stdout"])
    run.run("cli: orbital show DECISIONS.md", f"{orbital} show DECISIONS.md {project}")
    # The same reads again, nothing written since: what an earlier process kept answers.
    again = run.run("cli: orbital context, nothing changed", f"{orbital} context {project}")
    assert again == view, "a kept view differs from the one rendered"
    run.run(
        "cli: orbital show DECISIONS.md, nothing changed", f"{orbital} show DECISIONS.md {project}"
    )
    text = shlex.quote(new_line(2_000_000 + i).removeprefix("- open ").strip())
    run.run("cli: orbital ask open", f"{orbital} ask open {text} {project}")
    decisions = run.root / "orbital" / "DECISIONS.md"
    entry = f"\n## CLI decision {i}\nChose: {sentence(random.Random(i), 12)}\n"
    content = decisions.read_bytes() + entry.encode()
    run.run(
        "cli: orbital write DECISIONS.md", f"{orbital} write DECISIONS.md {project}", None, content
    )
    timing, run.timing = run.timing, False
    look = Session(run.root, "session-a").payload("UserPromptSubmit", prompt="and?")
    run.run("session A looks", hooks["UserPromptSubmit"], look)
    run.timing = timing


def report(samples: Mapping[str, list[float]], rounds: int) -> None:
    base = statistics.median(samples["python3 -c pass"])
    print(f"\n{rounds} rounds; wall time per process, ms (ratio = p50 / p50 of -c pass)")
    print(f"{'step':48} {'p50':>8} {'p90':>8} {'min':>8} {'ratio':>7}")
    for step, values in samples.items():
        ordered = sorted(values)
        p50 = statistics.median(ordered)
        p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
        print(
            f"{step:48} {p50 * 1000:8.1f} {p90 * 1000:8.1f} {ordered[0] * 1000:8.1f} "
            f"{p50 / base:6.1f}x"
        )


def report_backends(runs: Mapping[str, Runner], rounds: int) -> None:
    """Each step's p50 on SQLite and on PostgreSQL, measured in the same rounds, and their
    ratio (target, issue 30: PostgreSQL <= 2x SQLite): wall time, and the CPU time of the
    hook's own process (PostgreSQL's server process not in it)."""
    sqlite, pg = runs["sqlite"], runs["postgresql"]
    print(f"\n{rounds} rounds, both backends in each; p50 per process, ms")
    print(
        f"{'step':44} {'SQLite':>7} {'Postgres':>8} {'PG/SQLite':>9}   "
        f"{'cpu SQLite':>10} {'Postgres':>8} {'PG/SQLite':>9}"
    )
    for step, values in sqlite.samples.items():
        if step not in pg.samples:
            continue
        a, b = statistics.median(values), statistics.median(pg.samples[step])
        c, d = statistics.median(sqlite.cpu[step]), statistics.median(pg.cpu[step])
        print(
            f"{step:44} {a * 1000:7.1f} {b * 1000:8.1f} {b / a:8.2f}x   "
            f"{c * 1000:10.1f} {d * 1000:8.1f} {d / c:8.2f}x"
        )


def prepared(tmp: Path, db_url: str, ask_events: int, orbital: str) -> Runner:
    """A project built in ``tmp`` on the store at ``db_url``, with the hooks installed."""
    env = {**os.environ, "ORBITAL_DB": db_url, "ORBITAL_STATE_DIR": str(tmp / "state")}
    env.pop("ORBITAL_NOW", None)
    # Bytecode cached as an installed package has it (pip compiles it), kept out of the
    # source tree; without it every process would compile every module it imports.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(tmp.parent / "pycache")
    started = time.perf_counter()
    root = build_project(tmp, db_url, ask_events)
    run = Runner(root, env)
    run.hooks = installed_commands(root, orbital, env)
    with Orbital.open(db_url) as orb:
        events = orb.head(orb.project(root).project_id)
    print(
        f"Project on {db_url.split(':', 1)[0]}: 4 memory files near their hard budgets, "
        f"{ask_events:,} ask events ({events:,} events in all), built in "
        f"{time.perf_counter() - started:.1f} s"
    )
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 rounds instead of 21")
    parser.add_argument("--rounds", type=int, default=None, help="how many rounds")
    parser.add_argument("--cli", action="store_true", help="also the cold CLI commands")
    parser.add_argument("--ask-events", type=int, default=ASK_EVENTS, help="events in ASKS.md")
    parser.add_argument(
        "--pg",
        default="",
        help="a PostgreSQL server's URL: the same rounds also on a PostgreSQL store (a schema "
        "of its own), each step's p50 beside SQLite's",
    )
    args = parser.parse_args()
    rounds = args.rounds or (5 if args.quick else 21)
    orbital = str(Path(sys.executable).parent / "orbital")
    baseline = f"{shlex.quote(sys.executable)} -c pass"
    with tempfile.TemporaryDirectory(prefix="orbital-hooks-") as name, ExitStack() as stack:
        tmp = Path(name)
        urls = {"sqlite": f"sqlite:///{tmp / 'sqlite' / 'orbital.db'}"}
        if args.pg:
            urls["postgresql"] = stack.enter_context(pg_schema(args.pg))
        runs = {}
        for backend, url in urls.items():
            (tmp / backend).mkdir()
            runs[backend] = prepared(tmp / backend, url, args.ask_events, orbital)
        print(f"Hook command: {runs['sqlite'].hooks['UserPromptSubmit']}")
        print(f"Load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)")
        for i in range(-1, rounds):  # one warm-up round: session A seen, the file cache warm
            for run in runs.values():
                run.timing = i >= 0
                one_round(run, run.hooks, i, baseline)
                if args.cli:
                    cli_round(run, run.hooks, shlex.quote(orbital), i)
        for backend, run in runs.items():
            print(f"\n{backend}:", end="")
            report(run.samples, rounds)
        if args.pg:
            report_backends(runs, rounds)
        print(f"Load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
