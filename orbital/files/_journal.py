"""The journal of checked writes, kept where only Orbital writes: the state folder, one folder
per checkout, never the project.

A checked write records what it is about to do before it does it (synced with its folder), so
a crash leaves a record of every unfinished write, and recovery (:meth:`FileGateway.recover`)
acts on those records alone: a file in ``orbital/`` whose name looks like a journal's is never
taken for one (git, an archive or anyone can put such a name there). Each record is signed
(``mac``: keyed by the store's own secret), so one written into the folder by anything else
is not Orbital's and is dropped unread.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import msgspec

NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC
_MAC = 32


class Entry(msgspec.Struct, frozen=True):
    """One journalled write of projected file ``file`` in ``orbital/``.

    ``replace``: the file's previous version is linked to ``beside`` + ``prev`` (or, where
    there was none, an empty ``beside`` + ``none`` marks it) and ``new`` is the SHA-256 of the
    bytes swapped in. ``append``: the file grew from ``old`` to ``size`` bytes, and ``tail``
    is the SHA-256 of the bytes appended."""

    file: str
    kind: Literal["replace", "append"]
    beside: str = ""
    new: str = ""
    old: int = 0
    size: int = 0
    tail: str = ""


class Journal:
    """The records of one checkout's unfinished writes, in ``folder``."""

    def __init__(self, folder: Path, mac: Callable[[bytes], bytes]) -> None:
        self.folder, self._mac = folder, mac

    def _signed(self, name: str, data: bytes) -> bytes:
        return self._mac(f"{self.folder.name}/{name}\0".encode() + data)

    def record(self, entry: Entry) -> str:
        """Record ``entry`` durably (file and folder synced); returns the record's name."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        name = f"{secrets.token_hex(8)}.journal"
        data = msgspec.msgpack.encode(entry)
        folder = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW
            fd = os.open(name, flags, 0o600, dir_fd=folder)
            try:
                view = memoryview(self._signed(name, data) + data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.fsync(folder)
        finally:
            os.close(folder)
        return name

    def drop(self, name: str) -> None:
        """The write is finished (settled, undone or recovered): forget its record."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.folder / name)

    def entries(self) -> list[tuple[str, Entry]]:
        """Every record Orbital wrote here, oldest first; anything else in the folder (a
        record another hand wrote, a link, a torn file) is removed unread."""
        try:
            names = os.listdir(self.folder)
        except FileNotFoundError:
            return []
        found: list[tuple[float, str, Entry]] = []
        for name in names:
            entry = self._read(name)
            if entry is None:
                with contextlib.suppress(OSError):
                    os.unlink(self.folder / name)
                continue
            found.append((entry[0], name, entry[1]))
        return [(name, entry) for _, name, entry in sorted(found)]

    def _read(self, name: str) -> tuple[float, Entry] | None:
        try:
            fd = os.open(self.folder / name, os.O_RDONLY | os.O_NONBLOCK | NOFOLLOW)
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            plain = stat.S_ISREG(info.st_mode) and info.st_nlink == 1
            raw = os.read(fd, 1 << 16) if plain else b""
        finally:
            os.close(fd)
        mac, data = raw[:_MAC], raw[_MAC:]
        if len(mac) != _MAC or not hmac.compare_digest(mac, self._signed(name, data)):
            return None
        try:
            return info.st_mtime, msgspec.msgpack.decode(data, type=Entry)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None
