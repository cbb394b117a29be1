"""``orbital entry dispute|retract|reaffirm`` and ``orbital beliefs`` on a temporary store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.cli import cli


@pytest.fixture
def run(orbital_db: str, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("ORBITAL_NOW", "2026-11-01T09:30:00Z")
    return CliRunner()


def test_the_agent_is_refused_and_the_person_retracts_with_as_user(
    run: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = str(tmp_path)
    assert run.invoke(cli, ["init", "--project", project], obj={}).exit_code == 0
    text = "## Deploy on Fridays\nChose: yes.\n"
    wrote = run.invoke(cli, ["write", "DECISIONS.md", "--project", project], input=text, obj={})
    assert wrote.exit_code == 0, wrote.output
    path = tmp_path / "orbital" / "DECISIONS.md"
    before = path.read_bytes()
    refused = run.invoke(
        cli, ["entry", "retract", "deploy-on-fridays", "--project", project], obj={}
    )
    assert refused.exit_code == 4
    assert refused.stderr == (
        "error: only the person can retract an entry (agent asked to retract "
        "'deploy-on-fridays'): an agent records what replaces it as a new entry with a line "
        "'Supersedes: deploy-on-fridays', and the person uses the Workbench or "
        "`orbital entry retract deploy-on-fridays --as-user`\n"
    )
    assert path.read_bytes() == before
    person = run.invoke(cli, ["token", "create", "--audience", "workbench"], obj={})
    monkeypatch.setenv("ORBITAL_TOKEN", person.stdout.splitlines()[-1])
    args = ["entry", "retract", "deploy-on-fridays", "--as-user", "--reason", "broke prod"]
    done = run.invoke(cli, [*args, "--project", project], obj={})
    assert done.exit_code == 0, done.stderr
    assert "entry.retracted deploy-on-fridays: broke prod" in done.stdout
    assert "retracted by the person (broke prod)" in path.read_text()
    listed = run.invoke(cli, ["beliefs", "--project", project, "--json"], obj={})
    rows = json.loads(listed.stdout)
    assert [(r["id"], r["state"], r["status"], r["reason"]) for r in rows] == [
        ("deploy-on-fridays", "retracted", "archived", "broke prod")
    ]
    held = run.invoke(cli, ["beliefs", "--project", project, "--state", "held", "--json"], obj={})
    assert json.loads(held.stdout) == []
    earlier = run.invoke(cli, ["beliefs", "--project", project, "--as-of", "@3", "--json"], obj={})
    assert [r["state"] for r in json.loads(earlier.stdout)] == ["held"]
    bad = run.invoke(cli, ["beliefs", "--project", project, "--in-force-at", "soon"], obj={})
    assert bad.exit_code == 1
    assert bad.stderr == "error: in force at a day, YYYY-MM-DD, not 'soon'\n"
