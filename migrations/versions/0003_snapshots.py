"""Snapshots of folded state (current and as-of reads never replay the whole log), and the
hashes of every projection written (a hand edit is merged against the version it started from).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "snapshots",
        sa.Column(
            "project_id", sa.String(64), sa.ForeignKey("projects.project_id"), primary_key=True
        ),
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("position", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("state", sa.LargeBinary, nullable=False),
    )
    op.create_table(
        "projections_written",
        sa.Column(
            "project_id", sa.String(64), sa.ForeignKey("projects.project_id"), primary_key=True
        ),
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column("position", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("projections_written")
    op.drop_table("snapshots")
