"""Saving a SQLite store whose file was deleted while a process still has it open.

The file's bytes live on as long as a process holds it open (an ``orbital serve``, a CLI run
that has not ended); when the last connection closes, SQLite checkpoints into the deleted file
and removes the ``-wal`` and ``-shm`` beside the path: the data is gone. While it is held, the
kernel still hands it out through ``/proc/<pid>/fd`` (Linux): the deleted file and its
``-wal`` (deleted or not) are copied from there into a scratch folder, opened by SQLite (which
takes the ``-wal`` in, as after a crash), checked, and written as one plain file by SQLite's
backup. The process holding it refuses every commit meanwhile (:mod:`orbital.store._file`), so
the copy is the store as its last commit left it.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pysqlite3.dbapi2 as sqlite_dbapi

from orbital.errors import NothingToRescue, RescueFailed

_PROC = Path("/proc")
_DELETED = " (deleted)"


@dataclass(frozen=True)
class Held:
    """A process holding a deleted store: its id, the file's descriptor and the ``-wal``'s
    (None when it has none open), and its command line (to say which process it is)."""

    pid: int
    fd: int
    wal_fd: int | None
    command: str


@dataclass(frozen=True)
class Rescued:
    """Which store was saved where, from which process, and how many events it holds."""

    store: Path
    saved: Path
    held: Held
    events: int


def where(path: Path) -> Path:
    """``path`` as the kernel names it (its folder's symlinks resolved), file or not."""
    return path.parent.resolve() / path.name


def holders(path: Path, pids: list[int] | None = None) -> list[Held]:
    """The processes (of those in ``pids``; default all this user may look into) that hold
    the deleted file ``path`` open."""
    gone, wal = f"{where(path)}{_DELETED}", f"{where(path)}-wal"
    found: list[Held] = []
    for pid in pids if pids is not None else _pids():
        fds = _links(pid)
        main = [fd for fd, target in fds.items() if target == gone]
        if not main:
            continue
        wals = [fd for fd, t in fds.items() if t in (wal, wal + _DELETED)]
        found.append(Held(pid, main[0], wals[0] if wals else None, _command(pid)))
    return found


def rescue(path: Path, saved: Path, pids: list[int] | None = None) -> Rescued:
    """Save the deleted store ``path``, as a process holding it has it, as ``saved`` (a new
    file). Raises :class:`NothingToRescue` when no process holds it."""
    if not _PROC.is_dir():
        raise NothingToRescue(str(path), "this system has no /proc to find the process holding it")
    if path.exists():
        raise NothingToRescue(str(path), "the store file is there")
    found = holders(path, pids)
    if not found:
        raise NothingToRescue(str(path), "no running process holds the deleted file open")
    held = found[0]
    scratch = Path(tempfile.mkdtemp(prefix=".orbital-rescue-", dir=saved.parent))
    done = False
    try:
        copy = scratch / "store.db"
        shutil.copyfile(_PROC / str(held.pid) / "fd" / str(held.fd), copy)
        if held.wal_fd is not None:
            wal = _PROC / str(held.pid) / "fd" / str(held.wal_fd)
            shutil.copyfile(wal, f"{copy}-wal")
        events = _backup(copy, saved)
        done = True
    except OSError as exc:
        raise RescueFailed(f"could not copy the store held by process {held.pid}: {exc}") from exc
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if not done:
            saved.unlink(missing_ok=True)
    return Rescued(path, saved, held, events)


def rescue_store(url: str | None, to: Path | None, now: dt.datetime) -> Rescued:
    """Rescue the SQLite store at ``url`` (default: ``ORBITAL_DB``, else the user's store)
    into ``to`` (default: beside it, :func:`saved_name`) from a process still holding it."""
    from orbital.store._db import default_url
    from orbital.store._open import display_url, sqlite_path

    url = url or default_url()
    path = sqlite_path(url)
    if path is None:
        raise NothingToRescue(display_url(url), "only a SQLite store is a file that can be lost")
    return rescue(path, to or saved_name(path, now))


def saved_name(path: Path, now: dt.datetime) -> Path:
    """Where a rescue saves the store by default: beside it, named for the moment."""
    return path.with_name(f"{path.name}.rescued-{now:%Y%m%dT%H%M%SZ}")


def moved_to(identity: tuple[int, int]) -> Path | None:
    """Where this process's open store file (device, inode) is now, when it was moved (not
    deleted) while open: the kernel names its new place (None when not found)."""
    for fd, target in _links(os.getpid()).items():
        if target.endswith(_DELETED) or not target.startswith("/"):
            continue
        try:
            info = os.stat(_PROC / "self" / "fd" / str(fd))
        except OSError:
            continue
        if (info.st_dev, info.st_ino) == identity:
            return Path(target)
    return None


def _backup(copy: Path, saved: Path) -> int:
    """``copy`` (with its ``-wal`` taken in) checked and written to ``saved`` as one file;
    returns how many events it holds."""
    source = sqlite_dbapi.connect(str(copy), isolation_level=None)
    try:
        check = source.execute("PRAGMA integrity_check").fetchone()
        if check is None or check[0] != "ok":
            raise RescueFailed(f"the copy is not a sound SQLite store: {check}")
        events = int(source.execute("SELECT count(*) FROM events").fetchone()[0])
        fd = os.open(saved, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(fd)
        target = sqlite_dbapi.connect(str(saved), isolation_level=None)
        try:
            source.backup(target)
        finally:
            target.close()
    except sqlite_dbapi.Error as exc:
        raise RescueFailed(f"the copy is not a sound SQLite store: {exc}") from exc
    finally:
        source.close()
    return events


def _pids() -> list[int]:
    return [int(p.name) for p in _PROC.iterdir() if p.name.isdigit()]


def _links(pid: int) -> dict[int, str]:
    """A process's open descriptors and what each names ({} when it cannot be looked into)."""
    folder = _PROC / str(pid) / "fd"
    found: dict[int, str] = {}
    try:
        names = os.listdir(folder)
    except OSError:
        return found
    for name in names:
        try:
            found[int(name)] = os.readlink(folder / name)
        except (OSError, ValueError):
            continue
    return found


def _command(pid: int) -> str:
    try:
        raw = (_PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return "?"
    return raw.replace(b"\0", b" ").decode("utf-8", "replace").strip() or "?"
