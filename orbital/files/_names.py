"""Which names are memory files (any case), the limits a file's content must meet, and what a
written file looked like."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import msgspec

from orbital.catalogue import ARCHIVE_FILES, ARCHIVE_OF, MEMORY_FILES
from orbital.errors import InvalidEncoding, TooLarge, UnknownFile, UnsafePath

DEFAULT_MAX_FILE_BYTES = 4 * 1024 * 1024


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


#: The mode a new file gets from the process's umask (0644 with the usual 022).
FILE_MODE = 0o666 & ~_umask()
_BY_NAME = {name.casefold(): key for key, name in MEMORY_FILES.items()}
_ARCHIVE_BY_NAME = {name.casefold(): key for key, name in ARCHIVE_FILES.items()}


class MemoryFile(msgspec.Struct, frozen=True):
    key: str
    name: str


class FileStamp(msgspec.Struct, frozen=True):
    """What a file looked like right after Orbital wrote it (``sha256`` None: not computed)."""

    size: int
    mtime_ns: int
    sha256: str | None


#: The expectation that no file is there (a projection written for the first time).
ABSENT = "absent"


def max_file_bytes() -> int:
    raw = os.environ.get("ORBITAL_MAX_FILE_BYTES", "").strip()
    return int(raw) if raw.isdigit() else DEFAULT_MAX_FILE_BYTES


def check_name(name: str) -> None:
    if not name or "\x00" in name:
        raise UnsafePath(name, "empty names and NUL bytes are not file names")
    if "/" in name or "\\" in name or name in {".", ".."} or Path(name).is_absolute():
        raise UnsafePath(name, "a memory file is named without a directory")


def memory_file(name: str) -> MemoryFile:
    """The memory file called ``name`` (any case): ``asks.md`` is ASKS.md."""
    check_name(name)
    key = _BY_NAME.get(name.casefold())
    if key is None:
        raise UnknownFile(name, tuple(MEMORY_FILES.values()))
    return MemoryFile(key, MEMORY_FILES[key])


def projected_file(name: str) -> MemoryFile:
    """A memory file or one of the archives (both are projections Orbital renders)."""
    check_name(name)
    key = _ARCHIVE_BY_NAME.get(name.casefold())
    if key is not None:
        return MemoryFile(ARCHIVE_OF[key], ARCHIVE_FILES[key])
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
