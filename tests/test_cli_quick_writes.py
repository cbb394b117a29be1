"""The agent's hot writes in a new process (``ask open|done|drop|reopen``, ``write FILE``) skip
click yet print the same bytes and exit the same way as the click commands; and a cold hook or
CLI write imports only what its command uses. Behaviour tests in real processes (what a process
imported is read from ``sys.modules`` at exit); ``bench/hooks.py --cli`` times them."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.cli import cli
from orbital.events import Actor
from orbital.service import Orbital

#: ``secrets.token_hex`` seeded, so two runs of one write mint the same ids.
_SEEDED = "import random, secrets; r = random.Random(7); secrets.token_hex = lambda n=32: r.randbytes(n).hex(); "  # noqa: E501
_MODULES = (
    "import atexit, sys; atexit.register(lambda: print(sorted(sys.modules), file=sys.stderr)); "
)
QUICK = _SEEDED + _MODULES + "from orbital.cli import main; main()"
CLICK = _SEEDED + _MODULES + "from orbital.cli._app import main; main()"
#: What no cold write may import: the command-line library, the other 35 stemmers, the fuzzy
#: matcher (unless a typo is weighed), the progress bar. (SQLAlchemy: see the store's tests.)
HEAVY = frozenset({"click", "snowballstemmer", "rapidfuzz", "tqdm", "rich"})
DECISION = "\n## Keep writes cold\nChose: no click.\nReason: every command is a new process.\n"


def _run(entry: str, args: list[str], stdin: bytes = b"") -> tuple[int, bytes, bytes, set[str]]:
    """``orbital ARGS`` in a new process: its status, stdout, stderr (without the modules
    line) and the top-level packages it imported."""
    done = subprocess.run(
        [sys.executable, "-c", entry, *args], input=stdin, capture_output=True, timeout=120
    )
    *err, modules = done.stderr.splitlines(keepends=True)
    top = {m.split(".")[0] for m in ast.literal_eval(modules.decode())}
    return done.returncode, done.stdout, b"".join(err), top


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A SQLite store, a state directory and a project with an open and a done ask, all
    under one folder (so a copy of it is the whole world a command sees)."""
    world = tmp_path / "world"
    db = f"sqlite:///{world / 'orbital.db'}"
    monkeypatch.setenv("ORBITAL_DB", db)
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(world / "state"))
    monkeypatch.setenv("ORBITAL_NOW", "2026-09-19T09:30:00+00:00")
    root = world / "project"
    root.mkdir(parents=True)
    assert CliRunner().invoke(cli, ["init", "--project", str(root)]).exit_code == 0
    with Orbital.open(db) as service:
        pid = service.project(root).project_id
        text = service.read_file(pid, "DECISIONS.md") + DECISION
        service.write_file(pid, "DECISIONS.md", text.encode(), actor=Actor.AGENT)
        service.ask_open(pid, "Decide the cache plan", actor=Actor.USER)
        done = service.ask_open(pid, "Pick the logo colour", actor=Actor.USER)
        service.ask_close(pid, done.events[0].stream.removeprefix("ask:"), "done", actor=Actor.USER)
    return root


def _ask_id(root: Path, text: str) -> str:
    with Orbital.open(os.environ["ORBITAL_DB"]) as service:
        asks = service.asks(service.project(root).project_id, "all")
    return next(a.id for a in asks if a.text == text)


def _lines(root: Path) -> list[tuple[list[str], bytes]]:
    project = ["--project", str(root)]
    open_id, done_id = _ask_id(root, "Decide the cache plan"), _ask_id(root, "Pick the logo colour")
    decisions = (root / "orbital" / "DECISIONS.md").read_bytes()
    entry = b"\n## Ship it on Friday\nChose: Friday.\nReason: the \x1b[1mcalm\x1b[0m day.\n"
    return [
        (["ask", "open", "Decide the queue plan", *project], b""),
        (["ask", "open", "Decide the cache plan", *project], b""),  # a repeat: refused
        (["ask", "open", "--due", "2026-10-01", "Tint \x1b[31mred\x1b[0m", *project], b""),
        (["ask", "open", "Draft the notes", "--due", "someday", *project], b""),
        (["ask", "done", open_id, "--quote", "yes, done", "--session", "s1", *project], b""),
        (["ask", "drop", open_id, *project], b""),
        (["ask", "drop", "nosuch", *project], b""),
        (["ask", "reopen", done_id, "--quote", "not yet", *project], b""),
        (["write", "DECISIONS.md", *project], decisions + entry),
        (["write", "DECISIONS.md", "--session", "s2", "--base", "@1", *project], decisions),
        (["write", "DECISIONS.md", "--base", "latest", *project], decisions),
        (["write", "NOTES.md", *project], b"notes"),
        (["write", "DECISIONS.md", "--project", str(root.parent)], decisions),  # unregistered
        (["write", "DECISIONS.md", *project], b""),  # emptying the file: refused
    ]


@pytest.mark.sqlite_only("the store is put back between the two runs by copying its folder")
def test_a_quick_write_prints_and_exits_as_click_does(world: Path) -> None:
    kept = world.parent.with_name("kept")
    shutil.copytree(world.parent, kept)
    for args, stdin in _lines(world):
        quick = _run(QUICK, args, stdin)
        after = _files(world)
        shutil.rmtree(world.parent)
        shutil.copytree(kept, world.parent)
        slow = _run(CLICK, args, stdin)
        assert quick[:3] == slow[:3], args
        assert _files(world) == after, args
        assert "click" not in quick[3] and "click" in slow[3], args
        shutil.rmtree(world.parent)
        shutil.copytree(kept, world.parent)


def _files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "orbital").iterdir()) if p.is_file()}


def test_a_line_the_quick_path_does_not_take_goes_to_click(
    orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    root = tmp_path / "project"
    root.mkdir()
    assert CliRunner().invoke(cli, ["init", "--project", str(root)]).exit_code == 0
    elsewhere = tmp_path / "elsewhere"  # no project: each line fails, the same every time
    elsewhere.mkdir()
    project = ["--project", str(root)]
    for args in (
        ["ask", "open", "Decide the queue plan", "--json", "--project", str(elsewhere)],
        ["ask", "--as-user", "open", "Decide the queue plan", *project],
        ["ask", "open", "Decide", "the queue plan", *project],
        ["ask", "open", "--due"],
        ["write", "DECISIONS.md", "--remove", "x", "--project", str(elsewhere)],
        ["write", "DECISIONS.md", "--project", str(root), "--project", str(elsewhere)],
        ["write", "DECISIONS.md", "--project="],
    ):
        status, out, _, imported = _run(QUICK, args)
        assert "click" in imported, args
        expected = CliRunner().invoke(cli, args)
        assert (status, out) == (expected.exit_code, expected.stdout_bytes), args


def test_a_cold_write_imports_only_what_it_uses(
    orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    root = tmp_path / "project"
    root.mkdir()
    for command in ("init", "install claude-code"):
        done = CliRunner().invoke(cli, [*command.split(), "--project", str(root)])
        assert done.exit_code == 0, done.output
    project = ["--project", str(root)]
    decisions = root / "orbital" / "DECISIONS.md"
    status, _, err, imported = _run(QUICK, ["write", "DECISIONS.md", *project],
                                    decisions.read_bytes() + DECISION.encode())  # fmt: skip
    assert status == 0 and imported & HEAVY == set(), (err, imported & HEAVY)
    status, _, err, imported = _run(QUICK, ["ask", "open", "Decide the queue plan", *project])
    assert status == 0 and imported & HEAVY == set(), (err, imported & HEAVY)
    # The agent's Edit of a memory file, as Claude Code runs the hook: no new entry (nothing
    # to compare), so not even the rephrasing matcher; then a new entry (it is compared).
    text = decisions.read_text(encoding="utf-8")
    for old, new, matcher in (
        ("no click.", "no click at all.", False),
        (text[-40:], text[-40:] + DECISION.replace("cold", "lean"), True),
    ):
        text = decisions.read_text(encoding="utf-8")
        edit = {"file_path": str(decisions), "old_string": old, "new_string": new}
        payload = {
            "hook_event_name": "PreToolUse",
            "session_id": "s1",
            "cwd": str(root),
            "transcript_path": str(root / "s1.jsonl"),
            "tool_name": "Edit",
            "tool_input": edit,
        }
        status, out, err, imported = _run(
            _MODULES + "from orbital.cli import main; main()",
            ["hook", "claude-code", "pre-tool"],
            json.dumps(payload).encode(),
        )
        answer = json.loads(out)["hookSpecificOutput"]
        assert status == 0 and answer["permissionDecision"] == "allow", (err, answer)
        assert imported & HEAVY == set(), imported & HEAVY
        assert ("_orbital_alone_snowballstemmer" in imported) is matcher
        updated = answer["updatedInput"]
        decisions.write_text(text.replace(updated["old_string"], updated["new_string"], 1))
