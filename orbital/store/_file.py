"""The SQLite store's file: is it still the one the store opened, and can it be written?

A process that has the store open keeps writing into the file it opened even after that file
was deleted or replaced; every such write is acknowledged and lost at the next start. So the
file's identity (device and inode) is taken when the store opens and compared before each
commit and by the health check: one ``stat``, no I/O on the database. And a store file is
created only when asked for (``orbital init``) and never where a store was deleted while in use
(its ``-wal`` or ``-shm`` file is still there): a new, empty store there would hide the loss,
and the old ``-wal`` would be replayed into it.
"""

from __future__ import annotations

import os
from pathlib import Path

from orbital.errors import NoStore, StoreGone

_SIDECARS = ("-wal", "-shm")


class StoreFile:
    """The identity of an open SQLite store's file."""

    def __init__(self, path: Path, *, create: bool) -> None:
        self.path = path
        if not path.exists():
            if any(Path(f"{path}{suffix}").exists() for suffix in _SIDECARS):
                raise StoreGone(
                    str(path), "was deleted while in use (its -wal/-shm files are still there)"
                )
            if not create:
                raise NoStore(str(path))
        self._identity: tuple[int, int] | None = None

    def opened(self) -> None:
        """Remember the file the store now has open."""
        info = os.stat(self.path)
        self._identity = (info.st_dev, info.st_ino)

    def problem(self) -> str:
        """What happened to the file since it was opened; empty when it is still the same."""
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            return "was deleted while in use"
        if self._identity is not None and (info.st_dev, info.st_ino) != self._identity:
            return "was replaced by another file while in use"
        return ""

    def read_only(self) -> bool:
        """Whether the store cannot be written now: its filesystem is mounted read-only, or
        the file is not writable by this process."""
        if os.statvfs(self.path.parent).f_flag & os.ST_RDONLY:
            return True
        return self.path.exists() and not os.access(self.path, os.W_OK)

    def disk_full(self) -> bool:
        """Whether no block is left for this process on the store's filesystem."""
        return self.free() == 0

    def free(self) -> int:
        """The bytes this process may still write on the store's filesystem."""
        found = os.statvfs(self.path.parent)
        return found.f_bavail * found.f_frsize

    def check(self) -> None:
        what = self.problem()
        if what:
            raise StoreGone(str(self.path), what)
