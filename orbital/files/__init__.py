"""The file gateway's public names (the rules are in :mod:`._gateway`, :mod:`._checked`,
:mod:`._journal`, :mod:`._names` and :mod:`._held`)."""

from orbital.files._checked import FileGateway, Written
from orbital.files._held import HELD_MTIME_NS, HeldGateway
from orbital.files._journal import Journal
from orbital.files._names import (
    ABSENT,
    DEFAULT_MAX_FILE_BYTES,
    FileStamp,
    MemoryFile,
    check_size,
    decode_utf8,
    max_file_bytes,
    memory_file,
    projected_file,
    sha256,
)

__all__ = [
    "ABSENT",
    "DEFAULT_MAX_FILE_BYTES",
    "HELD_MTIME_NS",
    "FileGateway",
    "FileStamp",
    "HeldGateway",
    "Journal",
    "MemoryFile",
    "Written",
    "check_size",
    "decode_utf8",
    "max_file_bytes",
    "memory_file",
    "projected_file",
    "sha256",
]
