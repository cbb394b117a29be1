"""Lessons from the person's corrections: the editor may add one only on the person's words in
the session (quote-checked as an agent's quotes are), marked as the editor's, and the person
disputes or retracts it like any entry."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from orbital.domain.budgets import est_tokens
from orbital.domain.editor.choices import Applied
from orbital.events import Actor
from orbital.events.editor import EditorRunStarted
from orbital.service import EditorReport
from tests.editor.helpers import write_jsonl
from tests.editor.test_editor_service import Env, MovableClock, ScriptedModel, use_model
from tests.seeded import seeded_project

NOW = dt.datetime(2026, 9, 19, 9, 0, tzinfo=dt.UTC)
SESSION = "f77185ab-9769-4e76-b999-a38fc6a02484"
CORRECTION = "No, don't pip install here: this project uses uv, always run uv sync first."
AGENT_SAID = "I will run pip install -r requirements.txt now."
LESSON = {
    "title": "Use uv, not pip",
    "text": "The agent ran pip install; the person said the project uses uv.\n"
    "Next time: run uv sync before anything else.",
    "session": SESSION,
    "quote": "this project uses uv, always run uv sync first",
}
LESSONS = "1. Test first.\nAlways.\n"
MARK = (
    "Proposed by the memory editor from the person's correction in session "
    f'{SESSION}: "this project uses uv, always run uv sync first"'
)


@pytest.fixture
def env(store_url: str, tmp_path: Path) -> Iterator[Env]:
    root = tmp_path / "project"
    with seeded_project(store_url, root, MovableClock(NOW), counter=est_tokens) as (service, pid):
        service.editor.mint_suffix = lambda: "beef"
        yield Env(service, pid, root)


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    """A Claude Code transcript (its row shape) where the person corrects the agent."""
    directory = tmp_path / "transcripts"
    write_jsonl(
        directory / f"{SESSION}.jsonl",
        [
            {"type": "user", "message": {"role": "user", "content": "set the project up"}},
            {"type": "assistant", "message": {"role": "assistant", "content": AGENT_SAID}},
            {"type": "user", "message": {"role": "user", "content": CORRECTION}},
        ],
    )
    return directory


def apply(env: Env, sessions: Path, *lessons: Mapping[str, object] | str) -> EditorReport:
    doc = json.dumps({"lessons": list(lessons)})
    return env.orbital.editor_apply(env.project, doc, sessions=sessions)


def test_a_lesson_on_the_persons_words_is_kept_marked_as_the_editors(
    env: Env, sessions: Path
) -> None:
    env.write("LESSONS.md", LESSONS)
    report = apply(env, sessions, LESSON)
    assert (report.outcome, report.rejected) == ("edited", [])
    assert report.applied == [
        Applied(kind="lesson", file="LESSONS.md", id="use-uv-not-pip", session=SESSION)
    ]
    assert env.file("LESSONS.md").endswith(
        "2. Use uv, not pip <!--mem id:use-uv-not-pip created:2026-09-19 touched:2026-09-19-->\n"
        "The agent ran pip install; the person said the project uses uv.\n"
        "Next time: run uv sync before anything else.\n"
        f"{MARK}\n"
    )
    created = [e for e in env.orbital.history(env.project) if e.type == "entry.created"]
    assert (created[-1].stream, created[-1].actor) == ("entry:use-uv-not-pip", Actor.EDITOR)
    assert MARK in env.orbital.context_view(env.project)
    # the person's Workbench row: the editor's words, made by the editor
    (row,) = [r for r in env.orbital.memory_entries(env.project) if r.id == "use-uv-not-pip"]
    assert MARK in row.text
    assert [(t.actor, t.type) for t in row.history] == [("editor", "entry.created")]
    # the person disputes it, then retracts it: out of the view, kept in history
    env.orbital.trust.act(env.project, "use-uv-not-pip", "dispute", "we use both", actor=Actor.USER)
    assert "[disputed by the person: we use both]" in env.orbital.context_view(env.project)
    env.orbital.trust.act(env.project, "use-uv-not-pip", "retract", "wrong", actor=Actor.USER)
    assert MARK not in env.orbital.context_view(env.project)
    # said again, it is refused: the person retracted it
    again = apply(env, sessions, LESSON)
    assert again.applied == []
    assert again.rejected == [
        'lessons "Use uv, not pip": it says again what use-uv-not-pip said, which is retracted'
    ]


def test_lessons_without_the_persons_words_are_refused_and_nothing_changes(
    env: Env, sessions: Path
) -> None:
    env.write("LESSONS.md", LESSONS)
    before = env.file("LESSONS.md")
    report = apply(
        env,
        sessions,
        {**LESSON, "quote": "I will run pip install"},  # the agent's words, not the person's
        {**LESSON, "quote": "this project uses poetry"},  # invented
        {**LESSON, "session": "../etc/passwd"},
        {**LESSON, "session": "no-such-session"},
        {**LESSON, "quote": ""},
        {**LESSON, "title": ""},
        {**LESSON, "title": "Test first", "quote": "always run uv sync first"},
        "a lesson",
    )
    assert report.rejected == [
        "lessons: not an object",
        'lessons "Use uv, not pip": "I will run pip install" is not in the user\'s messages '
        f"of this session ({SESSION})",
        'lessons "Use uv, not pip": "this project uses poetry" is not in the user\'s messages '
        f"of this session ({SESSION})",
        "lessons \"Use uv, not pip\": bad session '../etc/passwd'",
        'lessons "Use uv, not pip": "this project uses uv, always run uv sync first" is not in '
        "the user's messages of this session (no-such-session)",
        'lessons "Use uv, not pip": missing or oversized quote',
        'lessons "?": missing or oversized title or text',
        'lessons "Test first": LESSONS.md already has this lesson (test-first)',
    ]
    assert (report.outcome, report.applied) == ("no_change", [])
    assert env.file("LESSONS.md") == before


def test_at_most_three_lessons_a_pass(env: Env, sessions: Path) -> None:
    titles = ["Use uv", "Run uv sync first", "No pip here", "Never pip install"]
    report = apply(env, sessions, *({**LESSON, "title": t} for t in titles))
    assert [a.id for a in report.applied] == ["use-uv", "run-uv-sync-first", "no-pip-here"]
    assert report.rejected == ['lessons "Never pip install": at most 3 lessons a pass']


def test_the_session_end_pass_shows_the_ended_session_and_asks_for_lessons(
    env: Env, sessions: Path
) -> None:
    env.write("LESSONS.md", LESSONS)
    model = ScriptedModel([json.dumps({"lessons": [LESSON]})])
    use_model(env, model)
    assert env.orbital.editor_run(env.project, sessions=sessions).outcome == "not_needed"
    # nothing is over budget, but the session's corrections are reason enough to run
    report = env.orbital.editor_run(env.project, sessions=sessions, session=SESSION)
    assert [a.kind for a in report.applied] == ["lesson"]
    started = next(e.event for e in env.orbital.history(env.project) if e.stream == "editor")
    assert isinstance(started, EditorRunStarted) and started.trigger == "session_end"
    prompt = model.calls[0][1].content or ""
    assert f"SESSION THAT JUST ENDED: {SESSION}\n" in prompt
    assert f"=== SESSION {SESSION} ===\n" in prompt
    assert f"[user] {CORRECTION}" in prompt and f"[assistant] {AGENT_SAID}" in prompt
    # a pass of no ended session does not ask for lessons
    without = ScriptedModel(["{}"])
    use_model(env, without)
    env.orbital.editor.scheduler = type(env.orbital.editor.scheduler)(MovableClock(NOW))
    env.orbital.editor_run(env.project, sessions=sessions, force=True)
    assert "SESSION THAT JUST ENDED" not in (without.calls[0][1].content or "")
