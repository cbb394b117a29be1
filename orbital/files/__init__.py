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

from orbital.files._checked import FileGateway, Written
from orbital.files._held import HELD_MTIME_NS, HeldGateway
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
    "MemoryFile",
    "Written",
    "check_size",
    "decode_utf8",
    "max_file_bytes",
    "memory_file",
    "projected_file",
    "sha256",
]
