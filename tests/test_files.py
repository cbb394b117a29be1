"""The file gateway: names, containment, atomic writes, stamps."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest

from orbital.errors import InvalidEncoding, TooLarge, UnknownFile, UnsafePath
from orbital.files import (
    FileGateway,
    FileStamp,
    Journal,
    check_size,
    decode_utf8,
    memory_file,
    projected_file,
    sha256,
)
from orbital.files._journal import Entry


@pytest.mark.parametrize("name", ["ASKS.md", "asks.md", "Asks.MD", "aSkS.Md"])
def test_case_variants_reach_the_same_file(name: str) -> None:
    assert memory_file(name).name == "ASKS.md"
    assert memory_file(name).key == "asks"


def test_decisions_case_variant_and_archives() -> None:
    assert memory_file("Decisions.MD").name == "DECISIONS.md"
    assert projected_file("decisions_archive.md").name == "DECISIONS_ARCHIVE.md"
    with pytest.raises(UnknownFile):
        memory_file("DECISIONS_ARCHIVE.md")


@pytest.mark.parametrize(
    "name", ["../ASKS.md", "/etc/passwd", "orbital/ASKS.md", "..", "a\x00b", "", "x\\ASKS.md"]
)
def test_names_with_paths_are_refused(name: str) -> None:
    with pytest.raises(UnsafePath) as info:
        memory_file(name)
    assert "nothing was written" in str(info.value)


def test_unknown_name_lists_the_memory_files() -> None:
    with pytest.raises(UnknownFile) as info:
        memory_file("NOTES.md")
    assert str(info.value) == (
        "'NOTES.md' is not a memory file; use one of PROJECT_STATE.md, DECISIONS.md, "
        "LESSONS.md, INDEX.md, ASKS.md"
    )


def test_atomic_write_and_append_stamp_the_file(tmp_path: Path) -> None:
    files = FileGateway(tmp_path)
    stamp = files.write("asks.md", b"one\n")
    path = tmp_path / "orbital" / "ASKS.md"
    assert path.read_bytes() == b"one\n"
    assert stamp.sha256 == sha256(b"one\n")
    assert (stamp.size, stamp.mtime_ns) == (path.stat().st_size, path.stat().st_mtime_ns)
    appended = files.append("ASKS.md", b"two\n")
    assert path.read_bytes() == b"one\ntwo\n"
    assert appended.sha256 is None
    assert files.stat("ASKS.md") == (appended.size, appended.mtime_ns)
    assert [p.name for p in (tmp_path / "orbital").iterdir()] == ["ASKS.md"]  # no temp left


def test_a_symlinked_memory_file_is_refused_and_untouched(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("secret")
    (tmp_path / "proj" / "orbital").mkdir(parents=True)
    (tmp_path / "proj" / "orbital" / "DECISIONS.md").symlink_to(outside)
    files = FileGateway(tmp_path / "proj")
    with pytest.raises(UnsafePath, match="may not be symlinks"):
        files.write("DECISIONS.md", b"x")
    with pytest.raises(UnsafePath):
        files.append("DECISIONS.md", b"x")
    assert outside.read_text() == "secret"


def test_an_orbital_dir_symlinked_out_of_the_project_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "proj").mkdir()
    os.symlink(elsewhere, tmp_path / "proj" / "orbital")
    with pytest.raises(UnsafePath, match="resolves outside the project"):
        FileGateway(tmp_path / "proj").write("ASKS.md", b"x")
    assert list(elsewhere.iterdir()) == []


def test_size_limit_and_encoding(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORBITAL_MAX_FILE_BYTES", "10")
    with pytest.raises(TooLarge) as info:
        check_size(b"x" * 11)
    assert (info.value.size, info.value.limit) == (11, 10)
    check_size(b"x" * 10)
    with pytest.raises(InvalidEncoding) as bad:
        decode_utf8(b"ok \xff\xfe")
    assert bad.value.offset == 3
    assert str(bad.value) == (
        "the content is not valid UTF-8 (first bad byte at offset 3); nothing was changed"
    )


def journalled(root: Path, journal: Path) -> FileGateway:
    """A gateway whose checked writes are recorded in ``journal`` (signed with a test key)."""
    root.mkdir(exist_ok=True)
    return FileGateway(root, Journal(journal, lambda data: sha256(b"key" + data).encode()[:32]))


def test_a_journal_still_linked_to_the_file_at_the_name_is_dropped(tmp_path: Path) -> None:
    """A power loss that kept the commit but not the swap (or a kill before it): the name
    holds the previous projection and the link recorded beside it is a second name of it;
    recovery drops the link and the record and keeps no copy (the next unit regenerates the
    file)."""
    root = tmp_path / "proj"
    files = journalled(root, tmp_path / "journal")
    stamp = files.write("DECISIONS.md", b"## Old\nChose: a.\n")
    memory = root / "orbital"
    beside = f".DECISIONS.md.{sha256(b'new')[:16]}.0badc0de.orbital-"
    assert files.journal is not None
    files.journal.record(Entry("DECISIONS.md", "replace", beside=beside, new=sha256(b"new")))
    os.link(memory / "DECISIONS.md", memory / f"{beside}prev")
    newer = FileStamp(stamp.size + 1, stamp.mtime_ns + 1, sha256(b"new"))

    assert files.recover(lambda name: newer if name == "DECISIONS.md" else None) == []
    assert sorted(p.name for p in memory.iterdir()) == ["DECISIONS.md"]
    assert (memory / "DECISIONS.md").read_bytes() == b"## Old\nChose: a.\n"
    assert list((tmp_path / "journal").iterdir()) == []


def test_an_append_is_recorded_in_the_journal_and_cut_back_when_it_never_committed(
    tmp_path: Path,
) -> None:
    """The append's record is in the checkout's journal, written before the bytes: nothing
    beside the file; dropped on commit; after a crash before the commit, the next unit cuts
    the uncommitted lines off and drops the record."""
    root, journal = tmp_path / "proj", tmp_path / "journal"
    files = journalled(root, journal)
    first = files.write("ASKS.md", b"- open aaaaaa 2026-09-19 One\n")
    asks = root / "orbital" / "ASKS.md"
    line = b"- open bbbbbb 2026-09-19 Two\n"

    settled = files.append_checked("ASKS.md", line, (first.size, first.mtime_ns))
    assert sorted(p.name for p in asks.parent.iterdir()) == ["ASKS.md"]
    assert len(list(journal.iterdir())) == 1
    files.settle("ASKS.md", settled)
    assert list(journal.iterdir()) == []
    assert asks.read_bytes() == b"- open aaaaaa 2026-09-19 One\n" + line

    committed = os.stat(asks)
    stamp = FileStamp(committed.st_size, committed.st_mtime_ns, None)
    crashed = files.append_checked(
        "ASKS.md", b"- open cccccc 2026-09-19 Lost\n", (stamp.size, stamp.mtime_ns)
    )
    assert crashed.stamp is not None
    assert files.recover(lambda name: stamp if name == "ASKS.md" else None) == []
    assert asks.read_bytes() == b"- open aaaaaa 2026-09-19 One\n" + line
    assert list(journal.iterdir()) == []


def test_a_record_signed_by_another_key_is_not_acted_on(tmp_path: Path) -> None:
    """A record written into the journal's folder by anything but this store's Orbital is
    dropped unread: the file it names is not cut."""
    root, journal = tmp_path / "proj", tmp_path / "journal"
    files = journalled(root, journal)
    first = files.write("ASKS.md", b"- open aaaaaa 2026-09-19 One\n")
    line = b"- open bbbbbb 2026-09-19 Two\n"
    files.append("ASKS.md", line)
    other = Journal(journal, lambda data: sha256(b"another key" + data).encode()[:32])
    entry = Entry("ASKS.md", "append", old=first.size, size=first.size + len(line))
    other.record(msgspec.structs.replace(entry, tail=sha256(line)))
    assert files.recover(lambda name: first if name == "ASKS.md" else None) == []
    assert (root / "orbital" / "ASKS.md").read_bytes() == b"- open aaaaaa 2026-09-19 One\n" + line
    assert list(journal.iterdir()) == []


def test_recovery_follows_no_symlinked_asks_md(tmp_path: Path) -> None:
    """ASKS.md made a symlink is refused where it is read or written, never followed by the
    recovery every unit starts with, even with a record of an append to it."""
    root, journal = tmp_path / "proj", tmp_path / "journal"
    files = journalled(root, journal)
    files.ensure_dir()
    outside = tmp_path / "outside.md"
    outside.write_bytes(b"- open aaaaaa 2026-09-19 Elsewhere\n")
    (root / "orbital" / "ASKS.md").symlink_to(outside)
    assert files.journal is not None
    size = outside.stat().st_size
    files.journal.record(
        Entry("ASKS.md", "append", old=0, size=size, tail=sha256(outside.read_bytes()))
    )

    assert files.recover(lambda name: None) == []
    assert outside.read_bytes() == b"- open aaaaaa 2026-09-19 Elsewhere\n"


def test_a_late_save_into_the_replaced_file_is_handed_back_never_dropped(
    tmp_path: Path,
) -> None:
    """An editor that had the file open writes into it after Orbital swapped its write in
    (the old file is Orbital's undo link now). At commit the save goes back at the name
    while the name holds Orbital's write; when another save took the name since, the late
    one is handed back to be kept beside, and no file is left behind."""
    root = tmp_path / "proj"
    for moved_on in (False, True):
        (root / str(moved_on)).mkdir(parents=True)
        files = journalled(root / str(moved_on), tmp_path / f"journal{moved_on}")
        first = files.write("DECISIONS.md", b"## One\nChose: a.\n")
        path = root / str(moved_on) / "orbital" / "DECISIONS.md"
        editor = path.open("r+b")  # the person's editor, holding the file open
        done = files.replace("DECISIONS.md", b"## One\nChose: a.\n<!-- pinned -->\n", first.sha256)
        assert done.stamp is not None and done.kept is None
        late = b"## One\nChose: a.\n\n## Late\nChose: saved in place.\n"
        editor.seek(0)
        editor.write(late)
        editor.truncate()
        editor.close()
        if moved_on:  # another save, by rename, took the name before the commit settled
            temp = path.with_name(".DECISIONS.md.swp")
            temp.write_bytes(b"## One\nChose: a.\n\n## Next\nChose: saved by rename.\n")
            os.replace(temp, path)
        handed = files.settle("DECISIONS.md", done)
        if moved_on:
            assert handed == late
            assert path.read_bytes() == b"## One\nChose: a.\n\n## Next\nChose: saved by rename.\n"
        else:
            assert handed is None
            assert path.read_bytes() == late
        assert sorted(p.name for p in path.parent.iterdir()) == ["DECISIONS.md"]
