"""``orbital doctor`` names each problem it is shown, with the command that fixes it, and says
how bad by its exit status (issue 31)."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from pathlib import Path
from typing import NamedTuple

import pytest
from click.testing import CliRunner

from orbital.cli import cli
from orbital.cli._hook import executable
from orbital.project import public_url


def doctor(*args: str, db: str | None = None) -> tuple[int, str]:
    done = CliRunner().invoke(cli, [*(["--db", db] if db else []), "doctor", *args], obj={})
    return done.exit_code, done.output


def run(*args: str) -> str:
    done = CliRunner().invoke(cli, list(args), obj={})
    assert done.exit_code == 0, done.output
    return done.output


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own state folder: the hooks' log is read."""
    folder = tmp_path / "state"
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(folder))
    return folder


@pytest.fixture
def project(orbital_db: str, tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    run("init", "--project", str(root))
    run("install", "claude-code", "--project", str(root))
    return root


def test_a_sound_project_has_no_problems(project: Path, orbital_db: str) -> None:
    assert doctor("--project", str(project)) == (
        0,
        f"no problems found (store {public_url(orbital_db)})\n",
    )


def test_each_seeded_problem_is_named_with_its_fix(
    project: Path, orbital_db: str, tmp_path: Path, config_dir: Path
) -> None:
    me = executable()
    settings = project / ".claude" / "settings.local.json"
    settings.write_text(settings.read_text("utf-8").replace(me, "/opt/old/bin/orbital"), "utf-8")
    with (project / "orbital" / "LESSONS.md").open("a", encoding="utf-8") as file:
        file.write("\n## Hand-written\nA lesson typed in.\n")
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"orbital": {"command": "/nowhere/orbital", "args": ["mcp"]}}}),
        "utf-8",
    )
    stamp = dt.datetime.now(dt.UTC).isoformat()
    log = Path(os.environ["ORBITAL_STATE_DIR"]) / "hooks.log"
    log.write_text(
        f"2020-01-01T00:00:00+00:00 prompt: old news\n{stamp} session-start: NoStore: gone\n"
        f"{stamp} Traceback (most recent call last):\n  File x\n",
        "utf-8",
    )
    (config_dir / "stores.json").write_text(
        json.dumps({"projects": {_id(project): ["sqlite:////elsewhere.db"]}}), "utf-8"
    )
    store = public_url(orbital_db)
    code, output = doctor("--project", str(project))
    assert output.splitlines() == [
        f"warning: project: this user's record names sqlite:////elsewhere.db for project shop, "
        f"not {store}: an agent started without ORBITAL_DB will not find its memory; fix: "
        f"ORBITAL_DB={store} orbital init --project {project}",
        f"warning: project: the memory files at {project} are changed by hand: LESSONS.md; "
        f"fix: orbital sync --project {project}",
        f"error: agent claude-code: .claude/settings.local.json calls another orbital than {me}; "
        f"fix: orbital install claude-code --project {project}",
        "error: mcp: .mcp.json: server 'orbital' runs /nowhere/orbital, which is not found; fix: "
        "put orbital on the PATH, or edit .mcp.json",
        "warning: state: the hooks logged 1 problems in 7 days, the last: "
        f"{stamp} session-start: NoStore: gone; fix: read {log}, then remove it",
    ]
    assert code == 2
    code, output = doctor("--project", str(project), "--json")
    found = json.loads(output)
    assert (code, found["status"], found["store"]) == (2, 2, store)
    assert [(p["severity"], p["area"]) for p in found["problems"]] == [
        ("warning", "project"),
        ("warning", "project"),
        ("error", "agent claude-code"),
        ("error", "mcp"),
        ("warning", "state"),
    ]
    (project / ".claude" / "settings.local.json").unlink()
    assert doctor("--project", str(project))[1].splitlines()[2] == (
        "error: agent claude-code: .claude/settings.local.json is missing; "
        f"fix: orbital install claude-code --project {project}"
    )


def _id(folder: Path) -> str:
    return (folder / "orbital" / "project-id").read_text("utf-8").strip()


def test_a_clone_of_a_project_this_store_does_not_know(
    project: Path, orbital_db: str, tmp_path: Path
) -> None:
    other = f"sqlite:///{tmp_path / 'mine.db'}"
    run("--db", other, "db", "upgrade")  # the store exists, and knows no project
    clone = tmp_path / "clone"
    shutil.copytree(project / "orbital", clone / "orbital")
    code, output = doctor("--project", str(clone), db=other)
    assert (code, output) == (
        2,
        f"error: project: {clone} is a checkout of project {_id(project)}, which the store "
        f"{other} does not know; fix: ORBITAL_DB={public_url(orbital_db)} orbital init\n",
    )


def test_a_folder_of_no_project(orbital_db: str, tmp_path: Path) -> None:
    run("db", "upgrade")
    assert doctor("--project", str(tmp_path)) == (
        1,
        f"warning: project: {tmp_path} is in no Orbital project; fix: orbital init\n",
    )


@pytest.mark.sqlite_only("a store file that is missing, and the SQLite library: SQLite's")
def test_the_store_missing_its_sqlite_and_its_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "orbital.db"
    code, output = doctor("--project", str(tmp_path), db=f"sqlite:///{db}")
    assert (code, output) == (
        2,
        f"error: store: cannot open the store sqlite:///{db}: there is no store at {db}; fix: "
        "`orbital init` creates one there, or point ORBITAL_DB / --db at the existing one\n",
    )
    monkeypatch.setenv("ORBITAL_DB", f"sqlite:///{db}")
    root = tmp_path / "p"
    root.mkdir()
    run("init", "--project", str(root))
    monkeypatch.setattr("orbital.service._doctor.has_wal_reset_fix", lambda version: False)

    class Usage(NamedTuple):
        total: int
        used: int
        free: int

    monkeypatch.setattr("shutil.disk_usage", lambda path: Usage(10**9, 10**9 - 2**20, 2**20))
    import pysqlite3.dbapi2 as driver

    code, output = doctor("--project", str(root))
    assert (code, output.splitlines()) == (
        2,
        [
            f"error: store: SQLite {driver.sqlite_version} lacks the WAL-reset fix (3.51.3, "
            "3.50.7, 3.44.6): several processes writing one store may corrupt it; fix: "
            "reinstall Orbital (pip install --force-reinstall orbital-memory) to get its own "
            "SQLite",
            f"warning: store: only 1 MiB free on the disk of {tmp_path}; fix: free some space "
            "on that disk",
            "warning: state: only 1 MiB free on the disk of "
            f"{os.environ['ORBITAL_STATE_DIR']}; fix: free some space on that disk",
        ],
    )


def test_a_store_server_that_cannot_be_reached(tmp_path: Path) -> None:
    """No password is shown, and a store that cannot be reached is an error."""
    code, output = doctor(
        "--project", str(tmp_path), db="postgresql+psycopg://bob:pw@127.0.0.1:1/x"
    )
    assert code == 2
    assert output.startswith(
        "error: store: cannot open the store postgresql+psycopg://bob@127.0.0.1:1/x: cannot "
        "reach the store postgresql+psycopg://bob:***@127.0.0.1:1/x: "
    )
    assert output.endswith(
        "; fix: check ORBITAL_DB / --db and that the database server is running\n"
    )
    assert "pw" not in output
