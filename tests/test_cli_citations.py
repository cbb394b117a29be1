"""``orbital entry confirm`` and ``orbital beliefs`` on an entry whose cited file changed
(issue 29), as the agent and as the person (``--as-user``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.cli import cli

ID = "parsing-lives-in-one-module"


@pytest.fixture
def run(orbital_db: str, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("ORBITAL_NOW", "2026-11-01T09:30:00Z")
    return CliRunner()


def _beliefs(run: CliRunner, project: str) -> list[tuple[str, str, list[str]]]:
    listed = run.invoke(cli, ["beliefs", "--project", project, "--json"], obj={})
    assert listed.exit_code == 0, listed.stderr
    return [(r["id"], r["state"], r["moved"]) for r in json.loads(listed.stdout)]


def test_the_agent_and_the_person_confirm_a_moved_citation(
    run: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = str(tmp_path)
    assert run.invoke(cli, ["init", "--project", project], obj={}).exit_code == 0
    (tmp_path / "src").mkdir()
    parse = tmp_path / "src" / "parse.py"
    parse.write_text("def parse(): ...\n")
    text = "## Parsing lives in one module\nChose: @file.src/parse.py parses.\n"
    wrote = run.invoke(cli, ["write", "DECISIONS.md", "--project", project], input=text, obj={})
    assert wrote.exit_code == 0, wrote.stderr
    parse.write_text("def parse(text): ...\n")
    lesson = "## Lint first\nAlways.\n"
    wrote = run.invoke(cli, ["write", "LESSONS.md", "--project", project], input=lesson, obj={})
    assert wrote.exit_code == 0, wrote.stderr
    moved = "@file.src/parse.py changed since 2026-11-01"
    assert _beliefs(run, project)[0] == (ID, "needs-check", [moved])
    table = run.invoke(cli, ["beliefs", "--project", project], obj={}, env={"COLUMNS": "200"})
    assert "needs-check" in table.stdout and moved in table.stdout

    done = run.invoke(cli, ["entry", "confirm", ID, "--project", project], obj={})
    assert done.exit_code == 0, done.stderr
    assert done.stdout == f"entry.cited {ID}\n"
    assert _beliefs(run, project)[0] == (ID, "held", [])
    again = run.invoke(cli, ["entry", "confirm", ID, "--project", project], obj={})
    assert again.stdout == f"{ID}: every citation matches the files as they are; nothing to do\n"

    parse.unlink()
    wrote = run.invoke(
        cli, ["write", "LESSONS.md", "--project", project], input=lesson + "And test.\n", obj={}
    )
    assert wrote.exit_code == 0, wrote.stderr
    gone = "@file.src/parse.py is gone since 2026-11-01"
    assert _beliefs(run, project)[0] == (ID, "needs-check", [gone])
    person = run.invoke(cli, ["token", "create", "--audience", "workbench"], obj={})
    monkeypatch.setenv("ORBITAL_TOKEN", person.stdout.splitlines()[-1])
    args = ["entry", "confirm", ID, "--as-user", "--project", project]
    assert run.invoke(cli, args, obj={}).exit_code == 0
    assert _beliefs(run, project)[0] == (ID, "held", [])
    history = run.invoke(cli, ["history", "--entry", ID, "--project", project, "--json"], obj={})
    rows = [json.loads(line) for line in history.stdout.splitlines()]
    assert [(r["event"]["type"], r["actor"]) for r in rows][-3:] == [
        ("entry.cited", "agent"),
        ("entry.citation_checked", "system"),
        ("entry.cited", "user"),
    ]
