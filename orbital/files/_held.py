"""A gateway that holds one file's bytes back for another writer (an agent's own file tool).

The agent's tool keeps a record of each file's state and refuses to edit a file changed behind
its back, so it must write the file itself: Orbital decides the bytes, the tool puts them on
disk. Every write of that file is kept here instead; its stamp's mtime is
:data:`HELD_MTIME_NS`, so the checkpoint
never matches a stat and the next unit looks at the bytes that landed.
"""

from __future__ import annotations

from pathlib import Path

from orbital.files._checked import FileGateway, Written
from orbital.files._journal import Journal
from orbital.files._names import FileStamp, projected_file, sha256

#: The mtime a held write's checkpoint records: no stat matches it, so the next unit looks at
#: what is on disk (the held bytes, once the agent's tool wrote them; the bytes from before,
#: when the tool never ran).
HELD_MTIME_NS = -1


class HeldGateway(FileGateway):
    """A gateway that writes every file but ``held``, whose bytes are kept in :attr:`data`."""

    def __init__(self, root: str | Path, held: str, journal: Journal | None) -> None:
        super().__init__(root, journal)
        self.held = projected_file(held).name
        #: What Orbital would have written to ``held`` (None: it was not written).
        self.data: bytes | None = None

    def _holds(self, name: str) -> bool:
        return projected_file(name).name == self.held

    def _hold(self, data: bytes) -> FileStamp:
        self.data = data
        return FileStamp(len(data), HELD_MTIME_NS, sha256(data))

    def _base(self, name: str) -> bytes:
        """What an append to the held file extends: the held bytes, else the disk's."""
        return self.data if self.data is not None else (self.read_bytes(name) or b"")

    def replace(self, name: str, data: bytes, expect: str | None) -> Written:
        if not self._holds(name):
            return super().replace(name, data, expect)
        return Written(self._hold(data))

    def append_checked(self, name: str, data: bytes, expect: tuple[int, int]) -> Written:
        if not self._holds(name):
            return super().append_checked(name, data, expect)
        return Written(self._hold(self._base(name) + data))

    def settle(self, name: str, written: Written) -> bytes | None:
        return None if self._holds(name) else super().settle(name, written)

    def undo(self, name: str, written: Written) -> None:
        if not self._holds(name):
            super().undo(name, written)

    def write(self, name: str, data: bytes) -> FileStamp:
        if not self._holds(name):
            return super().write(name, data)
        return self._hold(data)

    def append(self, name: str, data: bytes) -> FileStamp:
        if not self._holds(name):
            return super().append(name, data)
        self.data = self._base(name) + data
        return FileStamp(len(self.data), HELD_MTIME_NS, None)

    def truncate(self, name: str, size: int) -> None:
        if not self._holds(name):
            super().truncate(name, size)
