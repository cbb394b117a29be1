"""Issue 13 item 12: a pinned clock (``ORBITAL_NOW``) earlier than the store's last event,
even another project's, is moved forward (the log's time never runs backwards), and says so
once on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.cli import cli

WARNING = (
    "warning: the pinned clock (ORBITAL_NOW) says 2026-10-01T00:00:00Z, earlier than the "
    "store's last event (2026-11-01T09:30:00Z); events are recorded at 2026-11-01T09:30:00Z "
    "instead, since the log's time never runs backwards. Pin a later time, or unset "
    "ORBITAL_NOW\n"
)


def test_a_pinned_clock_behind_the_store_warns_once(
    orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = CliRunner()
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    monkeypatch.setenv("ORBITAL_NOW", "2026-11-01T09:30:00Z")
    assert run.invoke(cli, ["init", "--project", str(first)], obj={}).exit_code == 0
    monkeypatch.setenv("ORBITAL_NOW", "2026-10-01T00:00:00Z")
    # Another project, and a command that appends several events in several transactions.
    made = run.invoke(cli, ["init", "--project", str(second)], obj={})
    assert made.exit_code == 0, made.output
    assert made.stderr == WARNING
    opened = run.invoke(cli, ["ask", "open", "Pick a name", "--project", str(second)], obj={})
    assert opened.exit_code == 0
    assert opened.stderr == WARNING
    listed = run.invoke(cli, ["history", "--project", str(second), "--json"], obj={})
    assert listed.stderr == ""  # a read moves nothing
    times = {json.loads(line)["recorded_at"] for line in listed.stdout.splitlines()}
    assert times == {"2026-11-01T09:30:00Z"}


def test_a_pinned_clock_at_or_after_the_last_event_says_nothing(
    orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = CliRunner()
    monkeypatch.setenv("ORBITAL_NOW", "2026-11-01T09:30:00Z")
    assert run.invoke(cli, ["init", "--project", str(tmp_path)], obj={}).exit_code == 0
    again = run.invoke(cli, ["ask", "open", "Pick a name", "--project", str(tmp_path)], obj={})
    assert again.exit_code == 0 and again.stderr == ""
