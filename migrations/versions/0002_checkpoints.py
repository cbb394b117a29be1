"""Projection checkpoints: what Orbital last wrote for each projected file.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "checkpoints",
        sa.Column(
            "project_id", sa.String(64), sa.ForeignKey("projects.project_id"), primary_key=True
        ),
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("sha256", sa.String(64), nullable=True),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("mtime_ns", sa.BigInteger, nullable=False),
        sa.Column("written_at", sa.DateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("checkpoints")
