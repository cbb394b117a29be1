"""The file gateway: which names are memory files, containment, atomic writes, hashes.

Every byte Orbital puts on disk goes through here, so the safety rules live in one place:
names are matched case-insensitively (``asks.md`` cannot dodge the ASKS.md rules), a path
never leaves ``<project>/orbital/``, and a projection is replaced atomically (temp file in the
same directory, fsync, rename, fsync of the directory) so a reader never sees half a file.

Nothing is checked first and used after: ``orbital/`` is opened once per operation without
following a symlink, every name is opened relative to that descriptor without following one
either, and what was opened is checked by its descriptor (a regular file; one link before
anything is written into it). So no swap of a directory or a file for a symlink or a hard link,
at any moment, leads a read or a write outside the project.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from orbital.catalogue import MEMORY_DIR
from orbital.errors import DiskFull, UnsafePath
from orbital.files._names import FILE_MODE, FileStamp, check_name, projected_file, sha256

NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC
#: A read never blocks on a FIFO swapped in for a file (it is refused once opened).
READ = os.O_RDONLY | os.O_NONBLOCK


class Gateway:
    """Reads and writes the projected files of one project's ``orbital/`` directory."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.directory = self.root / MEMORY_DIR

    @contextmanager
    def _dir(self, *, create: bool = False) -> Iterator[int]:
        """A descriptor of ``orbital/``, opened without following a symlink."""
        root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            if create:
                with suppress(FileExistsError):
                    os.mkdir(MEMORY_DIR, dir_fd=root_fd)
            try:
                fd = os.open(MEMORY_DIR, os.O_RDONLY | os.O_DIRECTORY | NOFOLLOW, dir_fd=root_fd)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                raise UnsafePath(
                    str(self.directory),
                    "orbital/ is not a plain directory: a symlink is never followed, as one "
                    "that resolves outside the project would lead there",
                ) from None
        finally:
            os.close(root_fd)
        try:
            yield fd
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise DiskFull(str(self.directory)) from exc
            raise
        finally:
            os.close(fd)

    def _open(self, directory: int, filename: str, flags: int) -> tuple[int, os.stat_result]:
        """``filename`` in ``directory`` opened without following a symlink, and what it is."""
        try:
            fd = os.open(filename, flags | NOFOLLOW, 0o666, dir_fd=directory)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
            raise UnsafePath(
                str(self.directory / filename), "memory files may not be symlinks"
            ) from None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            raise UnsafePath(str(self.directory / filename), "not a regular file")
        return fd, info

    def ensure_dir(self) -> None:
        with self._dir(create=True):
            pass

    def read_bytes(self, name: str, limit: int = -1) -> bytes | None:
        """The file's bytes, the first ``limit`` of them when it is not -1."""
        return self._read(projected_file(name).name, shared=True, limit=limit)

    def _read(self, filename: str, *, shared: bool, limit: int = -1) -> bytes | None:
        """The file's bytes (None when missing); ``shared``: a file with other hard links is
        read too (a memory file the person linked elsewhere is still the project's)."""
        try:
            with self._dir() as directory:
                fd, info = self._open(directory, filename, READ)
        except FileNotFoundError:
            return None
        with os.fdopen(fd, "rb") as handle:
            if not shared and info.st_nlink > 1:
                raise UnsafePath(
                    str(self.directory / filename), "the file has other hard links; not read"
                )
            return handle.read(limit)

    def stat(self, name: str) -> tuple[int, int] | None:
        """``(size, mtime_ns)`` or None when the file is missing."""
        filename = projected_file(name).name
        try:
            with self._dir() as directory:
                info = self._lstat(directory, filename)
        except FileNotFoundError:  # no orbital/ yet
            return None
        return None if info is None else (info.st_size, info.st_mtime_ns)

    def _lstat(self, directory: int, filename: str) -> os.stat_result | None:
        """The file's own status (None when missing); a symlink is refused."""
        try:
            info = os.stat(filename, dir_fd=directory, follow_symlinks=False)
        except FileNotFoundError:
            return None
        if stat.S_ISLNK(info.st_mode):
            raise UnsafePath(str(self.directory / filename), "memory files may not be symlinks")
        return info

    def write(self, name: str, data: bytes) -> FileStamp:
        """Replace the file atomically and durably; returns its stamp."""
        filename = projected_file(name).name
        with self._dir(create=True) as directory:
            self._lstat(directory, filename)
            written = self._replace(directory, filename, data)
        return FileStamp(written.st_size, written.st_mtime_ns, sha256(data))

    def append(self, name: str, data: bytes) -> FileStamp:
        """Append to the file durably (O(change)); the whole-file hash is not recomputed. A
        file with other hard links is replaced by a copy with the lines appended instead, so
        the bytes never reach a file elsewhere."""
        filename = projected_file(name).name
        with self._dir(create=True) as directory:
            fd, info = self._open(directory, filename, os.O_RDWR | os.O_APPEND | os.O_CREAT)
            try:
                if info.st_nlink > 1:
                    whole = pread_all(fd, info.st_size) + data
                else:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(fd, view) :]
                    os.fsync(fd)
                    info = os.fstat(fd)
                    whole = None
            finally:
                os.close(fd)
            if whole is not None:
                info = self._replace(directory, filename, whole)
        return FileStamp(info.st_size, info.st_mtime_ns, None)

    def save_aside(self, filename: str, data: bytes) -> str:
        """Write ``data`` as a new file beside the projections (a conflict copy) and return
        its name: ``filename``, or when that is taken ``-2``, ``-3``… before its extension. A
        copy never replaces another (two conflicts in one clock tick keep both)."""
        check_name(filename)
        stem, dot, ext = filename.rpartition(".")
        with self._dir(create=True) as directory:
            temp, _ = self._temp(directory, filename, data)
            try:
                name, n = filename, 1
                while True:
                    try:  # a link never replaces what is there: the name is ours or taken
                        os.link(temp, name, src_dir_fd=directory, dst_dir_fd=directory)
                    except FileExistsError:
                        n += 1
                        name = f"{stem}-{n}{dot}{ext}" if dot else f"{filename}-{n}"
                        continue
                    os.fsync(directory)
                    return name
            finally:
                os.unlink(temp, dir_fd=directory)

    def read_aside(self, filename: str) -> bytes | None:
        """A file kept beside the projections (a conflict copy); it must be the plain file
        Orbital wrote: a symlink or a file with other hard links is refused."""
        check_name(filename)
        return self._read(filename, shared=False)

    def has_aside(self, filename: str) -> bool:
        """Whether a file of that name is beside the projections (whatever it now is)."""
        check_name(filename)
        try:
            with self._dir() as directory:
                info = os.stat(filename, dir_fd=directory, follow_symlinks=False)
        except FileNotFoundError:
            return False
        return not stat.S_ISDIR(info.st_mode)

    def remove_aside(self, filename: str) -> None:
        check_name(filename)
        self._unlink(filename)

    def _replace(self, directory: int, filename: str, data: bytes) -> os.stat_result:
        """Write a temp file in ``directory`` and rename it over ``filename`` (a rename never
        follows a link and never writes into the file it replaces)."""
        temp, info = self._temp(directory, filename, data)
        try:
            os.replace(temp, filename, src_dir_fd=directory, dst_dir_fd=directory)
        except BaseException:
            with suppress(FileNotFoundError):
                os.unlink(temp, dir_fd=directory)
            raise
        os.fsync(directory)
        return info

    @staticmethod
    def _temp(directory: int, filename: str, data: bytes) -> tuple[str, os.stat_result]:
        """``data`` written and synced to a new temp file beside ``filename``."""
        temp = f".{filename}.{secrets.token_hex(4)}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o666, dir_fd=directory)
        try:
            os.fchmod(fd, FILE_MODE)  # the umask's mode, whatever the process's umask is now
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
                info = os.fstat(handle.fileno())
        except BaseException:
            with suppress(FileNotFoundError):
                os.unlink(temp, dir_fd=directory)
            raise
        return temp, info

    def truncate(self, name: str, size: int) -> None:
        """Cut the file back to ``size`` bytes (undo of an append); a file with other hard
        links is replaced by the cut copy, as :meth:`append` does."""
        filename = projected_file(name).name
        with self._dir() as directory:
            fd, info = self._open(directory, filename, os.O_RDWR)
            try:
                kept = pread_all(fd, size) if info.st_nlink > 1 else None
                if kept is None:
                    os.ftruncate(fd, size)
            finally:
                os.close(fd)
            if kept is not None:
                self._replace(directory, filename, kept)

    def remove(self, name: str) -> None:
        self._unlink(projected_file(name).name)

    def _unlink(self, filename: str) -> None:
        with self._dir() as directory, suppress(FileNotFoundError):
            os.unlink(filename, dir_fd=directory)


def pread_all(fd: int, size: int) -> bytes:
    """The first ``size`` bytes of an open file."""
    chunks: list[bytes] = []
    offset = 0
    while offset < size:
        chunk = os.pread(fd, size - offset, offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)
