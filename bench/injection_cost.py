"""What memory costs an agent's session, in tokens, on a fresh and on a full project.

Run: ``python bench/injection_cost.py`` (``--quick`` for fewer samples). Prints, for a fresh
project (``orbital init`` alone) and a full one (``context.py``'s: every memory file just under
its hard budget, 40 open asks), the tokens a session start injects at each level (``full``,
``asks``, ``off``: ``orbital context --inject``) and what one prompt adds after another
session wrote one decision and opened one ask (cl100k, as ``orbital context --cost`` counts).
Then what the hooks' bookkeeping of it costs: one line appended to the session's injection
log (:class:`~orbital.service._sessions.InjectionLog`), against the session mark the same
hook already writes (:class:`~orbital.service._sessions.SessionMarks`), median and ratio.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from context import build_project
from timing import median_ms, quick_run, timed

from orbital.events import Actor
from orbital.service import Orbital
from orbital.service._sessions import InjectionLog, SessionMark, SessionMarks
from orbital.tokens import CachedCounter

LEVELS = ("full", "asks", "off")


def costs(orb: Orbital, pid: str, count: CachedCounter) -> tuple[dict[str, int], dict[str, int]]:
    """Per level: the tokens a session start injects, and what a prompt adds after another
    session's decision and ask (each level on its own session)."""
    project = orb.store.project(pid)
    agents = orb.agents
    starts, turns = {}, {}
    for level in LEVELS:
        orb.workspaces.set_injection(pid, level, actor=Actor.USER)
        day, _zone, shown = orb.workspaces.today(project)
        starts[level] = round(count(agents.injected(project, level, day, shown)))
        agents.prompt(project, f"s-{level}")  # seen from now
    text = orb.read_file(pid, "DECISIONS.md") + "\n## Cache the view\nChose: keep it by key.\n"
    orb.write_file(pid, "DECISIONS.md", text.encode(), actor=Actor.AGENT, session="other")
    orb.ask_open(pid, "Check the cache's hit rate", actor=Actor.AGENT, session="other")
    for level in LEVELS:
        orb.workspaces.set_injection(pid, level, actor=Actor.USER)
        turns[level] = round(count(agents.prompt(project, f"s-{level}")))
    return starts, turns


def main() -> None:
    quick = quick_run(__doc__, "fewer samples")
    count = CachedCounter()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ORBITAL_STATE_DIR"] = str(Path(tmp) / "state")
        os.environ.pop("ORBITAL_INJECT", None)
        fresh_root = Path(tmp) / "fresh"
        fresh_root.mkdir()
        fresh = Orbital.open(f"sqlite:///{tmp}/fresh.db")
        fresh_pid = fresh.init_project(fresh_root).project_id
        full, full_pid, _ = build_project(Path(tmp), count)
        print("tokens a session start injects / a prompt adds after one decision and one ask")
        print(f"{'project':<8} {'level':<5} {'start':>7} {'turn':>6}")
        for name, orb, pid in (("fresh", fresh, fresh_pid), ("full", full, full_pid)):
            starts, turns = costs(orb, pid, count)
            for level in LEVELS:
                print(f"{name:<8} {level:<5} {starts[level]:>7,} {turns[level]:>6,}")
            orb.close()

        repeat = 200 if quick else 2000
        log, marks = InjectionLog(), SessionMarks()
        text = "Orbital memory changed since you last looked (now @12):\n- @12 by agent: x\n"
        appended = timed(lambda: log.add("p", "s", "turn", text), repeat)
        mark = SessionMark(12, "/t.jsonl")
        baseline = timed(lambda: marks.put("p", "s", mark), repeat)
        ratio = median_ms(appended) / median_ms(baseline)
        print(
            f"hook bookkeeping: injection log append {median_ms(appended) * 1000:.0f} µs, "
            f"session mark write (baseline) {median_ms(baseline) * 1000:.0f} µs, "
            f"ratio {ratio:.2f}"
        )


if __name__ == "__main__":
    main()
