"""The errors of the store underneath Orbital: missing, locked, gone, full, damaged."""

from __future__ import annotations

from orbital.errors._families import Internal, NotFound, Unavailable


class NoStore(NotFound):
    """No store file where one is expected, and this command does not create stores."""

    hint = "`orbital init` creates one there, or point ORBITAL_DB / --db at the existing one"

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(f"there is no store at {path}")


class StoreLocked(Unavailable):
    """The database stayed locked by another writer for longer than the busy timeout."""

    def __init__(self, url: str, timeout_ms: int, *, holder: str = "") -> None:
        self.url = url
        self.timeout_ms = timeout_ms
        self.holder = holder
        by = f"another writer ({holder})" if holder else "another writer"
        super().__init__(
            f"the store {url} stayed locked by {by} for more than {timeout_ms} ms; nothing "
            "was written, so sending the same request again is safe. If it keeps happening, "
            "a writer is stuck or the store is overloaded: look for a hung Orbital process, "
            "or raise ORBITAL_BUSY_TIMEOUT_MS"
        )


class StoreUnreachable(Unavailable):
    """The store's database server cannot be reached (nothing listening, a host that does not
    resolve, a database or role that does not exist): the URL or the server needs a look."""

    def __init__(self, url: str, reason: str) -> None:
        self.url = url
        self.reason = reason
        super().__init__(
            f"cannot reach the store {url}: {reason}; nothing was read or written. Check "
            "ORBITAL_DB / --db and that the server is running"
        )


class StoreGone(Unavailable):
    """The store's file was deleted, moved or replaced since it was opened: a write would land
    in a file nobody will open again (or in another store), so none is made. The hint says
    what to do about it (where its data was saved, how to get it back)."""

    def __init__(self, path: str, what: str, advice: str) -> None:
        self.path = path
        self.what = what
        self.hint = advice
        super().__init__(f"the store {path} {what}; nothing was written")


class NothingToRescue(NotFound):
    """No process holds a deleted store at that path."""

    hint = (
        "if the file was moved, point ORBITAL_DB at its new place; else put it back from a "
        "backup, or remove the -wal and -shm beside it to start an empty store there (what "
        "they held is lost)"
    )

    def __init__(self, path: str, why: str) -> None:
        self.path = path
        super().__init__(f"nothing to rescue at {path}: {why}")


class RescueFailed(Unavailable):
    """The held store could not be copied or is not a sound SQLite store."""

    hint = "keep the process that holds it running and try again; stopping it loses the data"


class StoreReadOnly(Unavailable):
    """The store cannot be written now (a read-only file or filesystem); reads still work."""

    def __init__(self, where: str) -> None:
        self.where = where
        super().__init__(
            f"the store {where} is read-only; nothing was written. Make it writable again "
            "(the -wal and -shm files beside it too) and retry"
        )


class DiskFull(Unavailable):
    """No space left for the store or a memory file."""

    def __init__(self, where: str) -> None:
        self.where = where
        super().__init__(
            f"the disk holding {where} is full; nothing was written. Free some space and retry"
        )


class StoreCorrupt(Internal):
    """The database file is damaged (not a database, or a malformed page)."""

    def __init__(self, where: str, detail: str) -> None:
        self.where = where
        self.detail = detail
        super().__init__(
            f"the store {where} is damaged ({detail}); nothing was written. Restore it from a "
            "backup (`sqlite3 FILE .recover` may save what is left)"
        )


class UnsafeSqlite(Internal):
    """The SQLite library lacks the fix of the WAL-reset corruption bug (3.51.3; backports
    3.50.7, 3.44.6), whose trigger is several processes writing one store."""

    hint = "set ORBITAL_ALLOW_UNFIXED_SQLITE=1 to open the store anyway"

    def __init__(self, version: str) -> None:
        self.version = version
        super().__init__(
            f"SQLite {version} has the WAL-reset corruption bug (fixed in 3.51.3, 3.50.7 and "
            "3.44.6); reinstall Orbital to get its own SQLite"
        )
