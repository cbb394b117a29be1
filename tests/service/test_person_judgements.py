"""The person's judgements reach the agent (issue 28): a dispute, a retraction, a reaffirmation
and a supersession are in the next session's reminder (SessionStart's "what changed", each
UserPromptSubmit's) with the person's reason, and the view shows a reaffirmed entry as held;
a change the person made from the CLI is never told as made in the Workbench."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.cli import cli
from orbital.events import Actor
from orbital.service import Project
from tests.service.conftest import Env

SQLITE = "## Use SQLite for the store\nChose: SQLite.\nReason: embedded.\n"
POSTGRES = (
    "\n## Use PostgreSQL for the store\nChose: PostgreSQL.\nReason: several writers.\n"
    "Supersedes: use-sqlite-for-the-store\n"
)
OLD, NEW = "use-sqlite-for-the-store", "use-postgresql-for-the-store"


def project_of(env: Env) -> Project:
    return env.orbital.store.project(env.project)


def changes(reminder: str) -> list[str]:
    """The reminder's change lines, without their positions."""
    return [line.split(" ", 2)[2] for line in reminder.splitlines() if line.startswith("- @")]


def test_dispute_retract_and_reaffirm_reach_the_next_session_with_the_reason(
    env: Env, tmp_path: Path
) -> None:
    env.orbital.write_file(env.project, "DECISIONS.md", SQLITE.encode(), actor=Actor.AGENT)
    view_file = tmp_path / "orbital-view.md"
    agents = env.orbital.agents
    agents.start(project_of(env), "first", view_file)  # the view file the next session loads
    env.orbital.trust.act(env.project, OLD, "dispute", "we outgrew it", actor=Actor.USER)
    started = agents.start(project_of(env), "second", view_file)
    assert changes(started.context) == [
        f"by the person (Workbench): entry {OLD} disputed — their reason: we outgrew it"
    ]
    assert "[disputed by the person: we outgrew it]" in agents.view(project_of(env))

    env.orbital.trust.act(
        env.project, OLD, "reaffirm", "still fine for one writer", actor=Actor.USER
    )
    assert changes(agents.prompt(project_of(env), "second")) == [
        f"by the person (Workbench): entry {OLD} reaffirmed (held true again, no longer "
        "disputed) — their reason: still fine for one writer"
    ]
    assert "disputed" not in agents.view(project_of(env))

    env.orbital.trust.act(env.project, OLD, "retract", "it lost data", actor=Actor.USER)
    assert changes(agents.prompt(project_of(env), "second"))[0] == (
        f"by the person (Workbench): entry {OLD} retracted (wrong: out of the view) — their "
        "reason: it lost data"
    )


def test_a_supersession_by_another_session_reaches_this_one(env: Env) -> None:
    env.orbital.write_file(env.project, "DECISIONS.md", SQLITE.encode(), actor=Actor.AGENT)
    agents = env.orbital.agents
    agents.prompt(project_of(env), "watching")  # seen from now on
    text = (env.memory / "DECISIONS.md").read_text() + POSTGRES
    env.orbital.write_file(
        env.project, "DECISIONS.md", text.encode(), actor=Actor.AGENT, session="other"
    )
    assert (
        f"by another agent session: entry {OLD} superseded by {NEW} (out of the view)"
        in changes(agents.prompt(project_of(env), "watching"))
    )


def test_a_drop_made_with_the_cli_as_the_person_is_told_as_such(
    env: Env, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ask_id = env.orbital.ask_open(env.project, "Pick a date", actor=Actor.AGENT).events[0]
    agents = env.orbital.agents
    agents.prompt(project_of(env), "watching")
    monkeypatch.setenv("ORBITAL_DB", store_url)
    run = CliRunner()
    token = run.invoke(cli, ["token", "create", "--audience", "workbench"], obj={})
    monkeypatch.setenv("ORBITAL_TOKEN", token.stdout.splitlines()[-1])
    ask = ask_id.stream.removeprefix("ask:")
    args = ["ask", "--as-user", "drop", "--project", str(env.root), ask, "--quote", "not now"]
    dropped = run.invoke(cli, args, obj={})
    assert dropped.exit_code == 0, dropped.stderr
    assert changes(agents.prompt(project_of(env), "watching")) == [
        f'by the person (CLI, --as-user): ask {ask} dropped (Pick a date) — their words: "not now"'
    ]
    (row,) = env.orbital.asks(env.project, "dropped")
    assert row.closed_by == "user"
