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

import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path

from orbital.errors import NoStore, OrbitalError, StoreGone

_SIDECARS = ("-wal", "-shm")


class StoreFile:
    """The identity of an open SQLite store's file."""

    def __init__(self, path: Path, *, create: bool, now: Callable[[], dt.datetime]) -> None:
        self.path = path
        self._now = now
        if not path.exists():
            if any(Path(f"{path}{suffix}").exists() for suffix in _SIDECARS):
                raise StoreGone(
                    str(path),
                    "was deleted while in use (its -wal/-shm files are still there)",
                    "if an Orbital process still runs on it (`orbital serve`), do not stop it: "
                    "`orbital db rescue` saves the data it holds; else put the file back from "
                    f"a backup, or remove {path}-wal and {path}-shm to start an empty store "
                    "there (what they held is lost)",
                )
            if not create:
                raise NoStore(str(path))
        self._identity: tuple[int, int] | None = None
        #: What became of the file once it was found gone, and what to do (worked out once:
        #: a rescue copies the whole store).
        self._gone: tuple[str, str] | None = None

    def opened(self) -> None:
        """Remember the file the store now has open."""
        info = os.stat(self.path)
        self._identity = (info.st_dev, info.st_ino)

    def problem(self) -> tuple[str, str] | None:
        """What happened to the file since it was opened and what to do about it; None
        while it is still the same file. A file deleted while this process holds it open is
        saved beside it first (:mod:`orbital.store._rescue`): stopping the process would
        lose it."""
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            if self._gone is None:
                self._gone = self._saved()
            return self._gone
        if self._identity is not None and (info.st_dev, info.st_ino) != self._identity:
            return (
                "was replaced by another file while in use",
                "restart Orbital to use the file there now, or put back the one it replaced",
            )
        return None

    def _saved(self) -> tuple[str, str]:
        """The file is gone from its path: moved (say where), or deleted (save the data this
        process still holds, and say where it went)."""
        from orbital.store._rescue import moved_to, rescue, saved_name

        moved = None if self._identity is None else moved_to(self._identity)
        if moved is not None:
            return (
                f"was moved to {moved} while in use",
                f"point ORBITAL_DB at {moved} (or move it back) and start Orbital again",
            )
        try:
            done = rescue(self.path, saved_name(self.path, self._now()), [os.getpid()])
        except OrbitalError as exc:
            return (
                "was deleted while in use",
                f"it could not be saved from this process ({exc}); keep this process "
                "running and run `orbital db rescue`",
            )
        return (
            "was deleted while in use",
            f"this process still held it: its data ({done.events} events) is saved as "
            f"{done.saved}: stop Orbital, remove {self.path}-wal and {self.path}-shm (the "
            f"saved store holds what they had), then `mv {done.saved} {self.path}`",
        )

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
        gone = self.problem()
        if gone is not None:
            raise StoreGone(str(self.path), *gone)
