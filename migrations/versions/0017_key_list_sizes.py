"""Each list of a family of keys keeps its length beside it (``key_lists.size``): a meaning
lookup orders its terms by how many items each names and reads the shortest lists first,
stopping when none is left to find, so it never reads the long lists of a text's commonest
words only to intersect them with an empty one. The lengths of the lists already kept are
counted here (items are space-separated and a list is never empty).

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("key_lists", sa.Column("size", sa.Integer, nullable=False, server_default="0"))
    op.execute("UPDATE key_lists SET size = length(items) - length(replace(items, ' ', '')) + 1")


def downgrade() -> None:
    with op.batch_alter_table("key_lists") as batch:
        batch.drop_column("size")
