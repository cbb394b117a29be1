"""The person's purge (issue 27): a text taken out of every event, stream state, snapshot,
projected file, conflict copy and kept output, an audit event left (its SHA-256, never the
text), and, after the documented maintenance step the purge runs itself (``VACUUM``, the WAL
cut; ``VACUUM FULL`` on PostgreSQL), no copy of its bytes in the store's files, the state
folder or the project folder. Events stay immutable to everything else."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from orbital.cli import cli
from orbital.errors import Refused
from orbital.events import Actor
from orbital.events.project import HistoryPurged
from orbital.service import Orbital
from orbital.store._open import sqlite_path

SECRET = "AKIAZ7QWERTY12345678"
ALLOWED = "# pragma: allowlist secret"  # a real key let through as a "false positive"


@pytest.fixture
def project(orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    root = tmp_path / "project"
    root.mkdir()
    assert CliRunner().invoke(cli, ["init", "--project", str(root)]).exit_code == 0
    return root


def _run(*args: str, token: str | None = None) -> tuple[int, str]:
    env = {"ORBITAL_TOKEN": token} if token else None
    done = CliRunner().invoke(cli, list(args), env=env)
    return done.exit_code, done.output


def _person(orbital_db: str) -> str:
    with Orbital.open(orbital_db) as service:
        return service.credentials.create("workbench", label="me").token


def _seed(project: Path) -> None:
    """The secret in an entry (twice revised), an ask, an archived entry, a kept view, the
    agent's view file and a hand edit not taken in yet (kept aside as a conflict copy by the
    purge first)."""
    lessons = project / "orbital" / "LESSONS.md"
    p = ("--project", str(project))
    first = lessons.read_text() + f"1. Deploy with the key {SECRET} from ops {ALLOWED}\n"
    done = CliRunner().invoke(cli, ["write", "LESSONS.md", *p], input=first)
    assert done.exit_code == 0, done.output
    second = lessons.read_text().replace("from ops", "from the ops vault") + "\n2. Keep CI green\n"
    assert CliRunner().invoke(cli, ["write", "LESSONS.md", *p], input=second).exit_code == 0
    assert _run("ask", "open", f"Rotate {SECRET} this week {ALLOWED}", *p)[0] == 0
    decisions = project / "orbital" / "DECISIONS.md"
    wrong = decisions.read_text() + f"## use-root-key\nChose: the root key {SECRET} {ALLOWED}\n"
    assert CliRunner().invoke(cli, ["write", "DECISIONS.md", *p], input=wrong).exit_code == 0
    with Orbital.open() as service:  # retracted: it moves to the archive
        pid = service.project(project).project_id
        service.trust.act(pid, "use-root-key", "retract", "wrong", actor=Actor.USER)
    assert SECRET in (project / "orbital" / "DECISIONS_ARCHIVE.md").read_text()
    assert _run("context", *p)[0] == 0  # kept in the state folder's outputs
    assert _run("install", "claude-code", *p)[0] == 0
    assert _run("editor", "view-file", *p)[0] == 0  # .claude/orbital-view.md
    assert SECRET in (project / ".claude" / "orbital-view.md").read_text()
    lessons.write_text(lessons.read_text() + f"3. Never paste {SECRET} again {ALLOWED}\n")


def _files_holding(folder: Path, text: bytes) -> list[str]:
    return sorted(str(p) for p in folder.rglob("*") if p.is_file() and text in p.read_bytes())


def _rows_holding(store_url: str, text: str) -> list[str]:
    """Every table of a PostgreSQL store whose rows, read as text, hold ``text``."""
    engine = sa.create_engine(store_url)
    try:
        with engine.connect() as conn:
            tables = conn.execute(
                sa.text(
                    "SELECT table_name FROM information_schema.tables "
                    "WHERE table_schema = current_schema()"
                )
            ).scalars()
            return [
                t
                for t in list(tables)
                if conn.execute(
                    sa.text(f'SELECT count(*) FROM "{t}" x WHERE x::text LIKE :like'),
                    {"like": f"%{text}%"},
                ).scalar()
            ]
    finally:
        engine.dispose()


def test_a_purge_leaves_no_copy_anywhere(orbital_db: str, project: Path, tmp_path: Path) -> None:
    _seed(project)
    state, raw = tmp_path / "state", SECRET.encode()
    database = sqlite_path(orbital_db)
    assert _files_holding(project, raw) and _files_holding(state, raw)
    token = _person(orbital_db)

    code, out = _run(
        "purge", "--text", SECRET, "--reason", "leaked key", "--project", str(project), token=token
    )

    assert code == 0, out
    assert "compacted: the store's files no longer hold the text" in out
    assert (
        "warning: entry ids made from the text keep part of it: deploy-with-the-key-akiaz7qwerty "
        "(ids are never rewritten)"
    ) in out
    assert _files_holding(project, raw) == []
    assert _files_holding(state, raw) == []
    if database is not None:  # SQLite: the raw bytes of the file and anything beside it
        assert _files_holding(database.parent, raw) == []
        assert sorted(p.name for p in database.parent.glob("orbital.db*")) == [
            "orbital.db",
            "orbital.db.lock",
        ]
    else:
        assert _rows_holding(orbital_db, SECRET) == []
    lessons = (project / "orbital" / "LESSONS.md").read_text()
    assert "1. Deploy with the key [purged] from the ops vault" in lessons
    (copy,) = (project / "orbital").glob("LESSONS.md.conflict-*.md")
    assert f"3. Never paste [purged] again {ALLOWED}" in copy.read_text()
    archive = (project / "orbital" / "DECISIONS_ARCHIVE.md").read_text()
    assert f"Chose: the root key [purged] {ALLOWED}" in archive
    with Orbital.open(orbital_db) as service:
        pid = service.project(project).project_id
        history = list(service.history(pid))
        assert [a.text for a in service.asks(pid)] == [f"Rotate [purged] this week {ALLOWED}"]
    audit = history[-1]
    assert (audit.type, audit.actor) == ("project.purged", Actor.USER)
    assert isinstance(audit.event, HistoryPurged)
    positions = audit.event.positions
    assert audit.event == HistoryPurged(
        named="text",
        sha256=(hashlib.sha256(raw).hexdigest(),),
        positions=positions,
        reason="leaked key",
    )
    assert len(positions) >= 3
    assert all(SECRET not in repr(e.event) for e in history)
    assert [e.position for e in history if "[purged]" in repr(e.event)] == list(positions)


def test_only_the_person_purges(orbital_db: str, project: Path, tmp_path: Path) -> None:
    _seed(project)
    lessons = project / "orbital" / "LESSONS.md"
    before = lessons.read_bytes()
    with Orbital.open(orbital_db) as service:
        pid = service.project(project).project_id
        with pytest.raises(Refused) as refused:
            service.purges.purge(
                pid, text=SECRET, reason="x", actor=Actor.AGENT, state=tmp_path / "state"
            )
        assert str(refused.value) == (
            "only the person purges history: run it with their Workbench token "
            "(ORBITAL_TOKEN or --token); nothing was changed"
        )
        assert any(SECRET in repr(e.event) for e in service.history(pid))
    code, out = _run("purge", "--text", SECRET, "--reason", "x", "--project", str(project))
    assert (code, out) == (
        1,
        "error: a purge is the person's alone: give their Workbench token in ORBITAL_TOKEN or "
        "--token (`orbital token create --audience workbench`)\n",
    )
    assert lessons.read_bytes() == before


def test_an_entry_or_an_event_can_be_named(orbital_db: str, project: Path) -> None:
    _seed(project)
    token = _person(orbital_db)
    with Orbital.open(orbital_db) as service:
        pid = service.project(project).project_id
        opened = next(e for e in service.history(pid) if e.type == "ask.opened")
    p = ("--project", str(project))
    code, out = _run("purge", "--event", str(opened.position), "--reason", "ask", *p, token=token)
    assert code == 0, out
    assert f"purged: 1 event ({opened.position})" in out.splitlines()
    with Orbital.open(orbital_db) as service:
        assert [a.text for a in service.asks(pid)] == ["[purged]"]
        entry = next(b.id for b in service.trust.beliefs(pid) if b.title.startswith("Deploy"))
    code, out = _run("purge", "--entry", entry, "--reason", "the entry", *p, token=token)
    assert code == 0, out
    lessons = (project / "orbital" / "LESSONS.md").read_text()
    assert "Deploy" not in lessons and "[purged]" in lessons
    assert "2. Keep CI green" in lessons


def test_events_stay_immutable_to_anything_but_a_purge(store_url: str, tmp_path: Path) -> None:
    """The triggers let an UPDATE through only for a position listed in ``purging`` and only
    of ``data``; DELETE stays refused."""
    with Orbital.open(store_url) as service:
        service.init_project(tmp_path)
        store = service.store
        for sql in (
            "UPDATE events SET data = '{}'",
            "DELETE FROM events",
            "INSERT INTO purging (position) SELECT position FROM events",
        ):
            statements = [sql] if "INSERT" not in sql else [sql, "UPDATE events SET type = 'x'"]
            with pytest.raises(Exception, match="immutable"), store.writing() as w:
                for statement in statements:
                    w._conn.run(statement)

        class Undo(Exception):
            pass

        with pytest.raises(Undo), store.writing() as w:
            w._conn.run("INSERT INTO purging (position) SELECT position FROM events")
            assert w._conn.run("UPDATE events SET data = data") >= 1
            raise Undo
