"""Export and import of a project's whole log (issue 27, finding 2): a project moved to
another store keeps its files byte for byte, its beliefs (disputed stays disputed; archived,
superseded and retracted entries survive), its history with ids, actors, sessions and times,
its as-of reads, its timezone, description and workspace; importing twice changes nothing,
and the file exported again is the same file. Each test on each backend; the SQLite to
PostgreSQL move the README describes needs ``ORBITAL_TEST_PG_URL``."""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import json
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import sqlalchemy as sa

from orbital.errors import InvalidInput, Refused
from orbital.events import Actor
from orbital.service import Audience, Orbital
from projections.history import summarize
from tests.conftest import PG_URL
from tests.seeded import seeded_project

DECISIONS = (
    b"## Use SQLite for the store\nChose: SQLite. Reason: embedded.\n\n"
    b"## Render PDFs with WeasyPrint\nChose: WeasyPrint.\n\n"
    b"## Deploy on Fridays\nChose: yes.\n"
)
POSTGRES = (
    b"\n## Use PostgreSQL for the store\nChose: PostgreSQL. Reason: several writers.\n"
    b"Supersedes: use-sqlite-for-the-store\n"
)
LESSONS = b"# Lessons\n\n1. Pin the dependencies.\n2. Test both backends.\n"


class Clock:
    def __init__(self, at: dt.datetime) -> None:
        self.at = at

    def now(self) -> dt.datetime:
        return self.at


def day(d: int, hour: int = 12) -> dt.datetime:
    return dt.datetime(2026, 9, d, hour, 0, tzinfo=dt.UTC)


def _schema_url(schema: str) -> str:
    url = sa.make_url(PG_URL)
    return url.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
        hide_password=False
    )


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL store (a schema of its own), or the test skipped with its reason."""
    if not PG_URL:
        pytest.skip("the SQLite to PostgreSQL move needs ORBITAL_TEST_PG_URL")
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(PG_URL.replace("postgresql://", "postgresql+psycopg://", 1))
    with admin.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield _schema_url(schema)
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def build_history(service: Orbital, project: str, clock: Clock, root: Path) -> str:
    """Eleven days of a project: decisions and lessons, a supersession, a dispute, a
    retraction, an editor archive, a hand-edit conflict kept beside, asks opened and closed,
    a description and a workspace with its context. Returns a Workbench token's secret."""
    memory = root / "orbital"
    service.workspaces.create("acme", timezone="Europe/Berlin", actor=Actor.AGENT)
    service.workspaces.join(project, "acme", actor=Actor.AGENT)
    service.workspaces.set_context(project, "Acme's billing platform.", actor=Actor.AGENT)
    service.workspaces.describe(project, "The invoicing service.", actor=Actor.AGENT)
    service.write_file(project, "DECISIONS.md", DECISIONS, actor=Actor.AGENT, session="s-1")
    service.write_file(project, "LESSONS.md", LESSONS, actor=Actor.AGENT, session="s-1")
    ask = service.ask_open(project, "Ship the invoice export", actor=Actor.AGENT, session="s-1")
    clock.at = day(3)
    text = (memory / "DECISIONS.md").read_bytes() + POSTGRES
    service.write_file(project, "DECISIONS.md", text, actor=Actor.AGENT, session="s-2")
    service.trust.act(project, "deploy-on-fridays", "dispute", "broke prod", actor=Actor.USER)
    clock.at = day(5)
    service.trust.act(project, "render-pdfs-with-weasyprint", "retract", "", actor=Actor.USER)
    service.editor_apply(
        project,
        json.dumps(
            {"archive": [{"file": "LESSONS.md", "id": "pin-the-dependencies", "pointer": ""}]}
        ),
    )
    ask_id = ask.events[0].stream.split(":", 1)[1]
    service.ask_close(project, ask_id, "done", "shipped", actor=Actor.USER)
    clock.at = day(7)
    path = memory / "LESSONS.md"
    path.write_bytes(path.read_bytes() + b"\nmy own note\n")
    service.regenerate(project, force=True)
    clock.at = day(9)
    service.ask_open(project, "Add a CSV export", actor=Actor.AGENT, session="s-3")
    issued = service.credentials.create(Audience.WORKBENCH.value, label="laptop")
    clock.at = day(11)
    return issued.token


def observed(service: Orbital, project: str, root: Path) -> dict[str, Any]:
    """Everything a person reads of the project: files on disk, beliefs, history (without
    positions, which are each store's), as-of reads at several moments, the view, the
    timezone, the description and the workspace."""
    files = {p.name: p.read_bytes() for p in sorted((root / "orbital").iterdir())}
    names = [n for n in files if n.endswith(".md") and ".conflict-" not in n]
    as_of: dict[str, Any] = {}
    for moment in (day(2), day(4), day(6, 0), day(8), dt.date(2026, 9, 5)):
        as_of[str(moment)] = {
            "files": {n: service.read_file(project, n, as_of=moment) for n in names},
            "beliefs": msgspec.to_builtins(service.trust.beliefs(project, as_of=moment)),
            "view": service.context_view(project, as_of=moment),
        }
    history = [
        (
            e.event_id,
            e.stream,
            e.version,
            e.type,
            e.actor,
            e.session,
            e.recorded_at,
            summarize(e.event),
        )
        for e in service.history(project)
    ]
    found = service.project_by_id(project)
    return {
        "files": files,
        "beliefs": msgspec.to_builtins(service.trust.beliefs(project)),
        "history": history,
        "as_of": as_of,
        "view": service.context_view(project),
        "timezone": found.timezone,
        "registered_at": found.registered_at,
        "texts": [
            service.workspaces.read(project, "description").text,
            service.workspaces.read(project, "context").text,
            service.workspaces.read(project, "context").workspace,
        ],
    }


def export(service: Orbital, project: str | None) -> bytes:
    return b"".join(service.export_log(project))


def moved(source: Path, target: Path) -> None:
    """A checkout of the project elsewhere: the committed files copied (a clone)."""
    shutil.copytree(source, target)


def test_a_project_moves_to_another_store_and_back_the_same(
    store_url: str, second_url: str, tmp_path: Path
) -> None:
    clock = Clock(day(1))
    root = tmp_path / "p"
    with seeded_project(store_url, root, clock) as (service, project):
        secret = build_history(service, project, clock, root)
        before = observed(service, project, root)
        exported = export(service, project)
    assert before["beliefs"] and {b["state"] for b in before["beliefs"]} == {
        "held",
        "disputed",
        "superseded",
        "retracted",
    }
    lines = gzip.decompress(exported).decode().splitlines()
    assert json.loads(lines[0]) == {"format": "orbital-log", "version": 1, "scope": "project"}
    secret_part = secret.split("_", 2)[2]
    plain = gzip.decompress(exported).decode()
    assert secret_part not in plain
    assert hashlib.sha256(secret_part.encode()).hexdigest() not in plain
    assert [json.loads(line)["kind"] for line in lines[1:3]] == ["project", "credential"]

    clone = tmp_path / "clone"
    moved(root, clone)
    with Orbital.open(second_url, clock=clock) as target:
        report = target.import_log(clone, [exported])
        events = [line for line in lines[1:] if json.loads(line)["kind"] == "event"]
        assert (report.imported, report.present) == (len(events), 0)
        assert [c.label for c in report.credentials] == ["laptop"]
        assert report.warnings == [] and report.conflicts == []
        head = target.head()
        after = observed(target, project, clone)
        mtimes = {p.name: p.stat().st_mtime_ns for p in (clone / "orbital").iterdir()}
        again = target.import_log(clone, [exported])
        assert (again.imported, again.present) == (0, report.imported)
        assert target.head() == head
        assert {p.name: p.stat().st_mtime_ns for p in (clone / "orbital").iterdir()} == mtimes
        assert gzip.decompress(export(target, project)).decode().splitlines() == lines
        assert export(target, project) == exported
        assert target.credentials.verify(secret) is None  # tokens do not travel
    assert after == before


def test_sqlite_to_postgresql_then_export_again_gives_the_same_file(
    tmp_path: Path, pg_url: str
) -> None:
    clock = Clock(day(1))
    root = tmp_path / "p"
    with seeded_project(f"sqlite:///{tmp_path / 'solo.db'}", root, clock) as (solo, project):
        build_history(solo, project, clock, root)
        before = observed(solo, project, root)
        exported = export(solo, project)
    with Orbital.open(pg_url, clock=clock) as team:
        team.import_log(root, [exported])
        assert team.store_backend == "postgresql"
        assert observed(team, project, root) == before
        assert export(team, project) == exported
    # The tables it filled have the planner's statistics (never analyzed: reltuples < 0).
    engine = sa.create_engine(pg_url)
    try:
        with engine.connect() as conn:
            tuples = {
                table: conn.scalar(
                    sa.text(f"SELECT reltuples FROM pg_class WHERE oid = '{table}'::regclass")
                )
                for table in ("events", "streams")
            }
    finally:
        engine.dispose()
    assert all(n is not None and n > 0 for n in tuples.values()), tuples


def test_an_import_beside_newer_projects_keeps_as_of_reads(
    store_url: str, second_url: str, tmp_path: Path
) -> None:
    """Positions are the store's: imported events land after a project recorded later, and
    every as-of read of either project still finds its own moment."""
    clock = Clock(day(1))
    root = tmp_path / "p"
    with seeded_project(store_url, root, clock) as (service, project):
        build_history(service, project, clock, root)
        before = observed(service, project, root)
        exported = export(service, project)
    clock.at = day(20)
    with seeded_project(second_url, tmp_path / "other", clock) as (target, other):
        target.write_file(other, "LESSONS.md", LESSONS, actor=Actor.AGENT)
        clock.at = day(21)
        target.write_file(other, "LESSONS.md", LESSONS + b"3. Later.\n", actor=Actor.AGENT)
        then = target.read_file(other, "LESSONS.md", as_of=day(20, 18))
        moved(root, tmp_path / "clone")
        clock.at = day(11)
        target.import_log(tmp_path / "clone", [exported])
        assert target.head(project) > target.head(other)
        assert observed(target, project, tmp_path / "clone") == before
        assert target.read_file(other, "LESSONS.md", as_of=day(20, 18)) == then
        assert "3. Later." in target.read_file(other, "LESSONS.md", as_of=day(21, 18))


def test_a_store_export_holds_every_project_and_each_imports_its_own(
    store_url: str, second_url: str, tmp_path: Path
) -> None:
    clock = Clock(day(1))
    with seeded_project(store_url, tmp_path / "a", clock) as (service, a):
        service.write_file(a, "LESSONS.md", LESSONS, actor=Actor.AGENT)
        (tmp_path / "b").mkdir()
        b = service.init_project(tmp_path / "b", timezone="Asia/Tokyo").project_id
        service.write_file(b, "DECISIONS.md", DECISIONS, actor=Actor.AGENT)
        ids = {"a": a, "b": b}
        whole = export(service, None)
        alone = {n: export(service, ids[n]) for n in ids}
        files = {n: (tmp_path / n / "orbital").iterdir() for n in ids}
        disk = {n: {p.name: p.read_bytes() for p in found} for n, found in files.items()}
    lines = [json.loads(line) for line in gzip.decompress(whole).decode().splitlines()]
    assert lines[0]["scope"] == "store"
    assert [(x["id"], x["timezone"]) for x in lines if x.get("kind") == "project"] == sorted(
        [(a, "UTC"), (b, "Asia/Tokyo")]
    )
    with Orbital.open(second_url, clock=clock) as target:
        for name in ("b", "a"):
            moved(tmp_path / name, tmp_path / f"{name}2")
            report = target.import_log(tmp_path / f"{name}2", [whole])
            assert report.project.project_id == ids[name]
            copied = {p.name: p.read_bytes() for p in (tmp_path / f"{name}2" / "orbital").iterdir()}
            assert copied == disk[name]
        assert [p.project_id for p in target.projects()] == sorted(ids.values())
        assert target.names.all() == {a: "a", b: "b"}
        # each project's own file is the same; the store's holds the same lines, each
        # project's in its order (the projects' turns interleave as they were imported)
        assert {n: export(target, ids[n]) for n in ids} == alone
        again = gzip.decompress(export(target, None)).decode().splitlines()
        assert sorted(again) == sorted(gzip.decompress(whole).decode().splitlines())


def test_refusals_name_the_reason_and_import_nothing(
    store_url: str, second_url: str, tmp_path: Path
) -> None:
    clock = Clock(day(1))
    root = tmp_path / "p"
    with seeded_project(store_url, root, clock) as (service, project):
        service.write_file(project, "LESSONS.md", LESSONS, actor=Actor.AGENT)
        exported = export(service, project)
    header, rest = gzip.decompress(exported).split(b"\n", 1)
    newer = gzip.compress(header.replace(b'"version":1', b'"version":2') + b"\n" + rest)
    with Orbital.open(second_url, clock=clock) as target:
        with pytest.raises(InvalidInput) as too_new:
            target.import_log(root, [newer])
        assert str(too_new.value) == (
            "this log file is format version 2, newer than this Orbital reads (up to 1): "
            "upgrade Orbital, then import it; nothing was imported"
        )
        with pytest.raises(InvalidInput) as not_gzip:
            target.import_log(root, [b"not a log"])
        assert str(not_gzip.value) == "not an Orbital log file: it is not gzip-compressed"
        lines = gzip.decompress(exported).split(b"\n")
        lines[2] = lines[2].replace(b'"actor":"system"', b'"actor":"robot"')
        with pytest.raises(InvalidInput) as unreadable:
            target.import_log(root, [gzip.compress(b"\n".join(lines))])
        assert str(unreadable.value) == (
            "line 3 of the log file is not readable: 'robot' is not a valid Actor"
        )
        (tmp_path / "bare").mkdir()
        with pytest.raises(Refused) as bare:
            target.import_log(tmp_path / "bare", [exported])
        assert str(bare.value) == (
            f"{tmp_path / 'bare'} has no orbital/project-id: run `orbital import` in a "
            "checkout of the project (its committed orbital/project-id says which project it is)"
        )
        assert target.projects() == [] and target.head() == 0
        # the store went its own way after an import: an older file changes nothing, a file
        # that went another way is refused
        target.import_log(root, [exported])
        target.write_file(project, "LESSONS.md", LESSONS + b"3. Mine.\n", actor=Actor.AGENT)
        head = target.head()
        assert target.import_log(root, [exported]).imported == 0
    with Orbital.open(store_url, clock=clock) as service:
        service.write_file(project, "LESSONS.md", LESSONS + b"3. Theirs.\n", actor=Actor.AGENT)
        diverged = export(service, project)
    with Orbital.open(second_url, clock=clock) as target:
        with pytest.raises(Refused) as refused:
            target.import_log(root, [diverged])
        assert str(refused.value) == (
            f"this store's log of project {project} holds events the file does not (or in "
            "another order): the two have each moved on since the export, or the project was "
            "registered here anew. Nothing was imported"
        )
        assert target.head() == head


def test_a_file_holding_an_event_twice_is_refused_and_imports_nothing(
    store_url: str, second_url: str, tmp_path: Path
) -> None:
    clock = Clock(day(1))
    root = tmp_path / "p"
    with seeded_project(store_url, root, clock) as (service, project):
        service.write_file(project, "LESSONS.md", LESSONS, actor=Actor.AGENT)
        lines = gzip.decompress(export(service, project)).splitlines()
    doubled = gzip.compress(b"\n".join([*lines, lines[-1]]))
    with Orbital.open(second_url, clock=clock) as target:
        with pytest.raises(InvalidInput) as twice:
            target.import_log(root, [doubled])
        assert str(twice.value) == (
            "the log file holds an event twice, or one this store has in another project (an "
            "event's id is its own in a store): nothing was imported"
        )
        assert target.projects() == [] and target.head() == 0


def test_a_workspace_the_store_has_of_its_own_is_joined_not_overwritten(
    store_url: str, second_url: str, tmp_path: Path
) -> None:
    clock = Clock(day(1))
    root = tmp_path / "p"
    with seeded_project(store_url, root, clock) as (service, project):
        service.workspaces.create("acme", actor=Actor.AGENT)
        service.workspaces.join(project, "acme", actor=Actor.AGENT)
        service.workspaces.set_context(project, "Theirs.", actor=Actor.AGENT)
        exported = export(service, project)
    with Orbital.open(second_url, clock=clock) as target:
        target.workspaces.create("acme", timezone="Asia/Tokyo", actor=Actor.AGENT)
        report = target.import_log(root, [exported])
        assert report.warnings == [
            "this store has a workspace acme of its own: the file's history of it was not "
            "imported, and the project joined this store's"
        ]
        (acme,) = target.workspaces.workspaces()
        assert (acme.name, acme.timezone, acme.members) == ("acme", "Asia/Tokyo", (project,))
        assert target.workspaces.read(project, "context").text == ""
        again = target.import_log(root, [exported])
        assert again.imported == 0 and target.workspaces.workspaces() == [acme]
