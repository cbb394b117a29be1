"""``orbital search`` and the prompt's recall, end to end on both backends (issue 29): an
archived entry is found by a word of its body; filters, the past and clear refusals; what a
person types is never the engine's syntax; the prompt hook points at a matching archived
entry (once a session) and at nothing on an unrelated prompt."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from orbital.cli import cli
from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital
from tests.archived import LESSON, LESSON_ID, archive_the_lesson
from tests.conftest import NOW

ENTRY = "from orbital.cli import main; main()"
POINTER = (
    "Orbital recall: archived memory that matches this prompt:\n"
    f"- {LESSON} (archived; memory_get {LESSON_ID})"
)


@pytest.fixture
def root(
    orbital_db: str, tmp_path: Path, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """An installed project whose lesson about sessions was archived."""
    monkeypatch.setenv("ORBITAL_NOW", NOW.isoformat())
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))  # this test's sessions
    folder = tmp_path / "project"
    folder.mkdir()
    for command in ("init", "install claude-code"):
        done = CliRunner().invoke(cli, [*command.split(), "--project", str(folder)])
        assert done.exit_code == 0, done.output
    with Orbital.open(orbital_db, clock=clock) as service:
        archive_the_lesson(service, service.project(folder).project_id)
    return folder


def _run(root: Path, *args: str) -> tuple[int, str, str]:
    done = CliRunner().invoke(cli, ["search", "--project", str(root), *args])
    return done.exit_code, done.stdout, done.stderr


def test_an_archived_entry_is_found_by_a_word_of_its_body(root: Path) -> None:
    code, out, _ = _run(root, "expiry")
    assert code == 0
    assert out.splitlines()[:2] == [
        f"{LESSON_ID}  [archived, held]  LESSONS_ARCHIVE.md  2026-09-19 agent",
        f"    {LESSON}",
    ]
    code, out, _ = _run(root, "SESSIONS", "redis", "--json")
    (hit,) = json.loads(out)
    assert (hit["id"], hit["kind"], hit["state"], hit["where"]) == (
        LESSON_ID,
        "entry",
        "archived, held",
        "LESSONS_ARCHIVE.md",
    )
    assert (hit["text"], hit["actor"]) == (f"100. {LESSON}", "agent")


def test_filters_narrow_the_hits(root: Path) -> None:
    assert _run(root, "expiry", "--file", "LESSONS_ARCHIVE.md")[1].startswith(LESSON_ID)
    assert _run(root, "expiry", "--file", "DECISIONS.md")[1] == "nothing found\n"
    assert _run(root, "expiry", "--actor", "user")[1] == "nothing found\n"
    assert _run(root, "expiry", "--trust", "held")[1].startswith(LESSON_ID)
    assert _run(root, "expiry", "--since", "2026-09-20")[1] == "nothing found\n"
    assert _run(root, "expiry", "--until", "2026-09-20")[1].startswith(LESSON_ID)


def test_what_a_person_types_is_words_never_the_engines_syntax(root: Path) -> None:
    for typed in ('expiry"', "expiry*(", "(expiry))", "expiry:", "expiry -cache", "expiry & !"):
        code, out, err = _run(root, typed)
        assert (code, err) == (0, ""), typed
        assert out.startswith(LESSON_ID), typed
    assert _run(root, 'expiry" OR "docker')[1] == "nothing found\n"  # every word must match


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--", "  "], "error: the search '  ' has no word to look for (letters or digits)\n"),
        (["?!"], "error: the search '?!' has no word to look for (letters or digits)\n"),
        (
            ["x", "--trust", "doubted"],
            "error: trust must be one of held, disputed, superseded, retracted, not 'doubted'\n",
        ),
        (
            ["x", "--actor", "robot"],
            "error: actor must be one of user, agent, editor, system, file, not 'robot'\n",
        ),
        (["x", "--limit", "0"], "error: limit must be from 1 to 100, not 0\n"),
        (["x", "--since", "soon"], None),
        (["x", "--file", "NOTES.md"], None),
        (["x" * 201], "error: the search text is 201 characters; at most 200\n"),
    ],
)
def test_bad_input_is_refused_clearly(root: Path, args: list[str], message: str | None) -> None:
    code, out, err = _run(root, *args)
    assert (code, out) == (1, "")
    assert err == message if message else err.startswith("error: ")


def test_the_past_is_searched_when_asked(root: Path, orbital_db: str, clock: FixedClock) -> None:
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(root).project_id
        service.write_file(
            pid, "DECISIONS.md", b"## Queue\nChose: RabbitMQ for the jobs.\n", actor=Actor.AGENT
        )
        service.write_file(
            pid,
            "DECISIONS.md",
            b"## Queue\nChose: Redis streams for the jobs.\n",
            actor=Actor.AGENT,
        )
    assert _run(root, "rabbitmq")[1] == "nothing found\n"
    out = _run(root, "rabbitmq", "--all", "--json")[1]
    (hit,) = json.loads(out)
    assert (hit["id"], hit["kind"], hit["state"], hit["where"]) == (
        "queue",
        "version",
        "version",
        "history",
    )
    assert _run(root, "streams")[1].startswith("queue  [live, held]  DECISIONS.md")


def _hook(root: Path, prompt: str, session: str = "s1") -> str:
    """``orbital hook claude-code prompt`` as Claude Code starts it: a new process."""
    payload = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": session,
        "cwd": str(root),
        "transcript_path": str(root / f"{session}.jsonl"),
        "prompt": prompt,
    }
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, "hook", "claude-code", "prompt"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        check=True,
        timeout=120,
    )
    assert done.stderr == b""
    return done.stdout.decode()


def _context(answer: str) -> Any:
    return json.loads(answer)["hookSpecificOutput"]["additionalContext"]


def test_the_prompt_hook_points_at_a_matching_archived_entry(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _hook(root, "where do sessions live? the redis expiry looks wrong")
    assert _context(first) == POINTER  # the index built on the way (the full path)
    assert _hook(root, "the sessions expiry in redis again") == ""  # the session has it
    again = _hook(root, "the sessions expiry in redis again", session="s2")
    assert _context(again) == POINTER  # another session; the index current: the quick lane
    assert _hook(root, "make the login button blue", session="s3") == ""
    assert _hook(root, "fix the redis docker image tag", session="s3") == ""  # one word: weak
    monkeypatch.setenv("ORBITAL_RECALL", "0")
    assert _hook(root, "where do sessions live? the redis expiry", session="s4") == ""


def test_no_pointer_where_the_hooks_inject_less_than_the_whole_view(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prompt = "where do sessions live? the redis expiry looks wrong"
    assert _context(_hook(root, prompt)) == POINTER  # the index built, the quick lane next
    monkeypatch.setenv("ORBITAL_INJECT", "asks")  # this session's own level
    assert _hook(root, prompt, session="s2") == ""
    monkeypatch.delenv("ORBITAL_INJECT")
    set_level = CliRunner().invoke(cli, ["context", "--inject", "off", "--project", str(root)])
    assert set_level.exit_code == 0, set_level.output
    assert _hook(root, prompt, session="s3") == ""  # the project's level
    CliRunner().invoke(cli, ["context", "--inject", "full", "--project", str(root)])
    assert _context(_hook(root, prompt, session="s4")) == POINTER


def test_a_retracted_entry_is_found_when_its_state_is_asked_for(
    root: Path, orbital_db: str, clock: FixedClock
) -> None:
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(root).project_id
        text = b"## Cron\nChose: cron for the nightly jobs.\n"
        service.write_file(pid, "DECISIONS.md", text, actor=Actor.AGENT)
        service.trust.act(pid, "cron", "retract", "we use a queue", actor=Actor.USER)
    assert _run(root, "nightly")[1] == "nothing found\n"
    found = _run(root, "nightly", "--trust", "retracted")[1]
    assert found.splitlines()[0] == (
        "cron  [archived, retracted]  DECISIONS_ARCHIVE.md  2026-09-19 agent"
    )
    assert _run(root, "nightly", "--all")[1] == found


def test_the_codex_prompt_hook_points_at_a_matching_archived_entry(root: Path) -> None:
    prompt = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": "cx1",
        "cwd": str(root),
        "prompt": "where do sessions live? the redis expiry looks wrong",
    }
    done = CliRunner().invoke(cli, ["hook", "codex", "prompt"], input=json.dumps(prompt))
    assert (done.exit_code, done.stderr) == (0, "")
    assert _context(done.stdout) == POINTER
    unrelated = {**prompt, "prompt": "make the login button blue"}
    done = CliRunner().invoke(cli, ["hook", "codex", "prompt"], input=json.dumps(unrelated))
    assert (done.exit_code, done.stdout, done.stderr) == (0, "", "")
