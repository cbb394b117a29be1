"""A ``Supersedes:`` line written by hand is applied as the agent's is (issue 16): a hand edit
taken in by ``sync`` or the watcher, and a file imported at ``init``, supersede what they
name, warn about an unknown id, and link a text that says a retracted entry again."""

from __future__ import annotations

import time
from pathlib import Path

from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital
from tests.service.conftest import TODAY, Env

SQLITE = "## Use SQLite for the store\nChose: SQLite.\nReason: embedded.\n"
POSTGRES = (
    "\n## Use PostgreSQL for the store\nChose: PostgreSQL.\nReason: several writers.\n"
    "Supersedes: use-sqlite-for-the-store since 2026-09-05\n"
)
OLD, NEW = "use-sqlite-for-the-store", "use-postgresql-for-the-store"
POINTER = (
    f"[archived 2026-09-19 id:{OLD}] superseded by {NEW}: Use SQLite for the store "
    "→ DECISIONS_ARCHIVE.md"
)


def decisions(env: Env) -> Path:
    return env.memory / "DECISIONS.md"


def trust_of(service: Orbital, project: str) -> dict[str, tuple[str, str, tuple[str, ...]]]:
    return {b.id: (b.state, b.status, b.by) for b in service.trust.beliefs(project)}


def test_a_hand_written_supersedes_line_supersedes_on_sync(env: Env) -> None:
    env.orbital.write_file(env.project, "DECISIONS.md", SQLITE.encode(), actor=Actor.AGENT)
    decisions(env).write_text(decisions(env).read_text() + POSTGRES)
    report = env.orbital.sync(env.project)
    assert [(e.type, e.stream) for e in report.events if e.type.startswith("entry.")] == [
        ("entry.created", f"entry:{NEW}"),
        ("entry.superseded", f"entry:{OLD}"),
        ("entry.archived", f"entry:{OLD}"),
    ]
    taken = [e for e in env.orbital.history(env.project) if e.type == "entry.superseded"]
    assert [e.actor for e in taken] == [Actor.FILE]
    assert trust_of(env.orbital, env.project) == {
        OLD: ("superseded", "archived", (NEW,)),
        NEW: ("held", "live", ()),
    }
    # the file the agent's write of the same text gives
    assert decisions(env).read_text().split("-->\n", 1)[1] == (
        f"{POINTER}\n## Use PostgreSQL for the store <!--mem id:{NEW} created:2026-09-19 "
        "touched:2026-09-19-->\nChose: PostgreSQL.\nReason: several writers.\n"
        f"Supersedes: {OLD} since 2026-09-05\n"
    )
    assert "Chose: SQLite." in env.orbital.read_file(env.project, "DECISIONS_ARCHIVE.md")
    assert "Chose: SQLite." not in env.orbital.context_view(env.project)
    # taken in once: the next sync finds nothing to do
    assert env.orbital.sync(env.project).events == []


def test_a_hand_edit_naming_an_unknown_id_warns_and_supersedes_nothing(env: Env) -> None:
    env.orbital.write_file(env.project, "DECISIONS.md", SQLITE.encode(), actor=Actor.AGENT)
    added = "\n## Use DuckDB\nChose: DuckDB.\nSupersedes: use-sqlite\n"
    decisions(env).write_text(decisions(env).read_text() + added)
    report = env.orbital.sync(env.project)
    assert (
        "use-duckdb: Supersedes names 'use-sqlite', which no entry has: nothing was "
        "superseded (use the id from the old entry's id comment)"
    ) in report.warnings
    assert [s for s, _, _ in trust_of(env.orbital, env.project).values()] == ["held", "held"]


def test_a_hand_edit_saying_a_retracted_entry_again_is_warned_and_linked(env: Env) -> None:
    env.orbital.write_file(env.project, "DECISIONS.md", SQLITE.encode(), actor=Actor.AGENT)
    env.orbital.trust.act(env.project, OLD, "retract", "too small", actor=Actor.USER)
    again = "\n## Store on SQLite\nChose: SQLite for the store. Reason: embedded.\n"
    decisions(env).write_text(decisions(env).read_text() + again)
    report = env.orbital.sync(env.project)
    assert (
        f"DECISIONS: new entry store-on-sqlite says again what {OLD} said, which was "
        f"retracted by the person (too small); it is kept and linked to {OLD} — if it is "
        "meant to replace it, say why in the entry"
    ) in report.warnings
    (row,) = [b for b in env.orbital.trust.beliefs(env.project) if b.id == "store-on-sqlite"]
    assert (row.state, row.status, row.restates) == ("held", "live", OLD)


def test_the_watcher_applies_a_hand_written_supersedes_line(env: Env) -> None:
    from orbital.watcher import Watcher

    env.orbital.write_file(env.project, "DECISIONS.md", SQLITE.encode(), actor=Actor.AGENT)
    messages: list[str] = []
    watcher = Watcher(env.orbital, messages.append, settle=0.1, debounce_ms=50)
    watcher.start()
    try:
        time.sleep(0.3)
        decisions(env).write_text(decisions(env).read_text() + POSTGRES)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and POINTER not in decisions(env).read_text():
            time.sleep(0.1)
    finally:
        watcher.stop()
    assert POINTER in decisions(env).read_text()
    assert trust_of(env.orbital, env.project)[OLD] == ("superseded", "archived", (NEW,))


def test_an_imported_file_applies_its_supersedes_lines(store_url: str, tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "orbital").mkdir(parents=True)
    (root / "orbital" / "DECISIONS.md").write_text(SQLITE + POSTGRES)
    with Orbital.open(store_url, clock=FixedClock(TODAY)) as service:
        project = service.init_project(root, timezone="UTC").project_id
        superseded = [e for e in service.history(project) if e.type == "entry.superseded"]
        assert [(e.stream, e.actor) for e in superseded] == [(f"entry:{OLD}", Actor.SYSTEM)]
        assert trust_of(service, project)[OLD] == ("superseded", "archived", (NEW,))
        text = (root / "orbital" / "DECISIONS.md").read_text()
        assert POINTER in text and "Chose: SQLite." not in text
