"""Hand edits, history and as-of with real files on disk (issue: history, as-of, hand edits)."""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.cli import cli
from orbital.clock import FixedClock
from orbital.errors import Refused
from orbital.events import Actor
from orbital.service import HistoryQuery
from tests.service.conftest import Env

DECISIONS = (
    "## Use Postgres for storage\nChose: PostgreSQL.\nReason: teams.\n\n"
    "## Adopt Vite over Webpack\nChose: Vite.\nReason: speed.\n"
)


def write(env: Env, name: str, text: str) -> None:
    env.orbital.write_file(env.project, name, text.encode(), actor=Actor.AGENT)


def path(env: Env, name: str = "DECISIONS.md") -> Path:
    return env.memory / name


def test_a_hand_edit_and_an_agent_write_made_meanwhile_are_both_kept(env: Env) -> None:
    write(env, "DECISIONS.md", DECISIONS)
    opened_in_editor = path(env).read_text()  # the person opens the file…
    write(env, "DECISIONS.md", DECISIONS + "\n## Ship on Fridays\nChose: yes.\n")  # …agent adds
    path(env).write_text(opened_in_editor.replace("Reason: speed.", "Reason: speed and HMR."))
    report = env.orbital.sync(env.project)
    assert report.conflicts == []
    text = path(env).read_text()
    assert "Reason: speed and HMR." in text
    assert "## Ship on Fridays" in text
    revised = [e for e in env.orbital.history(env.project) if e.type == "entry.revised"]
    # The blank line the agent put after it is layout, not a revision (issue 13 item 6).
    assert [(e.stream, e.actor) for e in revised] == [
        ("entry:adopt-vite-over-webpack", Actor.FILE),
    ]


def test_the_same_entry_edited_both_ways_is_a_conflict_and_nothing_is_lost(env: Env) -> None:
    write(env, "DECISIONS.md", DECISIONS)
    opened_in_editor = path(env).read_text()
    write(env, "DECISIONS.md", DECISIONS.replace("Reason: speed.", "Reason: build speed."))
    mine = opened_in_editor.replace("Reason: speed.", "Reason: dev-server speed.")
    path(env).write_text(mine)
    projected = env.orbital.read_file(env.project, "DECISIONS.md")
    report = env.orbital.sync(env.project)
    (copy,) = report.conflicts
    assert (env.memory / copy).read_text() == mine  # byte-identical to what the person typed
    assert copy.startswith("DECISIONS.md.conflict-20260919T090000")
    assert path(env).read_text() == projected  # regenerated from events
    conflict = [e for e in env.orbital.history(env.project) if e.type.startswith("file.hand")]
    assert [e.type for e in conflict] == ["file.hand_edit_detected", "file.hand_edit_conflict"]
    assert any("saved as orbital/" + copy in w for w in report.warnings)


def test_sync_exits_3_on_a_conflict(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    write(env, "DECISIONS.md", DECISIONS)
    opened = path(env).read_text()
    write(env, "DECISIONS.md", DECISIONS.replace("speed.", "build speed."))
    path(env).write_text(opened.replace("speed.", "dev speed."))
    monkeypatch.setenv("ORBITAL_DB", env.orbital.store.url)
    monkeypatch.setenv("ORBITAL_NOW", "2026-09-19T09:00:00Z")
    result = CliRunner().invoke(cli, ["sync", "--project", str(env.root)], obj={})
    assert result.exit_code == 3
    assert "DECISIONS.md was edited outside Orbital" in result.stderr


def test_a_git_checkout_of_an_older_version_is_never_a_silent_revert(env: Env) -> None:
    write(env, "DECISIONS.md", DECISIONS)
    older = path(env).read_bytes()
    write(env, "DECISIONS.md", DECISIONS + "\n## Ship on Fridays\nChose: yes.\n")
    newer = path(env).read_bytes()
    head = env.orbital.head()
    path(env).write_bytes(older)  # git checkout HEAD~1 -- orbital/DECISIONS.md
    report = env.orbital.sync(env.project)
    assert path(env).read_bytes() == newer
    assert any("an older copy brought back" in w for w in report.warnings)
    types = [e.type for e in env.orbital.history(env.project)][head:]
    assert types == ["file.hand_edit_detected"]  # detected, nothing reverted


def test_an_editor_that_truncates_then_writes_is_not_a_deletion(env: Env) -> None:
    write(env, "DECISIONS.md", DECISIONS)
    before, head = path(env).read_bytes(), env.orbital.head()
    path(env).write_bytes(b"")  # the editor's first step
    env.orbital.sync(env.project)
    assert env.orbital.head() == head
    assert path(env).read_bytes() == before
    path(env).write_text(path(env).read_text().replace("Reason: teams.", "Reason: our teams."))
    env.orbital.sync(env.project)
    assert "Reason: our teams." in env.orbital.read_file(env.project, "DECISIONS.md")


def test_regenerate_refuses_an_unmerged_edit_unless_forced(env: Env) -> None:
    write(env, "DECISIONS.md", DECISIONS)
    projected = path(env).read_bytes()
    path(env).write_text(path(env).read_text() + "\nmy note\n")
    with pytest.raises(Refused) as refused:
        env.orbital.regenerate(env.project)
    assert str(refused.value).startswith("DECISIONS.md changed on disk since Orbital wrote it; ")
    assert "orbital sync" in refused.value.hint
    edited = path(env).read_bytes()
    (copy,) = env.orbital.regenerate(env.project, force=True)
    assert (env.memory / copy).read_bytes() == edited
    assert path(env).read_bytes() == projected


def test_as_of_renders_each_past_moment_exactly(env: Env) -> None:
    moments: list[tuple[dt.datetime, dict[str, bytes], str]] = []
    steps = [
        ("DECISIONS.md", DECISIONS),
        ("ASKS.md", "- open Choose the venue\n"),
        ("DECISIONS.md", DECISIONS.replace("teams.", "teams and scale.")),
        ("PROJECT_STATE.md", "## Now\n- Shipping the installer.\n"),
        ("DECISIONS.md", "## Only this one\nChose: x.\n"),
    ]
    for day, (name, text) in enumerate(steps, start=1):
        when = dt.datetime(2026, 11, day, 12, tzinfo=dt.UTC)
        env.orbital.clock = FixedClock(when)
        env.orbital.store.clock = FixedClock(when)
        env.orbital.units.ctx.clock = FixedClock(when)
        if name == "ASKS.md":
            text = path(env, "ASKS.md").read_text() + text
        write(env, name, text)
        files = {
            n: path(env, n).read_bytes() for n in ("DECISIONS.md", "ASKS.md", "PROJECT_STATE.md")
        }
        moments.append((when, files, env.orbital.context_view(env.project)))
    for when, files, view in moments:
        later = when + dt.timedelta(hours=3)
        for name, content in files.items():
            assert env.orbital.read_file(env.project, name, as_of=later).encode() == content
        assert env.orbital.context_view(env.project, as_of=later) == view


def test_history_of_an_entry_lists_every_revision_with_actors(env: Env) -> None:
    write(env, "DECISIONS.md", DECISIONS)
    write(env, "DECISIONS.md", DECISIONS.replace("teams.", "teams and scale."))
    path(env).write_text(path(env).read_text().replace("PostgreSQL.", "PostgreSQL 16."))
    env.orbital.sync(env.project)
    revisions = env.orbital.revisions(env.project, "use-postgres-for-storage")
    assert [(r.event.type, r.event.actor) for r in revisions] == [
        ("entry.created", Actor.AGENT),
        ("entry.revised", Actor.AGENT),
        ("entry.revised", Actor.FILE),
    ]
    assert "Chose: PostgreSQL 16.\nReason: teams and scale." in revisions[-1].text


def test_history_of_one_entry_honours_the_time_window(env: Env) -> None:
    def at(day: int) -> dt.datetime:
        return dt.datetime(2026, 11, day, 12, tzinfo=dt.UTC)

    for day, text in ((1, DECISIONS), (2, DECISIONS.replace("teams.", "teams and scale."))):
        env.orbital.store.clock = env.orbital.units.ctx.clock = FixedClock(at(day))
        write(env, "DECISIONS.md", text)
    env.orbital.ask_open(env.project, "Choose the venue", actor=Actor.AGENT)
    entry = "use-postgres-for-storage"

    def types(since: dt.datetime | None = None, until: dt.datetime | None = None) -> list[str]:
        query = HistoryQuery(since=since, until=until, entry=entry)
        return [e.type for e in env.orbital.history(env.project, query)]

    assert types() == ["entry.created", "entry.revised"]
    assert types(since=at(2)) == ["entry.revised"]
    assert types(until=at(1)) == ["entry.created"]
    assert types(until=at(2).replace(tzinfo=None)) == ["entry.created", "entry.revised"]
    assert types(since=at(2).astimezone(dt.timezone(dt.timedelta(hours=2)))) == ["entry.revised"]
    assert types(since=at(3)) == []


def test_history_cli_filters_and_diffs(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    write(env, "DECISIONS.md", DECISIONS)
    write(env, "DECISIONS.md", DECISIONS.replace("teams.", "teams and scale."))
    env.orbital.ask_open(env.project, "Choose the venue", actor=Actor.AGENT)
    monkeypatch.setenv("ORBITAL_DB", env.orbital.store.url)
    runner = CliRunner()
    base = ["history", "--project", str(env.root)]
    by_file = runner.invoke(cli, [*base, "--file", "decisions.md", "--json"], obj={})
    assert by_file.exit_code == 0, by_file.output
    assert '"ask:' not in by_file.output
    types = [json.loads(line)["event"]["type"] for line in by_file.output.splitlines()]
    assert types == ["entry.created", "entry.created", "file.layout_set", "entry.revised"]
    diff = runner.invoke(cli, [*base, "--entry", "use-postgres-for-storage", "--diff"], obj={})
    assert diff.exit_code == 0, diff.output
    assert "-Reason: teams.\n+Reason: teams and scale.\n" in diff.output
    no_entry = runner.invoke(cli, [*base, "--diff"], obj={})
    assert no_entry.exit_code == 1
    assert "add --entry ID" in no_entry.stderr


def test_the_watcher_takes_in_an_edit_once_the_file_is_stable(env: Env) -> None:
    from orbital.watcher import Watcher

    write(env, "DECISIONS.md", DECISIONS)
    messages: list[str] = []
    watcher = Watcher(env.orbital, messages.append, settle=0.1, debounce_ms=50)
    watcher.start()
    try:
        time.sleep(0.3)
        target = path(env)
        edited = target.read_text().replace("Reason: speed.", "Reason: watched.")
        target.write_text("")  # truncate first, like many editors
        threading.Timer(0.05, lambda: target.write_text(edited)).start()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if "Reason: watched." in env.orbital.read_file(env.project, "DECISIONS.md"):
                break
            time.sleep(0.1)
    finally:
        watcher.stop()
    assert "Reason: watched." in env.orbital.read_file(env.project, "DECISIONS.md")
    retired = [e for e in env.orbital.history(env.project) if e.type == "entry.retired"]
    assert retired == []
