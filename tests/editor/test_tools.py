"""The editor's read-only tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from orbital.editor.sessions import SessionDir
from orbital.editor.tools import GREP_MAX_MATCHES, ReadOnlyTools
from orbital.errors import UnknownFile
from tests.editor.helpers import SESSION_A, SESSION_B, reference_sessions

FILES = {
    "DECISIONS.md": "## Use Postgres\nWe use Postgres for storage.\n",
    "LESSONS.md": "1. Postgres needs VACUUM\n",
}


def read(name: str) -> str | None:
    if name not in (*FILES, "INDEX.md"):
        raise UnknownFile(name, tuple(FILES))
    return FILES.get(name)


@pytest.fixture
def tools(tmp_path: Path) -> ReadOnlyTools:
    return ReadOnlyTools(
        read, ["DECISIONS.md", "LESSONS.md", "INDEX.md"], SessionDir(reference_sessions(tmp_path))
    )


def test_read(tools: ReadOnlyTools) -> None:
    assert tools.run("read", {"path": "DECISIONS.md"}) == FILES["DECISIONS.md"]
    assert tools.run("read", {"path": "INDEX.md"}) == "Error: INDEX.md does not exist"
    assert tools.run("read", {"path": "../../etc/passwd"}).startswith("Error: 'passwd' is not")
    assert tools.run("read", {}) == ("Error: the argument 'path' (a non-empty string) is required")


def test_grep(tools: ReadOnlyTools) -> None:
    assert tools.run("grep", {"pattern": "Postgres"}) == (
        "DECISIONS.md:1: ## Use Postgres\n"
        "DECISIONS.md:2: We use Postgres for storage.\n"
        "LESSONS.md:1: 1. Postgres needs VACUUM"
    )
    assert tools.run("grep", {"pattern": "MySQL"}) == "(no matches)"
    assert tools.run("grep", {"pattern": "("}).startswith("Error: bad pattern")


def test_grep_is_bounded(tmp_path: Path) -> None:
    many = ReadOnlyTools(lambda _n: "x\n" * 500, ["A.md"], SessionDir(tmp_path))
    lines = many.run("grep", {"pattern": "x"}).splitlines()
    assert len(lines) == GREP_MAX_MATCHES + 1
    assert lines[-1] == f"[stopped at {GREP_MAX_MATCHES} matches]"


def test_sessions(tools: ReadOnlyTools, tmp_path: Path) -> None:
    listed = tools.run("list_sessions", {}).splitlines()
    assert sorted(line.split()[0] for line in listed) == [SESSION_A, SESSION_B]
    assert tools.run("read_session", {"session": SESSION_B}) == "[user] unrelated"
    assert tools.run("read_session", {"session": "nope"}) == "Error: no session named 'nope'"
    empty = ReadOnlyTools(read, [], SessionDir(tmp_path / "none"))
    assert empty.run("list_sessions", {}) == "(no sessions)"


def test_only_read_only_tools_run(tools: ReadOnlyTools) -> None:
    with pytest.raises(ValueError, match="not a read-only tool"):
        tools.run("write", {})
