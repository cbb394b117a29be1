"""Credentials: HTTP bearer tokens (only a hash of each secret) and the projects they reach.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "credentials",
        sa.Column("token_id", sa.String(32), primary_key=True),
        sa.Column("secret_sha256", sa.String(64), nullable=False),
        sa.Column("audience", sa.String(16), nullable=False),
        sa.Column("label", sa.Text, nullable=False, server_default=""),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("revoked_at", sa.DateTime, nullable=True),
        sa.CheckConstraint("audience IN ('agent', 'workbench')", name="ck_credentials_audience"),
    )
    op.create_table(
        "credential_projects",
        sa.Column(
            "token_id", sa.String(32), sa.ForeignKey("credentials.token_id"), primary_key=True
        ),
        sa.Column(
            "project_id", sa.String(64), sa.ForeignKey("projects.project_id"), primary_key=True
        ),
    )


def downgrade() -> None:
    op.drop_table("credential_projects")
    op.drop_table("credentials")
