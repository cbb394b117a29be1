"""Which project a folder is: the registry's reads that :func:`orbital.project.locate` walks
with. Apart from the other project reads so that a short-lived process (a hook's quick lane)
runs the same statements without importing the events or the writers."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from orbital.project import Project, this_machine
from orbital.store._db import Conn, instant

JOINED = (
    "SELECT p.project_id, k.root, p.timezone, p.registered_at, k.checkout_id, k.machine"
    " FROM checkouts AS k JOIN projects AS p ON k.project_id = p.project_id"
)


def resolved(root: str | Path) -> str:
    return str(Path(root).expanduser().resolve())


def from_row(row: Sequence[Any]) -> Project:
    project_id, root, timezone, registered, checkout_id = row[:5]
    return Project(project_id, root, timezone, instant(registered), checkout_id)


class Registry:
    """Which project a folder is: the reads :func:`orbital.project.locate` walks with, over
    one connection (a transaction's, or a short-lived process's own)."""

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
