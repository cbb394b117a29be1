"""Project ids are the committed identity, folder names only display names (issue 31,
finding 4: after ``invoicer/`` was moved away, a new checkout became ``invoicer-2`` and the
Workbench listed two "invoicer…" projects). A new project's id is the random id in its
``orbital/project-id``; the folder's name (or ``--name``) is what every list shows, told apart
by a short id where two share it; a rename is an event; a store whose ids are slugs keeps them."""

from __future__ import annotations

import html
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from click.testing import CliRunner
from litestar.testing import TestClient

from orbital.cli import cli
from orbital.clock import FixedClock
from orbital.events import Actor, event_type
from orbital.http import HttpSettings, create_app
from orbital.project import this_machine
from orbital.service import Orbital
from orbital.store._engine import create_write_engine
from orbital.store._migrate import migrations_dir
from projections.workbench import project_labels
from tests.conftest import NOW
from tests.http.http_helpers import BASE_URL
from tests.http.test_workbench_page import sign_in


@pytest.fixture
def service(store_url: str, clock: FixedClock) -> Iterator[Orbital]:
    with Orbital.open(store_url, clock=clock) as opened:
        yield opened


def id_in(folder: Path) -> str:
    return (folder / "orbital" / "project-id").read_text("utf-8").strip()


def page_of(service: Orbital) -> str:
    """The Workbench page as the person sees it (every project in reach)."""
    person = service.credentials.create("workbench", label="me").token
    app = create_app(service, HttpSettings(max_body_bytes=64 * 1024))
    with TestClient(app, base_url=BASE_URL) as client:
        assert sign_in(client, person).status_code == 303
        return html.unescape(client.get("/workbench").text)


def test_a_new_checkout_where_a_moved_folder_was_is_another_project_told_apart_by_its_id(
    service: Orbital, tmp_path: Path
) -> None:
    work, old = tmp_path / "work" / "invoicer", tmp_path / "old" / "invoicer"
    work.mkdir(parents=True)
    first = service.init(work).project
    service.ask_open(first.project_id, "send the March invoices", actor=Actor.AGENT)
    old.parent.mkdir()
    work.rename(old)  # the folder moved away, and is used there
    assert service.project(old).project_id == first.project_id
    work.mkdir()  # a new repository, of another project, where it was
    second = service.init(work).project

    assert (first.project_id, second.project_id) == (id_in(old), id_in(work))
    assert all(re.fullmatch(r"[0-9a-f]{32}", p) for p in (first.project_id, second.project_id))
    assert first.project_id != second.project_id
    assert service.names.all() == {first.project_id: "invoicer", second.project_id: "invoicer"}
    clone = tmp_path / "clone" / "invoicer"  # a clone of the first: one project, not a third
    (clone / "orbital").mkdir(parents=True)
    shutil.copy(old / "orbital" / "project-id", clone / "orbital" / "project-id")
    assert service.init(clone).project.project_id == first.project_id
    assert sorted(p.project_id for p in service.projects()) == sorted(service.names.all())

    view = service.workbench(service.credentials.create("workbench").credential)
    labels = {p.project_id: p.label for p in view.projects}
    assert labels == {
        first.project_id: f"invoicer · {first.project_id[:8]}",
        second.project_id: f"invoicer · {second.project_id[:8]}",
    }
    assert [(a.project_id, a.text) for a in view.asks] == [
        (first.project_id, "send the March invoices")
    ]
    page = page_of(service)
    nav = re.search(r'<nav aria-label="Projects">(.*?)</nav>', page, re.S)
    assert nav is not None
    shown = re.findall(r">([^<]+)</a>", nav.group(1))
    assert shown[0] == "All projects" and sorted(shown[1:]) == sorted(labels.values())
    assert page.count("send the March invoices") == 1
    row = re.search(rf'<tr id="open-{first.project_id}-[^"]+">\s*<td class="project">([^<]+)', page)
    assert row is not None and row.group(1) == labels[first.project_id]


def test_a_rename_is_an_event_and_every_list_shows_the_new_name(
    orbital_db: str, tmp_path: Path
) -> None:
    runner = CliRunner()
    (tmp_path / "a" / "shop").mkdir(parents=True)
    (tmp_path / "b" / "shop").mkdir(parents=True)
    done = runner.invoke(cli, ["init", "--project", str(tmp_path / "a" / "shop")])
    pid = id_in(tmp_path / "a" / "shop")
    assert (done.exit_code, done.output) == (
        0,
        f"project shop at {tmp_path / 'a/shop'} (id {pid})\n",
    )
    named = runner.invoke(cli, ["init", "--name", "Shop B", "--project", str(tmp_path / "b/shop")])
    other = id_in(tmp_path / "b" / "shop")
    assert named.output == f"project Shop B at {tmp_path / 'b/shop'} (id {other})\n"

    renamed = runner.invoke(
        cli, ["project", "rename", "  Shop   A ", "--project", str(tmp_path / "a/shop")]
    )
    assert (renamed.exit_code, renamed.output) == (0, f"project {pid} is now called Shop A\n")
    again = runner.invoke(
        cli, ["project", "rename", "Shop A", "--project", str(tmp_path / "a/shop")]
    )
    assert again.output == f"project {pid} is already called Shop A\n"
    kept = runner.invoke(cli, ["init", "--name", "Other", "--project", str(tmp_path / "a/shop")])
    assert (kept.stdout, kept.stderr) == (
        f"project Shop A at {tmp_path / 'a/shop'} (id {pid})\n",
        "warning: the project is called Shop A already: `orbital project rename NAME` renames it\n",
    )
    empty = runner.invoke(cli, ["project", "rename", " \t", "--project", str(tmp_path / "a/shop")])
    assert (empty.exit_code, empty.output) == (
        1,
        "error: a project name needs a letter or digit, not ' \\t'\n",
    )
    listed = runner.invoke(cli, ["projects"]).output.splitlines()
    assert sorted(listed) == sorted(
        [
            f"{pid}\tShop A\t{tmp_path / 'a/shop'}\tlocal",
            f"{other}\tShop B\t{tmp_path / 'b/shop'}\tlocal",
        ]
    )
    with Orbital.open(orbital_db) as service:
        events = [(event_type(type(e.event)), e.actor) for e in service.history(pid)]
    assert events[0] == ("project.registered", Actor.SYSTEM)
    assert events[-1] == ("project.renamed", Actor.AGENT)
    # a person types a name where an id goes: one project of that name is that project
    token = runner.invoke(cli, ["token", "create", "--audience", "agent", "--project", "shop a"])
    assert token.output.startswith("token ") and "(agent; Shop A)" in token.output
    runner.invoke(cli, ["project", "rename", "Shop B", "--project", str(tmp_path / "a/shop")])
    both = runner.invoke(cli, ["token", "create", "--audience", "agent", "--project", "Shop B"])
    ids = ", ".join(sorted([pid, other], key=[p for p, *_ in map(str.split, listed)].index))
    assert (both.exit_code, both.output) == (
        1,
        f"error: 2 projects are called 'Shop B' (ids {ids}): name one by its id or its folder\n",
    )


def test_a_store_whose_ids_are_slugs_keeps_them_and_each_is_called_by_its_id(
    store_url: str, tmp_path: Path, clock: FixedClock
) -> None:
    """A store made before issue 31: project ``shop`` (its id the slug of its folder's name)
    with its identity in the folder's id file. It upgrades, and nothing about it changes."""
    folder, identity = tmp_path / "shop", "0123456789abcdef0123456789abcdef"
    (folder / "orbital").mkdir(parents=True)
    (folder / "orbital" / "project-id").write_text(f"{identity}\n", "utf-8")
    at = NOW.replace(tzinfo=None)
    engine = create_write_engine(store_url)
    try:
        with engine.connect() as conn:
            config = Config()
            config.set_main_option("script_location", str(migrations_dir()))
            config.attributes["connection"] = conn
            command.upgrade(config, "0011")
            for statement, values in [
                (
                    "INSERT INTO projects (project_id, root, timezone, registered_at, identity)"
                    " VALUES ('shop', :root, '', :at, :identity)",
                    {"root": str(folder), "at": at, "identity": identity},
                ),
                (
                    "INSERT INTO checkouts (checkout_id, project_id, machine, root, registered_at)"
                    " VALUES ('shop', 'shop', :machine, :root, :at)",
                    {"machine": this_machine(), "root": str(folder), "at": at},
                ),
                (
                    "INSERT INTO events (position, project_id, stream, version, type, data, actor,"
                    " recorded_at, event_id) VALUES (1, 'shop', 'project', 1, 'project.registered',"
                    " :data, 'system', :at, 'e1')",
                    {"data": f'{{"type":"project.registered","root":"{folder}"}}', "at": at},
                ),
                (
                    "INSERT INTO streams (project_id, stream, version, last_position)"
                    " VALUES ('shop', 'project', 1, 1)",
                    {},
                ),
                (
                    "INSERT INTO heads (project_id, category, last_position)"
                    " VALUES ('shop', 'project', 1)",
                    {},
                ),
            ]:
                conn.execute(sa.text(statement), values)
            conn.commit()
    finally:
        engine.dispose()
    with Orbital.open(store_url, clock=clock) as service:  # upgraded at open
        found = service.project(folder)
        assert (found.project_id, found.checkout) == ("shop", "shop")
        assert service.names.all() == {"shop": "shop"}
        service.ask_open("shop", "ship the cart", actor=Actor.AGENT)
        assert [a.text for a in service.asks("shop", "open")] == ["ship the cart"]
        assert id_in(folder) == identity  # the id file is untouched
        view = service.workbench(service.credentials.create("workbench").credential)
        assert [(p.project_id, p.name, p.label) for p in view.projects] == [
            ("shop", "shop", "shop")
        ]
        assert service.names.rename("shop", "The shop", actor=Actor.USER)
        assert service.names.all() == {"shop": "The shop"}
        assert service.project("The shop").project_id == "shop"  # and by its id, as ever
        assert service.project("shop").project_id == "shop"
        exported = b"".join(service.export_log("shop"))
    with Orbital.open(f"sqlite:///{tmp_path / 'other.db'}", clock=clock) as elsewhere:
        clone = tmp_path / "clone"
        (clone / "orbital").mkdir(parents=True)
        shutil.copy(folder / "orbital" / "project-id", clone / "orbital" / "project-id")
        elsewhere.import_log(clone, [exported])
        assert elsewhere.names.all() == {"shop": "The shop"}  # as its events name it


def test_a_label_adds_a_short_id_only_where_names_clash_and_as_much_as_tells_them_apart() -> None:
    one, two = "0123456789ab" + "0" * 20, "0123456789ac" + "0" * 20
    assert project_labels({one: "Shop", two: "shop", "c" * 32: "cart"}) == {
        one: "Shop · 0123456789ab",
        two: "shop · 0123456789ac",
        "c" * 32: "cart",
    }
    assert project_labels({"invoicer": "invoicer", "invoicer-2": "invoicer"}) == {
        "invoicer": "invoicer · invoicer",
        "invoicer-2": "invoicer · invoicer-2",
    }
