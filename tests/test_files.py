"""The file gateway: names, containment, atomic writes, stamps."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from orbital.errors import InvalidEncoding, TooLarge, UnknownFile, UnsafePath
from orbital.files import (
    FileGateway,
    FileStamp,
    check_size,
    decode_utf8,
    memory_file,
    projected_file,
    sha256,
)


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


def test_a_journal_still_linked_to_the_file_at_the_name_is_dropped(tmp_path: Path) -> None:
    """A power loss that kept the commit but not the swap (or a kill before it): the name
    holds the previous projection and its journal is a second name of it; recovery drops the
    journal and keeps no copy (the next unit regenerates the file)."""
    files = FileGateway(tmp_path)
    stamp = files.write("DECISIONS.md", b"## Old\nChose: a.\n")
    memory = tmp_path / "orbital"
    journal = f".DECISIONS.md.{sha256(b'new')[:16]}.orbital-prev"
    os.link(memory / "DECISIONS.md", memory / journal)
    newer = FileStamp(stamp.size + 1, stamp.mtime_ns + 1, sha256(b"new"))

    assert files.recover(lambda name: newer if name == "DECISIONS.md" else None) == []
    assert sorted(p.name for p in memory.iterdir()) == ["DECISIONS.md"]
    assert (memory / "DECISIONS.md").read_bytes() == b"## Old\nChose: a.\n"


def _has_user_attributes(path: Path) -> bool:
    try:
        os.setxattr(path, "user.orbital.probe", b"1")
    except OSError:
        return False
    os.removexattr(path, "user.orbital.probe")
    return True


def _append_journal(path: Path) -> bytes | None:
    try:
        return os.getxattr(path, "user.orbital.append")
    except OSError:
        return None


def test_an_append_is_journalled_on_the_file_and_cut_back_when_it_never_committed(
    tmp_path: Path,
) -> None:
    """The append's journal is an attribute of ASKS.md (synced with the bytes by one fsync):
    nothing beside the file; settled on commit; after a crash before the commit, the next
    unit cuts the uncommitted lines off and drops the attribute."""
    files = FileGateway(tmp_path)
    first = files.write("ASKS.md", b"- open aaaaaa 2026-09-19 One\n")
    asks = tmp_path / "orbital" / "ASKS.md"
    if not _has_user_attributes(asks):
        pytest.skip("this filesystem has no user extended attributes")
    line = b"- open bbbbbb 2026-09-19 Two\n"

    settled = files.append_checked("ASKS.md", line, (first.size, first.mtime_ns))
    assert (
        _append_journal(asks)
        == f".ASKS.md.{first.size}.{first.size + len(line)}.orbital-append".encode()
    )
    assert sorted(p.name for p in asks.parent.iterdir()) == ["ASKS.md"]
    files.settle("ASKS.md", settled)
    assert _append_journal(asks) is None
    assert asks.read_bytes() == b"- open aaaaaa 2026-09-19 One\n" + line

    committed = os.stat(asks)
    stamp = FileStamp(committed.st_size, committed.st_mtime_ns, None)
    crashed = files.append_checked(
        "ASKS.md", b"- open cccccc 2026-09-19 Lost\n", (stamp.size, stamp.mtime_ns)
    )
    assert crashed.stamp is not None
    assert files.recover(lambda name: stamp if name == "ASKS.md" else None) == []
    assert asks.read_bytes() == b"- open aaaaaa 2026-09-19 One\n" + line
    assert _append_journal(asks) is None


def test_without_user_attributes_an_append_is_journalled_by_a_marker_beside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A filesystem that refuses user attributes (tmpfs without them, say) gets the marker
    file, synced with the directory before the bytes; recovery reads it the same way."""

    def refused(*args: object) -> None:
        raise OSError(errno.EOPNOTSUPP, "Operation not supported")

    files = FileGateway(tmp_path)
    first = files.write("ASKS.md", b"- open aaaaaa 2026-09-19 One\n")
    monkeypatch.setattr(os, "setxattr", refused)
    line = b"- open bbbbbb 2026-09-19 Lost\n"
    marker = f".ASKS.md.{first.size}.{first.size + len(line)}.orbital-append"

    crashed = files.append_checked("ASKS.md", line, (first.size, first.mtime_ns))
    assert crashed.journal == marker and not crashed.attribute
    memory = tmp_path / "orbital"
    assert sorted(p.name for p in memory.iterdir()) == [marker, "ASKS.md"]
    assert files.recover(lambda name: first if name == "ASKS.md" else None) == []
    assert sorted(p.name for p in memory.iterdir()) == ["ASKS.md"]
    assert (memory / "ASKS.md").read_bytes() == b"- open aaaaaa 2026-09-19 One\n"


def test_recovery_reads_no_attribute_through_a_symlinked_asks_md(tmp_path: Path) -> None:
    """ASKS.md made a symlink is refused where it is read or written, never followed by the
    recovery every unit starts with (which looks for an append's attribute on it)."""
    files = FileGateway(tmp_path)
    files.ensure_dir()
    outside = tmp_path / "outside.md"
    outside.write_bytes(b"- open aaaaaa 2026-09-19 Elsewhere\n")
    (tmp_path / "orbital" / "ASKS.md").symlink_to(outside)

    assert files.recover(lambda name: None) == []
    assert outside.read_bytes() == b"- open aaaaaa 2026-09-19 Elsewhere\n"
