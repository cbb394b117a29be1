"""The file gateway: which names are memory files, containment, atomic writes, hashes.

Every byte Orbital puts on disk goes through here, so the safety rules live in one place:
names are matched case-insensitively (``asks.md`` cannot dodge the ASKS.md rules), a path
never leaves ``<project>/orbital/`` (no ``..``, no absolute names, no symlink out), and a
projection is replaced atomically (temp file in the same directory, fsync, rename, fsync of
the directory) so a reader never sees half a file.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from orbital.errors import InvalidEncoding, TooLarge, UnknownFile, UnsafePath

MEMORY_DIR = "orbital"
#: Memory file key -> file name. ``asks`` is the append-only log; the others are budgeted.
MEMORY_FILES: dict[str, str] = {
    "state": "PROJECT_STATE.md",
    "decisions": "DECISIONS.md",
    "lessons": "LESSONS.md",
    "index": "INDEX.md",
    "asks": "ASKS.md",
}
ARCHIVE_FILES: dict[str, str] = {
    "state": "PROJECT_STATE_ARCHIVE.md",
    "decisions": "DECISIONS_ARCHIVE.md",
    "lessons": "LESSONS_ARCHIVE.md",
}
DEFAULT_MAX_FILE_BYTES = 4 * 1024 * 1024


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


#: The mode a new file gets from the process's umask (0644 with the usual 022).
_FILE_MODE = 0o666 & ~_umask()
_BY_NAME = {name.casefold(): key for key, name in MEMORY_FILES.items()}
_ARCHIVE_BY_NAME = {name.casefold(): key for key, name in ARCHIVE_FILES.items()}


@dataclass(frozen=True, slots=True)
class MemoryFile:
    key: str
    name: str


@dataclass(frozen=True, slots=True)
class FileStamp:
    """What a file looked like right after Orbital wrote it (``sha256`` None: not computed)."""

    size: int
    mtime_ns: int
    sha256: str | None


def max_file_bytes() -> int:
    raw = os.environ.get("ORBITAL_MAX_FILE_BYTES", "").strip()
    return int(raw) if raw.isdigit() else DEFAULT_MAX_FILE_BYTES


def _check_name(name: str) -> None:
    if not name or "\x00" in name:
        raise UnsafePath(name, "empty names and NUL bytes are not file names")
    if "/" in name or "\\" in name or name in {".", ".."} or Path(name).is_absolute():
        raise UnsafePath(name, "a memory file is named without a directory")


def memory_file(name: str) -> MemoryFile:
    """The memory file called ``name`` (any case): ``asks.md`` is ASKS.md."""
    _check_name(name)
    key = _BY_NAME.get(name.casefold())
    if key is None:
        raise UnknownFile(name, tuple(MEMORY_FILES.values()))
    return MemoryFile(key, MEMORY_FILES[key])


def projected_file(name: str) -> MemoryFile:
    """A memory file or one of the archives (both are projections Orbital renders)."""
    _check_name(name)
    key = _ARCHIVE_BY_NAME.get(name.casefold())
    if key is not None:
        return MemoryFile(f"{key}_archive", ARCHIVE_FILES[key])
    try:
        return memory_file(name)
    except UnknownFile:
        raise UnknownFile(
            name, tuple(MEMORY_FILES.values()) + tuple(ARCHIVE_FILES.values())
        ) from None


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def decode_utf8(data: bytes, *, offset: int = 0) -> str:
    """Strict UTF-8, with the offset of the first bad byte in the error (``offset``: where
    ``data`` starts in the whole content)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidEncoding(offset + exc.start) from None


def check_size(data: bytes) -> None:
    limit = max_file_bytes()
    if len(data) > limit:
        raise TooLarge(len(data), limit)


class FileGateway:
    """Reads and writes the projected files of one project's ``orbital/`` directory."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.directory = self.root / MEMORY_DIR

    def _resolved_dir(self) -> Path:
        real_root = self.root.resolve()
        real_dir = self.directory.resolve()
        if real_dir.parent != real_root:
            raise UnsafePath(str(self.directory), "orbital/ resolves outside the project")
        return real_dir

    def path(self, name: str) -> Path:
        """The on-disk path of a projected file, after the containment checks."""
        filename = projected_file(name).name
        directory = self._resolved_dir()
        target = directory / filename
        if target.is_symlink():
            raise UnsafePath(str(target), "memory files may not be symlinks")
        return target

    def ensure_dir(self) -> None:
        self.directory.mkdir(exist_ok=True)
        self._resolved_dir()

    def read_bytes(self, name: str) -> bytes | None:
        try:
            return self.path(name).read_bytes()
        except FileNotFoundError:
            return None

    def stat(self, name: str) -> tuple[int, int] | None:
        """``(size, mtime_ns)`` or None when the file is missing."""
        try:
            info = self.path(name).stat()
        except FileNotFoundError:
            return None
        return info.st_size, info.st_mtime_ns

    def write(self, name: str, data: bytes) -> FileStamp:
        """Replace the file atomically and durably; returns its stamp."""
        self.ensure_dir()
        target = self.path(name)
        self.write_raw(target, data)
        info = target.stat()
        return FileStamp(info.st_size, info.st_mtime_ns, sha256(data))

    def append(self, name: str, data: bytes) -> FileStamp:
        """Append to the file durably (O(change)); the whole-file hash is not recomputed."""
        self.ensure_dir()
        target = self.path(name)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(target, flags, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
            info = os.fstat(fd)
        finally:
            os.close(fd)
        return FileStamp(info.st_size, info.st_mtime_ns, None)

    def save_aside(self, filename: str, data: bytes) -> str:
        """Write ``data`` as a new file beside the projections (a conflict copy)."""
        _check_name(filename)
        self.ensure_dir()
        self.write_raw(self._resolved_dir() / filename, data)
        return filename

    def write_raw(self, target: Path, data: bytes) -> None:
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            os.fchmod(fd, _FILE_MODE)  # mkstemp makes 0600; a projection is a normal file
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, target)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
        self._fsync_dir(target.parent)

    def truncate(self, name: str, size: int) -> None:
        """Cut the file back to ``size`` bytes (undo of an append)."""
        os.truncate(self.path(name), size)

    def remove(self, name: str) -> None:
        self.path(name).unlink(missing_ok=True)

    def restorer(self, name: str) -> Callable[[], None]:
        """A callable that puts the file back as it is now: the undo of the write about to be
        made, for when the store's transaction does not commit. (The undo of an append is
        :meth:`truncate` to the size before it.)"""
        previous = self.read_bytes(name)
        if previous is None:
            return lambda: self.remove(name)

        def put_back() -> None:
            self.write(name, previous)

        return put_back

    @staticmethod
    def _fsync_dir(directory: Path) -> None:
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
