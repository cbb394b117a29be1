"""The reads a new process asks first: which project a folder is (the registry's reads that
:func:`orbital.project.locate` walks with), whether the project moved (its heads) and what was
last written in a checkout (a checkpoint). Apart from the other reads so that a short-lived
process (a hook's or a CLI read's quick lane, :mod:`._quick`) runs these same statements
without importing the events, msgspec or the writers; the store's :class:`Reader` inherits them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from orbital.project import Project, this_machine
from orbital.store._db import Conn, instant
from orbital.store._search import SearchReads

JOINED = (
    "SELECT p.project_id, k.root, p.timezone, p.registered_at, k.checkout_id, k.machine"
    " FROM checkouts AS k JOIN projects AS p ON k.project_id = p.project_id"
)


def resolved(root: str | Path) -> str:
    return str(Path(root).expanduser().resolve())


def from_row(row: Sequence[Any]) -> Project:
    project_id, root, timezone, registered, checkout_id = row[:5]
    return Project(project_id, root, timezone, instant(registered), checkout_id)


#: Each stream category of a project, its last position and that event's id.
SELECT_HEADS = (
    "SELECT h.category, h.last_position, e.event_id FROM heads AS h"
    " JOIN events AS e ON e.position = h.last_position WHERE h.project_id = :p"
)
SELECT_CHECKPOINT = (
    "SELECT position, size, mtime_ns, sha256 FROM checkpoints WHERE checkout_id = :c AND name = :n"
)


class FirstReads(SearchReads):
    """The first reads, over one connection (a transaction's, or a short-lived process's)."""

    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def checkout_at(self, root: str | Path) -> Project | None:
        """The checkout registered for exactly this directory on this machine."""
        row = self._conn.first(
            f"{JOINED} WHERE k.machine = :machine AND k.root = :root",
            {"machine": this_machine(), "root": resolved(root)},
        )
        return None if row is None else from_row(row)

    def unclaimed_at(self, root: str | Path) -> Project | None:
        """A checkout at this path under another machine name, of a project from before
        identities (no id file anywhere): this machine under a new host name."""
        row = self._conn.first(
            f"{JOINED} WHERE k.root = :root AND p.identity IS NULL", {"root": resolved(root)}
        )
        return None if row is None else from_row(row)

    def project_with_identity(self, identity: str) -> str | None:
        found = self._conn.scalar(
            "SELECT project_id FROM projects WHERE identity = :identity", {"identity": identity}
        )
        return None if found is None else str(found)

    def cache_key(self) -> bytes | None:
        """The store's secret that signs the caches a process keeps for the next (None: the
        row is gone, and nothing kept is trusted)."""
        found = self._conn.scalar("SELECT value FROM store_secrets WHERE name = 'cache'")
        return None if found is None else bytes.fromhex(str(found))

    def stream_state(self, project: str, stream: str) -> str | None:
        """A stream's folded state as stored (its category's reducer decodes it)."""
        found = self._conn.scalar(
            "SELECT state FROM streams WHERE project_id = :p AND stream = :s",
            {"p": project, "s": stream},
        )
        return None if found is None else str(found)

    def has_event(self, project: str, stream: str, type_: str) -> bool:
        """Whether ``stream`` holds an event of type ``type_``."""
        found = self._conn.scalar(
            "SELECT 1 FROM events WHERE project_id = :p AND stream = :s AND type = :t LIMIT 1",
            {"p": project, "s": stream, "t": type_},
        )
        return found is not None

    def head(self, project: str | None = None) -> int:
        """The last position (of the project, or of the whole store); 0 when empty: one
        indexed max()."""
        if project is None:
            return int(self._conn.scalar("SELECT max(position) FROM events") or 0)
        found = self._conn.scalar(
            "SELECT max(position) FROM events WHERE project_id = :p", {"p": project}
        )
        return int(found or 0)

    def category_heads(self, project: str) -> dict[str, tuple[int, str]]:
        """Each stream category of the project -> its last position and that event's id, in
        one statement: the newest is the project's head event, and any prefix's head is the
        newest of the categories it covers, so a reader that needs several asks once."""
        rows = self._conn.execute(SELECT_HEADS, {"p": project})
        return {str(c): (int(last), str(event_id)) for c, last, event_id in rows}

    def written_stat(self, checkout_id: str, name: str) -> tuple[int, int] | None:
        """``(size, mtime_ns)`` of projection ``name`` as Orbital last wrote it in a
        checkout, if it did."""
        row = self.checkpoint_row(checkout_id, name)
        return None if row is None else (row[1], row[2])

    def checkpoint_row(
        self, checkout_id: str, name: str
    ) -> tuple[int, int, int, str | None] | None:
        """``(position, size, mtime_ns, sha256)`` of projection ``name`` as last written in a
        checkout, if it was (no hash: a held write's, until its stat is adopted)."""
        row = self._conn.first(SELECT_CHECKPOINT, {"c": checkout_id, "n": name})
        if row is None:
            return None
        position, size, mtime_ns, sha256 = row
        return int(position), int(size), int(mtime_ns), sha256
