"""Workbench page sessions: only a hash of each session id, the credential it was opened with,
and when it expires, so a session survives a server restart and ends with its token.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "page_sessions",
        sa.Column("session_sha256", sa.String(64), primary_key=True),
        sa.Column("token_id", sa.String(32), sa.ForeignKey("credentials.token_id"), nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("expires_at", sa.DateTime, nullable=False),
    )
    op.create_index("ix_page_sessions_token_id", "page_sessions", ["token_id"])
    op.create_index("ix_page_sessions_expires_at", "page_sessions", ["expires_at"])


def downgrade() -> None:
    op.drop_table("page_sessions")
