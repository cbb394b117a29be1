"""Clear answers (issue 33, finding 7): one symlinked memory file blocks only itself, and a
server on a store with a damaged page says so in one line and still serves (``/health`` among
the answers). The full disk's ``/health`` is in ``test_store_faults.py``."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from litestar.testing import TestClient

from orbital.cli import cli
from orbital.errors import UnsafePath
from orbital.events import Actor
from orbital.service import Orbital


def test_one_symlinked_memory_file_blocks_only_itself(store_url: str, tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    outside = tmp_path / "outside.md"
    outside.write_bytes(b"1. Whatever the outside file says.\n")
    with Orbital.open(store_url) as service:
        pid = service.init_project(root, timezone="UTC").project_id
        service.write_file(pid, "LESSONS.md", b"1. Run the tests.\n", actor=Actor.AGENT)
        lessons = root / "orbital" / "LESSONS.md"
        lessons.unlink()
        lessons.symlink_to(outside)

        written = service.write_file(
            pid, "DECISIONS.md", b"## Use PostgreSQL\nChose: yes.\n", actor=Actor.AGENT
        )
        assert written.warnings == [
            "LESSONS.md was neither read nor written: memory files may not be symlinks; the "
            "other files are written as usual. Make it a plain file again (or remove it) and "
            "run `orbital sync`."
        ]
        decisions = (root / "orbital" / "DECISIONS.md").read_text()
        assert "Chose: yes." in decisions
        service.ask_open(pid, "Pick the invoice template", actor=Actor.AGENT)
        assert "Pick the invoice template" in (root / "orbital" / "ASKS.md").read_text()
        assert service.sync(pid).warnings == written.warnings
        head = service.head(pid)
        with pytest.raises(UnsafePath) as refused:
            service.write_file(pid, "LESSONS.md", b"1. Another lesson.\n", actor=Actor.AGENT)
        assert str(refused.value) == (
            f"refused {str(lessons)!r}: memory files may not be symlinks; nothing was written"
        )
        assert service.head(pid) == head
        assert lessons.is_symlink()
        assert outside.read_bytes() == b"1. Whatever the outside file says.\n"
        assert "Run the tests." in service.read_file(pid, "LESSONS.md")  # kept in the store


@pytest.mark.sqlite_only("a damaged page of the SQLite store's file")
def test_serve_on_a_store_with_a_damaged_page_says_one_line_and_serves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "orbital.db"
    url = f"sqlite:///{db}"
    root = tmp_path / "project"
    root.mkdir()
    with Orbital.open(url) as service:
        pid = service.init_project(root, timezone="UTC").project_id
        for n in range(150):
            service.ask_open(pid, f"Ask number {n} about the thing {n * 7}", actor=Actor.USER)
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    pages = db.stat().st_size // 4096
    with db.open("r+b") as handle:  # the pages of the middle third of the file, damaged
        handle.seek(pages // 3 * 4096)
        handle.write(os.urandom(4096 * max(1, pages // 3)))
    answers: dict[str, Any] = {}

    def serve(app: Any, **_options: object) -> None:
        with TestClient(app, base_url="http://127.0.0.1:8799") as client:
            health = client.get("/health")
            answers["health"] = (health.status_code, health.json())

    monkeypatch.setenv("ORBITAL_DB", url)
    monkeypatch.setattr("uvicorn.run", serve)
    result = CliRunner().invoke(cli, ["serve", "--port", "8799"], obj={})
    assert result.exit_code == 0, result.output
    detail = (
        f"the store {url} is damaged (database disk image is malformed): only the reads that "
        "do not meet the damage work, every write is refused; restore it from a backup "
        "(`sqlite3 FILE .recover` may save what is left)"
    )
    # One error line, whether the damage is met at start or by a read while serving; the
    # rest is the watcher's own lines (the test client's log aside), never a traceback.
    said = [line for line in result.stderr.splitlines() if " - httpx - " not in line]
    assert [line for line in said if not line.startswith("watch: ")] == [f"error: {detail}"]
    assert result.stdout == (
        "Orbital serving on http://127.0.0.1:8799 (store: sqlite)\n"
        "Workbench: http://127.0.0.1:8799/workbench (sign in with a token from "
        "`orbital token create --audience workbench`)\n"
    )
    status, body = answers["health"]
    assert (status, body["status"], body["detail"]) == (503, "store-corrupt", detail)
