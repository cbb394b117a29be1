"""Checked writes of a projection: no person's save lost, no uncommitted write left behind.

A projection is replaced by swapping names (``renameat2(RENAME_EXCHANGE)``: the file at the
name is never missing) and checking what was swapped out: a save that landed since the file was
read is put back, never overwritten. What was swapped out stays beside, under a name that
carries the new content's hash, until the store's transaction ends: removed on commit, put back
on rollback, and after a crash recognised by the next unit of work (:meth:`FileGateway.recover`),
which puts back a projection no commit stands behind. See ARCHITECTURE.md, "Files on disk".
"""

from __future__ import annotations

import ctypes
import errno
import os
import re
from collections.abc import Callable
from contextlib import suppress

import msgspec

from orbital.files._gateway import NOFOLLOW, READ, Gateway, pread_all
from orbital.files._names import FileStamp, projected_file, sha256

_JOURNAL = re.compile(
    r"^\.(?P<name>.+?)\.(?:(?P<new>[0-9a-f]{16})\.orbital-(?P<kind>prev|none)"
    r"|(?P<old>\d+)\.(?P<size>\d+)\.orbital-append|[0-9a-f]{8}\.tmp)$"
)


class Written(msgspec.Struct, frozen=True):
    """What a checked write did. ``stamp`` None: nothing was written, as a save was found
    where the caller expected its own file (the save stays on disk, to be taken in). ``kept``:
    a save found in the way that could not stay (keep it as a conflict copy). ``journal``:
    the name to settle on commit or undo on rollback (see :meth:`FileGateway.replace`)."""

    stamp: FileStamp | None
    kept: bytes | None = None
    journal: str | None = None
    #: The replaced file's size and mtime when it was checked (to see a late write into it).
    previous: tuple[int, int] | None = None


class FileGateway(Gateway):
    """Reads and writes the projected files of one project's ``orbital/`` directory."""

    # -- checked writes: no save lost, no uncommitted write left behind ---------------

    def replace(self, name: str, data: bytes, expect: str | None) -> Written:
        """Replace the file with ``data`` unless it no longer holds what the caller decided
        on (``expect``: its SHA-256, :data:`ABSENT`, or None for no check).

        The file is hard-linked to a journal name (``.<name>.<new hash>.orbital-prev``) and
        the journal checked; a save found there stays and nothing is written. Then the new
        file and the name are swapped atomically (``renameat2(RENAME_EXCHANGE)``: the name is
        never missing and never replaced blindly): what comes out is the checked file, or a
        save that took the name in between, returned as ``kept``. A writer that kept the old
        file open and writes into it later shows as a change of the journal (``kept`` now,
        or put back at commit: :meth:`settle`). The journal is the undo: removed on commit,
        put back on rollback, and recognised after a crash (:meth:`recover`)."""
        filename = projected_file(name).name
        new = sha256(data)
        with self._dir(create=True) as directory:
            self._lstat(directory, filename)
            temp, written = self._temp(directory, filename, data)
            try:
                return self._swap(directory, filename, temp, written, new, expect)
            finally:
                with suppress(FileNotFoundError):
                    os.unlink(temp, dir_fd=directory)
                os.fsync(directory)

    def _swap(
        self,
        directory: int,
        filename: str,
        temp: str,
        written: os.stat_result,
        new: str,
        expect: str | None,
    ) -> Written:
        journal = f".{filename}.{new[:16]}.orbital-prev"
        stamp = FileStamp(written.st_size, written.st_mtime_ns, new)
        if not _link(directory, filename, journal, missing_ok=True):  # nothing at the name
            journal = f".{filename}.{new[:16]}.orbital-none"
            os.close(os.open(journal, os.O_WRONLY | os.O_CREAT | NOFOLLOW, 0o600, dir_fd=directory))
            if not _link(directory, temp, filename):  # link never replaces: a save stays
                os.unlink(journal, dir_fd=directory)
                return Written(None)
            return Written(stamp, None, journal)
        fd, found = self._open(directory, journal, READ)
        with os.fdopen(fd, "rb") as handle:
            before = handle.read()
        if expect is not None and sha256(before) != expect:  # a save landed: it stays
            os.unlink(journal, dir_fd=directory)
            return Written(None)
        kept = None
        if _exchange(directory, temp, filename):  # the temp name: what the name held
            swapped = os.stat(temp, dir_fd=directory, follow_symlinks=False)
            if swapped.st_ino != found.st_ino:  # a save took the name since the check
                kept = self._read(temp, shared=True)
        else:  # no atomic exchange here: the narrowest check-then-replace
            now = os.stat(filename, dir_fd=directory, follow_symlinks=False)
            if now.st_ino != found.st_ino:
                os.unlink(journal, dir_fd=directory)
                return Written(None)
            os.rename(temp, filename, src_dir_fd=directory, dst_dir_fd=directory)
        after = os.stat(journal, dir_fd=directory, follow_symlinks=False)
        if kept is None and (after.st_size, after.st_mtime_ns) != (
            found.st_size,
            found.st_mtime_ns,
        ):
            kept = self._read(journal, shared=True)  # written into since the check
        return Written(stamp, kept, journal, (found.st_size, found.st_mtime_ns))

    def append_checked(self, name: str, data: bytes, expect: tuple[int, int]) -> Written:
        """Append to the file only while it is the one the caller knows (``expect``: size
        and mtime); a marker ``.<name>.<old size>.<new size>.orbital-append`` records the
        append until it commits, so a crash's uncommitted lines are cut off (:meth:`recover`)."""
        filename = projected_file(name).name
        with self._dir(create=True) as directory:
            fd, info = self._open(directory, filename, os.O_RDWR | os.O_APPEND)
            try:
                if (info.st_size, info.st_mtime_ns) != expect:
                    return Written(None)
                if info.st_nlink > 1:  # never write through a link: replace with a copy
                    before = pread_all(fd, info.st_size)
                    return self.replace(name, before + data, sha256(before))
                journal = f".{filename}.{info.st_size}.{info.st_size + len(data)}.orbital-append"
                os.close(
                    os.open(journal, os.O_WRONLY | os.O_CREAT | NOFOLLOW, 0o600, dir_fd=directory)
                )
                os.fsync(directory)
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
                info = os.fstat(fd)
            finally:
                os.close(fd)
        return Written(FileStamp(info.st_size, info.st_mtime_ns, None), None, journal)

    def settle(self, name: str, written: Written) -> None:
        """The write committed: drop its journal; unless a writer that had the replaced file
        open wrote into it since it was checked (an editor saving in place): then that save
        goes back at the name while the name still holds this write, to be taken in."""
        journal, stamp = written.journal, written.stamp
        if journal is None or stamp is None:
            return
        filename = projected_file(name).name
        with self._dir() as directory, suppress(FileNotFoundError):
            if written.previous is not None:
                info = os.stat(journal, dir_fd=directory, follow_symlinks=False)
                now = self._lstat(directory, filename)
                late = (info.st_size, info.st_mtime_ns) != written.previous
                if (
                    late
                    and now is not None
                    and (now.st_size, now.st_mtime_ns)
                    == (
                        stamp.size,
                        stamp.mtime_ns,
                    )
                ):
                    os.rename(journal, filename, src_dir_fd=directory, dst_dir_fd=directory)
                    return
            os.unlink(journal, dir_fd=directory)

    def undo(self, name: str, written: Written) -> None:
        """The write did not commit: put the file back as it was, unless something other than
        the write is there now (then the journal stays for :meth:`recover`)."""
        found = _JOURNAL.match(written.journal or "")
        if found is None or written.stamp is None:
            return
        filename = projected_file(name).name
        with self._dir() as directory:
            self._roll_back(directory, filename, found, written.stamp.sha256)

    def _roll_back(
        self, directory: int, filename: str, found: re.Match[str], new: str | None
    ) -> bool:
        """Undo one journalled write if the file is still exactly it; True when undone."""
        journal = found.group(0)
        info = self._lstat(directory, filename)
        if found.group("kind"):
            if info is None:  # stopped between the rename and the link
                if found.group("kind") == "prev":
                    os.rename(journal, filename, src_dir_fd=directory, dst_dir_fd=directory)
                return found.group("kind") == "prev"
            fd, _ = self._open(directory, filename, READ)
            with os.fdopen(fd, "rb") as handle:
                if sha256(handle.read())[:16] != found.group("new"):
                    return False
            if found.group("kind") == "prev":
                os.rename(journal, filename, src_dir_fd=directory, dst_dir_fd=directory)
            else:
                os.unlink(filename, dir_fd=directory)
                os.unlink(journal, dir_fd=directory)
            return True
        if info is None or info.st_size != int(found.group("size")):
            return False
        fd, _ = self._open(directory, filename, os.O_RDWR)
        try:
            os.ftruncate(fd, int(found.group("old")))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.unlink(journal, dir_fd=directory)
        return True

    def recover(self, committed: Callable[[str], FileStamp | None]) -> list[tuple[str, bytes]]:
        """Finish what a crashed writer left (run under the store's write lock, so no live
        writer has a journal open): temp files are removed; a journalled write that committed
        (the file is what ``committed`` says was last written) is settled; one that did not,
        and is still on disk, is undone. Returns what must be kept as conflict copies: a
        previous file that was neither the committed one nor put back."""
        kept: list[tuple[str, bytes]] = []
        try:
            with self._dir() as directory:
                for entry in os.listdir(directory):
                    found = _JOURNAL.match(entry)
                    if found is not None:
                        kept += self._recover_one(directory, found, committed)
        except FileNotFoundError:  # no orbital/ yet
            pass
        return kept

    def _recover_one(
        self,
        directory: int,
        found: re.Match[str],
        committed: Callable[[str], FileStamp | None],
    ) -> list[tuple[str, bytes]]:
        journal, filename = found.group(0), found.group("name")
        if not (found.group("kind") or found.group("old")):  # a temp file
            os.unlink(journal, dir_fd=directory)
            return []
        last = committed(filename)
        info = self._lstat(directory, filename)
        if info is not None and last is not None:
            same = (info.st_size, info.st_mtime_ns) == (last.size, last.mtime_ns)
            if same or (
                last.sha256 and last.sha256 == sha256(self._read(filename, shared=True) or b"")
            ):
                os.unlink(journal, dir_fd=directory)  # it committed
                return []
        if self._roll_back(directory, filename, found, None):
            return []
        previous = self._read(journal, shared=True) if found.group("kind") == "prev" else None
        os.unlink(journal, dir_fd=directory)
        if previous and (last is None or sha256(previous) != last.sha256):
            return [(filename, previous)]
        return []


_LIBC = ctypes.CDLL(None, use_errno=True)
_RENAME_EXCHANGE = 2


def _exchange(directory: int, first: str, second: str) -> bool:
    """Swap two names atomically (``renameat2(RENAME_EXCHANGE)``): True when swapped, False
    when the system or filesystem cannot (or ``second`` is gone)."""
    renameat2 = getattr(_LIBC, "renameat2", None)
    if renameat2 is None:
        return False
    if renameat2(directory, first.encode(), directory, second.encode(), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOENT, errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), second)


def _link(directory: int, source: str, name: str, *, missing_ok: bool = False) -> bool:
    """Give ``source`` the name ``name`` too unless something has it (``link`` never
    replaces); ``missing_ok``: False also when ``source`` is gone."""
    try:
        os.link(source, name, src_dir_fd=directory, dst_dir_fd=directory)
    except FileExistsError:
        return False
    except FileNotFoundError:
        if not missing_ok:
            raise
        return False
    return True
