"""`orbital session-end` on a file of short entries, end to end through the CLI (issue 13
items 9 and 10): it says truly what it did per file, with figures, and the view shows the
archive pointers as one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.catalogue import FILE_BUDGETS
from orbital.cli import cli
from orbital.domain.measure import measure_text
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
    run: CliRunner, tmp_path: Path
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
        "LESSONS.md: 12,951 → 4,587 tok (soft 5,000, target 4,000): 297 entries archived to "
        "LESSONS_ARCHIVE.md under 30 pointer lines"
    )
    lessons = (tmp_path / "orbital" / "LESSONS.md").read_text()
    assert measure_text(lessons, "lessons", count) <= FILE_BUDGETS["lessons"].soft
    body = lessons.splitlines()[1:]
    for i in (1, 2, 3):  # the oldest three stay
        assert body[i - 1].startswith(f"{i}. Run the {WORDS[i % 9]} check ")
    archive = (tmp_path / "orbital" / "LESSONS_ARCHIVE.md").read_text()
    assert archive.count("<!--mem id:") == 297

    view = _ok(run, "context", *at)
    assert "[archived " not in view
    assert "\n[297 LESSONS entries archived in orbital/LESSONS_ARCHIVE.md (ids " in view
    assert "omitted from this view" not in view  # every live lesson is shown
