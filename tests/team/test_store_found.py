"""The project knows its store (issue 31): ``orbital init`` records, per user, which store a
project lives in; a hook and ``orbital mcp`` started in the project with no ``ORBITAL_DB`` use
that store; a clone whose store is not known is refused, never silently forked; a session
start whose store cannot be used tells the agent."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from orbital.cli import cli
from orbital.clock import FixedClock
from orbital.errors import ProjectElsewhere
from orbital.project import public_url, stores_knowing
from orbital.service import Orbital

ORBITAL = str(Path(sys.executable).parent / "orbital")
ENTRY = "from orbital.cli import main; main()"


def id_of(folder: Path) -> str:
    return (folder / "orbital" / "project-id").read_text("utf-8").strip()


def clone(source: Path, folder: Path) -> Path:
    (folder / "orbital").mkdir(parents=True)
    shutil.copy(source / "orbital" / "project-id", folder / "orbital" / "project-id")
    return folder


def bare_env(tmp_path: Path) -> dict[str, str]:
    """An environment as a terminal without ``ORBITAL_DB`` gives: the user's folders are this
    test's own."""
    env = {k: v for k, v in os.environ.items() if k != "ORBITAL_DB"}
    env["XDG_DATA_HOME"] = str(tmp_path / "xdg-data")  # the default store, if one is opened
    return env


def cli_in(args: list[str], db: str | None = None) -> tuple[int, str]:
    env = {"ORBITAL_DB": db} if db else None
    done = CliRunner().invoke(cli, args, obj={}, env=env)
    return done.exit_code, done.output


@pytest.fixture
def team(store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project registered by ``orbital init`` in the team's store, with one open ask."""
    monkeypatch.delenv("ORBITAL_DB", raising=False)
    root = tmp_path / "shop"
    root.mkdir()
    assert cli_in(["--db", store_url, "init", "--project", str(root)])[0] == 0
    assert (
        cli_in(["--db", store_url, "ask", "open", "pin the toolchain", "--project", str(root)])[0]
        == 0
    )
    return root


def test_init_records_the_store_without_its_password(
    team: Path, store_url: str, config_dir: Path
) -> None:
    assert stores_knowing(id_of(team)) == [public_url(store_url)]
    assert public_url("postgresql+psycopg://bob:s3cret@db.example:5432/team?sslmode=require") == (
        "postgresql+psycopg://bob@db.example:5432/team?sslmode=require"
    )
    assert "s3cret" not in (config_dir / "stores.json").read_text("utf-8")


def test_a_command_in_the_project_finds_its_store(team: Path, tmp_path: Path) -> None:
    code, output = cli_in(["asks", "--project", str(team)])
    assert code == 0, output
    assert "pin the toolchain" in output


def test_a_clone_whose_store_is_not_this_one_is_refused_not_forked(
    team: Path, store_url: str, tmp_path: Path
) -> None:
    other = f"sqlite:///{tmp_path / 'mine.db'}"
    mine = clone(team, tmp_path / "mine")
    before = id_of(mine)
    code, output = cli_in(["--db", other, "init", "--project", str(mine)])
    assert code == 1  # not found
    assert output == (
        f"error: {mine} is a checkout of project {before} (its orbital/project-id), which the "
        f"store {other} does not know; stores of yours that know it: {public_url(store_url)}: "
        f"{ProjectElsewhere.hint}\n"
    )
    with Orbital.open(other) as service:
        assert service.projects() == []  # nothing registered, nothing forked
    assert id_of(mine) == before
    code, output = cli_in(["--db", other, "asks", "--project", str(mine)])
    assert code == 1
    assert "orbital init --project" not in output
    assert f"which the store {other} does not know" in output
    # joining the team's store is `init` pointed at it; here, by the record alone
    code, output = cli_in(["init", "--project", str(mine)])
    assert (code, output) == (0, f"project shop at {mine} (id {id_of(mine)})\n")


def test_a_join_by_any_command_records_the_store(
    team: Path, store_url: str, tmp_path: Path, config_dir: Path
) -> None:
    (config_dir / "stores.json").unlink()
    mine = clone(team, tmp_path / "mine")
    code, output = cli_in(["--db", store_url, "asks", "--project", str(mine)])
    assert code == 0, output
    assert stores_knowing(id_of(mine)) == [public_url(store_url)]


def test_no_store_of_yours_knows_the_clone(team: Path, tmp_path: Path, config_dir: Path) -> None:
    (config_dir / "stores.json").unlink()  # another machine: the clone came through git
    mine = clone(team, tmp_path / "mine")
    with Orbital.open(f"sqlite:///{tmp_path / 'mine.db'}") as service:
        with pytest.raises(ProjectElsewhere) as refused:
            service.init(mine)
        assert refused.value.known == ()
        assert str(refused.value).endswith("no store of yours on this machine knows it")
        made = service.init(mine, new_project=True).project
        assert made.project_id == id_of(mine) != id_of(team)  # a new project's own id
        assert service.names.all() == {made.project_id: "mine"}
        assert stores_knowing(id_of(mine)) == [f"sqlite:///{tmp_path / 'mine.db'}"]


def _hook(
    slug: str, payload: dict[str, object], env: dict[str, str], agent: str = "claude-code"
) -> str:
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, "hook", agent, slug],
        input=json.dumps(payload).encode(),
        capture_output=True,
        check=True,
        timeout=120,
        env=env,
        cwd=str(payload["cwd"]),
    )
    return done.stdout.decode()


def _start(root: Path, session: str = "s1") -> dict[str, object]:
    return {
        "hook_event_name": "SessionStart",
        "session_id": session,
        "cwd": str(root),
        "transcript_path": str(root / f"{session}.jsonl"),
        "source": "startup",
    }


def _context(answer: str) -> str:
    return str(json.loads(answer)["hookSpecificOutput"]["additionalContext"])


def test_a_hook_without_orbital_db_uses_the_projects_store(team: Path, tmp_path: Path) -> None:
    answer = _hook("session-start", _start(team), bare_env(tmp_path))
    assert "pin the toolchain" in _context(answer)


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_a_session_start_whose_store_is_not_the_projects_tells_the_agent(
    agent: str, store_url: str, tmp_path: Path, clock: FixedClock
) -> None:
    root = tmp_path / "solo"
    root.mkdir()
    with Orbital.open(f"sqlite:///{tmp_path / 'solo.db'}", clock=clock) as service:
        service.init(root)
    Orbital.open(store_url, clock=clock).close()  # a store that does not know it
    env = {**bare_env(tmp_path), "ORBITAL_DB": store_url}
    answer = _hook("session-start", _start(root), env, agent)
    assert _context(answer) == (
        "Orbital: this project's memory is unavailable this session (project "
        f"{id_of(root)} of {root} is not in the store {public_url(store_url)}); memory files "
        "are not kept through Orbital now: tell the person to run `orbital doctor` here."
    )
    if agent == "codex":
        return
    log = (Path(os.environ["ORBITAL_STATE_DIR"]) / "hooks.log").read_text("utf-8")
    assert f"session-start: project {id_of(root)} of {root} is not in the store" in log


@pytest.mark.sqlite_only("a store file that is gone: SQLite's")
def test_a_session_start_whose_store_is_gone_tells_the_agent(tmp_path: Path) -> None:
    root = tmp_path / "solo"
    root.mkdir()
    db = tmp_path / "solo.db"
    with Orbital.open(f"sqlite:///{db}") as service:
        service.init(root)
    for path in tmp_path.glob("solo.db*"):
        path.unlink()
    answer = _hook("session-start", _start(root), bare_env(tmp_path))
    assert _context(answer) == (
        f"Orbital: this project's memory is unavailable this session (NoStore: there is no "
        f"store at {db}); memory files are not kept through Orbital now: tell the person to "
        "run `orbital doctor` here."
    )
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    assert _hook("session-start", _start(outside), bare_env(tmp_path)) == ""  # no project


def test_orbital_mcp_without_orbital_db_uses_the_projects_store(team: Path, tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=ORBITAL,
        args=["mcp", "--project", str(team)],
        env={
            "ORBITAL_CONFIG_DIR": os.environ["ORBITAL_CONFIG_DIR"],
            "ORBITAL_STATE_DIR": os.environ["ORBITAL_STATE_DIR"],
            "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
        },
    )

    async def main() -> None:
        async with Client(params, read_timeout_seconds=60) as client:
            listed = await client.call_tool("asks_list", {})
            assert not listed.is_error, listed.content
            assert "pin the toolchain" in json.dumps([c.model_dump() for c in listed.content])

    anyio.run(main)
