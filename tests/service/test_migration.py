"""`orbital migrate-retractions`: legacy retractions and [user] lines into ask events."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from orbital.cli import cli
from orbital.events.asks import AskOpened
from orbital.service._asks_file import AsksFile
from tests.service.conftest import Env

LEGACY = (
    '- [5e55c9] "Decide if Multica DM precedes AionUi refresh." — retracted by user '
    "2026-07-26: \n"
    '- [r2] "发布会用中文还是英文" — retracted by user 2026-09-10: changed my mind\n'
    "this line is not a retraction\n"
)


def retractions(env: Env, text: str) -> Path:
    path = env.memory / "retractions.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_migration_appends_open_dropped_pairs_with_provenance(env: Env) -> None:
    path = retractions(env, LEGACY)
    report = env.orbital.migrate_retractions(env.project)
    assert (report.opened, report.dropped, report.already_migrated) == (2, 2, False)
    assert [(u.line, u.text) for u in report.unparsed] == [(3, "this line is not a retraction")]
    asks = {a.text: a for a in env.orbital.asks(env.project, "all")}
    legacy = asks["Decide if Multica DM precedes AionUi refresh."]
    assert (legacy.id, legacy.state, legacy.closed_by, legacy.updated.isoformat()) == (
        "5e55c9",
        "dropped",
        "user",
        "2026-07-26",
    )
    assert asks["发布会用中文还是英文"].note == "changed my mind"
    assert path.read_text(encoding="utf-8") == LEGACY  # never modified
    text = (env.memory / "ASKS.md").read_text()
    assert "- open 5e55c9 2026-07-26 Decide if Multica DM precedes AionUi refresh.\n" in text
    assert "- dropped 5e55c9 2026-07-26 by:user\n" in text
    opened = [e for e in env.orbital.history(env.project) if e.type == "ask.opened"]
    assert isinstance(opened[0].event, AskOpened) and opened[0].event.legacy is not None
    assert opened[0].event.legacy.legacy_id == "5e55c9"
    assert opened[0].actor.value == "system"


def test_a_second_run_appends_nothing_and_says_so(env: Env) -> None:
    retractions(env, LEGACY)
    env.orbital.migrate_retractions(env.project)
    head, asks_file = env.orbital.head(), env.file("ASKS.md")
    again = env.orbital.migrate_retractions(env.project)
    assert again.already_migrated is True
    assert (env.orbital.head(), env.file("ASKS.md")) == (head, asks_file)


def test_dry_run_prints_the_plan_and_appends_nothing(env: Env) -> None:
    retractions(env, LEGACY)
    head = env.orbital.head()
    report = env.orbital.migrate_retractions(env.project, dry_run=True)
    assert report.dry_run and report.opened == 2
    assert report.plan[0].startswith("ask:5e55c9: - open 5e55c9 2026-07-26 Decide if Multica")
    assert env.orbital.head() == head


def test_an_interrupted_run_resumes_without_duplicates(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [
        f'- [{i:06x}] "legacy item number {i}" — retracted by user 2026-08-01: reason {i}'
        for i in range(1200)
    ]
    retractions(env, "\n".join(lines) + "\n")
    original = AsksFile.write
    calls = {"n": 0}

    def crash_on_second_chunk(self: AsksFile, *args: Any, **kwargs: Any) -> str | Callable[[], str]:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError("disk full")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(AsksFile, "write", crash_on_second_chunk)
    with pytest.raises(OSError, match="disk full"):
        env.orbital.migrate_retractions(env.project)
    assert len(env.orbital.asks(env.project, "all")) == 500  # the first chunk landed whole
    monkeypatch.setattr(AsksFile, "write", original)
    report = env.orbital.migrate_retractions(env.project)
    assert report.opened == 700
    asks = env.orbital.asks(env.project, "all")
    assert len(asks) == 1200
    assert len({a.text for a in asks}) == 1200
    assert {a.state for a in asks} == {"dropped"}
    body = env.file("ASKS.md").decode().splitlines()[1:]
    assert len(body) == 2400


def test_user_lines_of_project_state_become_asks(env: Env) -> None:
    state = env.memory / "PROJECT_STATE.md"
    state.write_text("- Plain fact.\n- [user due:2026-10-01] Send the deck to Acme.\n")
    report = env.orbital.migrate_retractions(env.project)
    assert report.opened == 1
    (ask,) = env.orbital.asks(env.project)
    assert (ask.text, ask.due) == ("Send the deck to Acme.", "2026-10-01")
    live = state.read_text()
    assert "Send the deck" not in live
    assert "- Plain fact.\n" in live
    assert env.orbital.migrate_retractions(env.project).already_migrated


def test_cli_reports_unparsed_lines_and_the_second_run(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    retractions(env, LEGACY)
    monkeypatch.setenv("ORBITAL_DB", env.orbital.store.url)
    monkeypatch.setenv("ORBITAL_NOW", "2026-09-19T09:00:00Z")
    runner = CliRunner()
    args = ["migrate-retractions", "--project", str(env.root)]
    first = runner.invoke(cli, args, obj={})
    assert first.exit_code == 0, first.output
    assert first.stdout == "migrated: opened 2 ask(s), 2 of them dropped (6 events)\n"
    assert "warning: line 3 is not a retraction, left as is" in first.stderr
    second = runner.invoke(cli, args, obj={})
    assert second.stdout == "nothing to migrate: every legacy item is already an ask\n"


def test_an_impossible_legacy_date_is_refused_by_line_and_nothing_is_migrated(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27, finding 5: 2026-02-30 never silently becomes today's date."""
    text = (
        '- [5e55c9] "Decide if Multica DM precedes AionUi refresh." — retracted by user '
        "2026-07-26: fine\n"
        '- [a1b2c3] "Pick the venue" — retracted by user 2026-02-30: no longer needed\n'
    )
    path = retractions(env, text)
    head, asks_file = env.orbital.head(), env.file("ASKS.md")
    expected = (
        'retraction on line 2 ([a1b2c3] "Pick the venue"): 2026-02-30 is not a date; '
        "nothing was migrated: correct the date and run again"
    )
    monkeypatch.setenv("ORBITAL_DB", env.orbital.store.url)
    for dry in ([], ["--dry-run"]):
        done = CliRunner().invoke(
            cli, ["migrate-retractions", str(path), *dry, "--project", str(env.root)], obj={}
        )
        assert (done.exit_code, done.stderr) == (1, f"error: {expected}\n")
    assert (env.orbital.head(), env.file("ASKS.md")) == (head, asks_file)
    retractions(env, text.replace("2026-02-30", "2026-02-28"))
    report = env.orbital.migrate_retractions(env.project)
    assert (report.opened, report.dropped) == (2, 2)
    asks = {a.text: a for a in env.orbital.asks(env.project, "all")}
    assert asks["Pick the venue"].updated.isoformat() == "2026-02-28"
