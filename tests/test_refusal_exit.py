"""Issue 13 item 8: a refusal exits 4 from the CLI, whether the rules raised it or the write
only warned (a refused ``ask open``, an ASKS.md write whose every line was refused, a repeat
close); ``--json`` says ``"refused": true``. A write that took effect exits 0, also when some
of it was refused, and says ``"refused": false``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from orbital.cli import cli

REFUSED = 4


@pytest.fixture
def run(orbital_db: str, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("ORBITAL_NOW", "2026-11-01T09:30:00Z")
    return CliRunner()


@pytest.fixture
def project(run: CliRunner, tmp_path: Path) -> Path:
    assert run.invoke(cli, ["init", "--project", str(tmp_path)], obj={}).exit_code == 0
    return tmp_path


def _cli(run: CliRunner, project: Path, *args: str, stdin: str | None = None) -> Result:
    return run.invoke(cli, [*args, "--project", str(project)], input=stdin, obj={})


def _ask_id(result: Result) -> str:
    found = re.search(r"ask:([0-9a-f]{6})", result.output)
    assert found, result.output
    return found.group(1)


def _asks(project: Path) -> bytes:
    return (project / "orbital" / "ASKS.md").read_bytes()


def _events(run: CliRunner, project: Path) -> list[str]:
    listed = _cli(run, project, "history", "--json")
    return [json.loads(line)["event"]["type"] for line in listed.output.splitlines()]


def _dropped(run: CliRunner, project: Path, text: str) -> str:
    opened = _cli(run, project, "ask", "open", text)
    assert opened.exit_code == 0, opened.output
    ask_id = _ask_id(opened)
    drop = _cli(run, project, "ask", "drop", ask_id, "--quote", "not needed")
    assert drop.exit_code == 0, drop.output
    return ask_id


def test_a_refused_ask_open_exits_4_and_json_says_refused(run: CliRunner, project: Path) -> None:
    _dropped(run, project, "Ship the release notes")
    before, events = _asks(project), _events(run, project)
    again = _cli(run, project, "ask", "open", "Ship the release notes")
    assert again.exit_code == REFUSED, again.output
    assert again.stderr.startswith("warning: ") and "dropped" in again.stderr
    as_json = _cli(run, project, "ask", "open", "Ship the release notes", "--json")
    assert as_json.exit_code == REFUSED
    answer = json.loads(as_json.stdout)
    assert answer["refused"] is True and answer["events"][0]["type"] == "ask.open_refused"
    assert answer["warnings"] and "dropped" in answer["warnings"][0]
    assert _asks(project) == before
    assert _events(run, project) == [*events, "ask.open_refused", "ask.open_refused"]


def test_an_open_ask_repeated_exits_4(run: CliRunner, project: Path) -> None:
    assert _cli(run, project, "ask", "open", "Pick a licence").exit_code == 0
    before = _asks(project)
    again = _cli(run, project, "ask", "open", "Pick a licence")
    assert again.exit_code == REFUSED, again.output
    assert _asks(project) == before


@pytest.mark.parametrize(("command", "quote"), [("done", "shipped"), ("drop", "no")])
def test_closing_a_closed_ask_exits_4(
    run: CliRunner, project: Path, command: str, quote: str
) -> None:
    ask_id = _dropped(run, project, "Rename the package")
    before, events = _asks(project), _events(run, project)
    again = _cli(run, project, "ask", command, ask_id, "--quote", quote, "--json")
    assert again.exit_code == REFUSED, again.output
    answer = json.loads(again.stdout)
    assert answer["refused"] is True and answer["events"] == []
    assert answer["warnings"] == [f"ASKS.md: [{ask_id}] is already dropped — not closed again."]
    assert _asks(project) == before and _events(run, project) == events


def test_reopening_an_open_ask_exits_4(run: CliRunner, project: Path) -> None:
    ask_id = _ask_id(_cli(run, project, "ask", "open", "Write the changelog"))
    again = _cli(run, project, "ask", "reopen", ask_id, "--quote", "again")
    assert again.exit_code == REFUSED, again.output
    assert again.stderr == f"warning: ASKS.md: [{ask_id}] is already open.\n"


def test_the_person_repeating_an_open_ask_exits_4(
    run: CliRunner, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = run.invoke(cli, ["token", "create", "--audience", "workbench"], obj={})
    monkeypatch.setenv("ORBITAL_TOKEN", made.output.splitlines()[-1])
    first = run.invoke(
        cli, ["ask", "--as-user", "open", "Book the venue", "--project", str(project)], obj={}
    )
    assert first.exit_code == 0, first.output
    before = _asks(project)
    again = run.invoke(
        cli, ["ask", "--as-user", "open", "Book the venue", "--project", str(project)], obj={}
    )
    assert again.exit_code == REFUSED, again.output
    assert (
        again.stderr == "warning: ASKS.md: an open ask already has that text — not added again.\n"
    )
    assert _asks(project) == before


def test_an_asks_write_that_keeps_nothing_exits_4_and_a_partial_one_0(
    run: CliRunner, project: Path
) -> None:
    _dropped(run, project, "Ship the release notes")
    before = _asks(project).decode()
    refused = _cli(
        run, project, "write", "ASKS.md", "--json", stdin=before + "- open Ship the release notes\n"
    )
    assert refused.exit_code == REFUSED, refused.output
    assert json.loads(refused.stdout)["refused"] is True
    assert _asks(project).decode() == before
    partly = _cli(
        run,
        project,
        "write",
        "ASKS.md",
        "--json",
        stdin=before + "- open Ship the release notes\n- open Tag v1.0\n",
    )
    assert partly.exit_code == 0, partly.output
    answer = json.loads(partly.stdout)
    assert answer["refused"] is False and answer["warnings"]
    assert [e["type"] for e in answer["events"]] == ["ask.opened", "ask.open_refused"]


def test_ingest_exits_4_when_a_file_was_refused(run: CliRunner, project: Path) -> None:
    _dropped(run, project, "Ship the release notes")
    path = project / "orbital" / "ASKS.md"
    with path.open("a", encoding="utf-8") as f:
        f.write("- open Ship the release notes\n")
    ingested = _cli(run, project, "ingest", "ASKS.md", "--as", "agent")
    assert ingested.exit_code == REFUSED, ingested.output


def test_a_write_that_changes_nothing_and_says_nothing_is_not_a_refusal(
    run: CliRunner, project: Path
) -> None:
    same = _asks(project).decode()
    again = _cli(run, project, "write", "ASKS.md", "--json", stdin=same)
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout) == {
        "content": same,
        "warnings": [],
        "events": [],
        "refused": False,
        "held": [],
    }
