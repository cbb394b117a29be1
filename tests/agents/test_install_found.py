"""``orbital install`` with no agent named sets the project up for each agent found on this
machine: its command on PATH or its folder in the person's home."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.agents.detect import found
from orbital.cli import cli


def test_an_agent_is_found_by_its_command_or_its_folder() -> None:
    on_path = {"cursor-agent"}.__contains__
    assert found(on_path, {"claude-code": True}) == ["claude-code", "cursor"]
    assert found(lambda name: False, {}) == []


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home and a PATH of the test's own: nothing of this machine's agents is seen."""
    home, bin_dir = tmp_path / "home", tmp_path / "bin"
    home.mkdir()
    bin_dir.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.setenv("PATH", str(bin_dir))
    return home


def test_install_sets_up_each_agent_found(machine: Path, orbital_db: str, tmp_path: Path) -> None:
    (machine / ".claude").mkdir()
    cursor = tmp_path / "bin" / "cursor"
    cursor.write_text("#!/bin/sh\n", encoding="utf-8")
    cursor.chmod(0o755)
    project = tmp_path / "project"
    project.mkdir()
    assert CliRunner().invoke(cli, ["init", "--project", str(project)]).exit_code == 0

    done = CliRunner().invoke(cli, ["install", "--project", str(project)])
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert lines[:3] == [
        "found claude-code, cursor",
        "-- claude-code",
        "wrote .claude/settings.local.json",
    ]
    assert "-- cursor" in lines and "-- codex" not in lines
    assert (project / ".claude" / "settings.local.json").is_file()
    assert (project / ".cursor" / "mcp.json").is_file()
    assert (machine / ".cursor" / "hooks.json").is_file()
    assert not (machine / ".codex").exists()


def test_install_with_no_agent_found_says_how_to_name_one(
    machine: Path, orbital_db: str, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    assert CliRunner().invoke(cli, ["init", "--project", str(project)]).exit_code == 0
    before = sorted(p.name for p in project.iterdir())
    done = CliRunner().invoke(cli, ["install", "--project", str(project)])
    assert done.exit_code == 2
    assert done.output.splitlines()[-1] == (
        "Error: no coding agent found (no claude, codex or cursor on PATH, no ~/.claude, "
        "~/.codex or ~/.cursor): name one, e.g. `orbital install claude-code`"
    )
    assert sorted(p.name for p in project.iterdir()) == before
