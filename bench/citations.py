"""Citation check benchmark (issue 29): what checking 1,000 cited files costs a session start.

Run: ``python bench/citations.py`` (``--quick`` for fewer rounds). One SQLite store, two
projects with the same 1,000 source files and the same 50 DECISIONS entries: in ``cited`` each
entry cites 20 of the files (``@file.src/pkg_NN/mod_NNNN.py``, 1,000 citations), in ``plain``
the entries name them without the ``@file.`` mark (nothing cited), the baseline measured in the
same run. Nothing changes between rounds, so every check finds every cited file as it was
(stats only, no hashing). Three timings per project, p50 over the rounds:

1. ``check`` — the check a session start runs on the full path (``Citations.check``: the
   entries read, every cited file stated, nothing moved);
2. ``first look`` — a Claude Code ``session-start`` answered by the hooks' first look before
   the service is opened (the view file current; the kept record of cited files confirmed and
   every cited file stated);
3. ``start`` — the whole session start on the full path (``AgentSessions.start`` with the view
   file loaded: the check, then what changed since the view file).

The steps of both projects run interleaved, round after round, so the baseline sees the same
load. Prints each p50, the cost of the citations (cited minus plain, p50 and best case) and the
ratio cited / plain.
Target: the check's cost at session start <= 10 ms for 1,000 cited files, unchanged.
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from timing import median_ms, quick_run, timed

from orbital.agents.claude_code import IMPORT_LINE, MEMORY_FILE, VIEW_FILE
from orbital.agents.claude_code_hooks import Payload, parse_payload
from orbital.events import Actor
from orbital.service import Orbital, Project
from orbital.service._first_look import NOTHING, quick_answer
from orbital.service._sessions import SessionMarks

FILES, PER_ENTRY = 1_000, 20
TARGET_MS = 10.0


def _path(i: int) -> str:
    return f"src/pkg_{i // 100:02d}/mod_{i:04d}.py"


def _decisions(cite: bool) -> list[bytes]:
    """The 50 entries, in two writes (each under a write's growth limit)."""
    mark = "@file." if cite else ""
    entries = [
        f"## Module group {n}\nChose: these modules own group {n}: "
        + ", ".join(f"{mark}{_path(i)}" for i in range(n * PER_ENTRY, (n + 1) * PER_ENTRY))
        + ".\n"
        for n in range(FILES // PER_ENTRY)
    ]
    half = len(entries) // 2
    return ["\n".join(entries[:half]).encode(), "\n".join(entries).encode()]


def _project(service: Orbital, root: Path, cite: bool) -> Project:
    for i in range(FILES):
        path = root / _path(i)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"def f{i}():\n    return {i}\n")
    (root / MEMORY_FILE).write_text(f"{IMPORT_LINE}\n", encoding="utf-8")
    project = service.init(root, timezone="UTC").project
    for text in _decisions(cite):
        service.write_file(project.project_id, "DECISIONS.md", text, actor=Actor.AGENT)
    cited = sum(len(b.moved) for b in service.trust.beliefs(project.project_id))
    assert cited == 0, "nothing may have moved"
    return project


def _payload(root: Path, session: str) -> Payload:
    fields = {
        "hook_event_name": "SessionStart",
        "session_id": session,
        "cwd": str(root),
        "transcript_path": str(root / f"{session}.jsonl"),
        "source": "startup",
    }
    return parse_payload(json.dumps(fields))


def main() -> None:
    quick = quick_run(__doc__, "fewer rounds")
    rounds = 30 if quick else 200
    samples: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ORBITAL_STATE_DIR"] = f"{tmp}/state"
        db = f"sqlite:///{tmp}/orbital.db"
        with Orbital.open(db) as service:
            steps: list[tuple[str, str, Callable[[], object]]] = []
            heads: dict[str, int] = {}
            for name, cite in (("plain", False), ("cited", True)):
                root = Path(tmp) / name
                project = _project(service, root, cite)
                marks = SessionMarks(Path(tmp) / f"marks-{name}")
                # The first start writes the view file and the record of cited files.
                service.claude_code.handle("session-start", _payload(root, "s0"))
                quiet = _payload(root, "s1")
                assert quick_answer("session-start", quiet, db, marks) == NOTHING
                view = root / VIEW_FILE
                heads[name] = service.head(project.project_id)
                steps += [
                    (name, "check", functools.partial(service.citations.check, project)),
                    (
                        name,
                        "first look",
                        functools.partial(quick_answer, "session-start", quiet, db, marks),
                    ),
                    (name, "start", functools.partial(service.agents.start, project, "s2", view)),
                ]
            # Interleaved, so the baseline and the cited project see the same load.
            for _ in range(rounds):
                for name, step, run in steps:
                    samples.setdefault((name, step), []).extend(timed(run, 1))
            for name, head in heads.items():
                project = service.project(Path(tmp) / name)
                assert service.head(project.project_id) == head, "a check appended events"
    print(f"{FILES} cited files (50 entries x {PER_ENTRY}), unchanged; {rounds} rounds:")
    print(
        f"{'':12} {'plain p50':>10} {'cited p50':>10} {'cost p50':>9} {'ratio':>7}"
        f" {'cost min':>9}  (ms)"
    )
    costs = {}
    for step in ("check", "first look", "start"):
        plain, cited = samples["plain", step], samples["cited", step]
        costs[step] = median_ms(cited) - median_ms(plain)
        print(
            f"{step:12} {median_ms(plain):10.2f} {median_ms(cited):10.2f} {costs[step]:9.2f}"
            f" {median_ms(cited) / median_ms(plain):6.2f}x {(min(cited) - min(plain)) * 1000:9.2f}"
        )
    worst = max(costs.values())
    verdict = "within" if worst <= TARGET_MS else "OVER"
    print(
        f"citations' cost at session start (p50): at most {worst:.2f} ms ({verdict} {TARGET_MS} ms)"
    )


if __name__ == "__main__":
    main()
