"""Issue 12 items 6 and 7: nothing outside the project is read or written through a hard link,
a symlink, or a swap between a check and the use."""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from orbital.errors import UnsafePath
from orbital.events import Actor
from orbital.events.files import HandEditResolved
from orbital.files import FileGateway
from orbital.service import HistoryQuery, Orbital


def test_an_append_never_writes_through_a_hard_link(tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    files = FileGateway(tmp_path / "proj")
    files.write("ASKS.md", b"- [ ] one\n")
    outside = tmp_path / "outside.md"
    os.link(tmp_path / "proj" / "orbital" / "ASKS.md", outside)
    files.append("ASKS.md", b"- [ ] two\n")
    assert outside.read_bytes() == b"- [ ] one\n"
    assert (tmp_path / "proj" / "orbital" / "ASKS.md").read_bytes() == b"- [ ] one\n- [ ] two\n"
    assert (tmp_path / "proj" / "orbital" / "ASKS.md").stat().st_nlink == 1
    files.truncate("ASKS.md", 3)
    assert outside.read_bytes() == b"- [ ] one\n"


def test_asks_opened_never_reach_a_hard_linked_file_outside(store_url: str, tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    with Orbital.open(store_url) as service:
        project = service.init_project(tmp_path / "proj").project_id
        service.ask_open(project, "first", actor=Actor.AGENT)
        outside = tmp_path / "outside.md"
        os.link(tmp_path / "proj" / "orbital" / "ASKS.md", outside)
        before = outside.read_bytes()
        service.ask_open(project, "second", actor=Actor.AGENT)
        assert outside.read_bytes() == before
        assert "second" in (tmp_path / "proj" / "orbital" / "ASKS.md").read_text()


def test_a_conflict_copy_swapped_for_a_symlink_is_never_read(
    store_url: str, tmp_path: Path
) -> None:
    (tmp_path / "proj").mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("the outside secret\n")
    with Orbital.open(store_url) as service:
        project = service.init_project(tmp_path / "proj").project_id
        decisions = tmp_path / "proj" / "orbital" / "DECISIONS.md"
        decisions.write_text(decisions.read_text() + "\n## Edited by hand\nText.\n")
        service.regenerate(project, force=True)
        [conflict] = service.conflicts(project)
        copy = tmp_path / "proj" / "orbital" / conflict.copy
        copy.unlink()
        copy.symlink_to(secret)
        with pytest.raises(UnsafePath):
            service.resolve_conflict(project, conflict.copy, "orbital", actor=Actor.USER)
        events = [e.event for e in service.history(project, HistoryQuery(stream="file:"))]
        assert not [e for e in events if isinstance(e, HandEditResolved)]
        assert copy.is_symlink()
        assert secret.read_text() == "the outside secret\n"


def test_a_directory_swapped_during_use_never_leads_outside(tmp_path: Path) -> None:
    """``orbital/`` flips between the real directory and a symlink out of the project while
    the gateway writes, appends and reads: nothing lands outside, nothing outside is read."""
    root = tmp_path / "proj"
    root.mkdir()
    files = FileGateway(root)
    files.write("ASKS.md", b"- [ ] start\n")
    real, parked = root / "orbital", root / "orbital.real"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "DECISIONS.md").write_bytes(b"outside secret\n")
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            real.rename(parked)
            with contextlib.suppress(FileExistsError):  # the gateway made a new orbital/
                real.symlink_to(outside)
            time.sleep(0.0005)
            while True:  # put the real directory back, over whatever the gateway made
                try:
                    if real.is_symlink():
                        real.unlink()
                    elif real.exists():
                        shutil.rmtree(real)
                    parked.rename(real)
                    break
                except OSError:
                    continue
            time.sleep(0.0005)

    swapper = threading.Thread(target=swap)
    swapper.start()
    read: set[bytes | None] = set()
    try:
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            for action in (
                lambda: files.write("DECISIONS.md", b"inside\n"),
                lambda: files.append("ASKS.md", b"- [ ] more\n"),
                lambda: read.add(files.read_bytes("DECISIONS.md")),
                lambda: files.save_aside("DECISIONS.md.conflict-x.md", b"copy\n"),
            ):
                with contextlib.suppress(UnsafePath, OSError):  # refused, or lost the race
                    action()
    finally:
        stop.set()
        swapper.join()
    assert sorted(p.name for p in outside.iterdir()) == ["DECISIONS.md"]
    assert (outside / "DECISIONS.md").read_bytes() == b"outside secret\n"
    assert b"outside secret\n" not in read


def test_a_directory_swapped_right_after_the_last_check_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deterministic case of the race above: ``orbital/`` becomes a symlink out of the
    project right after the file was checked not to be a symlink, before it is opened."""
    root = tmp_path / "proj"
    root.mkdir()
    files = FileGateway(root)
    files.write("ASKS.md", b"- [ ] start\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "ASKS.md").write_bytes(b"outside\n")
    is_symlink = Path.is_symlink

    def check_then_swap(self: Path) -> bool:
        answer = is_symlink(self)
        if self.name == "ASKS.md" and not is_symlink(root / "orbital"):
            (root / "orbital").rename(root / "orbital.real")
            (root / "orbital").symlink_to(outside)
        return answer

    monkeypatch.setattr(Path, "is_symlink", check_then_swap)
    with contextlib.suppress(UnsafePath, OSError):  # refused, or written inside
        files.append("ASKS.md", b"- [ ] more\n")
    assert (outside / "ASKS.md").read_bytes() == b"outside\n"
