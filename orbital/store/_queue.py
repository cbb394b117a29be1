"""The writers' queue of a SQLite store: a lock file beside it, taken before ``BEGIN
IMMEDIATE``.

SQLite's own busy handler polls with sleeps that grow to 100 ms, so a writer that has waited
long polls least often and loses the lock to every newcomer: with 8 writer processes some
writes waited past the 5 s timeout while the lock was free most of the time. A kernel file
lock has no such back-off: a waiter blocks in ``flock`` and is woken the moment the holder
lets go, so each writer's wait is about the work queued ahead of it.

``flock`` cannot time out, so a contended wait runs in a helper thread and the caller waits
for it up to the budget; a wait given up on is left to finish and lets go at once. The holder
writes its process id into the file, so a writer that gave up can say who held the store.
A store whose directory cannot hold the file (read-only) is written without the queue:
SQLite's busy timeout still applies, and such a store takes no writes anyway.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from orbital.errors import StoreLocked


class WriterQueue:
    """The lock file ``<store>.lock`` that the store's writers take turns on."""

    def __init__(self, store: Path) -> None:
        self.path = Path(f"{store}.lock")

    @contextmanager
    def turn(self, url: str, timeout_ms: int) -> Iterator[None]:
        """Hold the store's writer lock for the block; past ``timeout_ms`` of waiting,
        :class:`StoreLocked` (naming the holder's process when known)."""
        fd = self._open()
        if fd is None:
            yield
            return
        try:
            taken = _acquire(fd, timeout_ms / 1000)
        except OSError:  # no locks on this filesystem: SQLite's busy timeout alone
            os.close(fd)
            yield
            return
        if not taken:
            raise StoreLocked(url, timeout_ms, holder=self._holder())
        try:
            holder = f"{os.getpid():<11}\n".encode()
            # Written only when another process held it last: a write dirties the file's
            # inode, which the next commit's fsync would then carry too.
            if os.pread(fd, len(holder), 0) != holder and _writable(fd):
                os.pwrite(fd, holder, 0)
            yield
        finally:
            os.close(fd)  # lets go of the lock

    def _open(self) -> int | None:
        for flags in (os.O_RDWR | os.O_CREAT, os.O_RDONLY):
            try:
                return os.open(self.path, flags | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
            except OSError:
                continue
        return None

    def _holder(self) -> str:
        try:
            pid = self.path.read_text(encoding="ascii", errors="replace").split()[0]
        except (OSError, IndexError):
            return ""
        return f"process {pid}" if pid.isdigit() else ""


def _writable(fd: int) -> bool:
    return fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE != os.O_RDONLY


def _acquire(fd: int, timeout: float) -> bool:
    """Take the lock on ``fd`` within ``timeout`` seconds. On False, ``fd`` belongs to the
    waiting thread, which closes it (letting go at once) when its ``flock`` returns."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        pass
    got = threading.Event()
    guard = threading.Lock()
    abandoned = False

    def wait() -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with guard:
            if abandoned:
                os.close(fd)
            else:
                got.set()

    threading.Thread(target=wait, name="orbital-writer-queue", daemon=True).start()
    if got.wait(timeout):
        return True
    with guard:
        if got.is_set():  # taken just as the wait ran out
            return True
        abandoned = True
    return False
