"""``orbital workspace create``, ``init --workspace``, ``describe [--workspace]``,
``workspace lessons`` and ``show --ref`` on a temporary store (issue 19)."""

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


def test_texts_over_their_limit_exit_non_zero_and_save_nothing(
    run: CliRunner, tmp_path: Path
) -> None:
    project = str(tmp_path)
    created = run.invoke(cli, ["workspace", "create", "acme", "--timezone", "Asia/Tokyo"], obj={})
    assert created.exit_code == 0, created.output
    joined = run.invoke(cli, ["init", "--project", project, "--workspace", "acme"], obj={})
    assert joined.exit_code == 0, joined.output
    assert joined.stdout.endswith("joined workspace acme\n")

    def describe(*args: str, text: str | None = None) -> tuple[int, str, str]:
        done = run.invoke(cli, ["describe", "--project", project, *args], input=text, obj={})
        return done.exit_code, done.stdout, done.stderr

    assert describe("--workspace", text="w" * 4000)[0] == 0
    assert describe(text="d" * 2000)[0] == 0
    code, _, err = describe("--workspace", text="w" * 4001)
    assert (code, err) == (
        1,
        "error: the workspace context of 'acme' is 4,001 characters, over its limit of 4,000: "
        "cut 1 character (nothing was saved)\n",
    )
    code, _, err = describe(text="d" * 2001)
    assert code == 1 and err.endswith("cut 1 character (nothing was saved)\n")
    assert describe("--workspace", "--show") == (0, "w" * 4000 + "\n", "")
    assert describe("--show") == (0, "d" * 2000 + "\n", "")
    shown = json.loads(describe("--show", "--json", "--as-of", "@1")[1])
    assert shown == {"text": "", "version": 0, "workspace": ""}

    lessons = run.invoke(
        cli,
        ["workspace", "lessons", "--project", project],
        input="1. Run the tests first.\n",
        obj={},
    )
    assert lessons.exit_code == 0, lessons.output
    view = run.invoke(cli, ["context", "--project", project], obj={}).stdout
    assert view.index("[Workspace acme]\nwww") < view.index("[Project description]\nddd")
    assert "Today is 2026-11-01 (Sunday); dates and times are in Asia/Tokyo." in view
    assert view.rstrip().endswith("[WORKSPACE_LESSONS]\n1. Run the tests first.")


def test_show_ref_returns_what_a_mention_points_at(run: CliRunner, tmp_path: Path) -> None:
    project = str(tmp_path)
    (tmp_path / "NOTES.txt").write_text("The notes.\n")
    assert run.invoke(cli, ["init", "--project", project], obj={}).exit_code == 0
    text = "## use-postgres\nChose: PostgreSQL.\nReason: see @file.NOTES.txt and @lesson.404.\n"
    wrote = run.invoke(cli, ["write", "DECISIONS.md", "--project", project], input=text, obj={})
    assert wrote.exit_code == 0
    assert wrote.stderr == (
        "warning: DECISIONS.md: @lesson.404 names nothing in this project (an id that does "
        "not exist, or a file outside the project): kept as written, shown as not found\n"
    )

    def show(ref: str) -> tuple[int, str, str]:
        done = run.invoke(cli, ["show", "--ref", ref, "--project", project], obj={})
        return done.exit_code, done.stdout, done.stderr

    assert show("@file.NOTES.txt") == (0, "The notes.\n", "")
    code, out, _ = show("@decision.use-postgres")
    assert code == 0 and out.startswith("## use-postgres\nChose: PostgreSQL.\n")
    assert show("@file.../outside")[0] == 1
    assert show("@lesson.404")[0] == 1
    neither = run.invoke(cli, ["show", "--project", project], obj={})
    assert (neither.exit_code, neither.stderr) == (
        1,
        "error: name a FILE or a --ref, one of the two\n",
    )
