"""Checkouts: a project shared by several folders (machines), found by an identity that
travels with the repository; checkpoints per checkout; PostgreSQL tells followers of each
append.

Every project gets one checkout, its registered folder on the machine that runs this
migration (``ORBITAL_MACHINE``, else the host name), with the project's id as its id, and
the project's checkpoints become that checkout's. Events are not touched.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""

from __future__ import annotations

import os
import socket

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_CHECKPOINT_COLUMNS = "name, position, sha256, size, mtime_ns, written_at"


def _machine() -> str:
    return os.environ.get("ORBITAL_MACHINE", "").strip() or socket.gethostname()


def upgrade() -> None:
    op.add_column("projects", sa.Column("identity", sa.String(64), nullable=True))
    op.create_index("ix_projects_identity", "projects", ["identity"], unique=True)
    op.create_table(
        "checkouts",
        sa.Column("checkout_id", sa.String(80), primary_key=True),
        sa.Column(
            "project_id", sa.String(64), sa.ForeignKey("projects.project_id"), nullable=False
        ),
        sa.Column("machine", sa.String(255), nullable=False),
        sa.Column("root", sa.Text, nullable=False),
        sa.Column("registered_at", sa.DateTime, nullable=False),
        sa.UniqueConstraint("machine", "root", name="uq_checkouts_machine_root"),
        sa.Index("ix_checkouts_project_id", "project_id"),
    )
    op.get_bind().execute(
        sa.text(
            "INSERT INTO checkouts (checkout_id, project_id, machine, root, registered_at) "
            "SELECT project_id, project_id, :machine, root, registered_at FROM projects"
        ),
        {"machine": _machine()},
    )
    op.rename_table("checkpoints", "checkpoints_0005")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER INDEX checkpoints_pkey RENAME TO checkpoints_0005_pkey")
    _checkpoints("checkout_id", "checkouts.checkout_id", 80)
    op.execute(
        f"INSERT INTO checkpoints (checkout_id, {_CHECKPOINT_COLUMNS}) "
        f"SELECT project_id, {_CHECKPOINT_COLUMNS} FROM checkpoints_0005"
    )
    op.drop_table("checkpoints_0005")
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE FUNCTION events_notify() RETURNS trigger LANGUAGE plpgsql AS $$ "
            "BEGIN PERFORM pg_notify('orbital_log', NEW.project_id); RETURN NULL; END $$"
        )
        op.execute(
            "CREATE TRIGGER events_notify AFTER INSERT ON events "
            "FOR EACH ROW EXECUTE FUNCTION events_notify()"
        )


def _checkpoints(key: str, target: str, size: int) -> None:
    op.create_table(
        "checkpoints",
        sa.Column(key, sa.String(size), sa.ForeignKey(target), primary_key=True),
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("sha256", sa.String(64), nullable=True),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("mtime_ns", sa.BigInteger, nullable=False),
        sa.Column("written_at", sa.DateTime, nullable=False),
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS events_notify ON events")
        op.execute("DROP FUNCTION IF EXISTS events_notify()")
    op.rename_table("checkpoints", "checkpoints_0006")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER INDEX checkpoints_pkey RENAME TO checkpoints_0006_pkey")
    _checkpoints("project_id", "projects.project_id", 64)
    op.execute(
        f"INSERT INTO checkpoints (project_id, {_CHECKPOINT_COLUMNS}) "
        f"SELECT k.project_id, {', '.join('c.' + c for c in _CHECKPOINT_COLUMNS.split(', '))} "
        "FROM checkpoints_0006 c JOIN checkouts k ON k.checkout_id = c.checkout_id "
        "WHERE k.checkout_id = k.project_id"
    )
    op.drop_table("checkpoints_0006")
    op.drop_table("checkouts")
    op.drop_index("ix_projects_identity", "projects")
    op.drop_column("projects", "identity")
