"""Beside the log: snapshots of folded state (for current and as-of reads), the checkpoint of
each projected file, and every content hash ever written for one."""

from __future__ import annotations

import zlib

import msgspec

from orbital.project import Project
from orbital.store._base import Transaction, naive_utc
from orbital.store._first_reads import FirstReads

_UPDATE_CHECKPOINT = (
    "UPDATE checkpoints SET position = :at, sha256 = :hash, size = :bytes, mtime_ns = :mtime,"
    " written_at = :when WHERE checkout_id = :c AND name = :n"
)
_INSERT_CHECKPOINT = (
    "INSERT INTO checkpoints (checkout_id, name, position, sha256, size, mtime_ns, written_at)"
    " VALUES (:c, :n, :at, :hash, :bytes, :mtime, :when)"
)


class Checkpoint(msgspec.Struct, frozen=True):
    """What Orbital last wrote for a projection: the position rendered, and the file's
    size, mtime and hash (``sha256`` None after an incremental append)."""

    position: int
    size: int
    mtime_ns: int
    sha256: str | None


class SnapshotReads(Transaction, FirstReads):
    def snapshot(
        self, project: str, name: str, at_or_before: int | None = None
    ) -> tuple[int, bytes] | None:
        """The newest snapshot of ``name`` at or before a position: ``(position, state)``."""
        sql = "SELECT position, state FROM snapshots WHERE project_id = :p AND name = :n"
        params: dict[str, object] = {"p": project, "n": name}
        if at_or_before is not None:
            sql, params["at"] = f"{sql} AND position <= :at", at_or_before
        row = self._conn.first(f"{sql} ORDER BY position DESC LIMIT 1", params)
        return None if row is None else (int(row[0]), zlib.decompress(row[1]))

    def snapshots_after(
        self, project: str, name: str, after: int, until: int
    ) -> list[tuple[int, bytes]]:
        """Every snapshot of ``name`` in the position window ``(after, until]``, oldest first
        (the deltas a read applies on top of a full snapshot)."""
        rows = self._conn.execute(
            "SELECT position, state FROM snapshots WHERE project_id = :p AND name = :n"
            " AND position > :after AND position <= :until ORDER BY position",
            {"p": project, "n": name, "after": after, "until": until},
        )
        return [(int(position), zlib.decompress(state)) for position, state in rows]

    def snapshot_position(self, project: str, name: str, at_or_before: int) -> int | None:
        """The position of the newest snapshot at or before a position (without its state)."""
        found = self._conn.scalar(
            "SELECT max(position) FROM snapshots WHERE project_id = :p AND name = :n"
            " AND position <= :at",
            {"p": project, "n": name, "at": at_or_before},
        )
        return None if found is None else int(found)

    def checkpoint(self, checkout: Project, name: str) -> Checkpoint | None:
        """What was last written for projection ``name`` in this checkout (folder)."""
        row = self.checkpoint_row(checkout.checkout, name)
        return None if row is None else Checkpoint(*row)

    def written_versions(self, project: str, name: str) -> dict[str, int]:
        """Every content hash written for projection ``name``, with its position."""
        rows = self._conn.execute(
            "SELECT sha256, position FROM projections_written WHERE project_id = :p AND name = :n",
            {"p": project, "n": name},
        )
        return {sha256: int(position) for sha256, position in rows}


class SnapshotWrites(SnapshotReads):
    def save_snapshot(self, project: str, name: str, position: int, state: bytes) -> None:
        """Record folded state (JSON) as of ``position``; stored compressed. A second
        snapshot at the same position is ignored (it would hold the same state)."""
        if self.snapshot_position(project, name, position) == position:
            return
        self._conn.run(
            "INSERT INTO snapshots (project_id, name, position, state)"
            " VALUES (:p, :n, :at, :state)",
            {"p": project, "n": name, "at": position, "state": zlib.compress(state, 6)},
        )

    def set_checkpoint(self, checkout: Project, name: str, checkpoint: Checkpoint) -> None:
        """Record what was written for a projection in a checkout, in this transaction (and,
        for a whole write, its hash among the project's versions ever written)."""
        written = {
            "p": checkout.project_id,
            "n": name,
            "hash": checkpoint.sha256,
            "at": checkpoint.position,
        }
        if checkpoint.sha256 is not None and (
            self._conn.scalar(
                "SELECT position FROM projections_written"
                " WHERE project_id = :p AND name = :n AND sha256 = :hash",
                written,
            )
            is None
        ):
            self._conn.run(
                "INSERT INTO projections_written (project_id, name, sha256, position)"
                " VALUES (:p, :n, :hash, :at)",
                written,
            )
        values = {
            "c": checkout.checkout,
            "n": name,
            "at": checkpoint.position,
            "hash": checkpoint.sha256,
            "bytes": checkpoint.size,
            "mtime": checkpoint.mtime_ns,
            "when": naive_utc(self._store.clock.now()),
        }
        if self._conn.run(_UPDATE_CHECKPOINT, values) == 0:
            self._conn.run(_INSERT_CHECKPOINT, values)
