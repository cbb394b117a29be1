"""Workspaces (issue 19): the texts' limits counted exactly, as-of reads of each text, the
view's order and budget with every part present, workspace lessons kept to their workspace,
and the time zone the view's date is given in."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from orbital.clock import FixedClock
from orbital.errors import NoWorkspace, Refused, TextTooLong, UnknownWorkspace, VersionConflict
from orbital.events import Actor
from orbital.service import Orbital
from orbital.tokens import CachedCounter
from projections.view_order import NO_DESCRIPTION
from tests.service.conftest import Env

DECISIONS = """## use-postgres
Chose: PostgreSQL for the shared store.
Reason: several people write at once.
Rejected: SQLite on a network share.
"""
USER = Actor.USER


def joined(env: Env, name: str = "acme", timezone: str = "") -> None:
    env.orbital.workspaces.create(name, timezone=timezone, actor=USER)
    assert env.orbital.workspaces.join(env.project, name, actor=USER)


def other_project(env: Env, name: str) -> str:
    root = env.root.parent / name
    root.mkdir()
    return env.orbital.init_project(root, timezone="UTC").project_id


@pytest.mark.parametrize(
    ("part", "limit"), [("context", 4000), ("description", 2000)], ids=["context", "description"]
)
def test_limits_are_counted_exactly_and_over_them_nothing_is_saved(
    env: Env, part: str, limit: int
) -> None:
    joined(env)
    ws = env.orbital.workspaces

    def save(text: str) -> list[str]:
        if part == "context":
            return ws.set_context(env.project, text, actor=USER).warnings
        return ws.describe(env.project, text, actor=USER).warnings

    # Markup and a mention marker count like any character: the text is what the agent reads.
    at_limit = "**Who:** " + "x" * (limit - 9 - 16) + " @lesson.nothing"
    assert len(at_limit) == limit
    save(at_limit)
    assert ws.read(env.project, part).text == at_limit
    head = env.orbital.head()
    with pytest.raises(TextTooLong) as refused:
        save(at_limit + "!")
    noun = "the workspace context of 'acme'" if part == "context" else "the description of"
    assert str(refused.value).startswith(noun)
    assert str(refused.value).endswith(
        f"is {limit + 1:,} characters, over its limit of {limit:,}: cut 1 character "
        "(nothing was saved)"
    )
    with pytest.raises(TextTooLong, match=r"cut 2 characters \(nothing was saved\)$"):
        save(at_limit + "!?")
    assert env.orbital.head() == head
    assert ws.read(env.project, part).text == at_limit


def test_each_text_reads_as_of_a_past_position(env: Env) -> None:
    joined(env)
    ws, pid = env.orbital.workspaces, env.project
    ws.describe(pid, "First description.", actor=USER)
    ws.set_context(pid, "First context.", actor=USER)
    ws.set_lessons(pid, "## 1. First lesson\nAlways run the tests.", actor=Actor.AGENT)
    first = env.orbital.head()
    ws.describe(pid, "Second description.", actor=USER)
    ws.set_context(pid, "Second context.", actor=USER)
    ws.set_lessons(pid, "## 1. Second lesson\nPin the clock.", actor=Actor.AGENT)
    assert ws.read(pid, "description", first).text == "First description."
    assert ws.read(pid, "context", first).text == "First context."
    assert ws.read(pid, "lessons", first).text == "## 1. First lesson\nAlways run the tests."
    assert ws.read(pid, "description").text == "Second description."
    assert ws.read(pid, "context").text == "Second context."
    assert ws.read(pid, "lessons").text == "## 1. Second lesson\nPin the clock."
    then = env.orbital.context_view(pid, as_of=first)
    assert "First context." in then and "First description." in then
    assert "First lesson" in then and "Second" not in then
    # A session that looked at `first` is told, in one line each, what changed since.
    lines, _ = env.orbital.agents.changes(env.orbital.project_by_id(pid), first, None)
    assert [line.split(": ", 1)[1] for line in lines] == [
        "the project description changed: Second description.",
        "workspace acme's context changed (`orbital describe --workspace --show`)",
        "workspace acme's lessons changed (`orbital workspace lessons --show`)",
    ]
    assert ws.read(pid, "description", 1).text == ""
    with pytest.raises(NoWorkspace):
        ws.read(pid, "context", 1)


def test_a_project_belongs_to_at_most_one_workspace(env: Env) -> None:
    joined(env)
    ws = env.orbital.workspaces
    assert not ws.join(env.project, "acme", actor=USER)
    ws.create("globex", actor=USER)
    with pytest.raises(Refused, match="belongs to workspace 'acme' already"):
        ws.join(env.project, "globex", actor=USER)
    with pytest.raises(UnknownWorkspace):
        ws.join(env.project, "nowhere", actor=USER)
    with pytest.raises(Refused, match="exists already"):
        ws.create("acme", actor=USER)
    assert [(w.name, w.members) for w in ws.workspaces()] == [
        ("acme", (env.project,)),
        ("globex", ()),
    ]
    # The reserved owner of the workspaces' streams is never a project.
    assert [p.project_id for p in env.orbital.projects()] == [env.project]


def test_workspace_lessons_reach_each_project_of_their_workspace_only(env: Env) -> None:
    joined(env)
    ws = env.orbital.workspaces
    sibling = other_project(env, "sibling")
    stranger = other_project(env, "stranger")
    ws.join(sibling, "acme", actor=USER)
    ws.create("globex", actor=USER)
    ws.join(stranger, "globex", actor=USER)
    version = ws.set_lessons(
        env.project, "## 1. ACME lesson\nShip on Tuesdays.", actor=USER
    ).version
    assert version is not None
    ws.set_lessons(stranger, "## 1. Globex lesson\nNever on Fridays.", actor=USER)
    assert "[WORKSPACE_LESSONS]\n## 1. ACME lesson" in env.orbital.context_view(sibling)
    assert "ACME" not in env.orbital.context_view(stranger)
    assert "Globex lesson" in env.orbital.context_view(stranger)
    assert ws.read(stranger, "lessons").text.startswith("## 1. Globex")
    # A writer over lessons changed since the version it read is refused.
    with pytest.raises(VersionConflict):
        ws.set_lessons(sibling, "## 1. Stale", actor=Actor.AGENT, base=version - 1)
    fresh = ws.set_lessons(sibling, "## 1. Fresh", actor=Actor.AGENT, base=version)
    assert fresh.version is not None and fresh.version > version
    assert [e.type for e in fresh.events] == [
        "workspace.lessons_set",
        "project.workspace_changed",
        "project.workspace_changed",
    ]


def test_the_view_shows_every_part_in_order_within_the_window_budget(
    store_url: str, tmp_path: Path
) -> None:
    # 23:30 UTC is already the next day in Berlin: the workspace's zone gives the date.
    clock = FixedClock(dt.datetime(2026, 9, 19, 23, 30, tzinfo=dt.UTC))
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text("Read me.\n")
    with Orbital.open(store_url, clock=clock, counter=CachedCounter()) as service:
        pid = service.init_project(root, timezone="UTC").project_id
        service.workspaces.create("acme", timezone="Europe/Berlin", actor=USER)
        service.workspaces.join(pid, "acme", actor=USER)
        service.write_file(pid, "DECISIONS.md", DECISIONS.encode(), actor=Actor.AGENT)
        big = "".join(
            f"## Decision {i}\nChose: option {i}.\nReason: {'we measured it. ' * 40}\n\n"
            for i in range(40)
        )
        service.write_file(
            pid, "DECISIONS.md", (DECISIONS + "\n" + big).encode(), actor=Actor.AGENT
        )
        service.workspaces.set_context(pid, "CONTEXT: for ACME, formal tone. " * 100, actor=USER)
        service.workspaces.describe(
            pid, "DESCRIPTION: a billing tool, see @decision.use-postgres. " * 30, actor=USER
        )
        lessons = "".join(f"## {i}. Lesson {i}\n{'Keep it small. ' * 30}\n\n" for i in range(60))
        service.workspaces.set_lessons(pid, lessons, actor=USER)
        opened = service.ask_open(pid, "Pick the invoice template", actor=Actor.AGENT)
        assert opened.warnings == []
        view = service.context_view(pid)
        window = 40_000
        small = service.context_view(pid, window=window)
        count = CachedCounter()

    marks = [
        "[Workspace acme]\nCONTEXT:",
        "[Project description]\nDESCRIPTION:",
        "Today is 2026-09-20 (Sunday); dates and times are in Europe/Berlin.",
        "Open asks (1):",
        "Mentioned (pointers, not copies",
        "[DECISIONS.md]",
        "[WORKSPACE_LESSONS]\n## 0. Lesson 0",
    ]
    for shown in (view, small):
        places = [shown.index(mark) for mark in marks]
        assert places == sorted(places), places
        # The pointer names the decision and where to read it, and does not copy it.
        assert (
            '- @decision.use-postgres: decision "use-postgres" (live) — orbital/DECISIONS.md'
            in (shown)
        )
        assert shown.count("Rejected: SQLite on a network share.") == 1
    assert NO_DESCRIPTION not in view
    assert count(small) <= window / 4
    assert count(view) > window / 4
    assert "older workspace lessons trimmed from this view" in small


def test_the_view_date_is_in_the_workspace_zone_else_the_project_zone(
    store_url: str, tmp_path: Path
) -> None:
    clock = FixedClock(dt.datetime(2026, 9, 19, 23, 30, tzinfo=dt.UTC))
    root = tmp_path / "project"
    root.mkdir()
    with Orbital.open(store_url, clock=clock) as service:
        pid = service.init_project(root, timezone="America/New_York").project_id
        assert "Today is 2026-09-19 (Saturday); dates and times are in America/New_York." in (
            service.context_view(pid)
        )
        service.workspaces.create("acme", actor=USER)
        service.workspaces.join(pid, "acme", actor=USER)
        assert "dates and times are in America/New_York." in service.context_view(pid)
        service.workspaces.create("tokyo", timezone="Asia/Tokyo", actor=USER)
        other = tmp_path / "other"
        other.mkdir()
        oid = service.init_project(other, timezone="UTC").project_id
        service.workspaces.join(oid, "tokyo", actor=USER)
        assert "Today is 2026-09-20 (Sunday); dates and times are in Asia/Tokyo." in (
            service.context_view(oid, audience="subagent")
        )
