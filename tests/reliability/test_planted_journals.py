"""Recovery trusts only its own journal (issue 33, finding 2): a file in ``orbital/`` named like
a write's journal (git carries dotfiles) is never taken for one. It cuts no file linked from
outside the project, deletes no checked-in file, renames no symlink over a memory file; ``init``
and ``sync`` name it and stop, and once it is gone the checkout is taken in as it is."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from orbital.errors import PlantedJournal
from orbital.events import Actor
from orbital.files import sha256
from orbital.service import Orbital

DECISIONS = b"## Use PostgreSQL\nChose: PostgreSQL for the shared store.\n"
LESSONS = b"1. Run the migrations before the tests.\n"


def _planted_message(*names: str) -> str:
    listed = ", ".join(f"orbital/{n}" for n in names)
    return (
        f"{listed}: named like Orbital's write journal, but Orbital has no record of writing "
        "it (put there by git, an archive or a hand?); it was left alone and nothing was "
        "written: remove it, or move it out of orbital/, and run again"
    )


def test_a_planted_append_journal_never_cuts_a_file_linked_from_outside(
    store_url: str, tmp_path: Path
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    with Orbital.open(store_url) as service:
        pid = service.init_project(root, timezone="UTC").project_id
        service.ask_open(pid, "Pick the invoice template", actor=Actor.USER)
    asks = root / "orbital" / "ASKS.md"
    outside = tmp_path / "outside.md"
    outside.write_bytes(asks.read_bytes())
    asks.unlink()
    os.link(outside, asks)  # ASKS.md is the file outside, by a second name
    before = outside.read_bytes()
    planted = root / "orbital" / f".ASKS.md.0.{len(before)}.orbital-append"
    planted.write_bytes(b"")

    with Orbital.open(store_url) as service:
        service.ask_open(pid, "Book the venue", actor=Actor.AGENT)
        assert "Book the venue" in asks.read_text()
    assert outside.read_bytes() == before  # not cut to 0 bytes, nor appended to
    assert planted.exists()  # not Orbital's: left alone


def test_a_planted_none_journal_deletes_no_checked_in_file(store_url: str, tmp_path: Path) -> None:
    root = tmp_path / "checkout"
    (root / "orbital").mkdir(parents=True)
    (root / "orbital" / "DECISIONS.md").write_bytes(DECISIONS)
    name = f".DECISIONS.md.{sha256(DECISIONS)[:16]}.orbital-none"
    planted = root / "orbital" / name
    planted.write_bytes(b"")

    with Orbital.open(store_url) as service:
        with pytest.raises(PlantedJournal) as refused:
            service.init(root, timezone="UTC")
        assert str(refused.value) == _planted_message(name)
        assert (root / "orbital" / "DECISIONS.md").read_bytes() == DECISIONS
        planted.unlink()
        pid = service.init(root, timezone="UTC").project.project_id
        assert "Chose: PostgreSQL for the shared store." in service.read_file(pid, "DECISIONS.md")
    assert (
        b"Chose: PostgreSQL for the shared store."
        in (root / "orbital" / "DECISIONS.md").read_bytes()
    )


def test_a_planted_symlink_journal_is_never_renamed_over_a_memory_file(
    store_url: str, tmp_path: Path
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    outside = tmp_path / "outside.md"
    outside.write_bytes(b"1. Whatever the outside file says.\n")
    with Orbital.open(store_url) as service:
        pid = service.init_project(root, timezone="UTC").project_id
        service.write_file(pid, "LESSONS.md", LESSONS, actor=Actor.AGENT)
        lessons = root / "orbital" / "LESSONS.md"
        before = lessons.read_bytes()
        name = f".LESSONS.md.{sha256(before)[:16]}.orbital-prev"
        (root / "orbital" / name).symlink_to(outside)

        for run in (lambda: service.sync(pid), lambda: service.init(root, timezone="UTC")):
            with pytest.raises(PlantedJournal) as refused:
                run()
            assert str(refused.value) == _planted_message(name)
            assert not lessons.is_symlink() and lessons.read_bytes() == before
            assert (root / "orbital" / name).is_symlink()
        assert outside.read_bytes() == b"1. Whatever the outside file says.\n"
        (root / "orbital" / name).unlink()
        assert service.sync(pid).events == []
