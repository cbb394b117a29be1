"""Beside the log: snapshots of folded state (for current and as-of reads), the checkpoint of
each projected file, and every content hash ever written for one."""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from orbital.project import Project
from orbital.store._base import Transaction, naive_utc
from orbital.store._schema import checkpoints, projections_written, snapshots

_SELECT_CHECKPOINT = sa.select(checkpoints).where(
    checkpoints.c.checkout_id == sa.bindparam("c"), checkpoints.c.name == sa.bindparam("n")
)
_CHECKPOINT_VALUES: dict[str, Any] = {
    "position": sa.bindparam("at"),
    "sha256": sa.bindparam("hash"),
    "size": sa.bindparam("bytes"),
    "mtime_ns": sa.bindparam("mtime"),
    "written_at": sa.bindparam("when"),
}
_UPDATE_CHECKPOINT = (
    checkpoints.update()
    .where(checkpoints.c.checkout_id == sa.bindparam("c"), checkpoints.c.name == sa.bindparam("n"))
    .values(**_CHECKPOINT_VALUES)
)
_INSERT_CHECKPOINT = checkpoints.insert().values(
    checkout_id=sa.bindparam("c"), name=sa.bindparam("n"), **_CHECKPOINT_VALUES
)


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """What Orbital last wrote for a projection: the position rendered, and the file's
    size, mtime and hash (``sha256`` None after an incremental append)."""

    position: int
    size: int
    mtime_ns: int
    sha256: str | None


class SnapshotReads(Transaction):
    def snapshot(
        self, project: str, name: str, at_or_before: int | None = None
    ) -> tuple[int, bytes] | None:
        """The newest snapshot of ``name`` at or before a position: ``(position, state)``."""
        query = sa.select(snapshots.c.position, snapshots.c.state).where(
            snapshots.c.project_id == project, snapshots.c.name == name
        )
        if at_or_before is not None:
            query = query.where(snapshots.c.position <= at_or_before)
        row = self._conn.execute(query.order_by(snapshots.c.position.desc()).limit(1)).first()
        return None if row is None else (int(row.position), zlib.decompress(row.state))

    def snapshots_after(
        self, project: str, name: str, after: int, until: int
    ) -> list[tuple[int, bytes]]:
        """Every snapshot of ``name`` in the position window ``(after, until]``, oldest first
        (the deltas a read applies on top of a full snapshot)."""
        rows = self._conn.execute(
            sa.select(snapshots.c.position, snapshots.c.state)
            .where(
                snapshots.c.project_id == project,
                snapshots.c.name == name,
                snapshots.c.position > after,
                snapshots.c.position <= until,
            )
            .order_by(snapshots.c.position)
        ).all()
        return [(int(row.position), zlib.decompress(row.state)) for row in rows]

    def snapshot_position(self, project: str, name: str, at_or_before: int) -> int | None:
        """The position of the newest snapshot at or before a position (without its state)."""
        found = self._conn.scalar(
            sa.select(sa.func.max(snapshots.c.position)).where(
                snapshots.c.project_id == project,
                snapshots.c.name == name,
                snapshots.c.position <= at_or_before,
            )
        )
        return None if found is None else int(found)

    def checkpoint(self, checkout: Project, name: str) -> Checkpoint | None:
        """What was last written for projection ``name`` in this checkout (folder)."""
        row = self._conn.execute(_SELECT_CHECKPOINT, {"c": checkout.checkout, "n": name}).first()
        if row is None:
            return None
        return Checkpoint(row.position, row.size, row.mtime_ns, row.sha256)

    def written_versions(self, project: str, name: str) -> dict[str, int]:
        """Every content hash written for projection ``name``, with its position."""
        rows = self._conn.execute(
            sa.select(projections_written.c.sha256, projections_written.c.position).where(
                projections_written.c.project_id == project,
                projections_written.c.name == name,
            )
        ).all()
        return {r.sha256: int(r.position) for r in rows}


class SnapshotWrites(SnapshotReads):
    def save_snapshot(self, project: str, name: str, position: int, state: bytes) -> None:
        """Record folded state (JSON) as of ``position``; stored compressed. A second
        snapshot at the same position is ignored (it would hold the same state)."""
        if self.snapshot_position(project, name, position) == position:
            return
        self._conn.execute(
            snapshots.insert().values(
                project_id=project, name=name, position=position, state=zlib.compress(state, 6)
            )
        )

    def set_checkpoint(self, checkout: Project, name: str, checkpoint: Checkpoint) -> None:
        """Record what was written for a projection in a checkout, in this transaction (and,
        for a whole write, its hash among the project's versions ever written)."""
        table, project = projections_written, checkout.project_id
        if checkpoint.sha256 is not None and (
            self._conn.scalar(
                sa.select(table.c.position).where(
                    table.c.project_id == project,
                    table.c.name == name,
                    table.c.sha256 == checkpoint.sha256,
                )
            )
            is None
        ):
            self._conn.execute(
                table.insert().values(
                    project_id=project,
                    name=name,
                    sha256=checkpoint.sha256,
                    position=checkpoint.position,
                )
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
        if self._conn.execute(_UPDATE_CHECKPOINT, values).rowcount == 0:
            self._conn.execute(_INSERT_CHECKPOINT, values)
