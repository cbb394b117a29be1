"""The view right after a change (issue 17): what a process keeps between views (the heads
read in one statement, the texts per version of the project's stream, the asks a write leaves,
the views themselves) never shows a stale view, whoever wrote, in this process or another."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital
from orbital.service import _outputs as output_store
from projections import Heads
from tests.service.conftest import TODAY, Env

USER = Actor.USER
ROOT = Path(__file__).resolve().parents[2]
#: Each kind of change the view shows, in the order the test makes them.
PARTS = ("description", "context", "lessons", "ask", "memory")
#: Runs :func:`main` in a new process (``python -c``, from the repository's root).
ENTRY = "from tests.service.test_view_after_change import main; main()"


def change(service: Orbital, project: str, part: str, text: str) -> None:
    """Write ``text`` as ``part`` of ``project`` (or of its workspace)."""
    ws = service.workspaces
    if part == "description":
        ws.describe(project, text, actor=USER)
    elif part == "context":
        ws.set_context(project, text, actor=USER)
    elif part == "lessons":
        ws.set_lessons(project, f"## 1. {text}\nKeep it.", actor=USER)
    elif part == "ask":
        service.ask_open(project, text, actor=USER)
    else:
        decisions = Path(service.store.project(project).root) / "orbital" / "DECISIONS.md"
        entry = f"\n## {text.lower().replace(' ', '-')}\nChose: {text}.\nReason: r.\nRejected: s.\n"
        service.write_file(
            project, "DECISIONS.md", decisions.read_bytes() + entry.encode(), actor=USER
        )


def change_by(
    writer: str, service: Orbital, store_url: str, project: str, part: str, text: str
) -> None:
    """:func:`change`, made by ``service`` ("this process") or by a new process."""
    if writer == "this process":
        change(service, project, part, text)
    else:
        args = [sys.executable, "-c", ENTRY, store_url, project, part, text]
        subprocess.run(args, cwd=ROOT, check=True, capture_output=True, timeout=120)


def main() -> None:
    """``python -c ENTRY URL PROJECT PART TEXT``: the change, made by another process."""
    url, project, part, text = sys.argv[1:5]
    with Orbital.open(url, clock=FixedClock(TODAY)) as service:
        change(service, project, part, text)


def fresh_views(url: str, project: str) -> tuple[str, str]:
    """The agent's and the sub-agent's views rendered by a service that kept nothing."""
    with Orbital.open(url, clock=FixedClock(TODAY)) as fresh:
        return fresh.context_view(project), fresh.context_view(project, audience="subagent")


@pytest.mark.parametrize("writer", ["this process", "another process"])
def test_each_change_shows_in_the_very_next_view(env: Env, store_url: str, writer: str) -> None:
    service, project = env.orbital, env.project
    service.workspaces.create("acme", actor=USER)
    service.workspaces.join(project, "acme", actor=USER)
    for part in PARTS:
        service.context_view(project)  # kept before the change
        service.context_view(project, audience="subagent")
        text = f"Marker {part} {writer.split()[0]}"
        change_by(writer, service, store_url, project, part, text)
        view = service.context_view(project)
        assert text in view, part
        assert (view, service.context_view(project, audience="subagent")) == fresh_views(
            store_url, project
        )


def test_views_stay_right_past_the_number_a_process_keeps(
    env: Env, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(output_store, "KEEP", 3)
    service, project = env.orbital, env.project
    windows = (None, 100_000, 150_000, 200_000, 250_000)  # more than it keeps
    for i in range(4):  # each change: the views by their head and by the commit count
        service.ask_open(project, f"Follow up {i}", actor=USER)
        with Orbital.open(store_url, clock=FixedClock(TODAY)) as fresh:
            for window in windows:
                view = service.context_view(project, window=window)
                assert f"Follow up {i}" in view
                assert view == service.context_view(project, window=window)
                assert view == fresh.context_view(project, window=window)


def test_the_heads_read_at_once_are_those_read_one_by_one(env: Env) -> None:
    service, project = env.orbital, env.project
    service.workspaces.create("acme", actor=USER)
    service.workspaces.join(project, "acme", actor=USER)
    change(service, project, "ask", "One more ask")
    change(service, project, "memory", "One more decision")
    with service.store.reader() as r:
        heads = Heads(r.category_heads(project))
        last = list(r.read_project(project))[-1]
        assert heads.event() == (last.position, last.event_id)
        for prefix in ("ask", "ask:", "asks", "entry:", "file:", "project", "project:", "x:"):
            assert heads.of(prefix) == r.prefix_head(project, prefix), prefix
        assert heads.of("entry:", "file:") == max(
            r.prefix_head(project, "entry:"), r.prefix_head(project, "file:")
        )
        assert Heads(r.category_heads("no-such-project")).event() == (0, "")


def test_a_write_of_one_file_keeps_the_others_mentions_and_views(env: Env, store_url: str) -> None:
    service, project = env.orbital, env.project
    decisions = "## use-postgres\nChose: PostgreSQL.\nReason: r.\nRejected: s.\n"
    service.write_file(project, "DECISIONS.md", decisions.encode(), actor=USER)
    lessons = "1. Follow @decision.use-postgres and @decision.use-redis.\n"
    service.write_file(project, "LESSONS.md", lessons.encode(), actor=USER)
    before = service.context_view(project)
    assert "- @decision.use-redis: not found in this project" in before
    redis = "\n## use-redis\nChose: Redis for the queue.\nReason: r.\nRejected: s.\n"
    service.write_file(project, "DECISIONS.md", (decisions + redis).encode(), actor=USER)
    view = service.context_view(project)  # LESSONS.md not rendered again, its mentions kept
    assert '- @decision.use-redis: decision "use-redis" (live) — orbital/DECISIONS.md' in view
    assert "Chose: Redis for the queue." in view
    assert view.count("1. Follow @decision.use-postgres") == 1
    assert view == fresh_views(store_url, project)[0]


@pytest.mark.parametrize("writer", ["this process", "another process"])
def test_a_view_kept_since_the_last_commit_is_never_one_from_before_it(
    env: Env, store_url: str, backend: str, writer: str
) -> None:
    """``kept_view`` (what the served ``GET …/context`` answers on its event loop) is the
    view itself while nothing was committed, and nothing at all once anything was."""
    service, project = env.orbital, env.project
    for part in ("ask", "memory"):
        view = service.context_view(project)
        kept = service.kept_view(service.project_by_id(project), window=None, audience="agent")
        # PostgreSQL has no commit count to trust: there every view is read.
        assert kept == (view if backend == "sqlite" else None)
        text = f"Marker {part} {writer.split()[0]}"
        change_by(writer, service, store_url, project, part, text)
        assert (
            service.kept_view(service.project_by_id(project), window=None, audience="agent") is None
        )
        assert text in service.context_view(project)
