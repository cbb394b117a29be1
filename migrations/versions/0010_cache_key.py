"""The store's own secret that signs what a process keeps for the next in the state folder
(kept asks, meaning indexes, token counts, rendered outputs: ``orbital/service/_outputs.py``).
A kept file whose signature this key does not confirm is dropped, never trusted, so a file
written there by anything else decides nothing and shows nothing. Generated once, here.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    table = op.create_table(
        "store_secrets",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
    )
    op.bulk_insert(table, [{"name": "cache", "value": secrets.token_hex(32)}])


def downgrade() -> None:
    op.drop_table("store_secrets")
