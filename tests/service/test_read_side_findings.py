"""The read side answers like a fresh render, whatever a process kept: a nested clone of another
project is that project in every lane, a view whose mentioned file appeared since names it, and
each view is for today. Real processes for the CLI's kept reads, on each backend."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.cli import cli
from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital
from tests.service.conftest import TODAY, Env

MENTIONING = "\n## Helpers live apart\nChose: @file.src/helper.py holds them.\nReason: r.\n"
MISSING = "- @file.src/helper.py: not found in this project"
FOUND = "- @file.src/helper.py: file src/helper.py — src/helper.py"


def _orbital(*args: str) -> str:
    """``orbital ARGS`` in a new process (the environment's store, clock and state folder)."""
    done = subprocess.run(
        [sys.executable, "-c", "from orbital.cli import main; main()", *args],
        capture_output=True,
        check=True,
        timeout=120,
    )
    return done.stdout.decode()


def _init(root: Path, ask: str) -> None:
    root.mkdir(parents=True)
    assert CliRunner().invoke(cli, ["init", "--project", str(root)]).exit_code == 0
    opened = CliRunner().invoke(cli, ["ask", "open", ask, "--project", str(root)])
    assert opened.exit_code == 0, opened.output


@pytest.fixture
def cli_env(orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ORBITAL_NOW", "2026-09-19T09:30:00+00:00")
    return orbital_db


def _fresh_view(db: str, root: Path) -> str:
    """The view as a service that kept nothing renders it."""
    with Orbital.open(db) as service:
        return service.context_view(service.project(root).project_id) + "\n"


def test_a_nested_clone_of_another_project_is_that_project(cli_env: str, tmp_path: Path) -> None:
    outer, other = tmp_path / "outer", tmp_path / "b"
    _init(outer, "Ship the outer release")
    _init(other, "Review the other project")
    for _ in range(2):  # the second is the quick lane's kept view
        assert "Ship the outer release" in _orbital("context", "--project", str(outer))
    inner = outer / "inner" / "orbital"
    inner.mkdir(parents=True)
    shutil.copy(other / "orbital" / "project-id", inner / "project-id")
    view = _orbital("context", "--project", str(outer / "inner"))
    assert "Review the other project" in view
    assert "Ship the outer release" not in view
    assert view == _orbital("context", "--project", str(outer / "inner"))
    assert view == _fresh_view(cli_env, outer / "inner")


def test_a_mentioned_file_created_after_a_kept_view_is_found(cli_env: str, tmp_path: Path) -> None:
    root = tmp_path / "project"
    _init(root, "Tidy the helpers")
    where = ("--project", str(root))
    text = _orbital("show", "DECISIONS.md", *where) + MENTIONING
    written = CliRunner().invoke(cli, ["write", "DECISIONS.md", *where], input=text)
    assert written.exit_code == 0, written.output
    for _ in range(2):  # the second is the quick lane's kept view
        assert MISSING in _orbital("context", *where)
    (root / "src").mkdir()
    (root / "src" / "helper.py").write_text("def help() -> None: ...\n")
    view = _orbital("context", *where)
    assert FOUND in view and MISSING not in view
    assert view == _fresh_view(cli_env, root)
    (root / "src" / "helper.py").unlink()
    assert MISSING in _orbital("context", *where)


def test_a_service_view_follows_the_disk_and_the_day(env: Env, store_url: str) -> None:
    service, project = env.orbital, env.project
    text = service.read_file(project, "DECISIONS.md") + MENTIONING
    service.write_file(project, "DECISIONS.md", text.encode(), actor=Actor.AGENT)
    before = service.context_view(project)
    assert MISSING in before and before == service.context_view(project)
    (env.root / "src").mkdir()
    (env.root / "src" / "helper.py").write_text("x = 1\n")
    after = service.context_view(project)
    assert FOUND in after and MISSING not in after
    assert service.kept_view(service.project_by_id(project), window=None, audience="agent") in (
        None,
        after,
    )
    with Orbital.open(store_url, clock=FixedClock(TODAY)) as fresh:
        assert fresh.context_view(project) == after
    service.units.ctx.clock = FixedClock(TODAY.replace(day=22))  # a Tuesday, nothing written
    assert "Today is 2026-09-22 (Tuesday)" in service.context_view(project)
