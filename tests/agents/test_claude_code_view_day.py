"""The view file Claude Code loads before its session-start hook runs, rendered on an earlier
day or behind the log: the hook says what differs (today's date and the asks as they stand
today, what changed since) without rendering the view, and a detached process brings the file
up to date. On both backends.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.agents.claude_code_hooks import view_day, view_position
from orbital.cli import cli
from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital
from tests.conftest import NOW

DAY2 = NOW + dt.timedelta(days=1)
#: The installed hook as Claude Code starts it (the ``orbital`` script is ``sys.argv[0]``, so
#: its detached process is started for real), printing the modules it imported.
ENTRY = (
    "import sys; sys.argv[0] = sys.argv.pop(1); from orbital.cli import main; main(); "
    "print(sorted(sys.modules), file=sys.stderr)"
)


@pytest.fixture
def project(orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ORBITAL_NOW", NOW.isoformat())
    for name in ("ORBITAL_EDITOR_URL", "ORBITAL_EDITOR_MODEL", "ORBITAL_EDITOR_KEY"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "project"
    root.mkdir()
    done = CliRunner().invoke(cli, ["init", "--project", str(root), "--timezone", "Europe/Berlin"])
    assert done.exit_code == 0, done.output
    return root


def _hook(event: str, payload: dict[str, object]) -> tuple[int, str]:
    done = CliRunner().invoke(cli, ["hook", "claude-code", event], input=json.dumps(payload))
    return done.exit_code, done.stdout


def _context(out: str) -> str:
    answer = json.loads(out)["hookSpecificOutput"]
    assert answer["hookEventName"] == "SessionStart"
    text: str = answer["additionalContext"]
    return text


def _start(root: Path, session: str) -> dict[str, object]:
    return {
        "hook_event_name": "SessionStart",
        "session_id": session,
        "cwd": str(root),
        "transcript_path": "",
        "source": "startup",
    }


def _open_two_asks(db: str, root: Path, clock: FixedClock) -> tuple[str, str, str]:
    """The project's id and two dated asks: one due on day 1, one the week after."""
    with Orbital.open(db, clock=clock) as service:
        pid = service.project(root).project_id
        due = service.ask_open(pid, "Send the invoice", "2026-09-19", actor=Actor.USER)
        later = service.ask_open(pid, "Book the venue", "2026-09-25", actor=Actor.USER)
    return (
        pid,
        due.events[0].stream.removeprefix("ask:"),
        later.events[0].stream.removeprefix("ask:"),
    )


def _install(root: Path) -> str:
    done = CliRunner().invoke(cli, ["install", "claude-code", "--project", str(root)])
    assert done.exit_code == 0, done.output
    return (root / ".claude" / "orbital-view.md").read_text(encoding="utf-8")


def test_the_first_session_of_a_day_is_told_the_date_and_the_asks_of_that_day(
    project: Path,
    orbital_db: str,
    clock: FixedClock,
    monkeypatch: pytest.MonkeyPatch,
    detached: list[list[str]],
) -> None:
    _, due, later = _open_two_asks(orbital_db, project, clock)
    day1 = _install(project)  # rendered on day 1
    assert "Today is 2026-09-19 (Saturday); dates and times are in Europe/Berlin." in day1
    assert f"[{due}] Send the invoice (due 2026-09-19)\n" in day1  # not overdue yet
    monkeypatch.setenv("ORBITAL_NOW", DAY2.isoformat())  # no event in between

    code, out = _hook("session-start", _start(project, "s1"))

    assert code == 0
    assert _context(out) == (
        "The memory view above (orbital-view.md) was rendered on 2026-09-19; as of today:\n"
        "Today is 2026-09-20 (Sunday); dates and times are in Europe/Berlin.\n"
        "\n"
        "Open asks (2):\n"
        f"[{due}] Send the invoice (due 2026-09-19, overdue)\n"
        f"[{later}] Book the venue (due 2026-09-25)"
    )
    # The file is brought up to date by the detached process, for day 2.
    assert detached == [["editor", "view-file", "--project", str(project)]]
    day2 = (project / ".claude" / "orbital-view.md").read_text(encoding="utf-8")
    assert (view_position(day2), view_day(day2)) == (view_position(day1), "2026-09-20")
    assert "Today is 2026-09-20 (Sunday); dates and times are in Europe/Berlin." in day2
    assert f"[{due}] Send the invoice (due 2026-09-19, overdue)\n" in day2
    # The day's next session loads that file: nothing to add, nothing to render.
    assert _hook("session-start", _start(project, "s2")) == (0, "")
    assert len(detached) == 1


def test_a_new_day_and_a_change_since_are_both_told(
    project: Path,
    orbital_db: str,
    clock: FixedClock,
    monkeypatch: pytest.MonkeyPatch,
    detached: list[list[str]],
) -> None:
    pid, due, later = _open_two_asks(orbital_db, project, clock)
    rendered_at = view_position(_install(project))
    monkeypatch.setenv("ORBITAL_NOW", DAY2.isoformat())
    with Orbital.open(orbital_db, clock=FixedClock(DAY2)) as service:
        service.ask_close(pid, later, "done", "booked for Friday", actor=Actor.USER)
        head = service.head(pid)

    code, out = _hook("session-start", _start(project, "s1"))

    assert code == 0
    assert _context(out) == (
        "The memory view above (orbital-view.md) was rendered on 2026-09-19; as of today:\n"
        "Today is 2026-09-20 (Sunday); dates and times are in Europe/Berlin.\n"
        "\n"
        "Open asks (1):\n"
        f"[{due}] Send the invoice (due 2026-09-19, overdue)\n"
        "\n"
        "Settled by the user in the last 7 days, in their words (a dropped one: never "
        "re-propose):\n"
        f'- done [{later}] Book the venue (2026-09-20): "booked for Friday"\n'
        "\n"
        "Orbital memory changed after orbital-view.md (the memory view above, as of "
        f"@{rendered_at}) was loaded; now @{head}:\n"
        f"- @{head} by the person (Workbench): ask {later} done (Book the venue) — their "
        'words: "booked for Friday"'
    )
    view = (project / ".claude" / "orbital-view.md").read_text(encoding="utf-8")
    assert (view_position(view), view_day(view)) == (head, "2026-09-20")


def test_a_view_file_behind_is_rendered_by_a_detached_process_not_the_hook(
    project: Path, orbital_db: str, clock: FixedClock
) -> None:
    """The hook process never loads the tokenizer; the process it leaves behind, started
    with the installed ``orbital``, writes the view at the head."""
    rendered_at = view_position(_install(project))
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(project).project_id
        written = service.write_file(
            pid, "DECISIONS.md", b"## Ship on Fridays\nChose: Friday.\n", actor=Actor.AGENT
        )
        head = service.head(pid)
    orbital = Path(sys.executable).with_name("orbital")
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, str(orbital), "hook", "claude-code", "session-start"],
        input=json.dumps(_start(project, "s1")).encode(),
        capture_output=True,
        check=True,
        timeout=120,
    )
    err = done.stderr.decode().strip().splitlines()
    assert not err[:-1], err  # nothing logged: the hook did not fail
    assert "tiktoken" not in {m.split(".")[0] for m in json.loads(err[-1].replace("'", '"'))}
    assert _context(done.stdout.decode()) == (
        "Orbital memory changed after orbital-view.md (the memory view above, as of "
        f"@{rendered_at}) was loaded; now @{head}:\n- @{written.events[0].position} by another "
        "agent session: decisions entry ship-on-fridays added: ## Ship on Fridays Chose: Friday."
    )
    view = project / ".claude" / "orbital-view.md"
    deadline = time.monotonic() + 90
    while view_position(view.read_text(encoding="utf-8")) != head:
        assert time.monotonic() < deadline, "the detached process never wrote the view"
        time.sleep(0.2)
    assert "## Ship on Fridays" in view.read_text(encoding="utf-8")


def test_a_detached_process_that_cannot_start_loses_nothing_of_the_answer(
    project: Path,
    orbital_db: str,
    clock: FixedClock,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    day1 = _install(project)

    def cannot(db: str | None, args: list[str]) -> None:
        raise OSError(24, "Too many open files")

    monkeypatch.setattr("orbital.cli._hook.start_detached", cannot)
    monkeypatch.setenv("ORBITAL_NOW", DAY2.isoformat())
    code, out = _hook("session-start", _start(project, "s1"))
    assert code == 0
    assert _context(out) == (
        "The memory view above (orbital-view.md) was rendered on 2026-09-19; as of today:\n"
        "Today is 2026-09-20 (Sunday); dates and times are in Europe/Berlin.\n"
        "\n"
        "Open asks: none (orbital/ASKS.md)"
    )
    assert (project / ".claude" / "orbital-view.md").read_text(encoding="utf-8") == day1
    log = (tmp_path / "state" / "hooks.log").read_text(encoding="utf-8")
    assert "session-start: OSError: [Errno 24] Too many open files\n" in log
