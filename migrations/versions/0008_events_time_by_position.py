"""Drop the ``(project_id, recorded_at)`` index of ``events``: an instant resolves to a
position by a binary search over the primary key (positions are gapless and times never
decrease along them), and the index was about a twelfth of a store's bytes and one more
page written by every append.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""

from __future__ import annotations

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_events_project_recorded_at", table_name="events")


def downgrade() -> None:
    op.create_index("ix_events_project_recorded_at", "events", ["project_id", "recorded_at"])
