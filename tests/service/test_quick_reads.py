"""Reads kept between processes: ``orbital context`` and ``orbital show`` in a new process
print exactly what the full path prints, from the text an earlier process kept at the same head
(without SQLAlchemy or the tokenizer, on either backend), never a text of another head; token counts
outlive the process. Behaviour tests in real processes; ``bench/hooks.py --cli`` times them."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.cli import cli
from orbital.events import Actor
from orbital.service import Orbital
from orbital.service._kept import KeptCounter
from orbital.service._outputs import Seal
from orbital.tokens import CachedCounter

#: What a kept read may not import (the store's library, the tokenizer, the rephrase index).
HEAVY = ("sqlalchemy", "alembic", "tiktoken", "litestar", "httpx", "snowballstemmer", "click")
ENTRY = (
    "import atexit, sys; atexit.register(lambda: print(sorted(sys.modules), file=sys.stderr)); "
    "from orbital.cli import main; main()"
)
#: What signs the kept files here (a store's key, as ``Orbital.keep_caches`` reads it).
SEAL = Seal(lambda: bytes(range(32)))
DECISION = "\n## Keep reads warm\nChose: kept texts.\nReason: every command is a new process.\n"


@pytest.fixture
def project(orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return _project(orbital_db, tmp_path, monkeypatch)


def _project(db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ORBITAL_NOW", "2026-09-19T09:30:00+00:00")
    root = tmp_path / "project"
    root.mkdir()
    assert CliRunner().invoke(cli, ["init", "--project", str(root)]).exit_code == 0
    _decide(db, root, "Start kept")
    return root


def _decide(db: str, root: Path, title: str) -> None:
    with Orbital.open(db) as service:
        pid = service.project(root).project_id
        text = service.read_file(pid, "DECISIONS.md") + DECISION.replace("Keep reads warm", title)
        service.write_file(pid, "DECISIONS.md", text.encode(), actor=Actor.AGENT)
        service.ask_open(pid, f"Decide what {title} means", actor=Actor.USER)


def _process(*args: str) -> tuple[bytes, set[str]]:
    """``orbital ARGS`` in a new process: stdout, and the top-level packages imported."""
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, *args], capture_output=True, check=True, timeout=120
    )
    modules = done.stderr.decode().strip().splitlines()[-1]
    return done.stdout, {m.split(".")[0] for m in ast.literal_eval(modules)}


def _full(*args: str) -> bytes:
    """What click and the full path print (in this process: nothing kept is read first)."""
    done = CliRunner().invoke(cli, list(args))
    assert done.exit_code == 0, done.output
    return done.stdout_bytes


READS = (
    ("context",),
    ("context", "--window", "200000", "--audience", "agent"),
    ("context", "--audience=subagent"),
    ("show", "DECISIONS.md"),
    ("show", "DECISIONS_ARCHIVE.md"),
)


@pytest.mark.parametrize("read", READS, ids=" ".join)
def test_a_kept_read_prints_what_the_full_path_prints(
    project: Path, orbital_db: str, read: tuple[str, ...]
) -> None:
    args = (*read, "--project", str(project))
    first, imported = _process(*args)  # nothing kept yet: the full path, which keeps it
    assert "click" in imported  # the full path (a kept read skips click)
    again, imported = _process(*args)
    assert again == first == _full(*args)
    assert imported & set(HEAVY) == set()


def test_a_kept_read_is_never_of_another_head(project: Path, orbital_db: str) -> None:
    args = ("context", "--project", str(project))
    before, _ = _process(*args)
    assert b"Start kept" in before
    _decide(orbital_db, project, "Moved on")
    after, imported = _process(*args)
    assert b"Moved on" in after and "click" in imported
    assert after == _full(*args) != before
    shown, _ = _process("show", "DECISIONS.md", "--project", str(project))
    assert b"Moved on" in shown


def test_a_written_file_is_kept_until_the_memory_moves(project: Path, orbital_db: str) -> None:
    where = ("--project", str(project))
    text = _full("show", "DECISIONS.md", *where).decode() + DECISION.replace(
        "Keep reads warm", "Wrote"
    )
    written = CliRunner().invoke(cli, ["write", "DECISIONS.md", *where], input=text)
    assert written.exit_code == 0, written.output
    opened = CliRunner().invoke(cli, ["ask", "open", "Check the kept file", *where])
    assert opened.exit_code == 0, opened.output  # an ask moves the project, not the memory
    shown, imported = _process("show", "DECISIONS.md", *where)
    assert shown == _full("show", "DECISIONS.md", *where) and b"## Wrote" in shown
    assert "click" not in imported  # the text the write kept
    _decide(orbital_db, project, "Moved on")  # a process that keeps nothing
    after, imported = _process("show", "DECISIONS.md", *where)
    assert b"## Moved on" in after and "click" in imported


def test_a_line_the_quick_read_does_not_take_goes_to_click(
    orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(orbital_db, tmp_path, monkeypatch)
    _process("context", "--project", str(project))
    for args in (
        ("context", "--project", str(project), "--window", "0"),
        ("context", "--project", str(project), "--as-of", "@1"),
        ("show", "ASKS.md", "--project", str(project)),
        ("show", "DECISIONS.md", "--json", "--project", str(project)),
    ):
        done = subprocess.run(
            [sys.executable, "-c", ENTRY, *args], capture_output=True, timeout=120
        )
        assert "'click'" in done.stderr.decode(), args
        expected = CliRunner().invoke(cli, list(args))
        assert (done.returncode, done.stdout) == (expected.exit_code, expected.stdout_bytes)


def test_token_counts_outlive_the_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "tokens.msgpack"
    counter = KeptCounter(path, SEAL)
    texts = ["Chose: kept texts.", "Reason: every command is a new process. " * 40]
    counts = [counter(t) for t in texts]
    assert counts == [CachedCounter()(t) for t in texts]
    counter.save()

    def no_encoding(*_args: object) -> object:
        raise AssertionError("the tokenizer was loaded again")

    monkeypatch.setattr("orbital.tokens.default_encoding", no_encoding)
    again = KeptCounter(path, SEAL)
    assert [again(t) for t in texts] == counts
    path.write_bytes(b"not counts")
    monkeypatch.undo()
    assert [KeptCounter(path, SEAL)(t) for t in texts] == counts  # unreadable: counted again
