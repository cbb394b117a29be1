"""`orbital session-end` on a file of short entries, end to end through the CLI (issue 13
items 9 and 10): it says truly what it did per file, with figures, and the view shows the
archive pointers as one line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.catalogue import FILE_BUDGETS
from orbital.cli import cli
from orbital.domain.measure import measure_text
from orbital.events import Actor
from orbital.grammar.pointers import pointer_ids
from orbital.service import Orbital
from orbital.tokens import CachedCounter

WORDS = ("cache", "schema", "deploy", "lint", "queue", "retry", "token", "index", "docker")
#: 300 one-line lessons: each shorter than an archive pointer naming it alone.
LESSONS = "".join(
    f"{i}. Run the {WORDS[i % 9]} check before the {WORDS[(i * 4) % 9]} step ({i})\n"
    for i in range(1, 301)
)


@pytest.fixture
def run(orbital_db: str, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("ORBITAL_NOW", "2026-11-01T09:30:00Z")
    return CliRunner()


def _ok(run: CliRunner, *args: str, stdin: str | None = None) -> str:
    result = run.invoke(cli, list(args), input=stdin, obj={})
    assert result.exit_code == 0, result.output
    return result.stdout


def test_three_hundred_one_line_lessons_end_within_their_soft_budget(
    run: CliRunner, orbital_db: str, tmp_path: Path
) -> None:
    at = ("--project", str(tmp_path))
    _ok(run, "init", *at)
    assert _ok(run, "session-end", *at) == "nothing to do: every file is within its soft budget\n"
    _ok(run, "write", "LESSONS.md", *at, stdin=LESSONS)
    count = CachedCounter()
    lessons = (tmp_path / "orbital" / "LESSONS.md").read_text()
    assert measure_text(lessons, "lessons", count) > FILE_BUDGETS["lessons"].soft
    view = _ok(run, "context", *at)
    assert "older LESSONS entries omitted from this view" in view

    out = _ok(run, "session-end", *at).splitlines()
    assert "nothing to do" not in "\n".join(out)
    assert out[-1] == (
        "LESSONS.md: 12,951 → 3,999 tok (soft 5,000, target 4,000): 217 entries archived to "
        "LESSONS_ARCHIVE.md under 11 pointer lines"
    )
    lessons = (tmp_path / "orbital" / "LESSONS.md").read_text()
    assert measure_text(lessons, "lessons", count) <= FILE_BUDGETS["lessons"].soft
    body = lessons.splitlines()[1:]
    for i in (1, 2, 3):  # the oldest three stay
        assert body[i - 1].startswith(f"{i}. Run the {WORDS[i % 9]} check ")
    # 83 stay live: the 4,000 tok target less 11 pointer lines (~38 tok of visible text each;
    # their ids are in comments budgets leave out) leaves room for 83 lessons of ~43 tok
    assert sum(1 for line in body if LIVE.match(line)) == 83
    pointers = [line for line in body if line.startswith("[archived 2026-11-01] ")]
    assert len(pointers) == 11
    assert pointers[0].startswith(
        "[archived 2026-11-01] 20 LESSONS entries: Run the queue check before the index step "
        "(4); Run the retr… → LESSONS_ARCHIVE.md <!--ids "
    )
    archive = (tmp_path / "orbital" / "LESSONS_ARCHIVE.md").read_text()
    assert archive.count("<!--mem id:") == 217
    assert _named(lessons) == _archived_ids(archive)  # every archived entry is named live

    view = _ok(run, "context", *at)
    assert "[archived " not in view and "<!--ids" not in view
    assert "omitted from this view" not in view  # every live lesson is shown
    assert sum(1 for line in view.splitlines() if LIVE.match(line)) == 83
    assert "\n[217 LESSONS entries archived in orbital/LESSONS_ARCHIVE.md (ids " in view

    member, head = _named(pointers[0])[1], _named(pointers[1])[0]
    with Orbital.open(orbital_db) as service:
        project = service.project(tmp_path).project_id
        for entry_id in (member, head):
            service.entry_action(project, entry_id, "restore", actor=Actor.USER)
    lessons = (tmp_path / "orbital" / "LESSONS.md").read_text()
    archive = (tmp_path / "orbital" / "LESSONS_ARCHIVE.md").read_text()
    assert sum(1 for line in lessons.splitlines() if LIVE.match(line)) == 85
    assert member not in _archived_ids(archive) and head not in _archived_ids(archive)
    assert _named(lessons) == _archived_ids(archive)  # the rest of both groups still named


LIVE = re.compile(r"^\d+\. Run the ")


def _named(text: str) -> list[str]:
    return [i for line in text.splitlines() for i in pointer_ids(line)]


def _archived_ids(archive: str) -> list[str]:
    """The ids in the archive, in the order the pointer lines name them (file order)."""
    return re.findall(r"<!--mem id:(\S+)", archive)
