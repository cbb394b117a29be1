"""Issue 12 item 5: a process killed after it wrote a projection and before its commit leaves
a file no commit stands behind. The next run puts the committed file back (never a hand edit
by ``file``), and removes what the crash left beside it (temp files, journals)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from orbital.events import Actor
from orbital.service import Orbital

#: A writer that SIGKILLs itself right after the file is written, before its commit.
KILLED_WRITER = """
import os, signal, sys
from orbital.events import Actor
from orbital.service import Orbital
from orbital.store._writer import Writer

original = Writer.set_checkpoint
def die(self, *args, **kwargs):
    original(self, *args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)
Writer.set_checkpoint = die
service = Orbital.open(sys.argv[1])
if sys.argv[3] == "ask":
    service.ask_open(sys.argv[2], "Never acknowledged ask", actor=Actor.AGENT)
else:
    text = service.read_file(sys.argv[2], "DECISIONS.md") + "\\n## Never acknowledged\\n"
    service.write_file(sys.argv[2], "DECISIONS.md", text.encode(), actor=Actor.AGENT)
"""


def _leftovers(memory: Path) -> list[str]:
    return sorted(p.name for p in memory.iterdir() if p.name.startswith("."))


@pytest.mark.parametrize("what", ["decisions", "ask"])
def test_a_write_killed_before_its_commit_is_undone_on_the_next_run(
    store_url: str, tmp_path: Path, what: str
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    service = Orbital.open(store_url)
    project = service.init_project(root, timezone="UTC").project_id
    service.write_file(project, "DECISIONS.md", b"## Kept\nChose: yes.\n", actor=Actor.AGENT)
    service.ask_open(project, "An acknowledged ask", actor=Actor.AGENT)
    memory = root / "orbital"
    committed = {n: (memory / n).read_bytes() for n in ("DECISIONS.md", "ASKS.md")}
    (memory / ".DECISIONS.md.0badc0de.tmp").write_bytes(b"half a temp file")
    service.close()

    killed = subprocess.run([sys.executable, "-c", KILLED_WRITER, store_url, project, what])
    assert killed.returncode == -signal.SIGKILL
    name = "ASKS.md" if what == "ask" else "DECISIONS.md"
    assert (memory / name).read_bytes() != committed[name]  # the uncommitted write is on disk

    service = Orbital.open(store_url)
    try:
        report = service.sync(project)
        assert [(memory / n).read_bytes() for n in committed] == list(committed.values())
        assert [e for e in service.history(project) if e.actor == Actor.FILE] == []
        assert report.conflicts == []
        assert _leftovers(memory) == []
        assert "Never acknowledged" not in service.context_view(project)
    finally:
        service.close()
